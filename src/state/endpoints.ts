// Named endpoints: your own OpenAI-compatible servers, remembered by name so `hermes model
// custom:<name>` finds the URL and key again after switching away. Python Hermes keeps them two
// ways and so do we: the `custom_providers:` list (what its `hermes model` writes: name, base_url,
// api_key or key_env, model, api_mode, …) and the newer `providers:` mapping. One merged view
// serves resolution and the pickers; nothing of that view is written back.
//
//   custom_providers:
//     - name: local-8080                  # `custom:local-8080` in model.provider
//       base_url: http://127.0.0.1:8080/v1
//       key_env: CUSTOM_LOCAL_8080_API_KEY   # the key itself is in .env (0600)
//       model: qwen3-8b
//
// Names given or generated now are slugs ([a-z0-9-]): they go unquoted through a shell and never
// hold the colon that separates `custom:<name>:<model>`. Names an older Hermes generated
// ("Local (127.0.0.1:8080)" → `custom:local-(127.0.0.1:8080)`) keep working as they are.
import { getKey, setConfigKey } from './config.ts';
import type { HermesConfig, NamedProviderConfig } from './defaults.ts';

export interface NamedEndpoint {
  /** What goes in model.provider: `custom:<slug>` (custom_providers) or the providers: key. */
  id: string;
  /** As the person named it. */
  name: string;
  origin: 'providers' | 'custom_providers';
  entry: NamedProviderConfig;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** Hermes's slug for a custom_providers name: lower case, spaces as hyphens. */
export function endpointSlug(name: string): string {
  return name.trim().toLowerCase().replace(/ /g, '-');
}

/** Any text as an endpoint name: lower case, runs of anything but [a-z0-9] as one hyphen. */
export function slugifyEndpointName(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

const ENDPOINT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why a name cannot name a new endpoint (with the nearest one that can), or null when it can. */
export function endpointNameProblem(name: string): string | null {
  const n = name.trim();
  if (ENDPOINT_NAME.test(n) && n.length <= 64) return null;
  const near = slugifyEndpointName(n) || 'my-endpoint';
  return `"${n}" cannot name an endpoint: use lower-case letters, digits and hyphens (it becomes \`custom:<name>\`, typed in shells and split at colons). Try "${near}".`;
}

/** The default name for an endpoint URL, a slug: `local-11434` for a server on this machine, else the host (`runpod-abc123`, `api-example-com`). */
export function autoEndpointName(baseUrl: string): string {
  let url: URL | null = null;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    url = null;
  }
  const host = (url?.hostname ?? baseUrl.replace(/^https?:\/\//i, '').split(/[/:]/)[0]).toLowerCase().replace(/^\[|\]$/g, '');
  const port = url?.port ?? '';
  if (host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '0.0.0.0') return port ? `local-${port}` : 'local';
  if (host.includes('runpod')) return slugifyEndpointName(`runpod-${host.split('.')[0].replace(/^runpod-?/, '')}${port ? `-${port}` : ''}`) || 'runpod';
  return slugifyEndpointName(`${host}${port ? `-${port}` : ''}`) || 'endpoint';
}

/** The .env name a new key for this endpoint is saved under. */
export function endpointKeyEnv(name: string): string {
  const core = endpointSlug(name).toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `CUSTOM_${core || 'ENDPOINT'}_API_KEY`;
}

/** A custom_providers item in the providers: shape (Hermes's aliases folded in). */
function fromCustomProvider(item: Obj): NamedProviderConfig | null {
  const base = str(item.base_url) || str(item.url) || str(item.api);
  if (!str(item.name) || !base) return null;
  const out: NamedProviderConfig = { base_url: base };
  const key = str(item.api_key) || str(item.apiKey);
  const keyEnv = str(item.key_env) || str(item.api_key_env) || str(item.keyEnv) || str(item.apiKeyEnv);
  const model = str(item.model) || str(item.default_model);
  if (key) out.api_key = key;
  if (keyEnv) out.key_env = keyEnv;
  if (model) out.model = model;
  if (str(item.api_mode)) out.api_mode = str(item.api_mode);
  if (isObj(item.extra_headers)) out.extra_headers = item.extra_headers as Record<string, string>;
  const models = isObj(item.models) ? item.models : {};
  const perModel = model && isObj(models[model]) ? Number((models[model] as Obj).context_length) : NaN;
  const ctx = typeof item.context_length === 'number' ? item.context_length : perModel;
  if (Number.isFinite(ctx) && ctx > 0) out.context_length = ctx;
  return out;
}

/** Every named endpoint in the config: `providers:` entries first, then `custom_providers:` items. */
export function namedEndpoints(config: Pick<HermesConfig, 'providers'> & { custom_providers?: unknown }): NamedEndpoint[] {
  const out: NamedEndpoint[] = [];
  for (const [key, entry] of Object.entries(config.providers ?? {})) {
    if (isObj(entry)) out.push({ id: key, name: key, origin: 'providers', entry });
  }
  const taken = new Set(out.map((e) => endpointSlug(e.id)));
  for (const item of Array.isArray(config.custom_providers) ? config.custom_providers : []) {
    if (!isObj(item)) continue;
    const entry = fromCustomProvider(item);
    if (!entry) continue;
    const name = str(item.name);
    const slug = endpointSlug(name);
    if (taken.has(slug)) continue;
    taken.add(slug);
    out.push({ id: `custom:${slug}`, name, origin: 'custom_providers', entry });
  }
  return out;
}

/** The `providers:` map resolution reads: your providers: entries plus each custom_providers item by its slug. */
export function resolvableProviders(config: Pick<HermesConfig, 'providers'> & { custom_providers?: unknown }): Record<string, NamedProviderConfig> {
  const out: Record<string, NamedProviderConfig> = { ...(config.providers ?? {}) };
  for (const e of namedEndpoints(config)) if (e.origin === 'custom_providers') out[e.id.slice('custom:'.length)] = e.entry;
  return out;
}

/** The endpoint a name points at: `custom:<slug>`, the slug, the name as typed, or a providers: key. */
export function findEndpoint(config: Pick<HermesConfig, 'providers'> & { custom_providers?: unknown }, typed: string): NamedEndpoint | undefined {
  const t = typed.trim().toLowerCase();
  const bare = t.startsWith('custom:') ? t.slice('custom:'.length) : t;
  const want = endpointSlug(bare);
  return namedEndpoints(config).find((e) => {
    const slug = endpointSlug(e.origin === 'custom_providers' ? e.id.slice('custom:'.length) : e.id);
    return slug === want || e.name.toLowerCase() === bare;
  });
}

/**
 * `<name>:<model>` after `custom:`: the name must be a known endpoint; the model is everything after
 * its colon, colons included (`custom:local:qwen3:8b`). Old names holding colons are found too
 * (`custom:local-(127.0.0.1:8080):gpt-5`). The longest known name wins. Undefined when no prefix
 * before a colon names an endpoint.
 */
export function splitEndpointModel(config: Pick<HermesConfig, 'providers'> & { custom_providers?: unknown }, rest: string): { endpoint: NamedEndpoint; model: string } | undefined {
  for (let i = rest.lastIndexOf(':'); i > 0; i = rest.lastIndexOf(':', i - 1)) {
    const endpoint = findEndpoint(config, rest.slice(0, i));
    const model = rest.slice(i + 1);
    if (endpoint && model) return { endpoint, model };
  }
  return undefined;
}

const sameUrl = (a: string, b: string) => a.trim().replace(/\/+$/, '').toLowerCase() === b.trim().replace(/\/+$/, '').toLowerCase();

export interface RememberInput {
  baseUrl: string;
  /** Display name; default: the remembered one for this URL, else autoEndpointName(). */
  name?: string;
  model?: string;
  apiMode?: string;
  /** The .env variable holding its key (the key itself never goes into config.yaml). */
  keyEnv?: string;
}

/**
 * Adds or updates the custom_providers item for a base URL (Hermes dedupes by URL too), keeping
 * everything else in it. Returns the endpoint as now saved.
 */
export function rememberEndpoint(home: string, user: Obj, r: RememberInput): NamedEndpoint {
  const raw = getKey(user, 'custom_providers');
  const list: unknown[] = Array.isArray(raw) ? raw.map((x) => (isObj(x) ? { ...x } : x)) : [];
  let idx = list.findIndex((x) => isObj(x) && sameUrl(str(x.base_url) || str(x.url) || str(x.api), r.baseUrl));
  if (idx < 0 && r.name) idx = list.findIndex((x) => isObj(x) && endpointSlug(str(x.name)) === endpointSlug(r.name!));
  const item: Obj = idx >= 0 ? (list[idx] as Obj) : {};
  item.name = r.name?.trim() || str(item.name) || autoEndpointName(r.baseUrl);
  item.base_url = r.baseUrl;
  if (r.model) item.model = r.model;
  if (r.apiMode) item.api_mode = r.apiMode;
  if (r.keyEnv) {
    item.key_env = r.keyEnv;
    // A key written into config.yaml earlier is replaced by the one in .env.
    for (const k of ['api_key', 'apiKey', 'api_key_env', 'keyEnv', 'apiKeyEnv']) delete item[k];
  }
  if (idx >= 0) list[idx] = item;
  else list.push(item);
  setConfigKey(home, 'custom_providers', list);
  const name = String(item.name);
  return { id: `custom:${endpointSlug(name)}`, name, origin: 'custom_providers', entry: fromCustomProvider(item)! };
}
