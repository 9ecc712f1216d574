// A small cross-process lock for read-modify-write of files other processes also edit (memory files,
// skills lock). A lock file created with O_EXCL; a lock older than `staleMs` (its holder died) is broken.
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { sleepSync } from './sqlite.ts';

export function withFileLock<T>(lockPath: string, fn: () => T, opts: { timeoutMs?: number; staleMs?: number } = {}): T {
  const timeout = opts.timeoutMs ?? 10_000;
  const stale = opts.staleMs ?? 30_000;
  const started = performance.now();
  let fd = -1;
  for (;;) {
    try {
      fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > stale) {
          rmSync(lockPath, { force: true });
          continue;
        }
      } catch {
        continue; // vanished meanwhile
      }
      if (performance.now() - started > timeout) throw new Error(`Timed out waiting for ${lockPath} (another Hermes process is writing).`);
      sleepSync(10 + Math.random() * 40);
    }
  }
  try {
    return fn();
  } finally {
    closeSync(fd);
    rmSync(lockPath, { force: true });
  }
}
