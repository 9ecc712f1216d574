// Shell hooks: the `hooks:` block of config.yaml (Hermes's format) runs scripts on hook events. Each
// (event, command) pair needs consent once, recorded in HERMES_HOME/shell-hooks-allowlist.json
// (see ./allowlist.ts). Wire protocol as Hermes: the payload JSON on stdin
// ({hook_event_name, tool_name, tool_input, session_id, cwd, profile, extra}), an optional JSON
// answer on stdout ({"action"|"decision": "block"|"modify", …} or {"context": …}); exit code 2 blocks
// a pre_tool_call. Spawn failures, timeouts and unreadable output fail open unless `fail_closed`.
import { spawn } from 'node:child_process';
import { expandHome } from '../state/paths.ts';
import { makeSandbox } from '../sandbox/index.ts';
import { splitArgs } from '../policy/split-args.ts';
import { closest, SHELL_UNSUPPORTED_HOOKS, VALID_HOOKS, type HookCallback, type HookLogger } from './hooks.ts';

export const DEFAULT_TIMEOUT_S = 60;
export const MAX_TIMEOUT_S = 300;
const BLOCK_EXIT_CODE = 2;
const DEFAULT_BLOCK_MESSAGE = 'Blocked by shell hook.';
const STDERR_LIMIT = 400;
const BLOCKING_EVENTS = new Set(['pre_tool_call']);
const TOOL_EVENTS = new Set(['pre_tool_call', 'post_tool_call']);
/** Payload keys promoted to the top level; every other one goes under `extra`. */
const TOP_LEVEL = new Set(['tool_name', 'args', 'session_id', 'parent_session_id']);

export interface ShellHookSpec {
  event: string;
  command: string;
  matcher?: string;
  timeoutS: number;
  failClosed: boolean;
}

type Warn = (message: string) => void;

/** Normalises the `hooks:` block; malformed entries are reported through `warn` and skipped. */
export function parseHooksBlock(block: unknown, warn: Warn = () => {}): ShellHookSpec[] {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return [];
  const specs: ShellHookSpec[] = [];
  for (const [event, entries] of Object.entries(block as Record<string, unknown>)) {
    if (event === 'outbound' || event === 'output_spill') continue; // other sections under hooks:, not events
    if (SHELL_UNSUPPORTED_HOOKS.includes(event)) {
      warn(`hooks.${event}: this hook is for plugins only (a shell script cannot return its answer); entry refused`);
      continue;
    }
    if (!VALID_HOOKS.includes(event)) {
      const near = closest(event, VALID_HOOKS);
      warn(`hooks.${event}: unknown hook event${near ? ` — did you mean "${near}"?` : ` (valid: ${VALID_HOOKS.join(', ')})`}; skipped`);
      continue;
    }
    if (entries === null || entries === undefined) continue;
    if (!Array.isArray(entries)) {
      warn(`hooks.${event} must be a list of hook entries (- command: …); skipped`);
      continue;
    }
    entries.forEach((raw, i) => {
      const spec = parseEntry(event, i, raw, warn);
      if (spec) specs.push(spec);
    });
  }
  return specs;
}

function parseEntry(event: string, i: number, raw: unknown, warn: Warn): ShellHookSpec | null {
  const at = `hooks.${event}[${i}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    warn(`${at} must be a mapping with a "command" key; skipped`);
    return null;
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.command !== 'string' || !r.command.trim()) {
    warn(`${at} has no "command"; skipped`);
    return null;
  }
  let matcher = typeof r.matcher === 'string' ? r.matcher.trim() || undefined : undefined;
  if (r.matcher !== undefined && typeof r.matcher !== 'string') warn(`${at}.matcher must be a regular expression string; ignored`);
  if (matcher && !TOOL_EVENTS.has(event)) {
    warn(`${at}.matcher only applies to pre_tool_call and post_tool_call; the hook fires on every ${event}`);
    matcher = undefined;
  }
  let timeoutS = r.timeout === undefined ? DEFAULT_TIMEOUT_S : Math.trunc(Number(r.timeout));
  if (!Number.isFinite(timeoutS) || timeoutS < 1) {
    warn(`${at}.timeout must be a whole number of seconds ≥ 1; using ${DEFAULT_TIMEOUT_S}`);
    timeoutS = DEFAULT_TIMEOUT_S;
  } else if (timeoutS > MAX_TIMEOUT_S) {
    warn(`${at}.timeout ${timeoutS}s is over the ${MAX_TIMEOUT_S}s maximum; clamped`);
    timeoutS = MAX_TIMEOUT_S;
  }
  let failClosed = r.fail_closed ?? r.failClosed ?? false;
  if (typeof failClosed !== 'boolean') {
    warn(`${at}.fail_closed must be true or false; using false (fail open)`);
    failClosed = false;
  }
  if (failClosed && !BLOCKING_EVENTS.has(event)) {
    warn(`${at}.fail_closed only applies to pre_tool_call; ignored for ${event}`);
    failClosed = false;
  }
  return { event, command: r.command.trim(), matcher, timeoutS, failClosed: failClosed as boolean };
}

/** Whether a tool event's matcher (a regex matched against the whole tool name) lets it fire. */
export function matchesTool(spec: ShellHookSpec, toolName: unknown): boolean {
  if (!spec.matcher) return true;
  if (typeof toolName !== 'string') return false;
  try {
    return new RegExp(`^(?:${spec.matcher})$`).test(toolName);
  } catch {
    return toolName === spec.matcher; // not a valid regex: literal equality, as Hermes
  }
}

export interface SpawnResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  elapsedMs: number;
  error?: string;
}

/** The command as argv (no shell): quoted words kept together, `~` expanded. */
export function commandArgv(command: string): string[] {
  return splitArgs(command).map((w) => expandHome(w));
}

/** Runs the hook's command with `input` on stdin, in its own process group (killed on timeout). */
export function spawnHook(spec: ShellHookSpec, input: string, env: NodeJS.ProcessEnv, cwd: string, sandbox?: { config: unknown; home: string }): Promise<SpawnResult> {
  let argv = commandArgv(spec.command);
  // The OS sandbox of terminal.sandbox, as for every command Hermes runs for the agent.
  if (argv.length && sandbox) {
    const w = makeSandbox({ config: (sandbox.config ?? {}) as { terminal?: unknown }, env, hermesHome: sandbox.home, cwd }).wrap(argv[0], argv.slice(1));
    argv = [w.file, ...w.args];
  }
  const started = Date.now();
  if (!argv.length) return Promise.resolve({ code: null, stdout: '', stderr: '', timedOut: false, elapsedMs: 0, error: 'empty command' });
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let done = false;
    const finish = (r: Partial<SpawnResult>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, timedOut, elapsedMs: Date.now() - started, ...r });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (e) {
      resolve({ code: null, stdout, stderr, timedOut, elapsedMs: 0, error: spawnError(e) });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, spec.timeoutS * 1000);
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', (e) => finish({ error: spawnError(e) }));
    child.on('close', (code) => finish({ code }));
    child.stdin!.on('error', () => {}); // a hook that does not read its stdin
    child.stdin!.end(input);
  });
}

function spawnError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'command not found';
  if (code === 'EACCES') return 'command not executable';
  return (e as Error).message;
}

/** The stdin payload: Hermes's field order, unserialisable values turned into strings. */
export function payloadJson(event: string, payload: Record<string, unknown>, cwd: string, profile: string): string {
  const args = payload.args;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (!TOP_LEVEL.has(k)) extra[k] = v;
  const body = {
    hook_event_name: event,
    tool_name: payload.tool_name ?? null,
    tool_input: args && typeof args === 'object' && !Array.isArray(args) ? args : null,
    session_id: payload.session_id || payload.parent_session_id || '',
    cwd,
    profile,
    extra,
  };
  return JSON.stringify(body, (_k, v) => (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol' ? String(v) : v));
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function blockMessage(primary: unknown, secondary: unknown): string {
  const m = primary || secondary;
  return typeof m === 'string' && m ? m : DEFAULT_BLOCK_MESSAGE;
}

/** Translates a script's stdout JSON into Hermes's canonical answer, or null. */
export function parseResponse(event: string, stdout: string, log?: HookLogger): Record<string, unknown> | null {
  const text = stdout.trim();
  if (!text) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    log?.('WARNING', `shell hook stdout was not JSON (event=${event}): ${text.slice(0, 200)}`);
    return null;
  }
  if (!isObj(data)) return null;
  if (event === 'pre_tool_call') {
    if (data.action === 'block') return { action: 'block', message: blockMessage(data.message, data.reason) };
    if (data.decision === 'block') return { action: 'block', message: blockMessage(data.reason, data.message) };
    if (data.action === 'modify' && isObj(data.args)) return { action: 'modify', args: data.args };
    if (data.decision === 'modify' && isObj(data.tool_input)) return { action: 'modify', args: data.tool_input };
    if (data.action === 'approve') return { action: 'approve', message: data.message, rule_key: data.rule_key };
    return null;
  }
  if (event === 'pre_verify') {
    const action = String(data.action ?? data.decision ?? '').toLowerCase();
    const message = data.message ?? data.reason;
    return (action === 'continue' || action === 'block') && typeof message === 'string' && message.trim() ? { action: 'continue', message: message.trim() } : null;
  }
  return typeof data.context === 'string' && data.context.trim() ? { context: data.context } : null;
}

/** A spawn result → what the hook contributes (the live callback and `hermes hooks test` share it). */
export function evaluate(spec: ShellHookSpec, r: SpawnResult, log: HookLogger = () => {}): Record<string, unknown> | null {
  const blocking = BLOCKING_EVENTS.has(spec.event);
  const failClosed = spec.failClosed && blocking;
  const failed = (reason: string) => (failClosed ? { action: 'block', message: `hook ${spec.command} failed closed: ${reason}` } : null);
  if (r.error) {
    log('WARNING', `shell hook failed (event=${spec.event} command=${spec.command}): ${r.error}`);
    return failed(r.error);
  }
  if (r.timedOut) {
    log('WARNING', `shell hook timed out after ${(r.elapsedMs / 1000).toFixed(2)}s (event=${spec.event} command=${spec.command})`);
    return failed(`timed out after ${spec.timeoutS}s`);
  }
  const stderr = r.stderr.trim();
  if (r.code === BLOCK_EXIT_CODE && blocking) {
    const parsed = parseResponse(spec.event, r.stdout, log);
    if (parsed?.action === 'block') return parsed;
    return { action: 'block', message: stderr.slice(0, STDERR_LIMIT) || DEFAULT_BLOCK_MESSAGE };
  }
  if (r.code !== 0) log('WARNING', `shell hook exited ${r.code} (event=${spec.event} command=${spec.command}); stderr=${stderr.slice(0, STDERR_LIMIT)}`);
  const stdout = r.stdout.trim();
  const parsed = parseResponse(spec.event, stdout, log);
  if (!parsed && failClosed && stdout && !isJsonObject(stdout)) return failed('unparseable stdout (expected a JSON object)');
  return parsed;
}

function isJsonObject(text: string): boolean {
  try {
    return isObj(JSON.parse(text));
  } catch {
    return false;
  }
}

export interface ShellHookEnv {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The profile firing the hook (`default` outside profiles). */
  profile: string;
  cwd: () => string;
  log: HookLogger;
  /** config.yaml (for terminal.sandbox). */
  config?: unknown;
}

/** The callback the hook manager calls for one configured entry. */
export function shellCallback(spec: ShellHookSpec, o: ShellHookEnv): HookCallback {
  return async (payload) => {
    if (TOOL_EVENTS.has(spec.event) && !matchesTool(spec, payload.tool_name)) return null;
    const cwd = o.cwd();
    const r = await spawnHook(spec, payloadJson(spec.event, payload, cwd, o.profile), { ...o.env, HERMES_HOME: o.home }, cwd, { config: o.config, home: o.home });
    return evaluate(spec, r, o.log);
  };
}
