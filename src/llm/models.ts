// Model metadata: context windows (a static table; config overrides win) and listing a provider's
// models over HTTP (`GET {baseUrl}/models`, OpenAI or Anthropic shape).

import { findProvider } from './catalog.ts';
import { describeError, toProviderError } from './errors.ts';
import type { ProviderRuntime } from './resolve.ts';
import type { ProviderError } from './types.ts';

export const DEFAULT_CONTEXT_LENGTH = 200_000;

// Substring of the normalised model id → context window (tokens). The longest matching key wins.
const CONTEXT_WINDOWS: Record<string, number> = {
  claude: 200_000,
  'claude-sonnet-4': 200_000,
  'claude-opus-4': 200_000,
  'claude-haiku-4': 200_000,
  'claude-3': 200_000,
  'gpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-5': 400_000,
  'gpt-5-codex': 400_000,
  'gpt-oss': 131_072,
  o1: 200_000,
  o3: 200_000,
  'o4-mini': 200_000,
  'gemini-1.5-pro': 2_097_152,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.5': 1_048_576,
  'gemini-3': 1_048_576,
  'deepseek-chat': 128_000,
  'deepseek-reasoner': 128_000,
  'deepseek-v3': 128_000,
  'deepseek-r1': 128_000,
  'kimi-k2': 262_144,
  'kimi-k2-0711': 131_072,
  'moonshot-v1-128k': 131_072,
  'glm-4.5': 131_072,
  'glm-4.6': 204_800,
  'glm-4.7': 204_800,
  'minimax-m2': 204_800,
  'grok-4': 256_000,
  'grok-3': 131_072,
  'grok-code-fast': 256_000,
  'qwen3-coder': 262_144,
  'qwen3': 131_072,
  'llama-3.1': 131_072,
  'llama-3.3': 131_072,
  'llama-4': 1_048_576,
  'mistral-large': 131_072,
  codestral: 256_000,
  'hermes-4': 131_072,
  'hermes-3': 131_072,
};

const normalise = (model: string) => model.trim().toLowerCase().slice(model.lastIndexOf('/') + 1);

/** Tokens the model can read: the override when set, else the table, else 200,000. */
export function contextLengthFor(model: string, override?: number | null): number {
  if (typeof override === 'number' && Number.isFinite(override) && override > 0) return Math.floor(override);
  const m = normalise(model);
  let best = '';
  for (const key of Object.keys(CONTEXT_WINDOWS)) {
    if (key.length > best.length && (m.startsWith(key) || m.includes(key))) best = key;
  }
  return best ? CONTEXT_WINDOWS[best] : DEFAULT_CONTEXT_LENGTH;
}

export interface ModelInfo {
  id: string;
  name?: string;
  contextLength?: number;
}

/** A model list could not be fetched; `message` is one line naming the provider and the fix. */
export class ModelListError extends Error {
  readonly error: ProviderError;
  constructor(error: ProviderError, message: string) {
    super(message);
    this.name = 'ModelListError';
    this.error = error;
  }
}

export const MODEL_LIST_TIMEOUT_MS = 5000;

/** The models a runtime's endpoint serves (5 s timeout). Throws ModelListError with a clear line. */
export async function listModels(runtime: ProviderRuntime, fetchFn: typeof fetch = fetch): Promise<ModelInfo[]> {
  const anthropic = runtime.apiMode === 'anthropic_messages';
  const spec = findProvider(runtime.provider.startsWith('custom:') ? 'custom' : runtime.provider);
  const path = spec?.modelsPath ?? (anthropic ? '/v1/models' : '/models');
  const url = `${runtime.baseUrl}${path}${anthropic ? '?limit=1000' : ''}`;
  const headers: Record<string, string> = { accept: 'application/json', ...runtime.extraHeaders };
  if (anthropic) {
    headers['anthropic-version'] = '2023-06-01';
    if (runtime.apiKey.startsWith('sk-ant-oat')) {
      headers.authorization = `Bearer ${runtime.apiKey}`;
      headers['anthropic-beta'] = 'oauth-2025-04-20';
    } else headers['x-api-key'] = runtime.apiKey;
  } else headers.authorization = `Bearer ${runtime.apiKey}`;

  const fail = (e: ProviderError): never => {
    throw new ModelListError(e, `Could not list models: ${describeError(e, runtime)}`);
  };
  let res: Response;
  try {
    res = await fetchFn(url, { headers, signal: AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS) });
  } catch (err) {
    return fail(toProviderError(err, runtime));
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    return fail(toProviderError({ status: res.status, headers: res.headers, error: body ?? text, message: text }, runtime));
  }
  const list = Array.isArray(body)
    ? body
    : Array.isArray((body as { data?: unknown })?.data)
      ? (body as { data: unknown[] }).data
      : Array.isArray((body as { models?: unknown })?.models)
        ? (body as { models: unknown[] }).models
        : undefined;
  if (!list) {
    return fail(toProviderError(Object.assign(new Error(`unexpected model list from ${url}`), { name: 'InvalidResponseError' }), runtime));
  }
  const out: ModelInfo[] = [];
  for (const item of list) {
    if (typeof item === 'string') {
      out.push({ id: item });
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const r = item as Record<string, unknown>;
    const id = typeof r.id === 'string' ? r.id : typeof r.name === 'string' ? r.name : typeof r.model === 'string' ? r.model : undefined;
    if (!id) continue;
    const info: ModelInfo = { id };
    const name = typeof r.display_name === 'string' ? r.display_name : typeof r.name === 'string' && r.name !== id ? r.name : undefined;
    if (name) info.name = name;
    const ctx = [r.context_length, r.context_window, r.max_context_length, r.max_model_len].find((v) => typeof v === 'number' && v > 0);
    if (typeof ctx === 'number') info.contextLength = ctx;
    out.push(info);
  }
  return out;
}

const SERVED_TTL_MS = 10 * 60_000;
const served = new Map<string, { at: number; ids: string[] }>();
const servedKey = (rt: ProviderRuntime) => `${rt.provider}\n${rt.apiMode}\n${rt.baseUrl}`;

/**
 * The model ids a runtime's endpoint serves, in its order, remembered for 10 minutes per endpoint;
 * null when the endpoint cannot list them (no /models, offline, rejected).
 */
export async function servedModels(runtime: ProviderRuntime, fetchFn: typeof fetch = fetch): Promise<string[] | null> {
  const hit = served.get(servedKey(runtime));
  if (hit && Date.now() - hit.at < SERVED_TTL_MS) return hit.ids;
  try {
    const ids = (await listModels(runtime, fetchFn)).map((m) => m.id);
    served.set(servedKey(runtime), { at: Date.now(), ids });
    return ids;
  } catch (e) {
    if (e instanceof ModelListError) return null;
    throw e;
  }
}

/** What servedModels() last fetched for this endpoint (no request), or null. */
export function knownServedModels(runtime: ProviderRuntime): string[] | null {
  const hit = served.get(servedKey(runtime));
  return hit && Date.now() - hit.at < SERVED_TTL_MS ? hit.ids : null;
}
