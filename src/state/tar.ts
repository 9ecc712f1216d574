// A small POSIX ustar writer and reader (regular files and folders), gzip-compressed: what curator
// backups store (skills.tar.gz, readable by `tar -xzf` and by Hermes's tarfile). No dependency.
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mode: number, mtime: number, type: '0' | '5'): Buffer {
  const h = Buffer.alloc(BLOCK);
  let base = name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    // ustar: split at a slash so that the name fits 100 bytes and the prefix 155.
    let at = -1;
    for (let i = name.lastIndexOf('/', name.length - 2); i > 0; i = name.lastIndexOf('/', i - 1)) {
      if (Buffer.byteLength(name.slice(i + 1)) <= 100 && Buffer.byteLength(name.slice(0, i)) <= 155) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new Error(`path too long for a tar entry: ${name}`);
    prefix = name.slice(0, at);
    base = name.slice(at + 1);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/**
 * Packs the entries of `root` (top-level names for which `include` says yes, and everything below
 * them except paths with a part `skip` refuses) into a .tar.gz file. Returns the number of files.
 */
export function writeTarGz(root: string, dest: string, o: { include?: (top: string) => boolean; skip?: (part: string) => boolean } = {}): number {
  const chunks: Buffer[] = [];
  let files = 0;
  const add = (abs: string) => {
    const rel = relative(root, abs).split(sep).join('/');
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      chunks.push(header(`${rel}/`, 0, st.mode, st.mtimeMs / 1000, '5'));
      for (const e of readdirSync(abs).sort()) if (!o.skip?.(e)) add(join(abs, e));
    } else if (st.isFile()) {
      const data = readFileSync(abs);
      chunks.push(header(rel, data.length, st.mode, st.mtimeMs / 1000, '0'), data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad) chunks.push(Buffer.alloc(pad));
      files++;
    }
  };
  for (const e of readdirSync(root).sort()) if ((o.include?.(e) ?? true) && !o.skip?.(e)) add(join(root, e));
  chunks.push(Buffer.alloc(BLOCK * 2));
  mkdirSync(dirname(dest), { recursive: true });
  writeFileSync(dest, gzipSync(Buffer.concat(chunks), { level: 6 }), { mode: 0o600 });
  return files;
}

export interface TarEntry {
  name: string;
  type: 'file' | 'dir';
  mode: number;
  data: Buffer;
}

/** Reads a .tar.gz written by writeTarGz (or any plain ustar/GNU tar of files and folders). */
export function readTarGz(file: string): TarEntry[] {
  const buf = gunzipSync(readFileSync(file));
  const out: TarEntry[] = [];
  let off = 0;
  while (off + BLOCK <= buf.length) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, n: number) => h.subarray(a, a + n).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(str(124, 12).trim() || '0', 8);
    const type = str(156, 1) || '0';
    const prefix = str(345, 155);
    const name = (prefix ? `${prefix}/` : '') + str(0, 100);
    const mode = parseInt(str(100, 8).trim() || '644', 8);
    const data = buf.subarray(off + BLOCK, off + BLOCK + size);
    if (type === '5') out.push({ name: name.replace(/\/$/, ''), type: 'dir', mode, data: Buffer.alloc(0) });
    else if (type === '0' || type === '\0') out.push({ name, type: 'file', mode, data: Buffer.from(data) });
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}

/** Extracts entries under `dest`; names that would leave it (absolute, `..`) are refused. */
export function extractTarGz(file: string, dest: string): number {
  let n = 0;
  for (const e of readTarGz(file)) {
    const parts = e.name.split('/').filter(Boolean);
    if (!parts.length || e.name.startsWith('/') || parts.includes('..')) throw new Error(`unsafe path in archive: ${e.name}`);
    const target = join(dest, ...parts);
    if (e.type === 'dir') mkdirSync(target, { recursive: true, mode: e.mode & 0o777 || 0o700 });
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, e.data, { mode: e.mode & 0o777 || 0o644 });
      n++;
    }
  }
  return n;
}
