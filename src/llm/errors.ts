// SDK / HTTP failures → ProviderError values, and the one-line description people read.
// Classification is by duck typing (status, headers, parsed body, error class name), so this module
// never imports an SDK.

import { findProvider } from './catalog.ts';
import type { ProviderRuntime } from './resolve.ts';
import type { ProviderError, ProviderErrorKind, StreamFault } from './types.ts';

/** Thrown inside adapters when no chunk arrived for `staleMs`. */
export class StaleStreamError extends Error {
  readonly staleMs: number;
  constructor(staleMs: number) {
    super(`no data from the provider for ${spanText(staleMs)}`);
    this.name = 'StaleStreamError';
    this.staleMs = staleMs;
  }
}

const spanText = (ms: number) => (ms < 1000 ? `${ms}ms` : ms < 10_000 && ms % 1000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

/** Thrown inside adapters when the response has not begun within the first-byte deadline. */
export class FirstByteTimeoutError extends Error {
  readonly deadlineMs: number;
  constructor(deadlineMs: number) {
    super(`no response within ${spanText(deadlineMs)} of sending the request (first-byte deadline)`);
    this.name = 'FirstByteTimeoutError';
    this.deadlineMs = deadlineMs;
  }
}

/** Thrown inside adapters when a stream ends without its completion marker. */
export class StreamCutError extends Error {
  constructor(message = 'the stream was cut off before the response was complete') {
    super(message);
    this.name = 'StreamCutError';
  }
}

/** A well-formed HTTP answer that is not a usable response (empty, malformed). */
export class InvalidResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidResponseError';
  }
}

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set<ProviderErrorKind>([
  'rate_limit',
  'server',
  'connection',
  'timeout',
  'invalid_response',
]);

export const isRetryableKind = (k: ProviderErrorKind): boolean => RETRYABLE.has(k);

const CONTEXT_RE =
  /context[ _-]?(length|window)|maximum context|prompt is too long|too many tokens|input is too long|exceeds? (the )?(model'?s? )?(maximum|max|context)|reduce the length|token limit|context_length_exceeded|request too large for model/i;

export function isContextLengthMessage(msg: string): boolean {
  return CONTEXT_RE.test(msg);
}

type AnyRecord = Record<string, unknown>;
const isObj = (v: unknown): v is AnyRecord => typeof v === 'object' && v !== null;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The provider's own words from a parsed error body (OpenAI/OpenRouter/Anthropic/Responses shapes). */
export function extractProviderMessage(body: unknown): { message?: string; type?: string; code?: string } {
  if (typeof body === 'string') {
    const s = body.trim();
    if (s.startsWith('{')) {
      try {
        return extractProviderMessage(JSON.parse(s));
      } catch {
        /* not JSON */
      }
    }
    return { message: cleanText(s) || undefined };
  }
  if (!isObj(body)) return {};
  // Unwrap `{error: {...}}` (OpenAI, OpenRouter, Anthropic `{type:'error', error:{...}}`).
  const inner = isObj(body.error) ? body.error : body;
  let message = str(inner.message) ?? (typeof body.error === 'string' ? str(body.error) : undefined) ?? str(body.message) ?? str(body.detail);
  const type = str(inner.type) ?? (body.type !== 'error' ? str(body.type) : undefined);
  const codeRaw = inner.code ?? body.code;
  const code = typeof codeRaw === 'string' || typeof codeRaw === 'number' ? String(codeRaw) : undefined;
  // OpenRouter wraps the upstream provider's error in metadata.raw (often JSON text).
  const meta = isObj(inner.metadata) ? inner.metadata : undefined;
  if (meta) {
    const raw = meta.raw;
    let rawMsg: string | undefined;
    if (typeof raw === 'string') {
      const parsed = raw.trim().startsWith('{') ? safeJson(raw) : undefined;
      rawMsg = parsed !== undefined ? extractProviderMessage(parsed).message : cleanText(raw);
    } else if (isObj(raw)) rawMsg = extractProviderMessage(raw).message;
    const upstream = str(meta.provider_name);
    if (rawMsg && rawMsg !== message) message = message ? `${message} (${upstream ? `${upstream}: ` : ''}${rawMsg})` : rawMsg;
  }
  return { message, type, code };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Collapse whitespace, drop HTML tags, cap the length: an error body fit for one line. */
function cleanText(s: string, max = 400): string {
  let t = s;
  if (/<\/?[a-z][^>]*>/i.test(t)) {
    const title = /<title>([^<]*)<\/title>/i.exec(t)?.[1];
    t = title ?? t.replace(/<[^>]+>/g, ' ');
  }
  t = t.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  if (isObj(headers)) {
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** Milliseconds to wait from `retry-after-ms` / `Retry-After` (seconds or an HTTP date). */
export function parseRetryAfter(headers: unknown, now: () => number = Date.now): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  if (Number.isFinite(date)) return Math.max(0, date - now());
  return undefined;
}

function kindForStatus(status: number, message: string): ProviderErrorKind {
  if (status === 401) return 'auth';
  if (status === 402) return 'billing';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 413) return 'context_length';
  if (status === 429) return 'rate_limit';
  if (status >= 500) return 'server';
  if (status === 400 || status === 422) return isContextLengthMessage(message) ? 'context_length' : 'bad_request';
  return 'bad_request';
}

/** Provider error `type`s (Anthropic, OpenAI Responses) → kind, for errors that arrive mid-stream without a status. */
function kindForType(type: string | undefined, code: string | undefined, message: string): ProviderErrorKind | undefined {
  const t = `${type ?? ''} ${code ?? ''}`.toLowerCase();
  if (/context_length|context_window/.test(t)) return 'context_length';
  if (/overloaded|api_error|server_error|internal|unavailable|timeout/.test(t)) return t.includes('timeout') ? 'timeout' : 'server';
  if (/rate_limit|too_many|quota/.test(t)) return t.includes('insufficient_quota') ? 'billing' : 'rate_limit';
  if (/authentication|invalid_api_key|unauthorized/.test(t)) return 'auth';
  if (/permission|forbidden/.test(t)) return 'forbidden';
  if (/not_found/.test(t)) return 'not_found';
  if (/billing|payment|credit/.test(t)) return 'billing';
  if (/invalid_request|request_too_large|bad_request/.test(t)) return isContextLengthMessage(message) ? 'context_length' : 'bad_request';
  if (/^\s*(5\d\d)\b/.test(code ?? '')) return 'server';
  if (code === '429') return 'rate_limit';
  return undefined;
}

function stripStatusPrefix(msg: string, status?: number): string {
  let m = msg.trim();
  if (status && m.startsWith(`${status} `)) m = m.slice(String(status).length + 1);
  if (m === 'status code (no body)') return '';
  return m;
}

/** Errors of the transport (fetch/undici/node) rather than of the provider. */
function transportKind(err: AnyRecord): ProviderErrorKind | undefined {
  const name = String(err.name ?? err.constructor?.name ?? '');
  const ctor = String((err as { constructor?: { name?: string } }).constructor?.name ?? '');
  if (name === 'StaleStreamError' || name === 'FirstByteTimeoutError') return 'timeout';
  if (name === 'StreamCutError') return 'connection';
  if (name === 'InvalidResponseError') return 'invalid_response';
  if (ctor === 'APIConnectionTimeoutError' || name === 'TimeoutError') return 'timeout';
  if (ctor === 'APIUserAbortError' || name === 'AbortError') return 'aborted';
  if (ctor === 'APIConnectionError') return 'connection';
  if (name === 'SyntaxError') return 'invalid_response';
  const code = String((isObj(err.cause) ? err.cause.code : undefined) ?? err.code ?? '');
  if (/^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH|ENETUNREACH|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) return 'connection';
  if (/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/.test(code)) return 'timeout';
  if (name === 'TypeError' && /fetch failed|terminated|network|socket/i.test(String(err.message))) return 'connection';
  return undefined;
}

function causeText(err: AnyRecord): string | undefined {
  let c: unknown = err.cause;
  for (let i = 0; i < 3 && isObj(c); i++) {
    const code = str(c.code);
    const msg = str(c.message);
    if (code || msg) return [code, msg && msg !== code ? msg : undefined].filter(Boolean).join(': ');
    c = c.cause;
  }
  return undefined;
}

/** What the classifier saw besides the ProviderError itself (for `transform_api_error_classification`). */
export interface ProviderErrorDetails {
  type?: string;
  code?: string;
  /** The parsed error body (an object), when the provider sent one. */
  body?: Record<string, unknown>;
  /** What the SDK or fetch threw. */
  error?: unknown;
}

const details = new WeakMap<ProviderError, ProviderErrorDetails>();

export function providerErrorDetails(e: ProviderError): ProviderErrorDetails {
  return details.get(e) ?? {};
}

/**
 * Hermes's FailoverReason names → our kind, and the hints Hermes derives from each reason
 * (auth_permanent does not refresh or rotate; overloaded/server_error/timeout retry; model_not_found
 * falls back; context_overflow/payload_too_large/long_context_tier compress).
 */
export const FAILOVER_REASONS: Readonly<Record<string, ProviderErrorKind>> = {
  auth: 'auth',
  auth_permanent: 'auth',
  billing: 'billing',
  rate_limit: 'rate_limit',
  overloaded: 'server',
  server_error: 'server',
  timeout: 'timeout',
  context_overflow: 'context_length',
  payload_too_large: 'context_length',
  long_context_tier: 'context_length',
  model_not_found: 'not_found',
  format_error: 'bad_request',
  thinking_signature: 'bad_request',
  unknown: 'server',
};

/** A plugin's sanitized classification: `reason` is a FailoverReason name, the rest optional hints. */
export interface ErrorClassification {
  reason: string;
  retryable?: boolean;
  should_compress?: boolean;
  should_rotate_credential?: boolean;
  should_fallback?: boolean;
  message?: string;
}

/** The ProviderError a plugin's classification turns `e` into (status, provider and model kept). */
export function applyClassification(e: ProviderError, c: ErrorClassification, keys?: readonly string[]): ProviderError {
  const kind = c.should_compress ? 'context_length' : (FAILOVER_REASONS[c.reason] ?? e.kind);
  const out: ProviderError = { ...e, kind, retryable: c.retryable ?? (c.reason === 'unknown' ? true : isRetryableKind(kind)) };
  if (c.message) out.message = redact(c.message, keys);
  if (c.reason === 'auth_permanent') out.rotate = false;
  if (c.should_rotate_credential !== undefined) out.rotate = c.should_rotate_credential;
  if (c.should_fallback !== undefined) out.fallback = c.should_fallback;
  const d = details.get(e);
  if (d) details.set(out, d);
  return out;
}

/** Map anything an SDK or fetch threw into a ProviderError (never throws). */
export function toProviderError(
  err: unknown,
  runtime?: Pick<ProviderRuntime, 'provider' | 'baseUrl' | 'model' | 'keys'> | null,
  opts: { model?: string; now?: () => number } = {},
): ProviderError {
  const base = {
    provider: runtime?.provider ?? 'unknown',
    model: opts.model ?? runtime?.model,
    baseUrl: runtime?.baseUrl,
  };
  const finish = (kind: ProviderErrorKind, message: string, extra: Partial<ProviderError> = {}): ProviderError => {
    const out: ProviderError = {
      kind,
      message: redact(message || defaultMessage(kind, extra.status), runtime?.keys),
      ...base,
      retryable: isRetryableKind(kind),
      ...extra,
    };
    if (out.model === undefined) delete out.model;
    if (out.baseUrl === undefined) delete out.baseUrl;
    details.set(out, seen);
    return out;
  };
  const seen: ProviderErrorDetails = { error: err };
  if (isProviderError(err)) return err;
  if (!isObj(err)) return finish('connection', String(err ?? 'unknown error'));

  const status = typeof err.status === 'number' ? err.status : undefined;
  const tk = status === undefined ? transportKind(err) : undefined;
  if (tk) {
    const why = causeText(err);
    let msg = str(err.message) ?? '';
    if (tk === 'connection' && why && !msg.includes(why)) msg = msg ? `${msg} (${why})` : why;
    if (tk === 'aborted') msg = 'request aborted';
    return finish(tk, msg);
  }

  // SDK APIError: `error` is the parsed body (Anthropic) or its `error` member (OpenAI).
  const body = err.error !== undefined ? err.error : undefined;
  const parsed = extractProviderMessage(body);
  const bodyObj = typeof body === 'string' && body.trim().startsWith('{') ? safeJson(body) : body;
  // Hermes hands plugins the response JSON; the OpenAI SDK keeps only its `error` member.
  if (isObj(bodyObj)) seen.body = bodyObj.error === undefined && bodyObj.type !== 'error' && 'message' in bodyObj ? { error: bodyObj } : bodyObj;
  seen.type = parsed.type ?? str(err.type);
  seen.code = parsed.code ?? (typeof err.code === 'string' ? err.code : undefined);
  let message = parsed.message ?? stripStatusPrefix(str(err.message) ?? '', status);
  if (message === '{}' || message === 'undefined') message = '';
  message = cleanText(message);
  const headers = err.headers;
  const retryAfterMs = parseRetryAfter(headers, opts.now);
  const extra: Partial<ProviderError> = {};
  if (status !== undefined) extra.status = status;
  if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;

  let kind: ProviderErrorKind | undefined;
  if (status !== undefined) {
    kind = kindForStatus(status, message);
    // A 400 that says "quota"/"credits" is billing on some providers; keep the status mapping otherwise.
  } else {
    kind = kindForType(parsed.type ?? str(err.type), parsed.code ?? (typeof err.code === 'string' ? err.code : undefined), message);
    const embedded = Number(parsed.code);
    if (!kind && Number.isInteger(embedded) && embedded >= 400 && embedded < 600) {
      kind = kindForStatus(embedded, message);
      extra.status = embedded;
    }
    // An error event in the middle of a stream without a recognisable type: the provider failed.
    if (!kind) kind = body !== undefined ? 'server' : 'connection';
  }
  return finish(kind, message, extra);
}

/**
 * Marks a failed attempt's error with the stream fault it was (ProviderError.fault) and says so in
 * its message. `responded`: the response had begun (its status line arrived) before the failure.
 */
export function markStreamFault(e: ProviderError, raw: unknown, responded: boolean): ProviderError {
  const name = isObj(raw) ? String(raw.name ?? '') : '';
  let fault: StreamFault | undefined;
  if (name === 'FirstByteTimeoutError') fault = 'first_byte';
  else if (name === 'StaleStreamError') fault = responded ? 'stall' : 'first_byte';
  else if (name === 'StreamCutError') fault = 'cut';
  else if (responded && e.kind === 'invalid_response' && name === 'SyntaxError') fault = 'malformed';
  else if (responded && e.kind === 'connection') fault = 'cut';
  if (!fault) return e;
  e.fault = fault;
  if (fault === 'cut' && name !== 'StreamCutError') {
    // Node's words for a connection that closed or reset mid-body say little; keep more telling ones.
    const said = /^(aborted|terminated|fetch failed)\b|other side closed|socket hang up/i.test(e.message) ? 'the connection closed before the end' : e.message;
    e.message = `the stream was cut off mid-response (${said})`;
  }
  else if (fault === 'stall') e.message = `the stream stalled: ${e.message}`;
  else if (fault === 'malformed') e.message = 'the stream carried a malformed event (not valid JSON)';
  return e;
}

function isProviderError(v: unknown): v is ProviderError {
  return isObj(v) && typeof v.kind === 'string' && typeof v.message === 'string' && typeof v.retryable === 'boolean' && typeof v.provider === 'string';
}

function defaultMessage(kind: ProviderErrorKind, status?: number): string {
  switch (kind) {
    case 'auth':
      return 'authentication failed';
    case 'billing':
      return 'payment required';
    case 'forbidden':
      return 'access denied';
    case 'not_found':
      return 'not found';
    case 'rate_limit':
      return 'rate limited';
    case 'server':
      return status ? `server error` : 'the provider reported an error';
    case 'context_length':
      return 'the request exceeds the model’s context window';
    case 'connection':
      return 'connection failed';
    case 'timeout':
      return 'timed out';
    case 'invalid_response':
      return 'invalid response';
    case 'aborted':
      return 'request aborted';
    default:
      return 'request rejected';
  }
}

/** Replace any of the runtime's keys (and anything that looks like a bearer secret) with a mask. */
export function redact(text: string, keys?: readonly string[]): string {
  let t = text;
  for (const k of keys ?? []) if (k && k.length >= 6) t = t.split(k).join('***');
  return t.replace(/\b(sk-[A-Za-z0-9_-]{2,6})[A-Za-z0-9_-]{12,}/g, '$1***');
}

const secondsText = (ms: number) => (ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))}s`);

/**
 * One user-facing line: provider, status, the provider's message and the fix. Never the key.
 * e.g. "OpenRouter (HTTP 401): Invalid API key — check OPENROUTER_API_KEY in ~/.hermes/.env or run `hermes setup`."
 */
export function describeError(e: ProviderError, runtime?: Partial<ProviderRuntime> | null): string {
  // A spend cap is ours, not the provider's: its message is the whole line.
  if (e.kind === 'budget') return e.message;
  const spec = findProvider(e.provider.startsWith('custom:') ? 'custom' : e.provider);
  const who = e.provider.startsWith('custom:') ? `${e.provider.slice(7)} (custom endpoint)` : (spec?.name ?? e.provider);
  const baseUrl = e.baseUrl ?? runtime?.baseUrl;
  const model = e.model ?? runtime?.model;
  const status = e.status ? ` (HTTP ${e.status})` : '';
  const keyWhere = keyLocation(runtime);
  let fix: string;
  switch (e.fault ?? e.kind) {
    case 'first_byte':
      fix = `the provider did not begin to answer in time; configure fallback_providers (or another key) to move on, or raise providers.<name>.first_byte_timeout_seconds / HERMES_STREAM_FIRST_BYTE_TIMEOUT for a slow endpoint`;
      break;
    case 'stall':
      fix = 'the answer stopped arriving partway; retry, configure fallback_providers, or raise HERMES_STREAM_STALE_TIMEOUT for slow models';
      break;
    case 'cut':
      fix = `the connection${baseUrl ? ` to ${baseUrl}` : ''} dropped after the answer had begun (network, a proxy, or the provider restarting); retry, or configure fallback_providers`;
      break;
    case 'malformed':
      fix = 'the provider (or a proxy in between) sent data that is not a valid stream event; retry, configure fallback_providers, or switch model with `hermes model`';
      break;
    case 'auth':
      fix =
        runtime?.source === 'none'
          ? `it wants an API key and none is set for it: run \`hermes setup\` (or give it a key_env in config.yaml)`
          : `check ${keyWhere} or run \`hermes setup\``;
      break;
    case 'billing':
      fix = `add credits or check billing for your ${who} account, or switch provider with \`hermes model\``;
      break;
    case 'forbidden':
      fix = `the key may not have access${model ? ` to ${model}` : ''}; check the account's permissions (${keyWhere}) or pick another model with \`hermes model\``;
      break;
    case 'not_found':
      fix = `check the model name${model ? ` '${model}'` : ''} (\`hermes model\` lists them)${baseUrl ? ` and the base URL ${baseUrl}` : ''}`;
      break;
    case 'rate_limit':
      fix = `wait${e.retryAfterMs !== undefined ? ` ${secondsText(e.retryAfterMs)}` : ' a moment'} and retry, add another key, or configure fallback_providers`;
      break;
    case 'server':
      fix = 'the provider is having trouble; retry later or configure fallback_providers';
      break;
    case 'context_length':
      fix = 'the conversation is larger than the model’s context window; run /compress or start a new session with /new';
      break;
    case 'connection':
      fix = baseUrl
        ? `the server at ${baseUrl} is unreachable; check the URL, your network${isLocalish(baseUrl) ? ', and that the local server is running' : ''}`
        : 'the server is unreachable; check your network';
      break;
    case 'timeout':
      fix = `no answer${baseUrl ? ` from ${baseUrl}` : ''} in time; retry, or raise HERMES_STREAM_STALE_TIMEOUT / HERMES_API_TIMEOUT for slow models`;
      break;
    case 'invalid_response':
      fix = 'the provider returned an empty or malformed response; retry or switch model with `hermes model`';
      break;
    case 'aborted':
      fix = 'the request was interrupted';
      break;
    default:
      fix = `the request was rejected; check the model${model ? ` '${model}'` : ''} and its settings in ~/.hermes/config.yaml`;
  }
  const message = e.message && e.kind !== 'aborted' ? `: ${e.message.replace(/[.\s]+$/, '')}` : '';
  return redact(`${who}${status}${message} — ${fix}.`, runtime?.keys);
}

function keyLocation(runtime?: Partial<ProviderRuntime> | null): string {
  if (!runtime) return 'the API key in ~/.hermes/.env';
  if (runtime.keyEnv) return `${runtime.keyEnv} in ~/.hermes/.env`;
  const src = runtime.source ?? '';
  if (src.startsWith('config:')) return `${src.slice(7)} in ~/.hermes/config.yaml`;
  if (src.startsWith('providers.')) return `${src} in ~/.hermes/config.yaml`;
  if (src.startsWith('flag:')) return `the key passed with ${src.slice(5)}`;
  if (src.startsWith('given:')) return src.slice(6);
  if (src.startsWith('auth:')) return `the stored ${src.slice(5)} sign-in (\`hermes model\`)`;
  const spec = runtime.provider ? findProvider(runtime.provider) : undefined;
  if (spec?.keyEnvs.length) return `${spec.keyEnvs[0]} in ~/.hermes/.env`;
  return 'the API key in ~/.hermes/.env';
}

function isLocalish(url: string): boolean {
  return /\/\/(localhost|127\.|0\.0\.0\.0|\[::1\]|10\.|192\.168\.)/.test(url);
}
