// One clear line, a non-zero exit, no stack trace (unless HERMES_DEBUG is set).
import { localizedError } from '../i18n/index.ts';

export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

export function reportAndExit(err: unknown): never {
  const e = err as Error & { exitCode?: number; hint?: string };
  let msg = e instanceof Error ? localizedError(e) : String(err);
  msg = plainSystemError(e, msg);
  if (e?.hint && !msg.includes(e.hint) && msg === e.message) msg += ` ${e.hint}`;
  process.stderr.write(`hermes: ${msg.trim()}\n`);
  if (process.env.HERMES_DEBUG && e instanceof Error && e.stack) process.stderr.write(e.stack + '\n');
  process.exit(typeof e?.exitCode === 'number' ? e.exitCode : 1);
}

/**
 * A raw file-system or SQLite error (`ENOSPC: no space left on device, write`, `database or disk is
 * full`) in words, with its file when the error names one. Messages already in words pass through.
 */
function plainSystemError(e: { code?: unknown; errcode?: unknown; path?: unknown; message?: string } | undefined, msg: string): string {
  const code = typeof e?.code === 'string' ? e.code : '';
  const file = typeof e?.path === 'string' ? `${e.path}: ` : '';
  if (!msg.startsWith(`${code}:`) && !(typeof e?.errcode === 'number' && msg === e.message && !msg.includes('/'))) return msg;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `${file}the disk is full (${code}). Free some space and try again.`;
    case 'EROFS':
      return `${file}the disk is read-only (${code}).`;
    case 'EIO':
      return `${file}an input/output error (${code}): the disk may be failing.`;
    case 'EACCES':
    case 'EPERM':
      return `${file}permission denied (${code}): check that the user running Hermes may use it.`;
    case 'ERR_SQLITE_ERROR':
      if (typeof e?.errcode === 'number' && (e.errcode & 0xff) === 13) return 'A database could not be written: the disk is full (SQLITE_FULL). Free some space and try again.';
      if (typeof e?.errcode === 'number' && [11, 26].includes(e.errcode & 0xff)) return `A database is damaged (${msg}). For state.db run \`hermes sessions repair\` (or \`hermes sessions recover\`).`;
      return msg;
    default:
      return msg;
  }
}

/** Wraps a command action so any error ends in one line and a non-zero exit. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      reportAndExit(err);
    }
  };
}

/**
 * Actions that live in a module loaded only when the command runs: `run('name')` is an action
 * calling export `name` of the module `load()` returns (keeps `hermes --version` and help light).
 */
export function lazyActions(load: () => Promise<unknown>) {
  return <A extends unknown[]>(name: string) =>
    (...args: A) =>
      action(async () => {
        const m = (await load()) as Record<string, (...a: A) => Promise<void> | void>;
        await m[name](...args);
      })();
}

/** A repeatable option whose values may also be comma-separated: `--skill a --skill b,c`. */
export const collectList = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

/**
 * Asks `question [y/N]` on the terminal unless `yes`; without a terminal, refuses with exit 2 and
 * says to add --yes. `nothing` ends the refusal and cancel messages ("nothing was changed").
 */
export async function confirmOrRefuse(question: string, yes: boolean | undefined, o: { nothing?: string; refusal?: string } = {}): Promise<void> {
  if (yes) return;
  const nothing = o.nothing ?? 'nothing was changed';
  if (!process.stdin.isTTY) throw new CliError(o.refusal ?? `${question.replace(/\?$/, '')}: add --yes to confirm (${nothing}).`, 2);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const a = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    if (a !== 'y' && a !== 'yes') throw new CliError(`Cancelled; ${nothing}.`, 1);
  } finally {
    rl.close();
  }
}
