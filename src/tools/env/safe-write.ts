// Writing and deleting files for the agent's file tools without a check-then-write window. The
// path is checked (write-safety's deny-list), then resolved to where the write really lands; the
// directory is opened and verified, the final name opened through that directory handle without
// following links (a new file with O_CREAT|O_EXCL), and the opened file checked again by its
// descriptor (the kernel's path for it, its inode against the protected files) before a byte is
// written. A link flipped between the check and the write makes the write fail; it never lands
// on the link's other end.
//
// On Linux a directory handle is used as `/proc/self/fd/<n>/<name>`, which resolves like openat():
// the directory cannot be swapped after it was verified. Elsewhere (macOS, no /proc) the directory
// is verified by path and inode before and after the open, which leaves a much narrower window.
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, statSync, unlinkSync, writeSync, ftruncateSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { deniedPath, openedFileDenied, realTarget, writeDenied, type WriteContext } from '../../policy/write-safety.ts';

/** The write was refused (a protected place, or the path changed while it was written). */
export class WriteRefused extends Error {}

const O = constants;
const NOFOLLOW = O.O_NOFOLLOW ?? 0;
const DIRECTORY = O.O_DIRECTORY ?? 0;
const NONBLOCK = O.O_NONBLOCK ?? 0;

let procFd: boolean | undefined;
/** Whether `/proc/self/fd/<n>` names an open descriptor's file (Linux). */
function hasProcFd(): boolean {
  procFd ??= process.platform === 'linux' && existsSync('/proc/self/fd');
  return procFd;
}

const swapped = (path: string) => new WriteRefused(`${path} changed while it was being written (a link or directory was swapped). Nothing was written; check what points where and try again.`);

/** The kernel's path for an open descriptor (Linux), or null. */
function fdPath(fd: number): string | null {
  if (!hasProcFd()) return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** A name inside an open directory, resolved against the handle (Linux) or the verified path. */
function at(dirFd: number, dir: string, name: string): string {
  return hasProcFd() ? `/proc/self/fd/${dirFd}/${name}` : join(dir, name);
}

/** Opens a directory that must be exactly `dir` (a real path): its last component not a link, its real path unchanged. */
function openDir(dir: string, shown: string): number {
  let fd: number;
  try {
    fd = openSync(dir, O.O_RDONLY | DIRECTORY | NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw swapped(shown);
    throw e;
  }
  const real = fdPath(fd);
  let same: boolean;
  if (real !== null) same = real === dir;
  else {
    // No /proc: the handle's inode must be the directory the path names now, and that path real.
    const a = fstatSync(fd);
    try {
      const b = statSync(dir);
      same = a.ino === b.ino && a.dev === b.dev && realpathSync(dir) === dir;
    } catch {
      same = false;
    }
  }
  if (!same) {
    closeSync(fd);
    throw swapped(shown);
  }
  return fd;
}

/**
 * Opens `dir` (a real path, possibly with missing trailing components), creating what is missing
 * one component at a time inside verified handles. Returns the handle and whether anything was created.
 */
function openOrCreateDir(dir: string, ctx: WriteContext, shown: string): { fd: number; created: boolean } {
  const missing: string[] = [];
  let base = dir;
  while (!existsSync(base)) {
    missing.unshift(basename(base));
    const up = dirname(base);
    if (up === base) break;
    base = up;
  }
  let fd = openDir(base, shown);
  let cur = base;
  try {
    for (const name of missing) {
      const next = join(cur, name);
      const why = deniedPath(next, ctx);
      if (why) throw new WriteRefused(why);
      try {
        mkdirSync(at(fd, cur, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let child: number;
      try {
        child = openSync(at(fd, cur, name), O.O_RDONLY | DIRECTORY | NOFOLLOW);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'ENOTDIR') throw swapped(shown);
        throw e;
      }
      closeSync(fd);
      fd = child;
      cur = next;
      const real = fdPath(fd);
      if (real !== null ? real !== cur : realpathSync(cur) !== cur) throw swapped(shown);
    }
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return { fd, created: missing.length > 0 };
}

/**
 * Writes `data` to `path` for the agent: refused (WriteRefused) when the path, where it really
 * leads, or the file actually opened is protected. Missing parent directories are created.
 */
export function safeWriteFile(path: string, data: Uint8Array, ctx: WriteContext): { dirsCreated: boolean } {
  const why = writeDenied(path, ctx);
  if (why) throw new WriteRefused(why);
  const target = realTarget(path);
  const dir = dirname(target);
  const name = basename(target);
  const { fd: dirFd, created } = openOrCreateDir(dir, ctx, path);
  try {
    const child = at(dirFd, dir, name);
    let fd = -1;
    let made = false;
    let existing: { isSymbolicLink(): boolean } | null = null;
    try {
      existing = lstatSync(child);
    } catch {
      existing = null;
    }
    if (existing?.isSymbolicLink()) throw swapped(path); // realTarget followed every link; one appeared since
    try {
      if (!existing) {
        try {
          fd = openSync(child, O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW | NONBLOCK, 0o666);
          made = true;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
      }
      if (fd < 0) fd = openSync(child, O.O_WRONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'EMLINK') throw swapped(path);
      if (code === 'ENXIO') throw new WriteRefused(`${path} is a named pipe with nobody reading it; it is not a file.`);
      throw e;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new WriteRefused(`${path} is not a regular file (a pipe, device or socket); nothing was written.`);
      // Where the opened file really is: the kernel's own path for it, or the verified directory + name.
      let real = fdPath(fd) ?? join(dir, name);
      if (real.endsWith(' (deleted)')) real = join(dir, name);
      if (!fdPath(fd)) {
        // No /proc: the name must still be this very file.
        const now = lstatSync(join(dir, name));
        if (now.ino !== st.ino || now.dev !== st.dev) throw swapped(path);
      }
      const denied = openedFileDenied(real, st, ctx);
      if (denied) throw new WriteRefused(denied);
      ftruncateSync(fd, 0);
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off, off);
    } catch (e) {
      if (made) removeIfSame(dirFd, dir, name, fd);
      throw e;
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(dirFd);
  }
  return { dirsCreated: created };
}

/** Removes the file this call created when the write was refused after all (only if it is still that file). */
function removeIfSame(dirFd: number, dir: string, name: string, fd: number): void {
  try {
    const a = fstatSync(fd);
    const b = lstatSync(at(dirFd, dir, name));
    if (a.ino === b.ino && a.dev === b.dev && a.size === 0) unlinkSync(at(dirFd, dir, name));
  } catch {
    /* gone already */
  }
}

/**
 * Deletes `path` for the agent (its directory entry: a link is removed, not what it points to),
 * with the same checks: refused for protected places, and through a verified directory handle.
 */
export function safeRemove(path: string, ctx: WriteContext): void {
  const why = writeDenied(path, ctx);
  if (why) throw new WriteRefused(why);
  let dir: string;
  try {
    dir = realpathSync(dirname(path));
  } catch {
    return; // nothing there
  }
  const name = basename(path);
  const denied = deniedPath(join(dir, name), ctx);
  if (denied) throw new WriteRefused(denied);
  const dirFd = openDir(dir, path);
  try {
    const child = at(dirFd, dir, name);
    let st;
    try {
      st = lstatSync(child);
    } catch {
      return;
    }
    if (st.isDirectory()) throw new WriteRefused(`${path} is a directory; only files are deleted.`);
    unlinkSync(child);
  } finally {
    closeSync(dirFd);
  }
}
