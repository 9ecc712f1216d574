// Reading text files safely and in their own encoding: UTF-8 or, when the bytes are not valid
// UTF-8, Latin-1 (ISO-8859-1, which round-trips every byte), so a read → edit → write keeps the
// file's encoding. Only regular files are read (never devices, FIFOs, sockets or a process's
// environment), and every read is bounded.
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';

export type TextEncoding = 'utf-8' | 'latin-1';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Valid UTF-8 (in a `sample` cut from a longer file, a multibyte character cut at its end is fine). */
export function isUtf8(buf: Uint8Array, sample = false): boolean {
  for (let cut = 0; cut <= (sample ? 3 : 0) && cut <= buf.length; cut++) {
    try {
      utf8.decode(buf.subarray(0, buf.length - cut));
      return true;
    } catch {
      /* try without a possibly cut character at the end */
    }
  }
  return false;
}

/** Binary: a NUL byte in the sample, or mostly control characters. */
export function looksBinary(buf: Uint8Array): boolean {
  if (buf.length === 0) return false;
  let odd = 0;
  for (const b of buf) {
    if (b === 0) return true;
    if (b < 7 || (b > 13 && b < 32 && b !== 27)) odd++;
  }
  return odd / buf.length > 0.3;
}

export function encodingOf(bytes: Uint8Array, sample = false): TextEncoding {
  return isUtf8(bytes, sample) ? 'utf-8' : 'latin-1';
}

export function decodeText(buf: Buffer, enc: TextEncoding): string {
  return enc === 'latin-1' ? buf.toString('latin1') : buf.toString('utf8');
}

/** Text back to bytes in the file's encoding; Latin-1 files that gain characters beyond it become UTF-8. */
export function encodeText(text: string, enc: TextEncoding): { bytes: Buffer; encoding: TextEncoding } {
  // eslint-disable-next-line no-control-regex
  if (enc === 'latin-1' && !/[^\u0000-\u00ff]/.test(text)) return { bytes: Buffer.from(text, 'latin1'), encoding: 'latin-1' };
  return { bytes: Buffer.from(text, 'utf8'), encoding: 'utf-8' };
}

/** A process's environment or memory (secrets), by its real path. */
export function isSecretProcPath(real: string): boolean {
  return /^\/proc\/(\d+|self|thread-self)(\/task\/\d+)?\/(environ|mem|pagemap)$/.test(real) || real === '/proc/kcore';
}

/** Why `path` is not a file the tools may read, or null. Never opens it (a FIFO would block). */
export function unreadable(path: string, st: Stats): string | null {
  if (st.isFIFO()) return `${path} is a named pipe (FIFO); reading it would wait for a writer. Use the terminal if you really mean it.`;
  if (st.isCharacterDevice() || st.isBlockDevice()) return `${path} is a device, not a file; it cannot be read as text.`;
  if (st.isSocket()) return `${path} is a socket, not a file.`;
  if (!st.isFile()) return `${path} is not a regular file.`;
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    /* keep the given path */
  }
  if (isSecretProcPath(real))
    return `${path} holds a process's environment or memory (secrets); it is not read.`;
  return null;
}

/** Opens a regular file without blocking, re-checking the type on the open descriptor. */
export function openRegular(path: string): { fd: number; st: Stats } | { error: string } {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    return { error: (e as Error).message };
  }
  const why = unreadable(path, st);
  if (why) return { error: why };
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  const real = fstatSync(fd);
  if (!real.isFile()) {
    closeSync(fd);
    return { error: unreadable(path, real) ?? `${path} is not a regular file.` };
  }
  return { fd, st: real };
}

/** Where an open descriptor's file really is: the kernel's path for it (Linux), else `path` resolved. */
export function openedPath(fd: number, path: string): string {
  if (process.platform === 'linux') {
    try {
      const p = readlinkSync(`/proc/self/fd/${fd}`);
      if (p.startsWith('/') && !p.endsWith(' (deleted)')) return p;
    } catch {
      /* no /proc */
    }
  }
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Reads at most `max` bytes from the start of `fd`. */
export function readHead(fd: number, max: number): Buffer {
  const buf = Buffer.alloc(max);
  let n = 0;
  while (n < max) {
    const r = readSync(fd, buf, n, max - n, n);
    if (r === 0) break;
    n += r;
  }
  return buf.subarray(0, n);
}

export interface LineWindow {
  /** Lines `offset` … `offset + limit - 1` (1-indexed), each cut at `maxLineChars` (+ a flag). */
  lines: { text: string; cut: boolean }[];
  /** Lines in the file, or a lower bound when `complete` is false. */
  total: number;
  complete: boolean;
}

/**
 * Streams `fd` in chunks and keeps only the wanted lines (each capped): memory stays bounded
 * whatever the file size. Counting the remaining lines stops after `maxScanBytes`.
 */
export function readLineWindow(fd: number, enc: TextEncoding, o: { offset: number; limit: number; maxLineChars: number; maxScanBytes: number }): LineWindow {
  const decoder = enc === 'utf-8' ? new TextDecoder('utf-8') : null;
  const chunk = Buffer.alloc(1 << 20);
  const lines: { text: string; cut: boolean }[] = [];
  let lineNo = 1;
  let cur = '';
  let cut = false;
  let partial = false;
  let pos = 0;
  const wanted = () => lineNo >= o.offset && lineNo < o.offset + o.limit;
  const take = (s: string) => {
    if (s.length) partial = true;
    if (!wanted() || cut) return;
    const room = o.maxLineChars - cur.length;
    if (s.length > room) {
      cur += s.slice(0, Math.max(0, room));
      cut = true;
    } else cur += s;
  };
  const endLine = () => {
    if (wanted()) lines.push({ text: cur.replace(/\r$/, ''), cut });
    lineNo++;
    cur = '';
    cut = false;
    partial = false;
  };
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, pos);
    if (n === 0) break;
    pos += n;
    const text = decoder ? decoder.decode(chunk.subarray(0, n), { stream: true }) : chunk.toString('latin1', 0, n);
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) {
        take(text.slice(from));
        break;
      }
      take(text.slice(from, nl));
      endLine();
      from = nl + 1;
    }
    if (lineNo >= o.offset + o.limit && pos >= o.maxScanBytes) return { lines, total: lineNo - 1, complete: false };
  }
  if (decoder) take(decoder.decode());
  // A last line without a newline still counts.
  if (partial) endLine();
  return { lines, total: lineNo - 1, complete: true };
}

/** Files larger than this are not loaded whole for editing. */
export const MAX_EDIT_BYTES = 64 * 1024 * 1024;

/** A whole text file for editing: its text and encoding, or why it cannot be edited as text. */
export function readTextFile(path: string): { text: string; encoding: TextEncoding } | { error: string } {
  const o = openRegular(path);
  if ('error' in o) return o;
  try {
    if (o.st.size > MAX_EDIT_BYTES) return { error: `${path} is ${o.st.size.toLocaleString('en-US')} bytes, too large to edit as text (limit ${MAX_EDIT_BYTES / 1024 / 1024} MB).` };
    const buf = readHead(o.fd, Math.min(o.st.size, MAX_EDIT_BYTES) + 1);
    if (looksBinary(buf.subarray(0, 8192))) return { error: `${path} is a binary file; only text files can be edited.` };
    const encoding = encodingOf(buf);
    return { text: decodeText(buf, encoding), encoding };
  } finally {
    closeSync(o.fd);
  }
}
