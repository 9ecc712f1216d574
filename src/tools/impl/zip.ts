// A minimal ZIP reader (central directory + stored/deflate entries through node:zlib), enough for
// Office Open XML documents (docx, xlsx, pptx). No ZIP64, no encryption: those are refused clearly.
import { inflateRawSync } from 'node:zlib';

/** Largest uncompressed entry we inflate (a guard against zip bombs). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export class ZipError extends Error {}

export class ZipReader {
  readonly entries = new Map<string, ZipEntry>();

  private readonly buf: Buffer;

  constructor(buf: Buffer) {
    this.buf = buf;
    const eocd = findEnd(buf);
    if (eocd < 0) throw new ZipError('not a ZIP archive (no end-of-directory record)');
    const count = buf.readUInt16LE(eocd + 10);
    const cdOffset = buf.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) throw new ZipError('ZIP64 archives are not supported');
    let o = cdOffset;
    for (let i = 0; i < count; i++) {
      if (o + 46 > buf.length || buf.readUInt32LE(o) !== 0x02014b50) throw new ZipError('the central directory is damaged');
      const nameLen = buf.readUInt16LE(o + 28);
      const name = buf.toString('utf8', o + 46, o + 46 + nameLen);
      this.entries.set(name, {
        name,
        flags: buf.readUInt16LE(o + 8),
        method: buf.readUInt16LE(o + 10),
        compressedSize: buf.readUInt32LE(o + 20),
        size: buf.readUInt32LE(o + 24),
        localOffset: buf.readUInt32LE(o + 42),
      });
      o += 46 + nameLen + buf.readUInt16LE(o + 30) + buf.readUInt16LE(o + 32);
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** An entry's bytes, or null when absent. */
  read(name: string): Buffer | null {
    const e = this.entries.get(name);
    if (!e) return null;
    if (e.flags & 1) throw new ZipError(`${name} is encrypted`);
    const o = e.localOffset;
    if (o + 30 > this.buf.length || this.buf.readUInt32LE(o) !== 0x04034b50) throw new ZipError(`the entry ${name} is damaged`);
    const start = o + 30 + this.buf.readUInt16LE(o + 26) + this.buf.readUInt16LE(o + 28);
    const data = this.buf.subarray(start, start + e.compressedSize);
    if (data.length < e.compressedSize) throw new ZipError(`the entry ${name} is cut short`);
    if (e.method === 0) return data;
    if (e.method !== 8) throw new ZipError(`${name} uses an unsupported compression method (${e.method})`);
    try {
      return inflateRawSync(data, { maxOutputLength: MAX_ENTRY_BYTES });
    } catch (err) {
      throw new ZipError(`the entry ${name} could not be decompressed (${(err as Error).message})`);
    }
  }

  text(name: string): string | null {
    return this.read(name)?.toString('utf8') ?? null;
  }
}

function findEnd(buf: Buffer): number {
  const stop = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= stop; i--) if (buf.readUInt32LE(i) === 0x06054b50) return i;
  return -1;
}
