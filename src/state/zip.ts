// A small ZIP writer and reader (deflate and store, no zip64) for `hermes backup` and `hermes import`.
// Archives are what Python's zipfile writes and reads: UTF-8 names, Unix modes, data descriptors.
// Extraction refuses absolute paths, `..` and links, so an archive cannot write outside its target.
import { closeSync, createReadStream, createWriteStream, fstatSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { crc32, createDeflateRaw, createInflateRaw } from 'node:zlib';

export class ZipError extends Error {}

function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

interface CentralEntry {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  method: number;
  time: number;
  date: number;
  mode: number;
}

/** Writes a ZIP file entry by entry (files are streamed through deflate). */
export class ZipWriter {
  private readonly fd: number;
  private offset = 0;
  private readonly entries: CentralEntry[] = [];

  constructor(path: string) {
    this.fd = openSync(path, 'w', 0o600);
  }

  private write(buf: Buffer): void {
    writeSync(this.fd, buf);
    this.offset += buf.length;
  }

  /** Adds a file from disk under `name` (a `/`-separated relative path). */
  async addFile(name: string, path: string): Promise<void> {
    const st = statSync(path);
    const nameBuf = Buffer.from(name.split(sep).join('/'), 'utf8');
    const { time, date } = dosTime(st.mtime);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6); // data descriptor + UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt16LE(nameBuf.length, 26);
    const start = this.offset;
    this.write(local);
    this.write(nameBuf);
    let crc = 0;
    let size = 0;
    let compressed = 0;
    const fd = this.fd;
    const self = this;
    await pipeline(
      createReadStream(path),
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          crc = crc32(chunk, crc);
          size += chunk.length;
          cb(null, chunk);
        },
      }),
      createDeflateRaw({ level: 6 }),
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          writeSync(fd, chunk);
          self.offset += chunk.length;
          compressed += chunk.length;
          cb();
        },
      }),
    );
    if (size > 0xffffffff || compressed > 0xffffffff || this.offset > 0xffffffff) throw new ZipError(`${name} is too large for this archive format (4 GB).`);
    const desc = Buffer.alloc(16);
    desc.writeUInt32LE(0x08074b50, 0);
    desc.writeUInt32LE(crc >>> 0, 4);
    desc.writeUInt32LE(compressed, 8);
    desc.writeUInt32LE(size, 12);
    this.write(desc);
    this.entries.push({ name: nameBuf, crc: crc >>> 0, compressed, size, offset: start, method: 8, time, date, mode: st.mode & 0o777 });
  }

  /** Writes the central directory and closes the file. */
  close(): void {
    const cdStart = this.offset;
    for (const e of this.entries) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(0x031e, 4); // made by Unix, zip 3.0
      h.writeUInt16LE(20, 6);
      h.writeUInt16LE(0x0808, 8);
      h.writeUInt16LE(e.method, 10);
      h.writeUInt16LE(e.time, 12);
      h.writeUInt16LE(e.date, 14);
      h.writeUInt32LE(e.crc, 16);
      h.writeUInt32LE(e.compressed, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt32LE(((0o100000 | e.mode) << 16) >>> 0, 38);
      h.writeUInt32LE(e.offset, 42);
      this.write(h);
      this.write(e.name);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.offset - cdStart, 12);
    end.writeUInt32LE(cdStart, 16);
    this.write(end);
    closeSync(this.fd);
  }

  get count(): number {
    return this.entries.length;
  }
}

export interface ZipEntry {
  name: string;
  size: number;
  compressed: number;
  crc: number;
  method: number;
  mode: number;
  isDir: boolean;
  isLink: boolean;
  /** Offset of the local header. */
  offset: number;
}

/** Reads the central directory of a ZIP file. */
export function readZipEntries(path: string): ZipEntry[] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Math.min(size, 65_557);
    const buf = Buffer.alloc(tail);
    readSync(fd, buf, 0, tail, size - tail);
    let eocd = -1;
    for (let i = tail - 22; i >= 0; i--) if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
    if (eocd < 0) throw new ZipError(`${path} is not a zip file (no end-of-archive record).`);
    const count = buf.readUInt16LE(eocd + 10);
    const cdSize = buf.readUInt32LE(eocd + 12);
    const cdOffset = buf.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) throw new ZipError(`${path} is a zip64 archive (over 4 GB or 65,535 files), which this version cannot read.`);
    const cd = Buffer.alloc(cdSize);
    readSync(fd, cd, 0, cdSize, cdOffset);
    const out: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new ZipError(`${path}: damaged central directory.`);
      const flags = cd.readUInt16LE(p + 8);
      const method = cd.readUInt16LE(p + 10);
      const crc = cd.readUInt32LE(p + 16);
      const compressed = cd.readUInt32LE(p + 20);
      const usize = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const madeBy = cd.readUInt16LE(p + 4) >> 8;
      const ext = cd.readUInt32LE(p + 38);
      const offset = cd.readUInt32LE(p + 42);
      const name = cd.subarray(p + 46, p + 46 + nameLen).toString(flags & 0x800 ? 'utf8' : 'latin1');
      const mode = madeBy === 3 ? (ext >>> 16) & 0xffff : 0;
      out.push({ name, size: usize, compressed, crc, method, mode: mode & 0o777, isDir: name.endsWith('/'), isLink: madeBy === 3 && (mode & 0o170000) === 0o120000, offset });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** A safe relative path inside the target, or null for names that would escape it. */
export function safeEntryPath(name: string): string | null {
  const parts = name.replace(/\\/g, '/').split('/').filter((x) => x && x !== '.');
  if (!parts.length || name.startsWith('/') || /^[A-Za-z]:/.test(name) || parts.includes('..')) return null;
  return parts.join('/');
}

/** Extracts one entry to `dest` (a file path), checking its CRC. */
export async function extractEntry(zipPath: string, e: ZipEntry, dest: string): Promise<void> {
  if (e.method !== 0 && e.method !== 8) throw new ZipError(`${e.name}: unsupported compression method ${e.method}.`);
  const fd = openSync(zipPath, 'r');
  let dataStart: number;
  try {
    const h = Buffer.alloc(30);
    readSync(fd, h, 0, 30, e.offset);
    if (h.readUInt32LE(0) !== 0x04034b50) throw new ZipError(`${e.name}: damaged local header.`);
    dataStart = e.offset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
  mkdirSync(dirname(dest), { recursive: true });
  let crc = 0;
  const src = e.compressed ? createReadStream(zipPath, { start: dataStart, end: dataStart + e.compressed - 1 }) : null;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
  });
  const out = createWriteStream(dest, { mode: e.mode ? e.mode & 0o777 : 0o644 });
  if (!src) {
    out.end();
    await new Promise<void>((r, j) => out.on('finish', r).on('error', j));
  } else if (e.method === 8) await pipeline(src, createInflateRaw(), check, out);
  else await pipeline(src, check, out);
  if (e.size && crc >>> 0 !== e.crc) throw new ZipError(`${e.name}: checksum mismatch (the archive is damaged).`);
}

/** Resolves `rel` inside `root`, or throws. */
export function inside(root: string, rel: string): string {
  const p = resolve(root, rel);
  if (p !== resolve(root) && !p.startsWith(resolve(root) + sep)) throw new ZipError(`${rel} would land outside ${root}.`);
  return p;
}

export { join as joinPath };
