// Asking a local inference server what it serves: which kind of server it is (from the provider
// name, the port, and what `/v1/models` says), then that kind's probe. Loopback/LAN calls with
// short timeouts; the caller decides whether an endpoint is probed at all (`shouldProbe`) and caches
// the answer (src/state/local-models.ts).
import { isLocalUrl } from '../catalog.ts';
import { generic } from './generic.ts';
import { llamacpp } from './llamacpp.ts';
import { lmstudio } from './lmstudio.ts';
import { ollama, ollamaLoad } from './ollama.ts';
import { isObj, listEntry, SERVER_KINDS, type ProbeCtx, type ServedModel, type ServerKind, type ServerProbe } from './types.ts';
import { vllm } from './vllm.ts';

export type { ServedModel, ServerKind, ServedCapabilities } from './types.ts';
export { SERVER_KINDS } from './types.ts';

const PROBES: Record<ServerKind, ServerProbe> = { ollama, llamacpp, vllm, lmstudio, generic };

export const PROBE_TIMEOUT_MS = 1500;

/** An endpoint is probed when it looks local (loopback, private network, .local) or is configured as local. */
export function shouldProbe(baseUrl: string, setting?: unknown): boolean {
  if (setting === false || setting === 'false' || setting === 'off') return false;
  if (setting === true || setting === 'true' || setting === 'on') return true;
  return isLocalUrl(baseUrl);
}

/** The server's root: the base URL without a trailing `/v1` (or `/api`). */
export const serverRoot = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/(v1|api)$/, '');

/** The kind a provider name or port suggests, if any. */
export function kindHint(baseUrl: string, provider = ''): ServerKind | undefined {
  const p = provider.toLowerCase().replace(/^custom:/, '').replace(/[-_.\s]/g, '');
  for (const k of ['ollama', 'llamacpp', 'vllm', 'lmstudio'] as const) if (p === k || p.startsWith(k)) return k;
  let port = '';
  try {
    port = new URL(baseUrl).port;
  } catch {
    return undefined;
  }
  return ({ '11434': 'ollama', '1234': 'lmstudio', '8080': 'llamacpp', '8000': 'vllm' } as Record<string, ServerKind>)[port];
}

export interface ProbeOptions {
  baseUrl: string;
  model: string;
  provider?: string;
  /** A kind known already (config `model.server`, the cache): probed first. */
  kind?: ServerKind;
  apiKey?: string;
  fetchFn?: typeof fetch;
  timeoutMs?: number;
}

function probeCtx(o: ProbeOptions): ProbeCtx {
  const f = o.fetchFn ?? fetch;
  const root = serverRoot(o.baseUrl);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.apiKey && o.apiKey !== 'no-key-required') headers.authorization = `Bearer ${o.apiKey}`;
  const memo = new Map<string, Promise<unknown>>();
  const get = async (path: string, body: unknown, timeoutMs: number): Promise<unknown> => {
    try {
      const res = await f(`${root}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (!res.ok) return null;
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  };
  return {
    root,
    baseUrl: o.baseUrl,
    model: o.model,
    json(path, body, timeoutMs = o.timeoutMs ?? PROBE_TIMEOUT_MS) {
      if (body !== undefined) return get(path, body, timeoutMs);
      // GETs are asked once per probe (several kinds read /v1/models).
      let p = memo.get(path);
      if (!p) memo.set(path, (p = get(path, undefined, timeoutMs)));
      return p;
    },
  };
}

/**
 * What the server at `baseUrl` serves for `model`, or null when it does not answer like any known
 * server. Never throws.
 */
export async function probeServer(o: ProbeOptions): Promise<ServedModel | null> {
  const ctx = probeCtx(o);
  const listPath = `${o.baseUrl.replace(/\/+$/, '').slice(ctx.root.length)}/models`;
  const list = await ctx.json(listPath);
  const reachable = list !== null || (await ctx.json('/api/version')) !== null || (await ctx.json('/props')) !== null;
  if (!reachable) return null;
  const owner = listEntry(list, o.model)?.owned_by ?? (isObj(list) && Array.isArray(list.data) && isObj(list.data[0]) ? list.data[0].owned_by : undefined);
  const byOwner: ServerKind | undefined = owner === 'vllm' ? 'vllm' : owner === 'llamacpp' ? 'llamacpp' : owner === 'organization_owner' ? 'lmstudio' : undefined;
  const order: ServerKind[] = [];
  for (const k of [o.kind, byOwner, kindHint(o.baseUrl, o.provider), 'ollama', 'llamacpp', 'lmstudio', 'vllm', 'generic'] as (ServerKind | undefined)[]) {
    if (k && SERVER_KINDS.includes(k) && !order.includes(k)) order.push(k);
  }
  for (const k of order) {
    const got = await PROBES[k].probe(ctx);
    if (got) return got;
  }
  return null;
}

/** Ollama: loads the model as its OpenAI-compatible route would and returns the context it was loaded with. */
export function loadOllamaModel(o: ProbeOptions, timeoutMs: number): Promise<number | undefined> {
  return ollamaLoad(probeCtx(o), timeoutMs);
}
