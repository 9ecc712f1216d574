// The resilient client the agent runtime streams through: retries with jittered backoff, the
// credential pool (key rotation), and the fallback chain, over the three one-attempt wire adapters.
//
// Retry rule: an attempt is retried (or handed to another key / a fallback) only if none of its
// text, reasoning or tool-call deltas reached the consumer. Once a delta went out, a failure ends the
// stream with that error (stopReason 'error', partial message kept) and the agent decides; we never
// replay output the consumer already showed. Failures before the first delta (connect errors, HTTP
// errors, a stream cut before any content) retry transparently.
//
// Per failure kind:
//   401 on an OAuth credential → refresh its token once and try again with the new one.
//   429 / 401 / 403 / 402 with another usable key → rotate key at once (`key_rotated`), no backoff;
//     the failed credential is benched as Hermes benches it (see credentials.ts) and the layer that
//     owns it is told (auth.json keeps the status, so other processes skip it too).
//   429 / 5xx / connection / timeout / invalid response → backoff retry (`retry`), at most
//     `maxRetries`; then the fallback.
//   401 / 403 / 404 / 402 (no other key) → the fallback at once.
//   400 / context length → end with the error (the agent compresses or reports).
// A fallback activates at most once per turn and the turn stays on it; `beginTurn()` restores the
// primary. A Retry-After longer than two minutes is not waited out: it counts as retries exhausted.

import { defaultStaleMs, defaultTimeoutMs } from './attempt.ts';
import { createAnthropicStream } from './anthropic.ts';
import { CredentialPool, type FailureInfo, type KeyFailure, type KeyStrategy, type SelectedKey } from './credentials.ts';
import { type EventStream, streamFrom } from './event-stream.ts';
import { toProviderError } from './errors.ts';
import { createChatCompletionsStream } from './openai-chat.ts';
import type { ProviderRuntime } from './resolve.ts';
import { createResponsesStream } from './responses.ts';
import {
  emptyUsage,
  type ApiMode,
  type ProviderError,
  type StreamFn,
  type StreamRequest,
  type StreamResult,
} from './types.ts';

export interface LlmClientOptions {
  primary: ProviderRuntime;
  fallbacks?: ProviderRuntime[];
  /** agent.api_max_retries (default 3). */
  maxRetries?: number;
  /** Whole-call timeout in ms (default HERMES_API_TIMEOUT, 1800 s). */
  timeoutMs?: number;
  /** No-chunk timeout in ms (default HERMES_STREAM_STALE_TIMEOUT, 180 s). */
  staleMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  fetch?: typeof fetch;
  /**
   * false: every request body is serialised afresh instead of extending the bytes kept from the last
   * one. For clients called now and then (auxiliary tasks: titles, reviews, compression): a kept copy
   * of a conversation's history, as bytes, would cost memory for as long as the session stays warm.
   */
  cacheBodies?: boolean;
  adapters?: Partial<Record<ApiMode, (rt: ProviderRuntime) => StreamFn>>;
  now?: () => number;
  /** How a runtime's keys are used (default fill_first; see credentials.ts). */
  keyStrategy?: KeyStrategy;
  /**
   * Consulted once per failed attempt before the retry/rotate/fallback decision (plugins'
   * `transform_api_error_classification`): a ProviderError replaces the built-in classification.
   */
  classifyError?: (err: ProviderError, ctx: { runtime: ProviderRuntime; model: string; request: StreamRequest }) => Promise<ProviderError | undefined>;
}

export interface LlmClient {
  stream: StreamFn;
  /** Call at each new user turn: restores the primary runtime and re-arms the fallback. */
  beginTurn(): void;
  /** The runtime in use right now (the primary, or the fallback activated this turn). */
  readonly active: ProviderRuntime;
  /** Replace the primary (e.g. `/model`): it becomes active at once. */
  switchTo(rt: ProviderRuntime): void;
}

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;
export const MAX_RETRY_AFTER_MS = 120_000;

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const label = (rt: ProviderRuntime) => `${rt.provider}:${rt.model}`;
const sameTarget = (a: ProviderRuntime, b: ProviderRuntime) =>
  a === b || (a.provider === b.provider && a.model === b.model && a.baseUrl === b.baseUrl && a.apiMode === b.apiMode);

function describeBrief(e: ProviderError): string {
  const status = e.status ? `HTTP ${e.status} ` : '';
  return `${status}${e.kind.replace(/_/g, ' ')}${e.message ? `: ${e.message}` : ''}`;
}

const KEY_FAILURES: Partial<Record<ProviderError['kind'], KeyFailure>> = {
  rate_limit: 'rate_limit',
  billing: 'billing',
  auth: 'auth',
  forbidden: 'forbidden',
};

function failureInfo(err: ProviderError, now: (() => number) | undefined): FailureInfo {
  const info: FailureInfo = { message: err.message };
  if (err.status) info.code = err.status;
  if (err.kind === 'billing') info.reason = 'billing';
  if (err.retryAfterMs !== undefined) info.resetAt = (now ?? Date.now)() + err.retryAfterMs;
  return info;
}

export function createLlmClient(o: LlmClientOptions): LlmClient {
  let primary = o.primary;
  let active = primary;
  let fallbackUsed = false;
  const maxRetries = Math.max(0, o.maxRetries ?? 3);
  const sleep = o.sleep ?? defaultSleep;
  const random = o.random ?? Math.random;
  // Read from the environment once per client, not on every request of the loop.
  const timeoutMs = o.timeoutMs ?? defaultTimeoutMs();
  const adapterOpts = { fetch: o.fetch, staleMs: o.staleMs ?? defaultStaleMs(), timeoutMs, now: o.now, cacheBodies: o.cacheBodies };
  const pools = new WeakMap<ProviderRuntime, CredentialPool>();
  const adapters = new WeakMap<ProviderRuntime, Map<string, StreamFn>>();

  const poolFor = (rt: ProviderRuntime): CredentialPool => {
    let p = pools.get(rt);
    if (!p) {
      const creds = rt.credentials?.length ? rt.credentials : rt.keys.length ? rt.keys : [rt.apiKey];
      p = new CredentialPool(creds, { strategy: rt.keyStrategy ?? o.keyStrategy, now: o.now, random: o.random, hooks: rt.poolHooks });
      pools.set(rt, p);
    }
    return p;
  };

  const factoryFor = (mode: ApiMode): ((rt: ProviderRuntime) => StreamFn) => {
    const injected = o.adapters?.[mode];
    if (injected) return injected;
    if (mode === 'anthropic_messages') return (rt) => createAnthropicStream(rt, adapterOpts);
    if (mode === 'codex_responses') return (rt) => createResponsesStream(rt, adapterOpts);
    return (rt) => createChatCompletionsStream(rt, adapterOpts);
  };

  const adapterFor = (rt: ProviderRuntime, sel: SelectedKey): StreamFn => {
    let byKey = adapters.get(rt);
    if (!byKey) adapters.set(rt, (byKey = new Map()));
    const baseUrl = sel.cred.baseUrl ?? rt.baseUrl;
    const cacheKey = `${sel.index}\u0000${sel.key}\u0000${baseUrl}`;
    let fn = byKey.get(cacheKey);
    if (!fn) {
      // A refreshed OAuth token replaces the adapter built for the old one.
      for (const k of byKey.keys()) if (k.startsWith(`${sel.index}\u0000`)) byKey.delete(k);
      fn = factoryFor(rt.apiMode)({ ...rt, apiKey: sel.key, baseUrl });
      byKey.set(cacheKey, fn);
    }
    return fn;
  };

  const backoffDelay = (attempt: number, err: ProviderError): number | undefined => {
    if (err.retryAfterMs !== undefined) return err.retryAfterMs > MAX_RETRY_AFTER_MS ? undefined : Math.ceil(err.retryAfterMs);
    const exp = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    return Math.round(exp / 2 + random() * (exp / 2));
  };

  const stream: StreamFn = (req: StreamRequest) => {
    let rt = active;
    const blank = (r: ProviderRuntime, stopReason: StreamResult['stopReason'], error: ProviderError): StreamResult => ({
      message: { role: 'assistant', content: '' },
      stopReason,
      usage: emptyUsage(),
      model: r === primary ? req.model || r.model : r.model,
      provider: r.provider,
      error,
    });
    const aborted = () =>
      blank(rt, 'aborted', { kind: 'aborted', message: 'request aborted', provider: rt.provider, model: rt.model, baseUrl: rt.baseUrl, retryable: false });

    return streamFrom(
      async (out: EventStream) => {
        let retries = 0;
        let lastError: ProviderError | undefined;
        // OAuth credentials already refreshed after a 401 in this call (one refresh each).
        const refreshed = new Set<string>();

        const activateFallback = (err: ProviderError): boolean => {
          if (fallbackUsed) return false;
          for (const f of o.fallbacks ?? []) {
            if (sameTarget(f, rt) || !poolFor(f).availableCount()) continue;
            fallbackUsed = true;
            out.push({ type: 'fallback', from: label(rt), to: label(f), reason: describeBrief(err) });
            active = f;
            rt = f;
            retries = 0;
            return true;
          }
          return false;
        };

        // A hard bound on attempts per call, whatever the rotation/fallback logic decides.
        const attemptCap =
          (maxRetries + 2) * (2 + (o.fallbacks?.length ?? 0)) + [primary, ...(o.fallbacks ?? [])].reduce((n, r) => n + r.keys.length, 0);
        let attempts = 0;
        for (;;) {
          if (req.signal?.aborted) return out.end(aborted());
          if (++attempts > attemptCap && lastError) return out.end(blank(rt, 'error', lastError));
          const pool = poolFor(rt);
          const sel = pool.select();
          if (!sel) {
            const when = pool.nextAvailableAt();
            const err: ProviderError = lastError ?? {
              kind: 'rate_limit',
              message: `all ${pool.size} key(s) for ${rt.provider} are cooling down or rejected`,
              provider: rt.provider,
              model: rt.model,
              baseUrl: rt.baseUrl,
              retryable: false,
              ...(when !== undefined ? { retryAfterMs: Math.max(0, when - (o.now ?? Date.now)()) } : {}),
            };
            if (activateFallback(err)) continue;
            return out.end(blank(rt, 'error', err));
          }

          if (!(await pool.ensureFresh(sel.index))) {
            // The grant could not be refreshed: bench it like a 401 and try the next credential.
            pool.markFailed(sel.index, 'auth', { message: 'the OAuth token could not be refreshed' });
            continue;
          }
          const current: SelectedKey = { ...sel, key: sel.cred.key };
          const model = rt === primary ? req.model || rt.model : rt.model;
          const inner = adapterFor(rt, current)({ ...req, model });
          let emitted = false;
          let result: StreamResult | undefined;
          for await (const ev of inner) {
            if (ev.type === 'done') {
              result = ev.result;
              break;
            }
            if (ev.type === 'text_delta' || ev.type === 'reasoning_delta' || ev.type === 'tool_call_start' || ev.type === 'tool_call_delta') {
              emitted = true;
            }
            out.push(ev);
          }
          result ??= await inner.result();

          const m = result.message;
          if (
            result.stopReason === 'stop' &&
            !(typeof m.content === 'string' ? m.content.trim() : m.content?.length) &&
            !m.tool_calls?.length &&
            !m.reasoning
          ) {
            result = {
              ...result,
              stopReason: 'error',
              error: {
                kind: 'invalid_response',
                message: 'the provider returned an empty response (no text, tool calls or reasoning)',
                provider: rt.provider,
                model,
                baseUrl: rt.baseUrl,
                retryable: true,
              },
            };
          }
          if (result.stopReason !== 'error') {
            pool.markSuccess(sel.index);
            return out.end(result);
          }
          let err = result.error ?? toProviderError(new Error('unknown failure'), rt);
          if (req.signal?.aborted) return out.end({ ...result, stopReason: 'aborted', error: aborted().error });
          const claimed = o.classifyError && err.kind !== 'aborted' ? await o.classifyError(err, { runtime: rt, model, request: req }) : undefined;
          if (claimed) {
            err = claimed;
            result = { ...result, error: claimed };
          }
          lastError = err;
          if (emitted) return out.end(result);

          if (err.kind === 'auth' && err.rotate !== false && sel.cred.refresh && !refreshed.has(sel.cred.id)) {
            refreshed.add(sel.cred.id);
            if (await pool.refresh(sel.index)) continue;
          }
          const keyFailure = err.rotate === false ? undefined : (KEY_FAILURES[err.kind] ?? (err.rotate ? 'forbidden' : undefined));
          if (keyFailure && pool.hasAlternative(sel.index)) {
            pool.markFailed(sel.index, keyFailure, failureInfo(err, o.now));
            const next = pool.peek();
            if (next) {
              out.push({
                type: 'key_rotated',
                provider: rt.provider,
                reason: `${describeBrief(err)} — switching from key ${sel.index + 1} to key ${next.index + 1} of ${pool.size}`,
              });
              continue;
            }
          }

          // A plugin's should_fallback decides; else these kinds go to the fallback at once.
          const fallBack = err.fallback ?? (err.kind === 'auth' || err.kind === 'forbidden' || err.kind === 'not_found' || err.kind === 'billing');
          if (fallBack && !err.retryable) {
            if (activateFallback(err)) continue;
            return out.end(result);
          }
          if (err.retryable) {
            const delay = backoffDelay(retries + 1, err);
            if (retries < maxRetries && delay !== undefined) {
              retries++;
              out.push({ type: 'retry', attempt: retries, maxAttempts: maxRetries, delayMs: delay, error: err });
              await sleep(delay, req.signal);
              continue;
            }
            if (err.fallback !== false && activateFallback(err)) continue;
            return out.end(result);
          }
          return out.end(result);
        }
      },
      (thrown) => blank(rt, 'error', toProviderError(thrown, rt)),
    );
  };

  return {
    stream,
    beginTurn() {
      active = primary;
      fallbackUsed = false;
    },
    get active() {
      return active;
    },
    switchTo(rt: ProviderRuntime) {
      primary = rt;
      active = rt;
      fallbackUsed = false;
    },
  };
}
