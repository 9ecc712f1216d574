// The resilient client the agent runtime streams through: retries with jittered backoff, the
// credential pool (key rotation), and the fallback chain, over the three one-attempt wire adapters.
//
// Every failed attempt goes through the same decision, whether it failed before the first byte or
// mid-stream. When deltas of the failed attempt already reached the consumer (a stream cut
// mid-answer, a malformed event, a stall), a `retract` event goes out before the next attempt: the
// consumer drops what it showed of it, and the next attempt streams the answer afresh. A failure
// that ends the call (retries and fallbacks spent, or an error that is not retried) ends the stream
// with that error (stopReason 'error', the partial message in the result for the record only).
//
// Per failure kind:
//   401 on an OAuth credential → refresh its token once and try again with the new one.
//   No response by the first-byte deadline (`first_byte`) → the next key at once (the silent one is
//     set aside for a minute, in memory, for every client of the process through provider health),
//     else the fallback at once, else backoff retry.
//   429 / 401 / 403 / 402 with another usable key → rotate key at once (`key_rotated`), no backoff;
//     the failed credential is benched as Hermes benches it (see credentials.ts) and the layer that
//     owns it is told (auth.json keeps the status, so other processes skip it too); provider health
//     sets it aside for the other clients of this process (sessions, auxiliary tasks) as well.
//   429 / 5xx / connection / timeout / invalid response / a cut or malformed stream → backoff retry
//     (`retry`), at most `maxRetries`; then the fallback. A stream that stalls a second time goes to
//     the fallback without further retries.
//   401 / 403 / 404 / 402 (no other key) → the fallback at once.
//   400 / context length → end with the error (the agent compresses or reports).
// A fallback activates at most once per turn and the turn stays on it; `beginTurn()` restores the
// primary. A Retry-After longer than two minutes is not waited out: it counts as retries exhausted.
//
// The first-byte deadline: a runtime's own (`providers.<id>[.models.<model>].first_byte_timeout_seconds`),
// else the client's `firstByteMs` (HERMES_STREAM_FIRST_BYTE_TIMEOUT), else 30 s for a remote
// endpoint and none for a local one (a local server loading a model may take minutes to answer).

import { defaultStaleMs, defaultTimeoutMs, envFirstByteMs } from './attempt.ts';
import { isLocalUrl } from './catalog.ts';
import { createAnthropicStream } from './anthropic.ts';
import { CredentialPool, type FailureInfo, type KeyFailure, type KeyStrategy, type SelectedKey } from './credentials.ts';
import { type EventStream, streamFrom } from './event-stream.ts';
import { isRetryableKind, toProviderError } from './errors.ts';
import { type ProviderHealth, sharedHealth, targetId } from './health.ts';
import { createChatCompletionsStream } from './openai-chat.ts';
import type { ProviderRuntime } from './resolve.ts';
import { defaultOutputCap } from './output-cap.ts';
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
  /**
   * First-byte deadline in ms for runtimes without their own (default HERMES_STREAM_FIRST_BYTE_TIMEOUT,
   * else 30 s for remote endpoints and none for local ones); 0 turns it off.
   */
  firstByteMs?: number;
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
  /** Where provider health is kept (default: the process's shared registry; null: none). See health.ts. */
  health?: ProviderHealth | null;
  /** Spend caps: asked before every call, told what every attempt used (see CallMeter). */
  meter?: CallMeter;
}

/**
 * What the runtime injects to hold spend caps (config.yaml `budgets:`; src/session/budgets.ts):
 * `before` runs before a call is sent and returns an error to end it unsent (a cap reached and not
 * lifted); `after` is told the provider-reported usage of every attempt, failed ones included.
 */
export interface CallMeter {
  before(req: StreamRequest, rt: ProviderRuntime): Promise<ProviderError | undefined>;
  after(result: StreamResult, rt: ProviderRuntime): void;
}

export interface LlmClient {
  stream: StreamFn;
  /** Call at each new user turn: restores the primary runtime and re-arms the fallback. */
  beginTurn(): void;
  /** The runtime in use right now (the primary, or the fallback activated this turn). */
  readonly active: ProviderRuntime;
  /** Replace the primary (e.g. `/model`): it becomes active at once. */
  switchTo(rt: ProviderRuntime): void;
  /** The fallback chain (auxiliary clients of a session fall back through it too). */
  readonly fallbacks?: readonly ProviderRuntime[];
  /** Spend caps for this client's calls (settable: a session attaches its own). */
  meter?: CallMeter;
}

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;
export const MAX_RETRY_AFTER_MS = 120_000;
/** How long a key whose request went unanswered (first-byte deadline) is set aside in this process. */
export const SLOW_BENCH_MS = 60_000;
/** The first-byte deadline for remote endpoints when nothing sets one (issue #31: 30 s). */
export const DEFAULT_FIRST_BYTE_MS = 30_000;
/** A health probe (one token) gives up after this long. */
export const PROBE_TIMEOUT_MS = 60_000;

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
  // A stream fault's message says what happened ("the stream was cut off …"); the kind adds nothing.
  if (e.fault) return `${status}${e.message}`;
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
  /** The fallback was taken because the primary was tripped: it is left only until it answers a probe. */
  let leftTripped = false;
  /** A turn ended on the fallback that left a tripped primary: the first call back on the primary says so (its label). */
  let backPending: string | undefined;
  const maxRetries = Math.max(0, o.maxRetries ?? 3);
  const sleep = o.sleep ?? defaultSleep;
  const random = o.random ?? Math.random;
  // Read from the environment once per client, not on every request of the loop.
  const timeoutMs = o.timeoutMs ?? defaultTimeoutMs();
  const adapterOpts = { fetch: o.fetch, staleMs: o.staleMs ?? defaultStaleMs(), timeoutMs, now: o.now, cacheBodies: o.cacheBodies };
  const firstByteDefault = o.firstByteMs ?? envFirstByteMs();
  const firstByteFor = (rt: ProviderRuntime): number => rt.firstByteTimeoutMs ?? firstByteDefault ?? (isLocalUrl(rt.baseUrl) ? 0 : DEFAULT_FIRST_BYTE_MS);
  const health = o.health === undefined ? sharedHealth() : o.health;
  const pools = new WeakMap<ProviderRuntime, CredentialPool>();
  const adapters = new WeakMap<ProviderRuntime, Map<string, StreamFn>>();

  const poolFor = (rt: ProviderRuntime): CredentialPool => {
    let p = pools.get(rt);
    if (!p) {
      const creds = rt.credentials?.length ? rt.credentials : rt.keys.length ? rt.keys : [rt.apiKey];
      // A key another client of this process found rate limited or silent is skipped here too.
      const shared = health && creds.length > 1 ? (c: { id: string }) => health.keyBenchedUntil(rt, c.id) : undefined;
      p = new CredentialPool(creds, { strategy: rt.keyStrategy ?? o.keyStrategy, now: o.now, random: o.random, hooks: rt.poolHooks, sharedBench: shared });
      pools.set(rt, p);
    }
    return p;
  };

  // Tripping a target only changes where a client with somewhere else to go sends its requests:
  // a client without fallbacks records health but neither trips nor probes.
  const canTrip = (o.fallbacks?.length ?? 0) > 0;
  const trip = (rt: ProviderRuntime, err: ProviderError) => {
    if (canTrip) health?.trip(rt, describeBrief(err), probeFor(rt));
  };
  /** Trip episodes this client has told its consumer about, per target. */
  const announced = new Map<string, number>();

  const factoryFor = (mode: ApiMode, extra: { cacheBodies?: boolean } = {}): ((rt: ProviderRuntime) => StreamFn) => {
    const injected = o.adapters?.[mode];
    if (injected) return injected;
    const opts = (rt: ProviderRuntime) => ({ ...adapterOpts, firstByteMs: firstByteFor(rt), ...extra });
    if (mode === 'anthropic_messages') return (rt) => createAnthropicStream(rt, opts(rt));
    if (mode === 'codex_responses') return (rt) => createResponsesStream(rt, opts(rt));
    return (rt) => createChatCompletionsStream(rt, opts(rt));
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

  /**
   * The health probe for a runtime: one request for one token ("ping"), on an adapter of its own (the
   * conversation's cached request bytes stay as they are), with the key the pool would use next.
   */
  const probeFor =
    (r: ProviderRuntime) =>
    async (): Promise<boolean> => {
      const sel = poolFor(r).peek();
      if (!sel) return false;
      const fn = factoryFor(r.apiMode, { cacheBodies: false })({ ...r, apiKey: sel.cred.key, baseUrl: sel.cred.baseUrl ?? r.baseUrl });
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), PROBE_TIMEOUT_MS);
      timer.unref?.();
      try {
        const res = await fn({
          model: r.model,
          system: '',
          messages: [{ role: 'user', content: 'ping' }],
          tools: [],
          // The Responses API wants at least 16 output tokens.
          maxTokens: r.apiMode === 'codex_responses' ? 16 : 1,
          signal: ac.signal,
        }).result();
        return res.stopReason !== 'error' && res.stopReason !== 'aborted';
      } finally {
        clearTimeout(timer);
      }
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
        let stalls = 0;
        let lastError: ProviderError | undefined;
        // OAuth credentials already refreshed after a 401 in this call (one refresh each).
        const refreshed = new Set<string>();

        /** The first fallback that can take a request: a healthy one, else any (a tripped one may have recovered). */
        const nextFallback = (healthyOnly: boolean): ProviderRuntime | undefined => {
          const usable = (o.fallbacks ?? []).filter((f) => !sameTarget(f, rt) && poolFor(f).availableCount() > 0);
          return usable.find((f) => !health?.isTripped(f)) ?? (healthyOnly ? undefined : usable[0]);
        };
        const switchTo = (f: ProviderRuntime) => {
          if (rt === primary) leftTripped = !!health?.isTripped(primary);
          fallbackUsed = true;
          active = f;
          rt = f;
          retries = 0;
          stalls = 0;
        };
        /** `before`: what to say to the consumer before the switch (the retraction of a broken attempt). */
        const activateFallback = (err: ProviderError, before?: () => void): boolean => {
          if (fallbackUsed) return false;
          const f = nextFallback(false);
          if (!f) return false;
          before?.();
          out.push({ type: 'fallback', from: label(rt), to: label(f), reason: describeBrief(err) });
          // The consumer has heard why this target is left: later calls of this trip go quietly.
          const tripped = health?.get(rt);
          if (tripped?.state === 'tripped') announced.set(targetId(rt), tripped.episode);
          switchTo(f);
          return true;
        };

        // Spend caps: checked before anything is sent (a stopped call is not retried nor handed on).
        if (client.meter) {
          const stop = await client.meter.before(req, rt);
          if (stop) return out.end(blank(rt, 'error', stop));
        }

        // A new turn back on a primary an earlier turn left (tripped): one line that it answers again.
        if (backPending && !fallbackUsed && rt === primary && health && !health.isTripped(primary)) {
          out.push({ type: 'fallback', from: backPending, to: label(primary), reason: `${label(primary)} answers again: back on it`, back: true });
          backPending = undefined;
        }
        // A tripped primary that answered a probe since the turn left it: this call is on it again.
        if (fallbackUsed && leftTripped && active !== primary && health && !health.isTripped(primary)) {
          leftTripped = false;
          fallbackUsed = false;
          out.push({ type: 'fallback', from: label(rt), to: label(primary), reason: `${label(primary)} answers again: back on it`, back: true });
          backPending = undefined;
          active = primary;
          rt = primary;
        }

        // A target left for being silent or failing (here or by another client of this process) is
        // not tried first while it is tripped: the call starts on the first healthy fallback, and the
        // consumer hears it once per trip. The target is probed in the background meanwhile.
        if (health && !fallbackUsed) {
          const h = health.get(rt);
          if (h?.state === 'tripped') {
            const f = nextFallback(true);
            if (f) {
              health.probeWith(rt, probeFor(rt));
              const id = targetId(rt);
              if (announced.get(id) !== h.episode) {
                announced.set(id, h.episode);
                out.push({ type: 'fallback', from: label(rt), to: label(f), reason: `${label(rt)} is not answering (${h.reason ?? 'tripped'}); using ${label(f)} until it answers again` });
              }
              switchTo(f);
            }
          }
        }

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
          // A fallback gets its own provider's output ceiling, and not the primary's extra body fields.
          const own = rt === primary ? req : { ...req, extraBody: undefined, outputCap: req.outputCap === undefined ? undefined : defaultOutputCap({ ...rt, model }) };
          const inner = adapterFor(rt, current)({ ...own, model });
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
          if (client.meter) {
            try {
              client.meter.after(result, rt);
            } catch {
              /* the ledger is the meter's business: a failed write never fails the call */
            }
          }

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
            if (result.stopReason !== 'aborted') health?.record(rt, sel.cred.id, { ok: true, ttfbMs: result.firstByteMs });
            return out.end(result);
          }
          let err = result.error ?? toProviderError(new Error('unknown failure'), rt);
          if (req.signal?.aborted) return out.end({ ...result, stopReason: 'aborted', error: aborted().error });
          // Health counts what the provider did wrong, not what the request did (400, auth, context).
          if (err.fault || isRetryableKind(err.kind)) health?.record(rt, sel.cred.id, { ok: false, ttfbMs: result.firstByteMs, error: err });
          const claimed = o.classifyError && err.kind !== 'aborted' ? await o.classifyError(err, { runtime: rt, model, request: req }) : undefined;
          if (claimed) {
            err = claimed;
            result = { ...result, error: claimed };
          }
          lastError = err;
          // A failure after deltas went out is retried like any other (same request, same rules);
          // before the next attempt the consumer is told to drop what it was shown of this one.
          const again = (): void => {
            if (emitted) out.push({ type: 'retract', error: err });
            emitted = false;
          };

          if (err.kind === 'auth' && err.rotate !== false && sel.cred.refresh && !refreshed.has(sel.cred.id)) {
            refreshed.add(sel.cred.id);
            if (await pool.refresh(sel.index)) {
              again();
              continue;
            }
          }
          // A provider that did not begin to answer by the first-byte deadline: the next key, else
          // the fallback chain, at once; only with neither is it retried with backoff.
          if (err.fault === 'first_byte' && err.rotate !== false) {
            let next: SelectedKey | undefined;
            if (pool.hasAlternative(sel.index)) {
              const until = (o.now ?? Date.now)() + SLOW_BENCH_MS;
              pool.markSlow(sel.index, until);
              health?.benchKey(rt, sel.cred.id, until, describeBrief(err));
              next = pool.peek();
            }
            if (!next) trip(rt, err);
            if (next) {
              again();
              out.push({ type: 'key_rotated', provider: rt.provider, reason: `${describeBrief(err)} — switching from key ${sel.index + 1} to key ${next.index + 1} of ${pool.size}` });
              continue;
            }
            if (err.fallback !== false && activateFallback(err, again)) continue;
          }
          const keyFailure = err.rotate === false ? undefined : (KEY_FAILURES[err.kind] ?? (err.rotate ? 'forbidden' : undefined));
          if (keyFailure && pool.hasAlternative(sel.index)) {
            pool.markFailed(sel.index, keyFailure, failureInfo(err, o.now));
            health?.benchKey(rt, sel.cred.id, pool.benchedUntil(sel.index), describeBrief(err));
            const next = pool.peek();
            if (next) {
              again();
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
            if (activateFallback(err, again)) continue;
            return out.end(result);
          }
          if (err.retryable) {
            // A stream that stalls again after a retry is not retried a third time: the fallback.
            const stalledAgain = err.fault === 'stall' && ++stalls >= 2;
            const delay = backoffDelay(retries + 1, err);
            if (!stalledAgain && retries < maxRetries && delay !== undefined) {
              again();
              retries++;
              out.push({ type: 'retry', attempt: retries, maxAttempts: maxRetries, delayMs: delay, error: err });
              await sleep(delay, req.signal);
              continue;
            }
            // Retries spent, or stalled again: the target is left until a probe is answered.
            if (err.fault || err.kind === 'server' || err.kind === 'connection' || err.kind === 'timeout') trip(rt, err);
            if (err.fallback !== false && activateFallback(err, again)) continue;
            return out.end(result);
          }
          return out.end(result);
        }
      },
      (thrown) => blank(rt, 'error', toProviderError(thrown, rt)),
    );
  };

  const client: LlmClient = {
    stream,
    meter: o.meter,
    beginTurn() {
      if (fallbackUsed && leftTripped && active !== primary) backPending = label(active);
      active = primary;
      fallbackUsed = false;
      leftTripped = false;
    },
    get active() {
      return active;
    },
    fallbacks: o.fallbacks ?? [],
    switchTo(rt: ProviderRuntime) {
      backPending = undefined;
      primary = rt;
      active = rt;
      fallbackUsed = false;
      leftTripped = false;
    },
  };
  return client;
}
