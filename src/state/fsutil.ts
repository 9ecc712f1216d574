import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync, type Dirent } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file atomically: a temp file in the same directory, fsync, rename. Readers never see a
 * half-written file, and a crash mid-write leaves the old file intact.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fd = -1;
  try {
    fd = openSync(tmp, 'w', mode);
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Plain code-unit string order. Use it instead of `localeCompare` for sorting names: the first
 * `localeCompare` (like any Intl use) initialises ICU, which costs milliseconds at start-up.
 */
export function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Visits every entry below `dir`, depth first; unreadable folders are passed over. `visit` returns
 * 'skip' to stay out of a folder, 'stop' to end the walk.
 */
export function walkTree(dir: string, visit: (path: string, entry: Dirent, depth: number) => void | 'skip' | 'stop'): void {
  let stopped = false;
  const walk = (d: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      const r = visit(p, e, depth);
      if (r === 'stop') stopped = true;
      if (stopped) return;
      if (r !== 'skip' && e.isDirectory()) walk(p, depth + 1);
      if (stopped) return;
    }
  };
  walk(dir, 0);
}
