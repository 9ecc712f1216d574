// What config.yaml may hold: the keys of DEFAULT_CONFIG (defaults.ts) plus the ones Python Hermes
// reads that this version does not act on (so a Hermes user's file checks clean), and which values
// name providers. `hermes config check` reports a key outside it with the nearest real one, and a
// provider that does not exist. Plain data and a walk: nothing heavy loads for it.
import { defaultConfig } from './defaults.ts';

/** A section: its known keys (a nested section, or null for a value), or 'open' for keys of your own. */
type Shape = { [key: string]: Shape | null } | 'open';

/** Keys Python Hermes reads beyond DEFAULT_CONFIG here, by section ('' = top level). */
const HERMES_KEYS: Record<string, string[]> = {
  '': [
    'custom_providers', 'context_file_max_chars', 'max_concurrent_sessions', 'database', 'privacy', 'browser', 'tts', 'stt',
    'voice', 'human_delay', 'context', 'kanban', 'checkpoints', 'provider_routing', 'openrouter', 'platforms', 'gateway',
    'slack', 'discord', 'telegram', 'whatsapp', 'matrix', 'mattermost', 'signal', 'email', 'sms', 'onboarding', 'plugins',
    'secrets', 'dashboard', 'honcho', 'acp', 'curator', 'goals', 'skin', 'network', 'updates', 'fallback_model',
  ],
  model: ['openai_runtime', 'name', 'model', 'api_base', 'default_headers', 'extra_body', 'max_tokens', 'temperature', 'local', 'server', 'num_ctx', 'lean', 'lean_below'],
  agent: [
    'budget_warning_ratio', 'run_budget_seconds', 'empty_response_guard', 'service_tier', 'fast_auto_seconds', 'execution_guidance',
    'intent_ack_continuation', 'stall_guards', 'task_completion_guidance', 'parallel_tool_call_guidance', 'environment_probe',
    'reasoning_overrides', 'reasoning_echo', 'image_input_mode', 'gateway_timeout_warning', 'gateway_notify_interval',
    'restart_drain_timeout', 'cron_drain_timeout', 'restart_after_turn_timeout', 'turn_liveness', 'local_stream_stale_timeout',
    'personalities', 'max_tokens', 'verbose', 'max_verify_nudges', 'verify_guidance',
  ],
  terminal: [
    'singularity_image', 'modal_image', 'daytona_image', 'modal_mode', 'shell_init_files', 'auto_source_bashrc', 'home_mode',
    'oneshot_completion_wait_seconds', 'lifetime_seconds', 'temp_dir', 'docker_env', 'docker_mount_cwd_to_workspace',
    'docker_extra_args', 'docker_run_as_host_user', 'docker_snap_compat', 'docker_persist_across_processes',
    'docker_shared_container_key', 'docker_orphan_reaper', 'sandbox_dir', 'vercel_runtime', 'degraded_mode',
  ],
  compression: ['threshold_tokens', 'tail_mode', 'abort_on_summary_failure', 'in_place', 'model_thresholds', 'context_timeout_seconds', 'idle_compact_after_seconds'],
  display: [
    'tool_progress_command', 'busy_ack_enabled', 'resume_display', 'inline_diffs', 'file_mutation_verifier', 'background_process_notifications',
    'language', 'interface', 'runtime_footer', 'status_bar', 'timestamps', 'platforms', 'tool_progress_overrides', 'bell_on_complete',
  ],
  memory: ['write_approval'],
  skills: ['template_vars', 'inline_shell', 'guard_agent_created', 'write_approval', 'create_dir', 'disabled'],
  delegation: ['api_mode', 'orchestrator_enabled', 'child_timeout_seconds', 'inherit_mcp_toolsets', 'fallback_providers', 'reasoning_effort'],
  approvals: ['mcp_reload_confirm', 'destructive_slash_confirm'],
  security: ['website_blocklist', 'tirith_enabled', 'tirith_path', 'tirith_timeout', 'tirith_fail_open'],
  web: ['search_backend', 'extract_backend', 'cache_ttl_minutes', 'keyless_fallback'],
  cron: ['wrap_response', 'catch_up_missed'],
  code_execution: ['mode', 'kernel_idle_timeout', 'max_session_kernels'],
  tool_loop_guardrails: ['non_interactive_hard_stop_enabled', 'loop_caps'],
  session_reset: ['notify'],
  logging: ['file', 'format'],
  tts: ['pre_synthesis'],
};

/** Sections whose keys are yours to name (servers, endpoints, tasks, commands…). */
const OPEN = new Set(['auxiliary', 'agent.personalities', 'agent.reasoning_overrides', 'display.platforms', 'compression.model_thresholds']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function shapeOf(value: unknown, path: string): Shape | null {
  if (OPEN.has(path)) return 'open';
  if (!isObj(value)) return null;
  const keys = Object.keys(value);
  if (!keys.length) return 'open'; // `providers: {}`, `mcp_servers: {}`, `skills.config: {}`…
  const out: { [key: string]: Shape | null } = {};
  for (const k of keys) out[k] = shapeOf(value[k], path ? `${path}.${k}` : k);
  return out;
}

let cached: Shape | null = null;

/** The known keys: DEFAULT_CONFIG's, plus Python Hermes's (whose sections take any keys below them). */
export function configShape(): Shape {
  if (cached) return cached;
  const shape = shapeOf(defaultConfig(), '') as { [key: string]: Shape | null };
  for (const [section, keys] of Object.entries(HERMES_KEYS)) {
    const target = section ? shape[section] : shape;
    if (!target || target === 'open') continue;
    for (const k of keys) if (!(k in target)) target[k] = 'open';
  }
  // Hermes TS's own sections (docs/budgets.md).
  shape.budgets ??= { session_usd: null, daily_usd: null, job_usd: null, session_tokens: null, daily_tokens: null, action: null };
  cached = shape;
  return shape;
}

export interface UnknownKey {
  /** Dotted path as written. */
  key: string;
  keys: string[];
  /** Real keys at the same place, closest first (may be empty). */
  near: string[];
}

/** Keys in a config that nothing reads, each with the closest real keys beside it. */
export function unknownKeys(user: Obj, nearest: (typed: string, known: string[]) => string[]): UnknownKey[] {
  const out: UnknownKey[] = [];
  const walk = (value: Obj, shape: Shape, path: string[]) => {
    if (shape === 'open') return;
    for (const [k, v] of Object.entries(value)) {
      const sub = shape[k];
      if (sub === undefined) {
        const siblings = Object.keys(shape);
        const near = nearest(k, siblings).map((n) => [...path, n].join('.'));
        out.push({ key: [...path, k].join('.'), keys: [...path, k], near });
        continue;
      }
      if (sub && isObj(v)) walk(v, sub, [...path, k]);
    }
  };
  walk(user, configShape(), []);
  return out;
}

/** The values that name a provider, with their paths (`model.provider`, `fallback_providers[1].provider`…). */
export function providerRefs(user: Obj): { key: string; keys: (string | number)[]; value: string; allowMain: boolean }[] {
  const out: { key: string; keys: (string | number)[]; value: string; allowMain: boolean }[] = [];
  const add = (keys: (string | number)[], v: unknown, allowMain = false) => {
    if (typeof v !== 'string' || !v.trim()) return;
    out.push({ key: keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join(''), keys, value: v.trim(), allowMain });
  };
  if (isObj(user.model)) add(['model', 'provider'], user.model.provider);
  if (Array.isArray(user.fallback_providers)) user.fallback_providers.forEach((f, i) => isObj(f) && add(['fallback_providers', i, 'provider'], f.provider));
  for (const section of ['delegation', 'cron'] as const) if (isObj(user[section])) add([section, 'provider'], (user[section] as Obj).provider);
  if (isObj(user.auxiliary)) for (const [task, cfg] of Object.entries(user.auxiliary)) if (isObj(cfg)) add(['auxiliary', task, 'provider'], cfg.provider, true);
  return out;
}
