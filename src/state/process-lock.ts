// Cross-process locks (cron's cron/.jobs.lock and cron/.tick.lock, the kanban dispatcher's lock).
// Node has no flock(2), so the lock is a write transaction on a tiny SQLite file: SQLite takes a POSIX advisory lock on it, which
// the kernel drops the moment the holding process dies — a crashed ticker never leaves a stale lock.
// Two connections in one process exclude each other too, so in-process tickers are covered as well.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Sqlite from 'node:sqlite';

let sqliteMod: typeof Sqlite | undefined;

function sqlite(): typeof Sqlite {
  if (sqliteMod) return sqliteMod;
  // Node 22 warns that node:sqlite is experimental; that one warning is dropped to keep output clean.
  const original = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/sqlite/i.test(text) && /experimental/i.test(String(typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string })?.type ?? text))) return;
    return (original as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    sqliteMod = createRequire(import.meta.url)('node:sqlite') as typeof Sqlite;
  } finally {
    process.emitWarning = original;
  }
  return sqliteMod;
}

function isBusy(e: unknown): boolean {
  const err = e as { errcode?: number; message?: string };
  if (typeof err?.errcode === 'number' && [5, 6].includes(err.errcode & 0xff)) return true;
  return /database is locked|SQLITE_BUSY/i.test(err?.message ?? '');
}

export interface HeldLock {
  release(): void;
}

export class LockTimeoutError extends Error {}

/** Takes the lock if it is free right now; null when another holder (any process) has it. */
export function tryLock(path: string): HeldLock | null {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(path, { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    db.close();
    if (isBusy(e)) return null;
    throw e;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits (up to `timeoutMs`) for the lock, then runs `fn` holding it. */
export async function withLock<T>(path: string, fn: () => T | Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  const deadline = performance.now() + (opts.timeoutMs ?? 30_000);
  let lock = tryLock(path);
  while (!lock) {
    if (performance.now() > deadline)
      throw new LockTimeoutError(`Timed out waiting for ${path}: another Hermes process is holding it. If none is running, delete the file.`);
    await sleep(3 + Math.random() * 12);
    lock = tryLock(path);
  }
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
