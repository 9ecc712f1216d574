// The cached request body of a wire adapter: the history part of a JSON body kept as one growing run
// of UTF-8 bytes that the next request of the same stream function extends with only what was
// appended since (openai-chat.ts, anthropic.ts). In a long turn every request re-sends the same
// history; serialising it again — then measuring and encoding the whole body for the socket — was
// most of the loop's own CPU per step.
//
// A run is `head` and an optional `prefix` (the first element of the array, e.g. the chat system
// message), then units joined by commas. A unit is the JSON of one wire message, made from the
// history messages before some index: `needs` is how many leading history messages must still be
// the very objects, with the same top-level fields, for its bytes to stay valid (chat: its own
// message and those before; Anthropic: also the first message of the next wire message, which ends
// its merge). History messages are never edited in place once sent (the loop appends new ones;
// compression and repair build new objects); should a sent message's top-level fields be reassigned
// anyway, or the history be replaced, the run is cut back to the units made before it.

import { type AdapterOptions, type AttemptContext, runAttempt } from './attempt.ts';
import type { ProviderRuntime } from './resolve.ts';
import { type Message, samePrefix, type StopReason, type StreamFn, type StreamRequest } from './types.ts';

/** The fields a history message's JSON was made from, as last sent (to notice a reassignment). */
interface SentMessage {
  role: Message['role'];
  content: Message['content'];
  tool_call_id: Message['tool_call_id'];
  tool_calls: Message['tool_calls'];
  reasoning: Message['reasoning'];
  reasoning_details: Message['reasoning_details'];
}

const snapshot = ({ role, content, tool_call_id, tool_calls, reasoning, reasoning_details }: Message): SentMessage => ({
  role,
  content,
  tool_call_id,
  tool_calls,
  reasoning,
  reasoning_details,
});

const unchanged = (s: SentMessage, m: Message) =>
  s.role === m.role && s.content === m.content && s.tool_call_id === m.tool_call_id && s.tool_calls === m.tool_calls && s.reasoning === m.reasoning && s.reasoning_details === m.reasoning_details;

/** A run of body bytes in `buf` (up to `length`; `start` = head and prefix). `D`: what the adapter keeps per unit. */
export interface BodyRun<D = undefined> {
  head: string;
  prefix: Buffer | null;
  /** History messages checked before the units are reused, and what each was made from. */
  seen: Message[];
  sent: SentMessage[];
  /** Per unit: where its bytes end, how many history messages it needs unchanged, the adapter's data. */
  ends: number[];
  needs: number[];
  data: D[];
  buf: Buffer;
  start: number;
  length: number;
}

// Cached bytes live as long as the stream function: each run gets its own exactly-sized memory. A
// small Buffer.from() is a slice of a shared 8 KB pool slab, and one long-lived slice keeps its whole
// slab alive (in the gateway: ~8 KB retained per cached message, RSS growing ~30 MB per 1k messages).
export const ownBytes = (chunks: Buffer[]): Buffer => {
  const b = Buffer.allocUnsafeSlow(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) at += c.copy(b, at);
  return b;
};
/** `text` as UTF-8 in memory of its own (see ownBytes). */
export const ownUtf8 = (text: string): Buffer => {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  b.write(text);
  return b;
};
export const utf8 = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
export const COMMA = Buffer.from(',');

/**
 * The run to extend: `prev` when it starts with the same head and prefix, else a new one. Its
 * buffer has room for ~half as much again, so a step copies only the new units' bytes.
 */
export function openRun<D>(prev: BodyRun<D> | undefined, head: string, prefix: Buffer | null): BodyRun<D> {
  if (prev && prev.head === head && (prev.prefix === prefix || (!!prev.prefix && !!prefix && prev.prefix.equals(prefix)))) return prev;
  const headBytes = Buffer.from(head);
  const start = headBytes.length + (prefix?.length ?? 0);
  const buf = Buffer.allocUnsafeSlow(Math.max(start * 2, 4096));
  headBytes.copy(buf, 0);
  prefix?.copy(buf, headBytes.length);
  return { head, prefix, seen: [], sent: [], ends: [], needs: [], data: [], buf, start, length: start };
}

/**
 * Keeps the units whose history messages are unchanged in `messages` and that need at most `limit`
 * of them (those after are to be serialised fresh); returns how many units are kept.
 */
export function keepUnits<D>(run: BodyRun<D>, messages: Message[], limit = messages.length): number {
  const same = samePrefix(run.seen, messages, (i) => unchanged(run.sent[i], messages[i]));
  run.seen.length = run.sent.length = same;
  const max = Math.min(same, limit);
  let k = run.needs.length;
  while (k > 0 && run.needs[k - 1] > max) k--;
  cutUnits(run, k);
  return k;
}

/** Cuts the run back to its first `k` units. */
export function cutUnits<D>(run: BodyRun<D>, k: number): void {
  if (run.ends.length <= k) return;
  run.ends.length = run.needs.length = run.data.length = k;
  run.length = k ? run.ends[k - 1] : run.start;
}

/** Whether the next element of the array (unit or not) needs a comma before it. */
export const needsComma = (run: BodyRun<unknown>): boolean => run.ends.length > 0 || run.prefix !== null;

/** Appends one unit (its JSON `bytes`), made from the first `needs` of `messages`. */
export function appendUnit<D>(run: BodyRun<D>, messages: Message[], bytes: Buffer, needs: number, data: D): void {
  const comma = needsComma(run);
  reserve(run, run.length + (comma ? 1 : 0) + bytes.length);
  if (comma) run.length += COMMA.copy(run.buf, run.length);
  run.length += bytes.copy(run.buf, run.length);
  run.ends.push(run.length);
  run.needs.push(needs);
  run.data.push(data);
  for (let i = run.seen.length; i < needs; i++) {
    run.seen.push(messages[i]);
    run.sent.push(snapshot(messages[i]));
  }
}

/**
 * The whole body: the run, then `rest` written right after it in its buffer (the run's bytes are
 * never copied per request). The result is a view of the run's buffer, valid until the run is used
 * again: a request made while another one is being sent must use a run of its own (exclusiveCache).
 */
export function finishBody(run: BodyRun<unknown>, rest: Buffer[]): Buffer {
  reserve(run, run.length + rest.reduce((n, b) => n + b.length, 0));
  let at = run.length;
  for (const b of rest) at += b.copy(run.buf, at);
  return run.buf.subarray(0, at);
}

/** Room for `size` bytes in the run's buffer (grown by half, what is written so far kept). */
function reserve(run: BodyRun<unknown>, size: number): void {
  if (size <= run.buf.length) return;
  const grown = Buffer.allocUnsafeSlow(Math.max(size, Math.ceil(run.buf.length * 1.5)));
  run.buf.copy(grown, 0, 0, run.length);
  run.buf = grown;
}

/**
 * Hands a stream function's body cache to one request at a time: a request made while another is
 * still being sent (a background review, a side question on the same client) gets a fresh cache of
 * its own, leaving the bytes being sent intact; with `enabled` false every request gets a fresh one.
 */
export function exclusiveCache<C>(enabled: boolean, make: () => C): <R>(use: (cache: C) => Promise<R>) => Promise<R> {
  const own = enabled ? make() : null;
  let busy = false;
  return async (use) => {
    if (!own || busy) return use(make());
    busy = true;
    try {
      return await use(own);
    } finally {
      busy = false;
    }
  };
}

/**
 * A StreamFn whose attempts get its SDK client (made on first use) and its body cache
 * (exclusiveCache: fresh per request while another is being sent, or with `opts.cacheBodies` false).
 */
export function cachedBodyStream<K, C>(
  runtime: ProviderRuntime,
  opts: AdapterOptions,
  makeClient: () => Promise<K>,
  makeCache: () => C,
  attempt: (req: StreamRequest, ctx: AttemptContext, client: K, cache: C) => Promise<StopReason>,
): StreamFn {
  let client: Promise<K> | undefined;
  const withCache = exclusiveCache(opts.cacheBodies !== false, makeCache);
  return (req) =>
    runAttempt(runtime, req, opts, (ctx) =>
      withCache(async (cache) => {
        client ??= makeClient();
        const c = await client;
        ctx.touch(); // the SDK's first-use import does not count as provider silence
        return attempt(req, ctx, c, cache);
      }),
    );
}
