// `transform_api_error_classification`: plugins that know a provider's error quirks reclassify a
// failed API call before the client decides to retry, rotate the key, fall back or give up. Hermes's
// contract: every callback runs; the first answer with a valid `reason` (a FailoverReason name) wins
// in registration order, later valid answers are skipped with a warning; `None`/invalid answers and
// callbacks that throw are ignored, so a broken plugin leaves the built-in classification in place.
import { applyClassification, FAILOVER_REASONS, providerErrorDetails, type ErrorClassification } from '../llm/errors.ts';
import type { ProviderRuntime } from '../llm/resolve.ts';
import type { ProviderError, StreamRequest } from '../llm/types.ts';
import { currentPluginHost, pluginHost } from './state.ts';

const EVENT = 'transform_api_error_classification';
const HINTS = ['retryable', 'should_compress', 'should_rotate_credential', 'should_fallback'] as const;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** One callback's answer in Hermes's sanitized shape, or undefined when it declined or was invalid. */
export function sanitizeClassification(v: unknown): ErrorClassification | undefined {
  if (!isObj(v) || typeof v.reason !== 'string') return undefined;
  const reason = v.reason.trim().toLowerCase();
  if (!(reason in FAILOVER_REASONS)) return undefined;
  const out: ErrorClassification = { reason };
  for (const k of HINTS) if (k in v) out[k] = Boolean(v[k]);
  if (typeof v.message === 'string' && v.message.trim()) out.message = v.message.trim().slice(0, 500);
  return out;
}

/** The client's `classifyError` for the plugins of `home` (looked up per failure: free when none registered). */
export function pluginErrorClassifier(home?: string) {
  return async (err: ProviderError, ctx: { runtime: ProviderRuntime; model: string; request: StreamRequest }): Promise<ProviderError | undefined> => {
    const host = (home ? pluginHost(home) : undefined) ?? currentPluginHost();
    if (!host?.hooks.has(EVENT)) return undefined;
    const d = providerErrorDetails(err);
    const messages = ctx.request.messages ?? [];
    const chars = messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length), 0);
    const answers = await host.hooks.invoke(EVENT, {
      provider: err.provider,
      model: ctx.model,
      status_code: err.status ?? null,
      error_type: d.type ?? '',
      error_code: d.code ?? '',
      error_message: err.message,
      error_body: d.body ?? {},
      error: d.error ?? null,
      approx_tokens: Math.ceil(chars / 4),
      context_length: ctx.runtime.contextLength ?? 0,
      num_messages: messages.length,
    });
    const valid = answers.map((a) => ({ owner: a.owner, c: sanitizeClassification(a.value) })).filter((a): a is { owner: string; c: ErrorClassification } => !!a.c);
    if (!valid.length) return undefined;
    if (valid.length > 1) {
      host.hooks.warn(`${EVENT}: ${valid.length - 1} valid classification(s) after ${valid[0].owner}'s were skipped (the first in registration order wins)`);
    }
    return applyClassification(err, valid[0].c, ctx.runtime.keys);
  };
}
