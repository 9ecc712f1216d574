// The API server's event streams (SSE) with backpressure. A turn's events are written as the client
// reads them, never buffered without bound:
// - what a tick produced leaves as one chunk (one write, not one per delta);
// - while the client is slow (the socket's write() said false and has not drained, so the
//   response stream's queue is at its high-water mark), text deltas are merged into one pending
//   delta instead of queueing an event each, and the turn itself waits: the session's model stream
//   is gated (`gateStream`), so the agent loop takes no further event, runs no tool and starts no
//   next step until the client has read;
// - a client that reads nothing for `writeTimeoutMs` while output waits is cut off and its turn
//   interrupted.
import type { LlmClient } from '../../llm/client.ts';
import type { LlmStream, StreamEvent } from '../../llm/types.ts';

/** Bytes queued for one response before the producer holds back (the socket has its own buffer too). */
export const SSE_HIGH_WATER = 64 * 1024;

interface Item {
  /** The event's data, or how to make it when it is written (sequence numbers stay in order). */
  data?: string | (() => string);
  /** A text delta (merged while the client is behind) and how its data is made. */
  text?: string;
  make?: (text: string) => string;
  event?: string;
}

export interface SseSink {
  /** A whole event: its data (or a function making it when it is written), named when `event` is given. */
  send(data: string | (() => string), event?: string): void;
  /**
   * A text delta whose event data is `make(text)`. Deltas that wait for a slow client are merged
   * (same `make`: one event for all of them) instead of queued one by one.
   */
  sendText(text: string, make: (text: string) => string, event?: string): void;
  /** Undefined while the client keeps up; else resolves when it has read (or the stream ended). */
  ready(): Promise<void> | undefined;
  /** Bytes waiting in this response (queued for the socket plus not yet queued). */
  readonly buffered: number;
}

export interface SseOptions {
  highWater?: number;
  /** Cut a client off that reads nothing for this long while output waits (ms; 0: never). */
  writeTimeoutMs?: number;
  /** Called when the client went away or was cut off (interrupt the turn). */
  onCancel: () => void;
  /** Called when a client is cut off as too slow, with a line for the log: close its connection. */
  onSlowClient?: (msg: string) => void;
}

const enc = new TextEncoder();
const frame = (data: string, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${data}\n\n`;

/** An SSE response body whose producer (`run`) is held back by the reader. */
export function sseBody(run: (sink: SseSink) => Promise<void>, o: SseOptions): ReadableStream<Uint8Array> {
  const highWater = o.highWater ?? SSE_HIGH_WATER;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let items: Item[] = [];
  let itemBytes = 0;
  let closed = false;
  let ending = false;
  let scheduled = false;
  let waiters: (() => void)[] = [];
  let stallTimer: ReturnType<typeof setTimeout> | undefined;

  const room = () => !closed && (controller.desiredSize ?? 0) > 0;
  /** Bytes queued in the stream, not yet taken by the writer. */
  const queued = () => (closed ? 0 : Math.max(0, highWater - (controller.desiredSize ?? highWater)));
  const release = () => {
    if (stallTimer) clearTimeout(stallTimer);
    stallTimer = undefined;
    const w = waiters;
    waiters = [];
    for (const fn of w) fn();
  };
  const cutOff = () => {
    if (closed) return;
    o.onSlowClient?.(`a streaming client read nothing for ${Math.round((o.writeTimeoutMs ?? 0) / 1000)} s with ${(itemBytes + queued()).toLocaleString('en-US')} bytes waiting: closed, its turn interrupted`);
    closed = true;
    items = [];
    itemBytes = 0;
    release();
    try {
      controller.close();
    } catch {
      /* already closed */
    }
    o.onCancel();
  };
  /** Moves what waits into the stream as one chunk (when there is room, or at the end). */
  const flush = (force = false) => {
    scheduled = false;
    if (closed || !items.length || (!force && !room())) return;
    let s = '';
    for (const it of items) s += frame(it.make ? it.make(it.text!) : typeof it.data === 'function' ? it.data() : it.data!, it.event);
    items = [];
    itemBytes = 0;
    controller.enqueue(enc.encode(s));
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => flush());
  };
  const push = (it: Item, bytes: number) => {
    if (closed) return;
    items.push(it);
    itemBytes += bytes;
    if (room()) schedule();
  };

  const sink: SseSink = {
    send(data, event) {
      push({ data, event }, typeof data === 'string' ? data.length + 16 : 256);
    },
    sendText(text, make, event) {
      if (closed) return;
      const last = items[items.length - 1];
      if (last && last.make === make && !room()) {
        // The client is behind: one delta for everything it has not read yet.
        last.text += text;
        itemBytes += text.length;
        return;
      }
      push({ text, make, event }, text.length + 128);
    },
    ready() {
      if (closed || ending || (room() && itemBytes < highWater)) return undefined;
      if (!stallTimer && o.writeTimeoutMs) stallTimer = setTimeout(cutOff, o.writeTimeoutMs);
      return new Promise<void>((r) => waiters.push(r));
    },
    get buffered() {
      return itemBytes + queued();
    },
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        void run(sink)
          .catch((e) => sink.send(JSON.stringify({ error: { message: (e as Error).message, type: 'server_error' } })))
          .finally(() => {
            ending = true;
            release();
            if (closed) return;
            flush(true);
            closed = true;
            controller.close();
          });
      },
      pull() {
        // The reader took what was queued: the socket keeps up again.
        flush();
        if (room()) release();
      },
      cancel() {
        closed = true;
        items = [];
        release();
        o.onCancel();
      },
    },
    { highWaterMark: highWater, size: (chunk) => chunk.byteLength },
  );
}

/**
 * A client whose model stream waits for `ready()` before each event it hands to the agent loop: the
 * loop (and so the turn: its text, tools, next steps) goes only as fast as the client reads.
 */
export function gateStream(llm: LlmClient, ready: () => Promise<void> | undefined): LlmClient {
  const gated = Object.create(llm) as LlmClient;
  gated.stream = (req) => {
    const s = llm.stream(req);
    const out: LlmStream = {
      async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
        for await (const ev of s) {
          const wait = ready();
          if (wait) await wait;
          yield ev;
        }
      },
      result: () => s.result(),
    };
    return out;
  };
  return gated;
}
