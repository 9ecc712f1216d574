// The protobuf wire format by hand, for the few platforms whose gateways speak it without an SDK
// (Yuanbao): varints, length-delimited fields, proto3 defaults skipped. Messages are built with
// `Writer` and read with `parseFields` + the typed getters; unknown fields are carried and ignored.

export type Field = { n: number; wt: number; v: number | bigint | Buffer };

export function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

/** A message under construction: fields appended in order, empty/zero values skipped (proto3). */
export class Writer {
  private parts: Buffer[] = [];
  uint(n: number, v: number | bigint | boolean | undefined, always = false): this {
    const x = typeof v === 'boolean' ? (v ? 1 : 0) : v ?? 0;
    if (x || always) this.parts.push(varint((n << 3) | 0), varint(x));
    return this;
  }
  bytes(n: number, v: Buffer | undefined, always = false): this {
    if ((v && v.length) || always) this.parts.push(varint((n << 3) | 2), varint(v?.length ?? 0), v ?? Buffer.alloc(0));
    return this;
  }
  str(n: number, v: string | undefined, always = false): this {
    return this.bytes(n, v ? Buffer.from(v, 'utf8') : undefined, always);
  }
  msg(n: number, w: Writer): this {
    return this.bytes(n, w.finish(), true);
  }
  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Parses one message's fields (unknown ones are kept and ignored by the readers below). */
export function parseFields(buf: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let pos = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('varint too long');
    }
  };
  while (pos < buf.length) {
    const tag = Number(readVarint());
    const f: Field = { n: tag >>> 3, wt: tag & 7, v: 0 };
    if (f.wt === 0) f.v = readVarint();
    else if (f.wt === 2) {
      const len = Number(readVarint());
      if (pos + len > buf.length) throw new Error('truncated field');
      f.v = buf.subarray(pos, pos + len);
      pos += len;
    } else if (f.wt === 1 || f.wt === 5) {
      const len = f.wt === 1 ? 8 : 4;
      f.v = buf.subarray(pos, pos + len);
      pos += len;
    } else throw new Error(`unknown wire type ${f.wt}`);
    const list = out.get(f.n) ?? [];
    list.push(f);
    out.set(f.n, list);
  }
  return out;
}

const first = (m: Map<number, Field[]>, n: number) => m.get(n)?.[0];
export const getStr = (m: Map<number, Field[]>, n: number): string => {
  const f = first(m, n);
  return f && f.wt === 2 ? (f.v as Buffer).toString('utf8') : '';
};
export const getBytes = (m: Map<number, Field[]>, n: number): Buffer => {
  const f = first(m, n);
  return f && f.wt === 2 ? (f.v as Buffer) : Buffer.alloc(0);
};
export const getUint = (m: Map<number, Field[]>, n: number): number => {
  const f = first(m, n);
  return f && f.wt === 0 ? Number(BigInt.asUintN(64, f.v as bigint)) : 0;
};
/** int32 fields (status, code) are sign-extended to 64 bits on the wire. */
export const getInt = (m: Map<number, Field[]>, n: number): number => {
  const f = first(m, n);
  return f && f.wt === 0 ? Number(BigInt.asIntN(32, f.v as bigint)) : 0;
};
export const getAll = (m: Map<number, Field[]>, n: number): Buffer[] => (m.get(n) ?? []).filter((f) => f.wt === 2).map((f) => f.v as Buffer);
