// What the three wire adapters share: one attempt's lifecycle (abort wiring, stale-stream and total
// timeouts, "a stream never throws") and the accumulator that turns deltas into events and the
// final assistant message.

import { EventStream } from './event-stream.ts';
import { FirstByteTimeoutError, markStreamFault, StaleStreamError, toProviderError } from './errors.ts';
import type { ProviderRuntime } from './resolve.ts';
import {
  emptyUsage,
  type LlmStream,
  type Message,
  type ProviderError,
  type StopReason,
  type StreamRequest,
  type StreamResult,
  type ToolCall,
  type Usage,
} from './types.ts';

export interface AdapterOptions {
  /** Injected into the SDK (tests, proxies). */
  fetch?: typeof fetch;
  /** Abort when no chunk arrives for this long (default HERMES_STREAM_STALE_TIMEOUT, 180 s). */
  staleMs?: number;
  /** Abort the whole call after this long (default HERMES_API_TIMEOUT, 1800 s). */
  timeoutMs?: number;
  /**
   * Abort when the response has not begun (no status line) this long after the request went out;
   * 0 or unset: only the stale timeout applies. See client.ts for the default.
   */
  firstByteMs?: number;
  now?: () => number;
  /** false: no request bytes kept from one call to the next (see LlmClientOptions.cacheBodies). */
  cacheBodies?: boolean;
}

function envSeconds(name: string, fallback: number): number {
  const raw = typeof process !== 'undefined' ? process.env[name] : undefined;
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export const defaultStaleMs = (): number => envSeconds('HERMES_STREAM_STALE_TIMEOUT', 180) * 1000;
export const defaultTimeoutMs = (): number => envSeconds('HERMES_API_TIMEOUT', 1800) * 1000;
/** HERMES_STREAM_FIRST_BYTE_TIMEOUT in ms, or undefined when unset ("0" turns the deadline off). */
export function envFirstByteMs(env: Record<string, string | undefined> | undefined = typeof process !== 'undefined' ? process.env : undefined): number | undefined {
  const raw = env?.HERMES_STREAM_FIRST_BYTE_TIMEOUT;
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}

interface ToolSlot {
  id: string;
  name: string;
  args: string;
}

let idCounter = 0;
export const makeCallId = (prefix = 'call'): string =>
  `${prefix}_${Date.now().toString(36)}${(idCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Collects deltas into events (pushed as they come) and the final assistant message. */
export class Accumulator {
  text = '';
  reasoning = '';
  readonly tools: ToolSlot[] = [];
  usage: Usage = emptyUsage();
  reasoningDetails: unknown[] = [];
  codexItems: unknown[] = [];
  finishReason: string | null = null;
  private readonly out: EventStream;

  constructor(out: EventStream) {
    this.out = out;
  }

  addText(t: string | null | undefined): void {
    if (!t) return;
    this.text += t;
    this.out.push({ type: 'text_delta', text: t });
  }

  addReasoning(t: string | null | undefined): void {
    if (!t) return;
    this.reasoning += t;
    this.out.push({ type: 'reasoning_delta', text: t });
  }

  /** Opens a tool call and returns its index in this response. */
  startTool(id: string | null | undefined, name: string): number {
    const index = this.tools.length;
    const slot = { id: id || makeCallId(), name, args: '' };
    this.tools.push(slot);
    this.out.push({ type: 'tool_call_start', index, id: slot.id, name });
    return index;
  }

  toolArgs(index: number, delta: string | null | undefined): void {
    if (!delta) return;
    const slot = this.tools[index];
    if (!slot) return;
    slot.args += delta;
    this.out.push({ type: 'tool_call_delta', index, argumentsDelta: delta });
  }

  /** Completes a tool call's arguments from a final value when deltas were missing or partial. */
  completeToolArgs(index: number, full: string | null | undefined): void {
    const slot = this.tools[index];
    if (!slot || typeof full !== 'string') return;
    if (full.startsWith(slot.args) && full.length > slot.args.length) this.toolArgs(index, full.slice(slot.args.length));
  }

  get hasContent(): boolean {
    return this.text.length > 0 || this.tools.length > 0 || this.reasoning.length > 0;
  }

  message(): Message {
    const msg: Message = { role: 'assistant', content: this.text };
    if (this.tools.length) {
      msg.tool_calls = this.tools.map(
        (t): ToolCall => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.args.trim() ? t.args : '{}' } }),
      );
    }
    if (this.reasoning) msg.reasoning = this.reasoning;
    if (this.reasoningDetails.length) msg.reasoning_details = this.reasoningDetails;
    if (this.codexItems.length) msg.codex_reasoning_items = this.codexItems;
    if (this.finishReason) msg.finish_reason = this.finishReason;
    return msg;
  }
}

export interface AttemptContext {
  acc: Accumulator;
  /** Aborts on the caller's signal, the stale-stream watchdog and the total timeout. */
  signal: AbortSignal;
  /** Call on every chunk: resets the stale-stream watchdog. */
  touch(): void;
  /** Call when the response has begun (the SDK handed over the response): ends the first-byte deadline. */
  responded(): void;
}

/**
 * Runs one request. `body` streams into `ctx.acc` and returns the stop reason; anything it throws
 * becomes a `done` with stopReason 'error' (or 'aborted' when the caller's signal fired).
 */
export function runAttempt(
  runtime: ProviderRuntime,
  req: StreamRequest,
  opts: AdapterOptions,
  body: (ctx: AttemptContext) => Promise<StopReason>,
): LlmStream {
  const out = new EventStream();
  const acc = new Accumulator(out);
  const model = req.model || runtime.model;
  const result = (stopReason: StopReason, error?: ProviderError): StreamResult => {
    const r: StreamResult = { message: acc.message(), stopReason, usage: acc.usage, model, provider: runtime.provider };
    if (error) r.error = error;
    return r;
  };
  const abortedResult = () =>
    result('aborted', { kind: 'aborted', message: 'request aborted', provider: runtime.provider, model, baseUrl: runtime.baseUrl, retryable: false });

  if (req.signal?.aborted) {
    out.end(abortedResult());
    return out;
  }

  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(req.signal?.reason);
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const staleMs = opts.staleMs ?? defaultStaleMs();
  const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs();
  const firstByteMs = opts.firstByteMs ?? 0;
  const now = opts.now ?? Date.now;
  let timedOut: Error | undefined;
  const staleTimer = setTimeout(() => {
    timedOut = new StaleStreamError(staleMs);
    ctrl.abort(timedOut);
  }, staleMs);
  const totalTimer = setTimeout(() => {
    timedOut = Object.assign(new Error(`no complete response within ${Math.round(timeoutMs / 1000)}s`), { name: 'TimeoutError' });
    ctrl.abort(timedOut);
  }, timeoutMs);
  // The first-byte deadline runs from the last touch before the response (the request going out).
  let firstByteTimer: NodeJS.Timeout | undefined =
    firstByteMs > 0 && firstByteMs < staleMs
      ? setTimeout(() => {
          timedOut = new FirstByteTimeoutError(firstByteMs);
          ctrl.abort(timedOut);
        }, firstByteMs)
      : undefined;
  let sentAt = now();
  let firstByteAt: number | undefined;
  const cleanup = () => {
    clearTimeout(staleTimer);
    clearTimeout(totalTimer);
    if (firstByteTimer) clearTimeout(firstByteTimer);
    req.signal?.removeEventListener('abort', onAbort);
  };
  const ctx: AttemptContext = {
    acc,
    signal: ctrl.signal,
    touch: () => {
      staleTimer.refresh();
      if (firstByteAt === undefined) {
        sentAt = now();
        firstByteTimer?.refresh();
      }
    },
    responded: () => {
      staleTimer.refresh();
      if (firstByteAt !== undefined) return;
      firstByteAt = now();
      if (firstByteTimer) clearTimeout(firstByteTimer);
      firstByteTimer = undefined;
    },
  };
  const timed = (r: StreamResult): StreamResult => {
    if (firstByteAt !== undefined) r.firstByteMs = Math.max(0, firstByteAt - sentAt);
    return r;
  };
  const fail = (err: unknown) => {
    if (req.signal?.aborted) return abortedResult();
    const raw = timedOut ?? err;
    const e = markStreamFault(toProviderError(raw, runtime, { model, now: opts.now }), raw, firstByteAt !== undefined);
    return timed(result('error', e));
  };

  body(ctx).then(
    (stop) => {
      cleanup();
      // The SDKs end iteration quietly when their request is aborted: decide why here.
      if (req.signal?.aborted) out.end(abortedResult());
      else if (timedOut) out.end(fail(timedOut));
      else out.end(timed(result(stop)));
    },
    (err) => {
      cleanup();
      out.end(fail(err));
    },
  );
  return out;
}

/** `data:image/png;base64,xxx` → its parts, or undefined for a plain URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1], data: m[2] } : undefined;
}

/** Text of a message's content (parts joined; images dropped). */
export function contentText(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** Claude models get Anthropic prompt-cache breakpoints. */
export const isClaudeModel = (model: string): boolean => /claude/i.test(model);
