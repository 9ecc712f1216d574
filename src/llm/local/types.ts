// What a local inference server says it serves (one probe module per server kind: ollama.ts,
// llamacpp.ts, vllm.ts, lmstudio.ts, generic.ts; index.ts picks one). Plain data, cached by the
// runtime in HERMES_HOME/local_models.json (src/state/local-models.ts).

export type ServerKind = 'ollama' | 'llamacpp' | 'vllm' | 'lmstudio' | 'generic';
export const SERVER_KINDS: readonly ServerKind[] = ['ollama', 'llamacpp', 'vllm', 'lmstudio', 'generic'];

export interface ServedCapabilities {
  /** The server/model accepts `tools` (native tool calls). */
  tools?: boolean;
  /** The model thinks before answering (`<think>`, `reasoning_content`, Ollama's `thinking`). */
  thinking?: boolean;
  vision?: boolean;
}

export interface ServedModel {
  kind: ServerKind;
  /** The base URL as configured (…/v1). */
  baseUrl: string;
  model: string;
  /** Tokens the server serves this model with right now (loaded context), when it says. */
  window?: number;
  /** The model's own maximum (trained context), when the server says. */
  maxWindow?: number;
  capabilities: ServedCapabilities;
  /** Loaded in memory now (Ollama /api/ps, LM Studio state). */
  loaded?: boolean;
  /** Changes when the served model changes (digest, file, modification time): the cache is refreshed then. */
  fingerprint?: string;
  /** Unix ms of the probe. */
  probedAt: number;
}

/** What a probe module gets: the server's root URL (base URL without /v1) and a JSON getter. */
export interface ProbeCtx {
  root: string;
  baseUrl: string;
  model: string;
  /** GET (or POST with a body) `root + path` as JSON; null on any failure (404, refused, timeout, not JSON). */
  json(path: string, body?: unknown, timeoutMs?: number): Promise<unknown>;
}

export interface ServerProbe {
  kind: ServerKind;
  /** Probes the server for `ctx.model`; null when this is not that kind of server. */
  probe(ctx: ProbeCtx): Promise<ServedModel | null>;
}

export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
export const posInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);

/** The entry of an OpenAI-shaped `/v1/models` list for `model` (exact id, or the id's last path part). */
export function listEntry(list: unknown, model: string): Json | undefined {
  const data = isObj(list) && Array.isArray(list.data) ? list.data : Array.isArray(list) ? list : [];
  const items = data.filter(isObj);
  return (
    items.find((m) => m.id === model) ??
    items.find((m) => typeof m.id === 'string' && (m.id.endsWith(`/${model}`) || model.endsWith(`/${m.id}`))) ??
    (items.length === 1 && !model ? items[0] : undefined)
  );
}
