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
  if (e?.hint && !msg.includes(e.hint) && msg === e.message) msg += ` ${e.hint}`;
  process.stderr.write(`hermes: ${msg.trim()}\n`);
  if (process.env.HERMES_DEBUG && e instanceof Error && e.stack) process.stderr.write(e.stack + '\n');
  process.exit(typeof e?.exitCode === 'number' ? e.exitCode : 1);
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
