// Lifecycle hooks with Hermes's names: plugins register callbacks (`ctx.register_hook`), shell hooks
// from config.yaml's `hooks:` block register the same way, and the core fires them at fixed points
// (tool calls, turns, sessions, approvals, slash commands, subagents). Every callback is isolated: a
// throw or a timeout is logged and skipped — except `pre_tool_call`, which fails closed (the tool is
// blocked) because it is a policy gate. Payload fields are Hermes's (snake_case), so a ported plugin
// and a shell script read the same names the Hermes docs give.
//
// Light on purpose: the Session imports this module, so nothing heavy may load here.

/** Hermes's `VALID_HOOKS`: the event names a plugin or a shell hook may register for. */
export const VALID_HOOKS: readonly string[] = [
  'pre_tool_call',
  'post_tool_call',
  'transform_terminal_output',
  'transform_tool_result',
  'transform_llm_output',
  'pre_llm_call',
  'post_llm_call',
  'on_stream_start',
  'on_stream_delta',
  'on_stream_end',
  'on_interim_message',
  'pre_verify',
  'pre_api_request',
  'post_api_request',
  'api_request_error',
  'pre_auxiliary_call',
  'post_auxiliary_call',
  'transform_api_error_classification',
  'on_session_start',
  'on_session_end',
  'on_session_finalize',
  'on_session_reset',
  'on_skill_lifecycle',
  'subagent_start',
  'subagent_stop',
  'pre_gateway_dispatch',
  'agent_loop_stopped',
  'pre_approval_request',
  'post_approval_response',
  'on_room_member_activity',
  'pre_transcription',
  'pre_tts_synthesis',
  'kanban_task_claimed',
  'kanban_task_completed',
  'kanban_task_blocked',
  'on_kanban_worker_spawned',
  'on_kanban_worker_exited',
  'on_kanban_worker_stale_claim',
  'on_kanban_task_updated',
  'on_kanban_dispatch_tick',
  'gateway_platform_event',
  'pre_command',
];

/** Hooks whose directive a shell script has no way to return (Hermes refuses them for shell hooks). */
export const SHELL_UNSUPPORTED_HOOKS: readonly string[] = ['transform_api_error_classification'];

/**
 * Hooks this build accepts (a Hermes plugin registering them loads) but never fires: `hermes hooks
 * list` and `hermes plugins doctor` say so. Every other name in VALID_HOOKS has a fire site.
 */
export const UNFIRED_HOOKS: readonly string[] = ['on_room_member_activity'];

/** Hooks this build fires. */
export const FIRED_HOOKS: readonly string[] = VALID_HOOKS.filter((h) => !UNFIRED_HOOKS.includes(h));

export type HookPayload = Record<string, unknown>;
export type HookCallback = (payload: HookPayload) => unknown;

export interface RegisteredHook {
  event: string;
  callback: HookCallback;
  /** `plugin:<id>` or `shell:<command>`: who to name in logs and block messages. */
  owner: string;
  kind: 'plugin' | 'shell';
}

/** What a `pre_tool_call` round decided. */
export type ToolCallDirective =
  | { action: 'block'; message: string }
  | { action: 'approve'; message?: string; rule_key?: string; args?: Record<string, unknown> }
  | { action: 'modify'; args: Record<string, unknown> }
  | null;

export type HookProblemLevel = 'WARNING' | 'ERROR';
export type HookLogger = (level: HookProblemLevel | 'INFO', message: string) => void;

const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 600;

/** `plugins.hook_callback_timeout` in ms (default 30 s; 0 = none; at most 600 s). */
export function hookTimeoutMs(config: unknown): number {
  const raw = (config as { plugins?: { hook_callback_timeout?: unknown } } | undefined)?.plugins?.hook_callback_timeout;
  const n = raw === undefined || raw === null || raw === '' ? DEFAULT_TIMEOUT_S : Number(raw);
  if (!Number.isFinite(n) || n < 0) return DEFAULT_TIMEOUT_S * 1000;
  return Math.min(n, MAX_TIMEOUT_S) * 1000;
}

class HookTimeout extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Reads one callback's `pre_tool_call` answer in Hermes's canonical shape (or null for "no opinion"). */
function toolDirective(v: unknown): ToolCallDirective {
  if (!isObj(v)) return null;
  const action = v.action;
  if (action === 'block' && typeof v.message === 'string' && v.message.trim()) return { action: 'block', message: v.message };
  if (action === 'approve') return { action: 'approve', message: typeof v.message === 'string' ? v.message : undefined, rule_key: typeof v.rule_key === 'string' ? v.rule_key : undefined };
  if (action === 'modify' && isObj(v.args)) return { action: 'modify', args: v.args };
  return null;
}

export class HookManager {
  private readonly hooks = new Map<string, RegisteredHook[]>();
  private readonly timeoutMs: number;
  private readonly log: HookLogger;
  private readonly problemListeners = new Set<(message: string) => void>();

  constructor(opts: { timeoutMs?: number; log?: HookLogger } = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_S * 1000;
    this.log = opts.log ?? (() => {});
  }

  /** Adds a callback; an unknown event name throws with the valid ones (a typo must not be silent). */
  register(event: string, callback: HookCallback, owner: string, kind: RegisteredHook['kind'] = 'plugin'): void {
    if (!VALID_HOOKS.includes(event)) {
      const near = closest(event, VALID_HOOKS);
      throw new Error(`unknown hook "${event}"${near ? ` (did you mean "${near}"?)` : ''}; valid hooks: ${VALID_HOOKS.join(', ')}`);
    }
    if (typeof callback !== 'function') throw new Error(`hook "${event}" needs a function`);
    const list = this.hooks.get(event) ?? [];
    list.push({ event, callback, owner, kind });
    this.hooks.set(event, list);
  }

  /** Removes every callback of one owner (a plugin being unloaded). */
  unregisterOwner(owner: string): void {
    for (const [event, list] of this.hooks) {
      const kept = list.filter((h) => h.owner !== owner);
      if (kept.length) this.hooks.set(event, kept);
      else this.hooks.delete(event);
    }
  }

  has(event: string): boolean {
    return (this.hooks.get(event)?.length ?? 0) > 0;
  }

  /** Whether any of these events has a callback (cheap check before building a payload). */
  hasAny(events: readonly string[]): boolean {
    return events.some((e) => this.has(e));
  }

  list(event?: string): RegisteredHook[] {
    if (event) return [...(this.hooks.get(event) ?? [])];
    return [...this.hooks.values()].flat();
  }

  get size(): number {
    return this.list().length;
  }

  /** Problems (a hook threw or timed out) as one line each, for surfaces that show warnings. */
  onProblem(fn: (message: string) => void): () => void {
    this.problemListeners.add(fn);
    return () => this.problemListeners.delete(fn);
  }

  /** A problem that is not a callback failure (e.g. conflicting answers): logged and shown once. */
  warn(message: string): void {
    this.problem(message);
  }

  private problem(message: string): void {
    this.log('WARNING', message);
    for (const l of this.problemListeners) {
      try {
        l(message);
      } catch {
        /* a broken listener must not break a hook round */
      }
    }
  }

  /** Runs one callback with the timeout (shell hooks time themselves out per entry). */
  private async call(h: RegisteredHook, payload: HookPayload): Promise<unknown> {
    const run = Promise.resolve().then(() => h.callback(h.kind === 'plugin' ? { ...payload, telemetry_schema_version: 'hermes.observer.v1' } : { ...payload }));
    if (h.kind === 'shell' || this.timeoutMs <= 0) return run;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new HookTimeout(`timed out after ${this.timeoutMs / 1000}s`)), this.timeoutMs);
          timer.unref?.();
        }),
      ]);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * Fires `event` at every callback in registration order (plugins first, then shell hooks) and
   * returns what each returned. A throw or a timeout is logged and skipped.
   */
  async invoke(event: string, payload: HookPayload): Promise<{ owner: string; value: unknown }[]> {
    return (await this.invokeAll(event, payload)).filter((r): r is { owner: string; value: unknown } => !('error' in r));
  }

  /**
   * Like `invoke`, but a callback that threw or timed out is in the answer too (`error`), for hooks
   * that fail closed (`pre_tts_synthesis`).
   */
  async invokeAll(event: string, payload: HookPayload, o: { failClosed?: boolean } = {}): Promise<({ owner: string; value: unknown } | { owner: string; error: string })[]> {
    const list = this.hooks.get(event);
    if (!list?.length) return [];
    const out: ({ owner: string; value: unknown } | { owner: string; error: string })[] = [];
    for (const h of [...list]) {
      try {
        out.push({ owner: h.owner, value: await this.call(h, payload) });
      } catch (e) {
        const why = e instanceof HookTimeout ? e.message : `failed: ${errText(e)}`;
        this.problem(`${event} hook ${h.owner} ${why}; ${o.failClosed ? 'the action was refused (this hook fails closed)' : 'skipped'}`);
        out.push({ owner: h.owner, error: why });
      }
    }
    return out;
  }

  /** Fire-and-forget for observers: never throws, never delays the caller. */
  notify(event: string, payload: HookPayload | (() => HookPayload)): void {
    if (!this.has(event)) return;
    void this.invoke(event, typeof payload === 'function' ? payload() : payload);
  }

  /**
   * `pre_tool_call`: every callback runs; any block wins (the first), then the first approve;
   * `modify` results are shallow-merged over the arguments in order. A throw or timeout blocks the
   * call (fail closed) with a message naming the hook.
   */
  async preToolCall(payload: HookPayload): Promise<ToolCallDirective> {
    const list = this.hooks.get('pre_tool_call');
    if (!list?.length) return null;
    let block: ToolCallDirective = null;
    let approve: ToolCallDirective = null;
    let args: Record<string, unknown> | null = null;
    for (const h of [...list]) {
      let value: unknown;
      try {
        value = await this.call(h, args ? { ...payload, args } : payload);
      } catch (e) {
        const why = e instanceof HookTimeout ? e.message : `raised ${errText(e)}`;
        this.problem(`pre_tool_call hook ${h.owner} ${why}; the tool call was blocked (pre_tool_call fails closed)`);
        block ??= { action: 'block', message: `Blocked: the pre_tool_call hook ${h.owner} ${why}, and a policy hook that cannot answer blocks the call.` };
        continue;
      }
      const d = toolDirective(value);
      if (!d) continue;
      if (d.action === 'block') block ??= d;
      else if (d.action === 'approve') approve ??= d;
      else args = { ...(args ?? (payload.args as Record<string, unknown>) ?? {}), ...d.args };
    }
    if (block) return block;
    if (approve) return args ? { ...approve, args } : approve;
    return args ? { action: 'modify', args } : null;
  }

  /** `pre_llm_call`: every string (or `{context}`) answer, joined in order; undefined when none. */
  async context(event: string, payload: HookPayload): Promise<string | undefined> {
    const parts: string[] = [];
    for (const { value } of await this.invoke(event, payload)) {
      const text = typeof value === 'string' ? value : isObj(value) && typeof value.context === 'string' ? value.context : '';
      if (text.trim()) parts.push(text.trim());
    }
    return parts.length ? parts.join('\n\n') : undefined;
  }

  /** Transform hooks: the first string answer replaces the value (`allowEmpty`: "" counts too). */
  async transform(event: string, payload: HookPayload, opts: { allowEmpty?: boolean } = {}): Promise<string | undefined> {
    for (const { value } of await this.invoke(event, payload)) {
      if (typeof value === 'string' && (opts.allowEmpty || value !== '')) return value;
    }
    return undefined;
  }
}

export function errText(e: unknown): string {
  if (e instanceof Error) return `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`;
  return String(e);
}

/** The nearest name by edit distance (for "did you mean"), or undefined when nothing is close. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}
