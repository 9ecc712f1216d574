// Hermes's DEFAULT_CONFIG: config.yaml is deep-merged over this. Keys and defaults follow the
// Python Hermes (v0.14 era, with the stable later refinements), so a Hermes config.yaml works as-is.

export interface ModelConfig {
  default: string;
  provider: string;
  base_url: string;
  api_key: string;
  api_mode: string;
  context_length: number | null;
  /** Tool calls written as text: auto | none | hermes | llama3 | pythonic | mistral | deepseek | json. */
  tool_call_parser: string;
  /** `codex_app_server` hands turns to `codex app-server` (providers openai / openai-codex); `auto` = Hermes's loop. */
  openai_runtime?: string;
  /** The conversation's output cap (`max_tokens`); unset = the provider's or model's default. */
  max_tokens?: number | null;
}

export interface NamedProviderConfig {
  base_url?: string;
  api_key?: string;
  key_env?: string;
  api_mode?: string;
  model?: string;
  extra_headers?: Record<string, string>;
  context_length?: number;
}

export interface FallbackProviderConfig {
  provider: string;
  model: string;
  base_url?: string;
  api_key?: string;
  key_env?: string;
  api_mode?: string;
  context_length?: number;
}

export interface AuxiliaryTaskConfig {
  provider: string;
  model: string;
  base_url: string;
  api_key: string;
  timeout: number;
  extra_body: Record<string, unknown>;
  reasoning_effort: string;
}

const aux = (timeout: number): AuxiliaryTaskConfig => ({
  provider: 'auto',
  model: '',
  base_url: '',
  api_key: '',
  timeout,
  extra_body: {},
  reasoning_effort: '',
});

export function defaultConfig() {
  return {
    _config_version: 12,
    model: {
      default: '',
      provider: 'auto',
      base_url: '',
      api_key: '',
      api_mode: '',
      context_length: null,
      tool_call_parser: 'auto',
    } as ModelConfig,
    providers: {} as Record<string, NamedProviderConfig>,
    /** Hermes's list of named custom endpoints (`name`, `base_url`, `key_env`/`api_key`, `model`, …); see state/endpoints.ts. */
    custom_providers: [] as Record<string, unknown>[],
    fallback_providers: [] as FallbackProviderConfig[],
    credential_pool_strategies: {} as Record<string, string>,
    toolsets: ['hermes-cli'] as string[],
    platform_toolsets: {} as Record<string, string[]>,
    custom_toolsets: {} as Record<string, string[]>,
    model_aliases: {} as Record<string, string>,
    quick_commands: {} as Record<string, { type: 'exec' | 'alias'; command?: string; target?: string; description?: string }>,
    command_allowlist: [] as string[],
    mcp_servers: {} as Record<string, Record<string, unknown>>,
    timezone: '',
    prefill_messages_file: '',
    file_read_max_chars: 100_000,
    /** search_files stops after this many seconds and returns what it found. */
    file_search_timeout_seconds: 30,
    tool_output: { max_bytes: 50_000, max_lines: 2000, max_line_length: 2000 },
    agent: {
      max_turns: 90 as number | null,
      api_max_retries: 3,
      reasoning_effort: '',
      disabled_toolsets: [] as string[],
      system_prompt: '',
      tool_use_enforcement: 'auto',
      clarify_timeout: 3600,
      gateway_timeout: 1800,
      // max_size unset: sized from memory (src/gateway/cache.ts defaultCacheSize; 128 at least).
      agent_cache: { idle_ttl_secs: 3600 } as { max_size?: number; idle_ttl_secs: number },
    },
    terminal: {
      backend: 'local',
      cwd: '.',
      timeout: 180,
      /** A one-shot run waits this long for notify_on_complete processes before it exits (0: not at all). */
      oneshot_completion_wait_seconds: 600,
      env_passthrough: [] as string[],
      docker_image: 'nikolaik/python-nodejs:python3.11-nodejs20',
      docker_forward_env: [] as string[],
      docker_volumes: [] as string[],
      docker_network: true,
      docker_shm_size: '1g',
      container_cpu: 1,
      container_memory: 5120,
      container_disk: 51200,
      container_persistent: true,
      persistent_shell: true,
      ssh_host: '',
      ssh_user: '',
      ssh_port: 22,
      ssh_key: '',
      /** The OS sandbox under every local command the agent runs (docs/sandbox.md). */
      sandbox: { mode: 'workspace-write', network: 'on', extra_writable: [] as string[] } as { mode: string; network: string | boolean; extra_writable: string[] },
    },
    compression: {
      enabled: true,
      threshold: 0.5,
      target_ratio: 0.2,
      protect_last_n: 20,
      protect_first_n: 3,
      max_attempts: 3,
      in_place: true,
    },
    prompt_caching: { cache_ttl: '5m' },
    auxiliary: {
      vision: { ...aux(120), download_timeout: 30 },
      web_extract: aux(120),
      compression: aux(120),
      session_search: aux(60),
      skills_hub: aux(30),
      approval: aux(30),
      mcp: aux(30),
      title_generation: aux(30),
      background_review: aux(300),
    } as Record<string, AuxiliaryTaskConfig & { download_timeout?: number }>,
    display: {
      tool_progress: 'all',
      streaming: true,
      show_reasoning: true,
      busy_input_mode: 'interrupt',
      personality: '',
      compact: false,
      show_cost: false,
      skin: 'default',
      final_response_markdown: 'render',
      memory_notifications: 'on',
      /** `cli` (the classic REPL) or `tui` (the full-screen terminal UI). */
      interface: 'cli',
      /** Language of approval prompts, notices and gateway replies (HERMES_LANGUAGE overrides). */
      language: 'en',
    },
    memory: {
      memory_enabled: true,
      user_profile_enabled: true,
      memory_char_limit: 2200,
      user_char_limit: 1375,
      nudge_interval: 10,
      provider: '',
    },
    skills: {
      external_dirs: [] as string[],
      creation_nudge_interval: 10,
      config: {} as Record<string, unknown>,
    },
    delegation: {
      model: '',
      provider: '',
      base_url: '',
      api_key: '',
      max_iterations: 50,
      max_concurrent_children: 3,
      max_spawn_depth: 1,
      max_summary_chars: 24_000,
      subagent_auto_approve: false,
      /** role: orchestrator lets a subagent delegate further (within max_spawn_depth). */
      orchestrator_enabled: true,
      /** Background subagents (delegate_task background) running at once. */
      max_async_children: 3,
    },
    approvals: {
      mode: 'manual',
      timeout: 300,
      cron_mode: 'deny',
      single_query_mode: 'deny',
      unattended_mode: 'deny',
      deny: [] as string[],
      /** Extra rules for the smart-mode reviewer (its system prompt). */
      smart_policy: '',
      /** Consecutive smart denials before the model is told to stop trying (0: never). */
      denial_breaker_threshold: 3,
    },
    security: {
      redact_secrets: true,
      allow_private_urls: false,
      /** Domains the web tools refuse (Hermes's `security.website_blocklist`). */
      website_blocklist: { enabled: false, domains: [] as string[], shared_files: [] as string[] },
    },
    web: {
      backend: '',
      extract_char_limit: 15_000,
    },
    /** The browser tools (Hermes's keys; `cloud_provider`: local | browserbase | browser-use). */
    browser: {
      cloud_provider: '',
      cdp_url: '',
      inactivity_timeout: 120,
      command_timeout: 30,
      snapshot_threshold: 15_000,
      headed: false,
      allow_private_urls: false,
      /** A named profile shared by every session (empty: one profile per session). */
      profile: '',
    },
    image_gen: { provider: 'fal', model: '' },
    tts: {
      provider: 'edge',
      edge: { voice: 'en-US-AriaNeural' },
      openai: { model: 'gpt-4o-mini-tts', voice: 'alloy' },
      elevenlabs: { voice_id: 'pNInz6obpgDQGcFmaJgB', model_id: 'eleven_multilingual_v2' },
    },
    stt: {
      enabled: true,
      provider: 'local',
      local: { model: 'base' },
      openai: { model: 'whisper-1' },
      groq: { model: 'whisper-large-v3-turbo' },
    },
    voice: { record_key: 'ctrl+b', max_recording_seconds: 120, auto_tts: false, silence_threshold: 200, silence_duration: 3.0 },
    code_execution: { timeout: 300, max_tool_calls: 50 },
    tool_loop_guardrails: {
      warnings_enabled: true,
      hard_stop_enabled: false,
      warn_after: { exact_failure: 2, same_tool_failure: 3, idempotent_no_progress: 2 },
      hard_stop_after: { exact_failure: 5, same_tool_failure: 8, idempotent_no_progress: 5 },
    },
    cron: { provider: '', script_timeout_seconds: 120, max_parallel: 4, output_retention: 50 },
    kanban: {
      dispatch_in_gateway: true,
      dispatch_interval_seconds: 60,
      failure_limit: 2,
      /** null: one worker per 512 MiB of RAM, between 2 and 8. */
      max_in_progress: null as number | null,
      dispatch_stale_timeout_seconds: 14_400,
      auto_subscribe_on_create: true,
      /** The profile an unassigned ready task is given when dispatched ('' leaves such tasks waiting). */
      default_assignee: 'default',
    },
    /** The Codex app-server runtime (model.openai_runtime: codex_app_server): binary, CODEX_HOME, model override, seconds per turn. */
    codex: { path: '', home: '', model: '', turn_timeout: 600 },
    session_reset: { mode: 'both', idle_minutes: 1440, at_hour: 4 },
    /** Shadow-git snapshots before destructive edits, for /rollback (off by default, as Hermes). */
    checkpoints: { enabled: false, max_snapshots: 20, max_total_size_mb: 500, max_file_size_mb: 10, auto_prune: true, retention_days: 7 },
    group_sessions_per_user: true,
    thread_sessions_per_user: false,
    unauthorized_dm_behavior: 'pair',
    logging: { level: 'INFO', max_size_mb: 5, backup_count: 3 },
    save_trajectories: false,
    /** Where sessions, search, gateway routing and claims live: `sqlite` (HERMES_HOME/state.db) or `postgres` (url, or HERMES_DATABASE_URL). */
    state: { backend: 'sqlite', url: '' },
  };
}

export type HermesConfig = ReturnType<typeof defaultConfig>;
