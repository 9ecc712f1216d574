// Loads node:sqlite synchronously and only on first use. Node 22 prints an ExperimentalWarning when
// the module loads; that one warning (and only it) is dropped so CLI output stays clean.
import { createRequire } from 'node:module';
import type * as Sqlite from 'node:sqlite';

export type { DatabaseSync, StatementSync } from 'node:sqlite';

let mod: typeof Sqlite | undefined;

export function sqlite(): typeof Sqlite {
  if (mod) return mod;
  const original = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const opt = rest[0];
    const type = typeof opt === 'string' ? opt : (opt as { type?: string } | undefined)?.type ?? (warning instanceof Error ? warning.name : undefined);
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && /sqlite/i.test(text)) return;
    return (original as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    mod = createRequire(import.meta.url)('node:sqlite') as typeof Sqlite;
  } finally {
    process.emitWarning = original;
  }
  return mod;
}

/** SQLITE_BUSY (5) / SQLITE_LOCKED (6), including extended codes. */
export function isBusyError(e: unknown): boolean {
  const err = e as { errcode?: number; message?: string };
  if (typeof err?.errcode === 'number') {
    const primary = err.errcode & 0xff;
    if (primary === 5 || primary === 6) return true;
  }
  return /database is locked|database table is locked|SQLITE_BUSY/i.test(err?.message ?? '');
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (used only between retries of a contended write). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
