// The Response that nodeFetch (http.ts) returns: the parts of the Fetch API's Response that the
// OpenAI and Anthropic SDKs (and our own callers) use, over a node:http response, without undici's
// Response/Headers/web streams. Those cost a ReadableStream, its controller and a promise chain
// per chunk on every LLM request; this is one queue and one promise per read.
//
// What it provides:
// - status, statusText, ok, url, redirected, type, headers (src/llm/fetch-headers.ts: the Fetch
//   standard's Headers, without undici);
// - body: null for null-body statuses, else a single-reader stream that is async iterable (the
//   Anthropic SDK's and `for await` path) and has getReader() → read()/cancel()/releaseLock() (the
//   OpenAI SDK's path), cancel() and `locked`;
// - text() (UTF-8, leading BOM dropped), json(), arrayBuffer(), bytes(), blob(), formData(), clone(),
//   bodyUsed.
// It is not a web ReadableStream: code that needs one (pipeTo, Readable.fromWeb, new Response(body))
// calls toWebResponse() first, which builds the real thing (and loads undici).
import type { Readable } from 'node:stream';
import type { Headers as FetchHeaders } from './fetch-headers.ts';

const MAX_QUEUED = 1 << 20; // bytes buffered ahead of a slow reader before the socket is paused

type Read = IteratorResult<Uint8Array, undefined>;
const DONE: Read = { done: true, value: undefined };

/** One reader's view of a node stream: chunks queue as they arrive, reads take them in order. */
class Feed {
  readonly queue: Uint8Array[] = [];
  queued = 0;
  ended = false;
  error: unknown = undefined;
  waiter: { resolve: (r: Read) => void; reject: (e: unknown) => void } | undefined;

  push(chunk: Uint8Array): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ done: false, value: chunk });
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.byteLength;
  }
  end(): void {
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve(DONE);
    }
  }
  fail(err: unknown): void {
    if (this.ended || this.error !== undefined) return;
    this.error = err;
    this.queue.length = 0; // as a web stream does: an error discards what was not read yet
    this.queued = 0;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.reject(err);
    }
  }
  /** A second feed with the same state, for a clone. */
  copy(): Feed {
    const f = new Feed();
    f.queue.push(...this.queue);
    f.queued = this.queued;
    f.ended = this.ended;
    f.error = this.error;
    return f;
  }
  next(): Promise<Read> {
    if (this.queue.length) {
      const value = this.queue.shift()!;
      this.queued -= value.byteLength;
      return Promise.resolve({ done: false, value });
    }
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise<Read>((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}

/**
 * The source behind one response's body: a node Readable feeding one or more readers (more after
 * clone()). The socket pauses while a reader has MAX_QUEUED bytes waiting.
 */
export class BodySource {
  readonly feeds: Feed[] = [];
  readonly stream: Readable;
  #release: () => void;
  #cancelled = 0;

  /** `release` closes the connection when every reader cancelled (default: destroy `stream`). */
  constructor(stream: Readable, release: () => void = () => stream.destroy()) {
    this.stream = stream;
    this.#release = release;
    stream.on('data', (c: Buffer) => {
      let full = false;
      for (const f of this.feeds) {
        f.push(c);
        if (f.queued > MAX_QUEUED) full = true;
      }
      if (full) stream.pause();
    });
    stream.on('end', () => {
      for (const f of this.feeds) f.end();
    });
    stream.on('error', (e) => this.fail(e));
    // A connection lost without an 'error' (or a destroy() elsewhere): readers must not wait forever.
    stream.on('close', () => {
      if (this.feeds.some((f) => !f.ended && f.error === undefined)) this.fail(Object.assign(new TypeError('terminated'), { cause: new Error('other side closed') }));
    });
  }

  /** The body's first reader; a clone adds another (NodeBody.tee). */
  body(): NodeBody {
    return new NodeBody(this, this.add(new Feed()));
  }
  add(f: Feed): Feed {
    this.feeds.push(f);
    return f;
  }
  /** Fails every reader with `err` (an abort, a lost connection). */
  fail(err: unknown): void {
    for (const f of this.feeds) f.fail(err);
  }
  drained(): void {
    if (this.stream.isPaused() && this.feeds.every((f) => f.queued <= MAX_QUEUED / 2 || f.ended)) this.stream.resume();
  }
  /** A reader gave up; the connection is closed once every reader has. */
  cancel(): void {
    if (++this.#cancelled >= this.feeds.length && !this.stream.readableEnded) this.#release();
  }
}

/** A response body: single reader, async iterable, getReader() for web-stream style reading. */
export class NodeBody implements AsyncIterable<Uint8Array> {
  #source: BodySource;
  #feed: Feed;
  #locked = false;
  #disturbed = false;
  #cancelled = false;

  constructor(source: BodySource, feed: Feed) {
    this.#source = source;
    this.#feed = feed;
  }

  get locked(): boolean {
    return this.#locked;
  }
  get disturbed(): boolean {
    return this.#disturbed;
  }

  #read(): Promise<Read> {
    this.#disturbed = true;
    if (this.#cancelled) return Promise.resolve(DONE);
    const r = this.#feed.next();
    if (this.#feed.queued <= MAX_QUEUED / 2) this.#source.drained();
    return r;
  }

  cancel(_reason?: unknown): Promise<void> {
    this.#disturbed = true;
    if (!this.#cancelled) {
      this.#cancelled = true;
      this.#feed.queue.length = 0;
      this.#feed.queued = 0;
      this.#feed.end();
      this.#source.cancel();
    }
    return Promise.resolve();
  }

  getReader(): { read: () => Promise<Read>; cancel: (reason?: unknown) => Promise<void>; releaseLock: () => void; closed: Promise<void> } {
    if (this.#locked) throw new TypeError('ReadableStream is locked');
    this.#locked = true;
    return {
      read: () => this.#read(),
      cancel: (reason?: unknown) => this.cancel(reason),
      releaseLock: () => {
        this.#locked = false;
      },
      get closed(): Promise<void> {
        return Promise.resolve();
      },
    };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    this.#locked = true;
    const it: AsyncIterableIterator<Uint8Array> = {
      next: () => this.#read() as Promise<IteratorResult<Uint8Array>>,
      return: async () => {
        await this.cancel();
        return DONE as IteratorResult<Uint8Array>;
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }

  /** Every remaining byte, in one buffer. */
  async collect(): Promise<Buffer> {
    if (this.#locked || this.#disturbed) throw new TypeError('Body is unusable: Body has already been read');
    this.#locked = true;
    const chunks: Uint8Array[] = [];
    for (let r = await this.#read(); !r.done; r = await this.#read()) chunks.push(r.value);
    return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks);
  }

  /** A second reader of the same bytes (fetch's tee), for Response.clone(). */
  tee(): NodeBody {
    if (this.#disturbed) throw new TypeError('Response.clone: Body has already been consumed.');
    return new NodeBody(this.#source, this.#source.add(this.#feed.copy()));
  }
}

const utf8 = new TextDecoder();

export class NodeResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url: string;
  readonly body: NodeBody | null;
  readonly redirected = false;
  readonly type = 'basic';

  constructor(body: NodeBody | null, init: { status: number; statusText?: string; headers: FetchHeaders; url: string }) {
    this.body = body;
    this.status = init.status;
    this.statusText = init.statusText ?? '';
    this.headers = init.headers;
    this.url = init.url;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }
  get bodyUsed(): boolean {
    return this.body?.disturbed ?? false;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.body) return new Uint8Array(0);
    const buf = await this.body.collect();
    return new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  async text(): Promise<string> {
    return utf8.decode(await this.bytes());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }
  async formData(): Promise<FormData> {
    return (await this.toWebResponse()).formData();
  }
  clone(): NodeResponse {
    return new NodeResponse(this.body?.tee() ?? null, { status: this.status, statusText: this.statusText, headers: this.headers, url: this.url });
  }

  /** The same response as a real fetch Response (loads undici), for code that needs web streams. */
  async toWebResponse(): Promise<Response> {
    const headers = new Headers();
    for (const [k, v] of this.headers) headers.append(k, v);
    const from = (ReadableStream as unknown as { from(it: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> }).from;
    const body = this.body ? from.call(ReadableStream, this.body) : null;
    return new Response(body, { status: this.status, statusText: this.statusText, headers });
  }
  get [Symbol.toStringTag](): string {
    return 'Response';
  }
}
