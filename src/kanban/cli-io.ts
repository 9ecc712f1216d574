// What a `kanban` command writes to and reads from: the CLI (stdout/stderr, process env, loops until
// Ctrl-C) or a chat (`/kanban …`: captured text, one snapshot instead of a live tail). Output
// formats follow Hermes's `hermes kanban`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmtTs } from './context.ts';
import { openBoard, taskBrief, type KanbanStore, type Task } from './store.ts';

export interface KanbanIO {
  out(line: string): void;
  /** One error line (the CLI prefixes `hermes:`). */
  err(line: string): void;
  /** A warning beside the output (stderr on the CLI). */
  warn(line: string): void;
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME of the caller (gateway.pid, config). */
  home: string;
  /** `kanban:` section of config.yaml. */
  kanbanConfig: Record<string, unknown>;
  /** --board. */
  board?: string | null;
  /** The chat a `/kanban create` came from: it is told what becomes of the task. */
  origin?: { platform: string; chatId: string; threadId?: string; userId?: string };
  /** tail/watch keep following (CLI) or print what is there (chat). */
  follow: boolean;
  /** Ends a following loop. */
  signal?: AbortSignal;
}

export class CommandFailed extends Error {
  readonly code: number;
  constructor(message: string, code = 1) {
    super(message);
    this.code = code;
  }
}

/** Opens the board for a command; the store closes when `fn` settles. */
export async function withStore<T>(io: KanbanIO, fn: (s: KanbanStore) => T | Promise<T>): Promise<T> {
  const s = openBoard({ board: io.board, env: io.env });
  try {
    return await fn(s);
  } finally {
    s.close();
  }
}

const ICONS: Record<string, string> = { todo: '◻', ready: '▶', running: '●', scheduled: '⏱', blocked: '⊘', done: '✓', archived: '—', triage: '?', review: '◎' };

export function taskLine(t: Task): string {
  const tenant = t.tenant ? ` [${t.tenant}]` : '';
  return `${ICONS[t.status] ?? '?'} ${t.id}  ${t.status.padEnd(8)}  ${(t.assignee ?? '(unassigned)').padEnd(20)}${tenant}  ${t.title}`;
}

/** A task as `--json` prints it (Hermes's field set). */
export function taskDict(t: Task): Record<string, unknown> {
  return {
    ...taskBrief(t),
    body: t.body,
    branch_name: t.branch_name,
    result: t.result,
    skills: t.skills ?? [],
    max_runtime_seconds: t.max_runtime_seconds,
    max_retries: t.max_retries,
    provider_override: t.provider_override,
    session_id: t.session_id,
    last_failure_error: t.last_failure_error,
  };
}

export const json = (io: KanbanIO, v: unknown) => io.out(JSON.stringify(v, null, 2));
export const counts = (c: Record<string, number>, empty = '') =>
  Object.entries(c)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ') || empty;

export { fmtTs };

/** The worker a CLI command acts for: a worker may only change its own task. */
export function workerRunId(io: KanbanIO, id: string): number | null {
  const own = io.env.HERMES_KANBAN_TASK?.trim();
  if (own && own !== id) throw new CommandFailed(`worker is scoped to task ${own}; refusing to change ${id}`);
  if (own !== id) return null;
  const n = Number(io.env.HERMES_KANBAN_RUN_ID);
  return Number.isInteger(n) && n > 0 ? n : null;
}

export const profileAuthor = (io: KanbanIO) => io.env.HERMES_PROFILE?.trim() || 'user';

/** `30s`, `5m`, `2h`, `1d` or plain seconds. */
export function parseDuration(v: string | undefined): number | null {
  if (v === undefined || v === '') return null;
  const s = v.trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(s);
  if (!m) throw new CommandFailed(`malformed duration ${JSON.stringify(v)} (expected 30s, 5m, 2h, 1d, or a number of seconds)`, 2);
  return Math.floor(Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd']);
}

export function parseMetadata(raw: string | undefined): Record<string, unknown> | null {
  if (!raw) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new CommandFailed(`--metadata: ${(e as Error).message}`, 2);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new CommandFailed('--metadata: must be a JSON object', 2);
  return v as Record<string, unknown>;
}

/** Is a gateway running for this home, with the embedded dispatcher on? (warning only; fails open) */
export function dispatcherPresence(io: KanbanIO): { running: boolean; message: string } {
  try {
    const p = join(io.home, 'gateway.pid');
    let pid = 0;
    if (existsSync(p)) {
      const raw = readFileSync(p, 'utf8').trim();
      pid = raw.startsWith('{') ? Number((JSON.parse(raw) as { pid?: number }).pid) : Number(raw);
    }
    let alive = false;
    if (pid > 0)
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    const inGateway = io.kanbanConfig.dispatch_in_gateway !== false && !/^(0|false|no|off)$/i.test(io.env.HERMES_KANBAN_DISPATCH_IN_GATEWAY ?? '');
    if (alive && inGateway) return { running: true, message: '' };
    if (alive)
      return {
        running: false,
        message: 'The gateway is running but kanban.dispatch_in_gateway is false in config.yaml: the task will sit in ready until you turn it back on and restart the gateway, or run `hermes kanban dispatch` yourself.',
      };
    return {
      running: false,
      message:
        "No gateway is running: the task will sit in 'ready' until you start it. Run:\n    hermes gateway start\nThe gateway runs the dispatcher (every kanban.dispatch_interval_seconds, 60 by default). Or run `hermes kanban dispatch` for one pass.",
    };
  } catch {
    return { running: true, message: '' };
  }
}
