import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync, type Dirent } from 'node:fs';
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
    // A full disk names the file and says its old contents are intact (the write was atomic).
    const code = (err as NodeJS.ErrnoException)?.code;
    if ((code === 'ENOSPC' || code === 'EDQUOT') && err instanceof Error) {
      err.message = `${path} was not written: the disk is full (${code}). Free some space and try again; the file keeps its previous contents.`;
    }
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

const byStamp = new Map<string, { parse: (text: string | undefined) => unknown; stamp: string; value: unknown }>();

/**
 * `parse` of the file's text (undefined when it is missing or unreadable), for a small file read
 * often and changed rarely (by us or another process, which replaces it: a new inode, size or
 * mtime): parsed again only when that stamp changed. The value is shared between calls: read it,
 * do not change it.
 */
export function readCachedByStamp<T>(path: string, parse: (text: string | undefined) => T): T {
  const st = statSync(path, { throwIfNoEntry: false });
  const stamp = st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
  const hit = byStamp.get(path);
  // File times are coarse (milliseconds apart at best): a file changed in the last second is read again.
  if (hit?.parse === parse && hit.stamp === stamp && (!st || st.mtimeMs < Date.now() - 1000)) return hit.value as T;
  let text: string | undefined;
  if (st)
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      text = undefined;
    }
  const value = parse(text);
  byStamp.set(path, { parse, stamp, value });
  return value;
}
