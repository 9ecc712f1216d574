// The one Headers implementation of hermes's fetch path, without Node's undici (which loads, with
// http2, on first touch of the global Headers: about as long as starting Node itself):
// - the headers of nodeFetch's responses (src/llm/node-response.ts, built from node's rawHeaders);
// - the global `Headers` the bundled LLM SDKs see (scripts/sdk-web-globals.ts re-exports it).
// It is the Fetch standard's Headers: validation, normalisation, combined values, sorted iteration,
// set-cookie kept apart. `instanceof` accepts its own objects and real ones; its methods called on a
// real Headers (`Headers.prototype.get.call(h, …)`) use the real ones.

/**
 * Whether `x` may be an instance of the real global `name`: a class of that name is on its prototype
 * chain. Only then is the global worth reading (which loads undici); nodeFetch's own Response and
 * this file's Headers are not (nor those of another copy of this file, e.g. an SDK bundled apart).
 */
export function mayBeReal(x: object, name: string): boolean {
  if (OURS in x) return false;
  let p = Object.getPrototypeOf(x) as object | null;
  for (let depth = 0; p !== null && depth < 64; depth++, p = Object.getPrototypeOf(p) as object | null) {
    const c = Object.getOwnPropertyDescriptor(p, 'constructor')?.value as { name?: unknown } | undefined;
    if (typeof c === 'function' && c.name === name) return true;
  }
  return false;
}
/** Marks this file's Headers, in every copy of it. */
const OURS = Symbol.for('hermes.fetch-headers');
const realHeaders = (): typeof globalThis.Headers => globalThis.Headers;

// A header name is an HTTP token; a value has no NUL, CR or LF once leading and trailing HTTP
// whitespace is removed; both are ByteStrings (no code unit above 0xFF).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
const NOT_BYTE = /[^\0-\xff]/;

/** Throws the ByteString error when `s` has a code unit above 0xFF. */
function byteString(s: string, what: string): void {
  if (!NOT_BYTE.test(s)) return;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0xff) throw new TypeError(`${what}: cannot convert to a ByteString: the character at index ${i} has a value of ${s.charCodeAt(i)}, greater than 255.`);
  }
}

function headerName(name: unknown, method: string): string {
  const n = String(name);
  if (TOKEN.test(n)) return n.toLowerCase(); // a token is ASCII: a ByteString too
  byteString(n, `Headers.${method}`);
  throw new TypeError(`Headers.${method}: "${n}" is an invalid header name.`);
}

function headerValue(value: unknown, method: string): string {
  const s = String(value);
  byteString(s, `Headers.${method}`);
  const v = s.replace(EDGE_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(v)) throw new TypeError(`Headers.${method}: "${v}" is an invalid header value.`);
  return v;
}

type Pair = [string, string];

let addRaw: (h: Headers, name: string, value: string) => void;

export class Headers {
  readonly #map = new Map<string, string>();
  readonly #cookies: string[] = [];

  static {
    addRaw = (h, name, value) => h.#add(name.toLowerCase(), value);
  }

  constructor(init?: unknown) {
    if (init === undefined || init === null) {
      if (init === null) throw new TypeError('Headers constructor: init must be a sequence or a record, not null.');
      return;
    }
    if (typeof init !== 'object' && typeof init !== 'function') throw new TypeError('Headers constructor: init must be a sequence or a record.');
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (iterator !== undefined) {
      if (typeof iterator !== 'function') throw new TypeError('Headers constructor: init[Symbol.iterator] is not a function.');
      for (const pair of init as Iterable<unknown>) {
        if (pair === null || typeof pair !== 'object' || typeof (pair as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') throw new TypeError('Headers constructor: expected name/value pair to be an iterable.');
        const kv = [...(pair as Iterable<unknown>)];
        if (kv.length !== 2) throw new TypeError('Headers constructor: expected name/value pair to be length 2.');
        this.append(kv[0] as string, kv[1] as string);
      }
      return;
    }
    for (const key of Reflect.ownKeys(init as object)) {
      const d = Reflect.getOwnPropertyDescriptor(init as object, key);
      if (!d?.enumerable) continue;
      if (typeof key === 'symbol') throw new TypeError('Headers constructor: a record key cannot be a symbol.');
      this.append(key, (init as Record<string, string>)[key]);
    }
  }

  static [Symbol.hasInstance](x: unknown): boolean {
    if (typeof x !== 'object' || x === null) return false;
    if (#map in x) return true;
    return mayBeReal(x, 'Headers') && x instanceof realHeaders();
  }

  /** Appends a validated, lower-cased name and its value. */
  #add(k: string, v: string): void {
    if (k === 'set-cookie') this.#cookies.push(v);
    const prev = this.#map.get(k);
    this.#map.set(k, prev === undefined ? v : `${prev}, ${v}`);
  }

  append(name: string, value: string): void {
    if (!(#map in this)) return realHeaders().prototype.append.call(this, name, value);
    this.#add(headerName(name, 'append'), headerValue(value, 'append'));
  }
  set(name: string, value: string): void {
    if (!(#map in this)) return realHeaders().prototype.set.call(this, name, value);
    const k = headerName(name, 'set');
    const v = headerValue(value, 'set');
    if (k === 'set-cookie') this.#cookies.splice(0, Infinity, v);
    this.#map.set(k, v);
  }
  delete(name: string): void {
    if (!(#map in this)) return realHeaders().prototype.delete.call(this, name);
    const k = headerName(name, 'delete');
    if (k === 'set-cookie') this.#cookies.length = 0;
    this.#map.delete(k);
  }
  get(name: string): string | null {
    if (!(#map in this)) return realHeaders().prototype.get.call(this, name);
    return this.#map.get(headerName(name, 'get')) ?? null;
  }
  has(name: string): boolean {
    if (!(#map in this)) return realHeaders().prototype.has.call(this, name);
    return this.#map.has(headerName(name, 'has'));
  }
  getSetCookie(): string[] {
    if (!(#map in this)) return realHeaders().prototype.getSetCookie.call(this);
    return [...this.#cookies];
  }
  forEach(fn: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    if (!(#map in this)) return realHeaders().prototype.forEach.call(this, fn as never, thisArg);
    if (typeof fn !== 'function') throw new TypeError('Headers.forEach: the callback is not a function.');
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
  entries(): IterableIterator<Pair> {
    if (!(#map in this)) return realHeaders().prototype.entries.call(this) as IterableIterator<Pair>;
    return this.#sorted()[Symbol.iterator]();
  }
  keys(): IterableIterator<string> {
    if (!(#map in this)) return realHeaders().prototype.keys.call(this);
    return this.#sorted().map(([k]) => k)[Symbol.iterator]();
  }
  values(): IterableIterator<string> {
    if (!(#map in this)) return realHeaders().prototype.values.call(this);
    return this.#sorted().map(([, v]) => v)[Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<Pair> {
    return this.entries();
  }

  /** The Fetch standard's "sort and combine": names sorted, each set-cookie value its own pair. */
  #sorted(): Pair[] {
    const out: Pair[] = [];
    for (const k of [...this.#map.keys()].sort()) {
      if (k === 'set-cookie') for (const c of this.#cookies) out.push([k, c]);
      else out.push([k, this.#map.get(k)!]);
    }
    return out;
  }
}
Object.defineProperty(Headers.prototype, Symbol.toStringTag, { value: 'Headers', configurable: true });
Object.defineProperty(Headers.prototype, OURS, { value: true });

/**
 * Headers from node's rawHeaders (name, value, name, value…), as a response's: node's HTTP parser has
 * already checked the names and values and trimmed the values, so they are taken as they are.
 */
export function headersFromRaw(raw: readonly string[]): Headers {
  const h = new Headers();
  for (let i = 0; i < raw.length; i += 2) addRaw(h, raw[i], raw[i + 1]);
  return h;
}
