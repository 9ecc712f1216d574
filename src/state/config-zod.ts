// The one schema of config.yaml, written as a function of zod's `z` (zod is imported only as a type,
// so nothing here loads it). From it come: the TypeScript type of a loaded config (`HermesConfig`,
// z.output), the defaults (`.default()` on every setting), and its JSON Schema. Both of those are
// precomputed into src/state/config-generated.ts by `node scripts/config-gen.mjs` (a test fails
// when that file is stale), so start-up reads plain data: the defaults config.yaml is merged over,
// the types `loadConfig` checks, the keys `hermes config check` knows, the dashboard's form fields
// and the key list of docs/config-keys.md all come from that JSON Schema.
//
// Keys and defaults follow Python Hermes's DEFAULT_CONFIG (a Hermes config.yaml works as-is). Keys
// Python Hermes reads that this version does not act on are `hermes()` (any value, not checked), so
// a Hermes user's file checks clean. `record`s are sections whose keys are yours to name (servers,
// endpoints, tasks, commands…). `.meta({ options })` lists a setting's usual values for the form
// without refusing others; `.meta({ message })` is the line a wrong value gets.
import type * as ZodModule from 'zod';

type Z = typeof ZodModule.z;
type Shape = ZodModule.ZodRawShape;

export function hermesConfigSchema(z: Z) {
  const str = (d = '') => z.string().default(d);
  const num = (d: number) => z.number().default(d);
  const bool = (d: boolean) => z.boolean().default(d);
  const strs = (d: string[] = []) => z.array(z.string()).default(() => [...d]);
  const numOrNull = (d: number | null) => z.number().nullable().default(d);
  /** A key Python Hermes reads that this version accepts without acting on it (any value). */
  const hermes = () => z.unknown().optional().meta({ unsupported: true });
  /** Any value, read leniently by the code that uses it (which reports bad values itself). */
  const lenient = () => z.unknown().optional();
  /** A section: missing → all its defaults. */
  const section = <S extends Shape>(shape: S) => z.object(shape).prefault({} as never);
  /** A string with a set of usual values (shown as choices by the dashboard, not enforced). */
  const choice = (d: string, options: string[]) => z.string().default(d).meta({ options });
  const oneOf = <const T extends readonly [string, ...string[]]>(values: T, d: T[number]) => z.enum(values).default(d as never);
  const open = () => z.record(z.string(), z.unknown()).default(() => ({}));

  const auxFields = (timeout: number) => ({
    provider: str('auto'),
    model: str(),
    base_url: str(),
    api_key: str(),
    timeout: num(timeout),
    extra_body: open(),
    reasoning_effort: str(),
  });
  const auxTask = (timeout: number) =>
    z
      .object({ ...auxFields(timeout), download_timeout: z.number().optional() })
      .loose()
      .prefault({} as never);

  const namedProvider = z
    .object({
      base_url: z.string().optional(),
      api_key: z.string().optional(),
      key_env: z.string().optional(),
      api_mode: z.string().optional(),
      model: z.string().optional(),
      extra_headers: z.record(z.string(), z.string()).optional(),
      context_length: z.number().optional(),
    })
    .loose();

  const fallbackProvider = z
    .object({
      provider: z.string(),
      model: z.string(),
      base_url: z.string().optional(),
      api_key: z.string().optional(),
      key_env: z.string().optional(),
      api_mode: z.string().optional(),
      context_length: z.number().optional(),
    })
    .loose()
    .meta({ message: 'needs both `provider` and `model`' });

  const quickCommand = z
    .object({
      type: z.string().optional(),
      command: z.string().optional(),
      target: z.string().optional(),
      description: z.string().optional(),
    })
    .loose();

  const guardCounts = (exact: number, same: number, idle: number) =>
    section({ exact_failure: num(exact), same_tool_failure: num(same), idempotent_no_progress: num(idle) });

  return z.object({
    /** Python Hermes's config format version (its `migrate_config` steps; src/state/config-migrations.ts). */
    _config_version: num(33),
    model: section({
      default: str(),
      provider: z.string().default('auto').meta({ optionsFrom: 'providers' }),
      base_url: str(),
      api_key: str(),
      api_mode: z
        .enum(['', 'chat_completions', 'anthropic_messages', 'codex_responses', 'openai', 'responses', 'anthropic'])
        .default('')
        .meta({ options: ['', 'chat_completions', 'anthropic_messages', 'codex_responses'] }),
      context_length: numOrNull(null),
      /** Tool calls written as text. */
      tool_call_parser: choice('auto', ['auto', 'none', 'hermes', 'llama3', 'pythonic', 'mistral', 'deepseek', 'json']),
      /** `codex_app_server` hands turns to `codex app-server` (providers openai / openai-codex); `auto` = Hermes's loop. */
      openai_runtime: z.string().optional(),
      /** The conversation's output cap (`max_tokens`); unset = the provider's or model's default. */
      max_tokens: z.number().nullable().optional(),
      name: hermes(),
      model: hermes(),
      api_base: hermes(),
      default_headers: hermes(),
      extra_body: hermes(),
      temperature: hermes(),
      local: hermes(),
      server: hermes(),
      num_ctx: hermes(),
      lean: hermes(),
      lean_below: hermes(),
    }).meta({ message: 'must be a model name or a mapping' }),
    providers: z.record(z.string(), namedProvider).default(() => ({})).meta({ message: 'must be a mapping of provider names' }),
    /** Hermes's list of named custom endpoints (`name`, `base_url`, `key_env`/`api_key`, `model`, …); see state/endpoints.ts. */
    custom_providers: z.array(z.record(z.string(), z.unknown())).default(() => []),
    fallback_providers: z.array(fallbackProvider).default(() => []).meta({ message: 'must be a list' }),
    credential_pool_strategies: z.record(z.string(), z.string()).default(() => ({})),
    toolsets: strs(['hermes-cli']),
    platform_toolsets: z.record(z.string(), z.array(z.string())).default(() => ({})),
    custom_toolsets: z.record(z.string(), z.array(z.string())).default(() => ({})),
    model_aliases: z.record(z.string(), z.string()).default(() => ({})),
    quick_commands: z.record(z.string(), quickCommand).default(() => ({})),
    command_allowlist: strs(),
    mcp_servers: z.record(z.string(), z.record(z.string(), z.unknown())).default(() => ({})),
    /** Other Hermes gateways this one may DM (`hermes peer`, Hermes 0.21): name → {url, note}; each key is HERMES_PEER_<NAME>_KEY in .env. */
    bot_peers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    timezone: str(),
    prefill_messages_file: str(),
    file_read_max_chars: num(100_000),
    /** search_files stops after this many seconds and returns what it found. */
    file_search_timeout_seconds: num(30),
    tool_output: section({ max_bytes: num(50_000), max_lines: num(2000), max_line_length: num(2000) }),
    agent: section({
      // Python Hermes 0.19 reads these; not acted on here.
      environment_hint: hermes(), coding_context: hermes(), coding_instructions: hermes(), verify_on_stop: hermes(), gateway_auto_continue_freshness: hermes(),
      max_turns: z
        .union([z.number().positive(), z.null(), z.enum(['none', 'unlimited'])])
        .default(90)
        .meta({ message: 'must be a positive number (or null for unlimited)' }),
      api_max_retries: num(3),
      reasoning_effort: choice('', ['', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh']),
      disabled_toolsets: strs(),
      system_prompt: str(),
      tool_use_enforcement: z.union([z.string(), z.boolean(), z.array(z.string())]).default('auto').meta({ options: ['auto', 'on', 'off'] }),
      clarify_timeout: num(3600),
      gateway_timeout: num(1800),
      // max_size unset: sized from memory (src/gateway/cache.ts defaultCacheSize; 128 at least).
      agent_cache: section({ max_size: z.number().optional(), idle_ttl_secs: num(3600) }),
      max_verify_nudges: z.number().optional(),
      personalities: z.record(z.string(), z.unknown()).optional(),
      reasoning_overrides: z.record(z.string(), z.unknown()).optional(),
      budget_warning_ratio: hermes(),
      run_budget_seconds: hermes(),
      empty_response_guard: hermes(),
      service_tier: hermes(),
      fast_auto_seconds: hermes(),
      execution_guidance: hermes(),
      intent_ack_continuation: hermes(),
      stall_guards: hermes(),
      task_completion_guidance: hermes(),
      parallel_tool_call_guidance: hermes(),
      environment_probe: hermes(),
      reasoning_echo: hermes(),
      image_input_mode: hermes(),
      gateway_timeout_warning: hermes(),
      gateway_notify_interval: hermes(),
      restart_drain_timeout: hermes(),
      cron_drain_timeout: hermes(),
      restart_after_turn_timeout: hermes(),
      turn_liveness: hermes(),
      local_stream_stale_timeout: hermes(),
      max_tokens: hermes(),
      verbose: hermes(),
      verify_guidance: hermes(),
    }),
    terminal: section({
      // Python Hermes 0.19 reads these; not acted on here.
      daemon_term_grace_seconds: hermes(),
      // A built-in backend, or the name a plugin registers (checked when the terminal starts).
      backend: z
        .string()
        .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/)
        .default('local')
        .meta({
          options: ['local', 'ssh', 'docker', 'singularity', 'modal', 'daytona', 'vercel_sandbox'],
          message: 'must be one of: local, ssh, docker, singularity, modal, daytona, vercel_sandbox (or a plugin backend name)',
        }),
      cwd: str('.'),
      timeout: num(180),
      /** A one-shot run waits this long for notify_on_complete processes before it exits (0: not at all). */
      oneshot_completion_wait_seconds: num(600),
      env_passthrough: strs(),
      docker_image: str('nikolaik/python-nodejs:python3.11-nodejs20'),
      docker_forward_env: strs(),
      docker_volumes: strs(),
      docker_network: bool(true),
      docker_shm_size: str('1g'),
      container_cpu: num(1),
      container_memory: num(5120),
      container_disk: num(51200),
      container_persistent: bool(true),
      persistent_shell: bool(true),
      ssh_host: str(),
      ssh_user: str(),
      ssh_port: num(22),
      ssh_key: str(),
      /** The OS sandbox under every local command the agent runs (docs/sandbox.md). */
      sandbox: section({
        mode: oneOf(['workspace-write', 'read-only', 'off'], 'workspace-write'),
        network: z
          .union([z.enum(['on', 'off']), z.boolean()])
          .default('on')
          .meta({ options: ['on', 'off'], message: 'must be on or off' }),
        extra_writable: strs(),
      }),
      local_persistent: hermes(),
      subagent_auto_approve: hermes(),
      singularity_image: hermes(),
      modal_image: hermes(),
      daytona_image: hermes(),
      modal_mode: hermes(),
      shell_init_files: hermes(),
      auto_source_bashrc: hermes(),
      home_mode: hermes(),
      lifetime_seconds: hermes(),
      temp_dir: hermes(),
      docker_env: hermes(),
      docker_mount_cwd_to_workspace: hermes(),
      docker_extra_args: hermes(),
      docker_run_as_host_user: hermes(),
      docker_snap_compat: hermes(),
      docker_persist_across_processes: hermes(),
      docker_shared_container_key: hermes(),
      docker_orphan_reaper: hermes(),
      sandbox_dir: hermes(),
      vercel_runtime: hermes(),
      degraded_mode: hermes(),
    }),
    compression: section({
      // Python Hermes 0.19 reads these; not acted on here.
      progress_notices: hermes(), min_tail_user_messages: hermes(), proactive_prune_tokens: hermes(), proactive_prune_min_result_chars: hermes(), proactive_prune_min_reclaim_tokens: hermes(), hygiene_hard_message_limit: hermes(), hygiene_timeout_seconds: hermes(), hygiene_failure_cooldown_seconds: hermes(), codex_gpt55_autoraise: hermes(), codex_gpt55_autoraise_notice: hermes(), codex_app_server_auto: hermes(),
      enabled: bool(true),
      threshold: num(0.5),
      target_ratio: num(0.2),
      protect_last_n: num(20),
      protect_first_n: num(3),
      max_attempts: num(3),
      in_place: bool(true),
      model_thresholds: z.record(z.string(), z.unknown()).optional(),
      threshold_tokens: hermes(),
      tail_mode: hermes(),
      abort_on_summary_failure: hermes(),
      context_timeout_seconds: hermes(),
      idle_compact_after_seconds: hermes(),
    }),
    prompt_caching: section({ cache_ttl: oneOf(['5m', '1h', 'auto'], '5m') }),
    auxiliary: z
      .object({
        vision: z
          .object({ ...auxFields(120), download_timeout: num(30) })
          .loose()
          .prefault({} as never),
        web_extract: auxTask(120),
        compression: auxTask(120),
        session_search: auxTask(60),
        skills_hub: auxTask(30),
        approval: auxTask(30),
        mcp: auxTask(30),
        title_generation: auxTask(30),
        background_review: auxTask(300),
      })
      .catchall(auxTask(30))
      .prefault({}),
    display: section({
      // Python Hermes 0.19 reads these; not acted on here.
      resume_exchanges: hermes(), resume_max_user_chars: hermes(), resume_max_assistant_chars: hermes(), resume_max_assistant_lines: hermes(), resume_skip_tool_only: hermes(), busy_steer_ack_enabled: hermes(), tui_auto_resume_recent: hermes(), tui_agents_nudge: hermes(), reasoning_full: hermes(), timestamp_format: hermes(), persistent_output: hermes(), persistent_output_max_lines: hermes(), persist_prompts: hermes(), credits_notices: hermes(), turn_completion_explainer: hermes(), battery: hermes(), tui_status_indicator: hermes(), cli_refresh_interval: hermes(), user_message_preview: hermes(), interim_assistant_messages: hermes(), show_commentary: hermes(), tool_preview_length: hermes(), friendly_tool_labels: hermes(), tool_progress_grouping: hermes(), status_phrases: hermes(), reasoning_style: hermes(), ephemeral_system_ttl: hermes(), copy_shortcut: hermes(), pet: hermes(),
      tool_progress: oneOf(['off', 'new', 'all', 'verbose'], 'all'),
      streaming: bool(true),
      show_reasoning: bool(true),
      busy_input_mode: oneOf(['interrupt', 'queue', 'steer'], 'interrupt'),
      personality: str(),
      compact: bool(false),
      show_cost: bool(false),
      skin: str('default'),
      final_response_markdown: choice('render', ['render', 'strip', 'raw']),
      memory_notifications: choice('on', ['on', 'off']),
      /** `cli` (the classic REPL) or `tui` (the full-screen terminal UI). */
      interface: choice('cli', ['cli', 'tui']),
      /** Language of approval prompts, notices and gateway replies (HERMES_LANGUAGE overrides). */
      language: str('en'),
      inline_diffs: z.boolean().optional(),
      /** The REPL's busy indicator (state/skins.ts). */
      indicator_style: z.string().optional(),
      /** The TUI draws on the alternate screen (default true). */
      tui_alt_screen: z.boolean().optional(),
      /** The TUI's mouse: wheel (default) | off | false. */
      mouse_tracking: z.union([z.string(), z.boolean()]).optional(),
      platforms: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
      tool_progress_command: hermes(),
      busy_ack_enabled: hermes(),
      resume_display: hermes(),
      file_mutation_verifier: hermes(),
      background_process_notifications: hermes(),
      runtime_footer: hermes(),
      status_bar: hermes(),
      timestamps: hermes(),
      tool_progress_overrides: hermes(),
      bell_on_complete: hermes(),
    }),
    memory: section({
      memory_enabled: bool(true),
      user_profile_enabled: bool(true),
      memory_char_limit: num(2200),
      user_char_limit: num(1375),
      nudge_interval: num(10),
      provider: str(),
      write_approval: hermes(),
      retaindb: z.record(z.string(), z.unknown()).optional(),
    }),
    skills: section({
      // Python Hermes 0.19 reads these; not acted on here.
      inline_shell_timeout: hermes(),
      external_dirs: strs(),
      creation_nudge_interval: num(10),
      config: open(),
      hub: z.object({ index_url: z.string().optional(), github_api: z.string().optional(), default_taps: z.boolean().optional() }).loose().optional(),
      template_vars: hermes(),
      inline_shell: hermes(),
      guard_agent_created: hermes(),
      write_approval: hermes(),
      create_dir: hermes(),
      disabled: hermes(),
      /** Skills turned off per platform (`hermes skills disable --platform`). */
      platform_disabled: z.record(z.string(), z.unknown()).optional(),
      /** The per-change skill ledger (src/state/skill-ledger.ts; default on). */
      ledger: z.boolean().optional(),
    }),
    delegation: section({
      model: str(),
      provider: str(),
      base_url: str(),
      api_key: str(),
      max_iterations: num(50),
      /** Subagents at once: one batch's parallel children and background delegations (Hermes v33 folded max_async_children in). */
      max_concurrent_children: num(3),
      max_spawn_depth: num(1),
      max_summary_chars: num(24_000),
      subagent_auto_approve: bool(false),
      /** role: orchestrator lets a subagent delegate further (within max_spawn_depth). */
      orchestrator_enabled: bool(true),
      api_mode: hermes(),
      child_timeout_seconds: hermes(),
      inherit_mcp_toolsets: hermes(),
      fallback_providers: hermes(),
      reasoning_effort: hermes(),
    }),
    approvals: section({
      mode: z
        .union([z.enum(['manual', 'smart', 'off']), z.literal(false)])
        .default('manual')
        .meta({ options: ['manual', 'smart', 'off'], message: 'must be one of: manual, smart, off' }),
      timeout: num(300),
      cron_mode: choice('deny', ['deny', 'approve']),
      single_query_mode: choice('deny', ['deny', 'approve']),
      unattended_mode: choice('deny', ['deny', 'approve']),
      deny: strs(),
      /** Extra rules for the smart-mode reviewer (its system prompt). */
      smart_policy: str(),
      /** Consecutive smart denials before the model is told to stop trying (0: never). */
      denial_breaker_threshold: num(3),
      mcp_reload_confirm: hermes(),
      destructive_slash_confirm: hermes(),
    }),
    security: section({
      // Python Hermes 0.19 reads these; not acted on here.
      acked_advisories: hermes(), allow_lazy_installs: hermes(),
      redact_secrets: bool(true),
      allow_private_urls: bool(false),
      /** Domains the web tools refuse (Hermes's `security.website_blocklist`). */
      website_blocklist: section({ enabled: bool(false), domains: strs(), shared_files: strs() }),
      tirith_enabled: hermes(),
      tirith_path: hermes(),
      tirith_timeout: hermes(),
      tirith_fail_open: hermes(),
    }),
    web: section({
      backend: str(),
      extract_char_limit: num(15_000),
      search_backend: hermes(),
      extract_backend: hermes(),
      cache_ttl_minutes: hermes(),
      keyless_fallback: hermes(),
    }),
    /** The browser tools (Hermes's keys; `cloud_provider`: local | browserbase | browser-use). */
    browser: section({
      // Python Hermes 0.19 reads these; not acted on here.
      record_sessions: hermes(), engine: hermes(), auto_local_for_private_urls: hermes(), allow_unsafe_evaluate: hermes(), restrict_evaluate: hermes(), dialog_policy: hermes(), dialog_timeout_s: hermes(), camofox: hermes(),
      cloud_provider: choice('', ['', 'local', 'browserbase', 'browser-use']),
      cdp_url: str(),
      inactivity_timeout: num(120),
      command_timeout: num(30),
      snapshot_threshold: num(15_000),
      headed: bool(false),
      allow_private_urls: bool(false),
      /** A named profile shared by every session (empty: one profile per session). */
      profile: str(),
    }),
    /** Image generation: the provider, its model, and a section per provider (`image_gen.openai.model`…). */
    image_gen: z.object({ provider: str('fal'), model: str() }).loose().prefault({} as never),
    tts: section({
      // Python Hermes 0.19 reads these; not acted on here.
      gemini: hermes(), xai: hermes(), mistral: hermes(), minimax: hermes(), kittentts: hermes(), neutts: hermes(), piper: hermes(), deepinfra: hermes(),
      provider: str('edge'),
      edge: section({ voice: str('en-US-AriaNeural') }),
      openai: section({ model: str('gpt-4o-mini-tts'), voice: str('alloy') }),
      elevenlabs: section({ voice_id: str('pNInz6obpgDQGcFmaJgB'), model_id: str('eleven_multilingual_v2') }),
      pre_synthesis: hermes(),
    }),
    stt: section({
      echo_transcripts: hermes(), mistral: hermes(), elevenlabs: hermes(), deepinfra: hermes(),
      enabled: bool(true),
      provider: str('local'),
      local: section({ model: str('base'), language: hermes() }),
      openai: section({ model: str('whisper-1') }),
      groq: section({ model: str('whisper-large-v3-turbo') }),
    }),
    voice: section({ beep_enabled: hermes(), barge_in: hermes(), record_key: str('ctrl+b'), max_recording_seconds: num(120), auto_tts: bool(false), silence_threshold: num(200), silence_duration: num(3.0) }),
    code_execution: section({ timeout: num(300), max_tool_calls: num(50), mode: hermes(), kernel_idle_timeout: hermes(), max_session_kernels: hermes() }),
    tool_loop_guardrails: section({
      warnings_enabled: bool(true),
      hard_stop_enabled: bool(false),
      warn_after: guardCounts(2, 3, 2),
      hard_stop_after: guardCounts(5, 8, 5),
      non_interactive_hard_stop_enabled: hermes(),
      loop_caps: hermes(),
    }),
    cron: section({ chronos: hermes(), mirror_delivery: hermes(), max_parallel_jobs: hermes(), session_db_timeout_seconds: hermes(), provider: str(), script_timeout_seconds: num(120), max_parallel: num(4), output_retention: num(50), wrap_response: hermes(), catch_up_missed: hermes() }),
    kanban: section({
      // Python Hermes 0.19 reads these; not acted on here.
      worker_log_rotate_bytes: hermes(), worker_log_backup_count: hermes(), orchestrator_profile: hermes(), max_in_progress_per_profile: hermes(), auto_decompose: hermes(), auto_decompose_per_tick: hermes(),
      dispatch_in_gateway: bool(true),
      dispatch_interval_seconds: num(60),
      failure_limit: num(2),
      /** null: one worker per 512 MiB of RAM, between 2 and 8. */
      max_in_progress: numOrNull(null),
      dispatch_stale_timeout_seconds: num(14_400),
      auto_subscribe_on_create: bool(true),
      /** The profile an unassigned ready task is given when dispatched ('' leaves such tasks waiting). */
      default_assignee: str('default'),
    }),
    /** The Codex app-server runtime (model.openai_runtime: codex_app_server): binary, CODEX_HOME, model override, seconds per turn. */
    codex: section({ path: str(), home: str(), model: str(), turn_timeout: num(600) }),
    session_reset: section({ mode: choice('both', ['both', 'idle', 'daily', 'none']), idle_minutes: num(1440), at_hour: num(4), notify: hermes() }),
    /** Shadow-git snapshots before destructive edits, for /rollback (off by default, as Hermes). */
    // `checkpoints: true` is short for `checkpoints: {enabled: true}` (src/session/checkpointing.ts).
    checkpoints: z
      .union([
        z.boolean(),
        section({ enabled: bool(false), max_snapshots: num(20), max_total_size_mb: num(500), max_file_size_mb: num(10), auto_prune: bool(true), retention_days: num(7), delete_orphans: hermes(), min_interval_hours: hermes() }),
      ])
      .default(() => ({ enabled: false, max_snapshots: 20, max_total_size_mb: 500, max_file_size_mb: 10, auto_prune: true, retention_days: 7 })),
    group_sessions_per_user: bool(true),
    thread_sessions_per_user: bool(false),
    unauthorized_dm_behavior: choice('pair', ['pair', 'ignore']),
    logging: section({ level: choice('INFO', ['DEBUG', 'INFO', 'WARNING', 'ERROR']), max_size_mb: num(5), backup_count: num(3), file: hermes(), format: hermes() }),
    save_trajectories: bool(false),
    /** Where sessions, search, gateway routing and claims live: `sqlite` (HERMES_HOME/state.db) or `postgres` (url, or HERMES_DATABASE_URL). */
    state: section({ backend: choice('sqlite', ['sqlite', 'postgres']), url: str() }),
    /** Spend caps (docs/budgets.md): read leniently by src/session/budgets.ts, which warns about bad values itself. */
    budgets: z
      .object({ session_usd: lenient(), daily_usd: lenient(), job_usd: lenient(), session_tokens: lenient(), daily_tokens: lenient(), action: lenient() })
      .optional(),
    // Python Hermes's sections this version reads only in part (or not at all): any keys below them.
    curator: z.record(z.string(), z.unknown()).optional(),
    dashboard: z.record(z.string(), z.unknown()).optional(),
    plugins: z.record(z.string(), z.unknown()).optional(),
    debug: z.record(z.string(), z.unknown()).optional(),
    /** Shell hooks by event and `hooks.outbound` webhooks (src/plugins/load.ts, outbound-webhooks.ts). */
    hooks: z.record(z.string(), z.unknown()).optional(),
    /** The webhook platform's routes (src/gateway/platforms/webhook.ts). */
    webhooks: z.record(z.string(), z.unknown()).optional(),
    /** Mixture of agents (src/session/moa.ts). */
    moa: z.record(z.string(), z.unknown()).optional(),
    fal: z.record(z.string(), z.unknown()).optional(),
    personalities: hermes(),
    // Sections and keys of Python Hermes 0.19's DEFAULT_CONFIG this version does not act on.
    max_live_sessions: hermes(), mcp_discovery_timeout: hermes(), mcp: hermes(), bedrock: hermes(), platform_hints: hermes(), hooks_auto_accept: hermes(), tools: hermes(), model_catalog: hermes(), streaming: hermes(), sessions: hermes(), lsp: hermes(), x_search: hermes(), paste_collapse_threshold: hermes(), paste_collapse_threshold_fallback: hermes(), paste_collapse_char_threshold: hermes(), computer_use: hermes(), desktop: hermes(), vertex: hermes(),
    context_file_max_chars: hermes(),
    max_concurrent_sessions: hermes(),
    database: hermes(),
    privacy: hermes(),
    human_delay: hermes(),
    context: hermes(),
    provider_routing: hermes(),
    openrouter: hermes(),
    platforms: hermes(),
    gateway: hermes(),
    slack: hermes(),
    discord: hermes(),
    telegram: hermes(),
    whatsapp: hermes(),
    matrix: hermes(),
    mattermost: hermes(),
    signal: hermes(),
    email: hermes(),
    sms: hermes(),
    onboarding: hermes(),
    secrets: hermes(),
    honcho: hermes(),
    acp: hermes(),
    goals: hermes(),
    skin: hermes(),
    network: hermes(),
    updates: hermes(),
    fallback_model: hermes(),
  });
}

export type HermesConfigSchema = ReturnType<typeof hermesConfigSchema>;
/** A loaded config: config.yaml merged over the defaults. */
export type HermesConfig = ZodModule.output<HermesConfigSchema>;
