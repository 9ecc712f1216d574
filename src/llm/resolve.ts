// Provider runtime resolution: which provider, endpoint, wire, key(s) and model a session uses.
//
// Precedence (Hermes's provider-runtime doc): explicit CLI/runtime request > config.yaml > environment
// variables > provider defaults / auto-detection. The saved config beats a stale shell export.
//
// Key scoping: a provider's key env vars are only read for that provider, and a provider with a
// `keyHost` (OpenRouter, AI Gateway) only gets its env key when the endpoint is on that host. A custom
// endpoint gets the key the user gave for it (flag, model.api_key, providers.<name>.api_key/key_env)
// or OPENAI_API_KEY, never another provider's key.
//
// Several keys per provider (the credential pool's seed), from the winning env var only:
//   - a comma-separated value: `OPENROUTER_API_KEY=sk-or-1,sk-or-2`
//   - numbered siblings: `OPENROUTER_API_KEY_2`, `OPENROUTER_API_KEY_3`, … (2..20, gaps allowed)
// The first key is `apiKey`; all of them, deduplicated and in that order, are `keys`.

import {
  LOCAL_SERVER_DEFAULTS,
  PROVIDERS,
  canonicalApiMode,
  detectApiModeForUrl,
  findProvider,
  hostMatches,
  hostOf,
  isLocalUrl,
  poolIdOf,
  type ProviderQuirks,
  type ProviderSpec,
} from './catalog.ts';
import type { KeyStrategy, PoolCredential, PoolHooks } from './credentials.ts';
import type { ApiMode } from './types.ts';

export interface ProviderRuntime {
  /** Provider id (`openrouter`, `anthropic`, `custom`, `custom:<name>` for a named endpoint). */
  provider: string;
  apiMode: ApiMode;
  baseUrl: string;
  /** The key used first (a placeholder like `no-key` for keyless local servers). */
  apiKey: string;
  /** The credential pool's keys, `apiKey` first. */
  keys: string[];
  /** The pool as credentials (auth.json entries, env keys, OAuth grants), when it came from one. */
  credentials?: PoolCredential[];
  /** config `credential_pool_strategies.<provider>`. */
  keyStrategy?: KeyStrategy;
  /** Where the pool reports benched / refreshed credentials (auth.json persistence). */
  poolHooks?: PoolHooks;
  model: string;
  /** Where the key came from (`env:OPENROUTER_API_KEY`, `config:model.api_key`…); never the key itself. */
  source: string;
  /** The env var holding the key, when there is one (for error messages). */
  keyEnv?: string;
  extraHeaders: Record<string, string>;
  quirks: ProviderQuirks;
  contextLength?: number;
  isCustom: boolean;
  /**
   * The first-byte deadline for this runtime in ms (0: none), from
   * `providers.<id>.models.<model>.first_byte_timeout_seconds` or `providers.<id>.first_byte_timeout_seconds`;
   * unset: the client's default (see client.ts).
   */
  firstByteTimeoutMs?: number;
}

export interface ModelInput {
  default?: string;
  provider?: string;
  base_url?: string;
  api_key?: string;
  api_mode?: string;
  context_length?: number | null;
}

export interface NamedProviderInput {
  base_url?: string;
  api_key?: string;
  key_env?: string;
  api_mode?: string;
  model?: string;
  extra_headers?: Record<string, string>;
  context_length?: number;
  /** Seconds to wait for the response to begin before moving to the next key or fallback (0: no deadline). */
  first_byte_timeout_seconds?: number;
  /** Per-model overrides of the settings above. */
  models?: Record<string, { first_byte_timeout_seconds?: number } | null>;
}

/** A named provider entry's first-byte deadline for `model`, in ms (the model's own setting first). */
function firstByteSetting(entry: NamedProviderInput | undefined, model: string): number | undefined {
  const secs = (v: unknown) => {
    const n = typeof v === 'string' && v.trim() ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
  };
  const models = entry?.models && typeof entry.models === 'object' ? entry.models : undefined;
  return secs(models?.[model]?.first_byte_timeout_seconds) ?? secs(entry?.first_byte_timeout_seconds);
}

export interface ResolveInput {
  /** config.yaml `model` (the legacy plain-string form names the model). */
  model?: ModelInput | string | null;
  /** config.yaml `providers:` (named endpoints, or overrides of a built-in provider by its id). */
  providers?: Record<string, NamedProviderInput> | null;
  /** CLI flags / runtime request (`--provider`, `-m`, `--base-url`, `--api-key`, `--api-mode`). */
  explicit?: { provider?: string; model?: string; baseUrl?: string; apiKey?: string; apiMode?: string };
  env: Record<string, string | undefined>;
  /**
   * Credentials found by a layer above (auth.json pool, Codex/Claude Code sign-in), keyed by provider id.
   * Used after the provider's env vars.
   */
  storedCredentials?: Record<string, string | string[]>;
  /**
   * HERMES_HOME/auth.json's credential pools (and OAuth sign-ins), keyed by pool id (`openrouter`,
   * `custom:<name>`), in priority order. Used before the provider's env keys, which join the pool
   * after them (as Hermes seeds them).
   */
  pools?: Record<string, PoolCredential[]>;
  /** Env vars whose keys `hermes auth remove` suppressed, per provider (`env:NAME` sources). */
  suppressedSources?: Record<string, string[]>;
  /** config `credential_pool_strategies`. */
  poolStrategies?: Record<string, string>;
  poolHooks?: PoolHooks;
  /** auth.json `active_provider`: the provider of the last sign-in (used when nothing else names one). */
  activeProvider?: string | null;
}

export interface FallbackEntry {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
  key_env?: string;
  api_mode?: string;
  context_length?: number;
}

export interface AuxiliaryTaskInput {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
}

export class ResolveError extends Error {
  /** What to do about it (also the end of `message`). */
  readonly hint: string;
  /** The catalog message (`errors.<key>` in src/i18n) a surface shows in the user's language. */
  readonly i18n?: { key: string; vars: Record<string, string> };
  constructor(problem: string, hint: string, i18n?: { key: string; vars?: Record<string, string> }) {
    super(`${problem}: ${hint}`);
    this.name = 'ResolveError';
    this.hint = hint;
    if (i18n) this.i18n = { key: i18n.key, vars: i18n.vars ?? {} };
  }
}

const PLACEHOLDER_KEY = 'no-key';
const PLACEHOLDER_VALUES = new Set([
  '*', '**', '***', 'changeme', 'your_api_key', 'your_api_key_here', 'your-api-key', 'placeholder',
  'example', 'dummy', 'null', 'none', 'xxx',
]);

const clean = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** A configured secret that looks real: not empty, not a template placeholder. */
export function usableSecret(v: unknown): boolean {
  const s = clean(v);
  return s.length >= 4 && !PLACEHOLDER_VALUES.has(s.toLowerCase());
}

/** The keys an env var holds: comma-separated values plus `<NAME>_2` … `<NAME>_20`. */
export function envKeys(env: Record<string, string | undefined>, name: string): string[] {
  const out: string[] = [];
  const add = (raw: string | undefined) => {
    for (const part of (raw ?? '').split(',')) {
      const k = part.trim();
      if (usableSecret(k) && !out.includes(k)) out.push(k);
    }
  };
  add(env[name]);
  if (out.length === 0) return out;
  for (let i = 2; i <= 20; i++) add(env[`${name}_${i}`]);
  return out;
}

interface ModelCfg {
  default: string;
  provider: string;
  base_url: string;
  api_key: string;
  api_mode: string;
  context_length?: number;
}

function normModelCfg(m: ResolveInput['model']): ModelCfg | null {
  if (!m) return null;
  if (typeof m === 'string') return m.trim() ? { default: m.trim(), provider: '', base_url: '', api_key: '', api_mode: '' } : null;
  const provider = clean(m.provider).toLowerCase();
  return {
    default: clean(m.default),
    provider: provider === 'auto' ? '' : provider,
    base_url: clean(m.base_url),
    api_key: clean(m.api_key),
    api_mode: clean(m.api_mode),
    context_length: typeof m.context_length === 'number' && m.context_length > 0 ? m.context_length : undefined,
  };
}

const normName = (s: string) => s.trim().toLowerCase().replace(/\s+/g, '-');

function findNamed(
  providers: ResolveInput['providers'],
  name: string,
): { name: string; entry: NamedProviderInput } | undefined {
  if (!providers) return undefined;
  const want = normName(name);
  for (const [key, entry] of Object.entries(providers)) {
    if (entry && typeof entry === 'object' && normName(key) === want) return { name: key, entry };
  }
  return undefined;
}

interface Selection {
  spec: ProviderSpec;
  /** A `providers.<name>` entry: a named custom endpoint, or an override of the built-in `spec`. */
  named?: { name: string; entry: NamedProviderInput };
  namedIsCustom: boolean;
  /** The alias the user typed (for local-server default URLs). */
  typed: string;
}

const CUSTOM = findProvider('custom')!;

function validIdsHint(providers: ResolveInput['providers']): string {
  const named = Object.keys(providers ?? {});
  const ids = PROVIDERS.map((p) => p.id);
  return `use one of ${ids.join(', ')}${named.length ? `, or a configured provider (${named.join(', ')})` : ''}; run \`hermes model\` to pick one`;
}

function select(requested: string, input: ResolveInput): Selection {
  const req = requested.trim().toLowerCase();
  if (req.startsWith('custom:')) {
    const name = req.slice('custom:'.length);
    const named = findNamed(input.providers, name);
    if (!named) {
      throw new ResolveError(
        `No provider named '${name}' under providers: in config.yaml`,
        `add providers.${name}.base_url to ~/.hermes/config.yaml or run \`hermes model\``,
      );
    }
    return { spec: CUSTOM, named, namedIsCustom: true, typed: req };
  }
  const named = findNamed(input.providers, req);
  const builtin = findProvider(req);
  if (named) {
    // A canonical built-in id names the built-in (the entry overrides its settings); any other
    // name, including a built-in's alias, is the user's own endpoint.
    if (builtin && builtin.id === req && !builtin.isCustom) return { spec: builtin, named, namedIsCustom: false, typed: req };
    return { spec: CUSTOM, named, namedIsCustom: true, typed: req };
  }
  if (builtin) return { spec: builtin, namedIsCustom: false, typed: req };
  const hint = validIdsHint(input.providers);
  throw new ResolveError(`Unknown provider '${requested}'`, hint, { key: 'errors.unknown_provider', vars: { provider: requested, hint } });
}

const viaUrl = (url: string) => (hostMatches(url, 'openrouter.ai') ? 'openrouter' : 'custom');

/** The provider a config `model:` block names: model.provider, or custom/openrouter for a bare base_url. */
function cfgTarget(cfg: ModelCfg | null): string {
  if (!cfg) return '';
  return cfg.provider || (cfg.base_url ? viaUrl(cfg.base_url) : '');
}

function autoDetect(input: ResolveInput, explicitBaseUrl: string): string {
  if (explicitBaseUrl) return viaUrl(explicitBaseUrl);
  if (usableUrl(input.env.OPENAI_BASE_URL)) return 'custom';
  for (const p of PROVIDERS) {
    if (p.autoDetect === false) continue;
    if (p.keyEnvs.some((k) => usableSecret(input.env[k]))) return p.id;
  }
  for (const p of PROVIDERS) {
    if (p.isCustom) continue;
    const stored = input.storedCredentials?.[p.id];
    if (stored && (Array.isArray(stored) ? stored.some(usableSecret) : usableSecret(stored))) return p.id;
    // A sign-in for a provider that is never picked automatically (Codex, Qwen, Copilot) needs
    // naming, or auth.json's active_provider.
    if (p.autoDetect !== false && input.pools?.[poolIdOf(p)]?.some((c) => usableSecret(c.key))) return p.id;
  }
  throw new ResolveError(
    'No LLM provider configured',
    'set OPENROUTER_API_KEY (or another provider’s API key) in ~/.hermes/.env, or run `hermes setup`',
    { key: 'errors.no_provider' },
  );
}

const usableUrl = (v: unknown): boolean => /^https?:\/\/\S+$/i.test(clean(v));

interface KeyChoice {
  keys: string[];
  source: string;
  keyEnv?: string;
  credentials?: PoolCredential[];
}

const STRATEGY_NAMES = new Set(['fill_first', 'round_robin', 'least_used', 'random']);

function envCredentials(keys: string[], envName: string): PoolCredential[] {
  return keys.map((key, i) => ({
    id: i ? `env:${envName}#${i + 1}` : `env:${envName}`,
    label: i ? `${envName} #${i + 1}` : envName,
    source: `env:${envName}`,
    authType: 'api_key' as const,
    key,
    priority: 1000 + i,
  }));
}

interface CoreRequest {
  requested: string;
  /** config.yaml `model` block (applied only where it names the selected provider). */
  cfg: ModelCfg | null;
  explicit: NonNullable<ResolveInput['explicit']>;
  keyOverride?: KeyChoice;
  contextLength?: number;
  input: ResolveInput;
}

function resolveCore(r: CoreRequest): ProviderRuntime {
  const { input, explicit } = r;
  const env = input.env;
  let requested = r.requested;
  const explicitBaseUrl = clean(explicit.baseUrl);
  if (requested === 'auto') requested = autoDetect(input, explicitBaseUrl);
  const sel = select(requested, input);
  const { spec, named } = sel;
  const label = sel.namedIsCustom ? `custom:${named!.name}` : spec.id;

  // The config block speaks for this provider when it names it (model.provider, or a bare
  // model.base_url, which means a custom endpoint); a block naming no provider only lends its model.
  const cfg = r.cfg;
  const target = cfgTarget(cfg);
  const cfgNamesThis =
    !!target &&
    (() => {
      try {
        const s = select(target, input);
        return s.spec === spec && s.named?.name === named?.name;
      } catch {
        return false;
      }
    })();
  const c = cfgNamesThis ? cfg : null;
  const cModel = cfgNamesThis || (cfg && !target) ? cfg : null;

  // Endpoint.
  let baseUrl =
    explicitBaseUrl ||
    c?.base_url ||
    clean(named?.entry.base_url) ||
    (spec.baseUrlEnv && usableUrl(env[spec.baseUrlEnv]) ? clean(env[spec.baseUrlEnv]) : '') ||
    (spec.isCustom ? (LOCAL_SERVER_DEFAULTS[sel.typed] ?? '') : '') ||
    spec.baseUrl;
  baseUrl = baseUrl.replace(/\/+$/, '');
  if (!baseUrl) {
    throw new ResolveError(
      'The custom provider has no base URL',
      'set model.base_url in ~/.hermes/config.yaml (or OPENAI_BASE_URL in ~/.hermes/.env), pass --base-url, or run `hermes model`',
    );
  }
  if (!hostOf(baseUrl)) {
    throw new ResolveError(`The base URL '${baseUrl}' for ${label} is not a valid http(s) URL`, 'fix model.base_url in ~/.hermes/config.yaml or run `hermes model`');
  }

  // Wire.
  const rawMode = clean(explicit.apiMode) || c?.api_mode || clean(named?.entry.api_mode);
  const mode = canonicalApiMode(rawMode);
  if (mode === null) {
    throw new ResolveError(
      `Unknown api_mode '${rawMode}' for ${label}`,
      'use chat_completions, codex_responses or anthropic_messages (aliases: openai, responses, anthropic) in model.api_mode',
    );
  }
  const apiMode: ApiMode =
    mode ?? (spec.apiMode !== 'chat_completions' ? spec.apiMode : (detectApiModeForUrl(baseUrl) ?? 'chat_completions'));
  // The Anthropic SDK appends /v1/messages itself.
  if (apiMode === 'anthropic_messages') baseUrl = baseUrl.replace(/\/v1$/, '');

  // Model.
  const model =
    clean(explicit.model) ||
    cModel?.default ||
    clean(named?.entry.model) ||
    clean(env.HERMES_INFERENCE_MODEL) ||
    clean(env.HERMES_MODEL) ||
    spec.defaultModel ||
    '';
  if (!model) {
    throw new ResolveError(`No model configured for ${label}`, 'pass -m <model> or run `hermes model` to choose one', { key: 'errors.no_model', vars: { label } });
  }

  // Keys.
  const scopedOut = spec.keyHost !== undefined && !hostMatches(baseUrl, spec.keyHost);
  const candidates: (() => KeyChoice | undefined)[] = [
    () => r.keyOverride,
    () => (usableSecret(explicit.apiKey) ? { keys: [clean(explicit.apiKey)], source: 'flag:--api-key' } : undefined),
    () => (c && usableSecret(c.api_key) ? { keys: [c.api_key], source: 'config:model.api_key' } : undefined),
    () => {
      const ke = clean(named?.entry.key_env);
      const keys = ke ? envKeys(env, ke) : [];
      return keys.length ? { keys, source: `providers.${named!.name}.key_env`, keyEnv: ke } : undefined;
    },
    () =>
      usableSecret(named?.entry.api_key)
        ? { keys: [clean(named!.entry.api_key)], source: `providers.${named!.name}.api_key` }
        : undefined,
    () => {
      if (scopedOut) return undefined;
      // The pool: auth.json entries first (priority order), then the env key(s) not already in it.
      const poolId = sel.namedIsCustom ? label : poolIdOf(spec);
      const suppressed = new Set(input.suppressedSources?.[poolId] ?? []);
      const stored = (input.pools?.[poolId] ?? []).filter((c) => usableSecret(c.key) && !suppressed.has(c.source));
      let seed: { keys: string[]; name: string } | undefined;
      // A named custom endpoint has its own key settings; the generic custom key (OPENAI_API_KEY) still applies.
      for (const k of spec.keyEnvs) {
        const keys = envKeys(input.env, k);
        if (keys.length && !suppressed.has(`env:${k}`)) {
          seed = { keys, name: k };
          break;
        }
      }
      // OPENAI_API_KEY is the documented fallback for OpenRouter too.
      if (!seed && spec.id === 'openrouter' && !suppressed.has('env:OPENAI_API_KEY')) {
        const keys = envKeys(input.env, 'OPENAI_API_KEY');
        if (keys.length) seed = { keys, name: 'OPENAI_API_KEY' };
      }
      if (!stored.length) return seed ? { keys: seed.keys, source: `env:${seed.name}`, keyEnv: seed.name } : undefined;
      const have = new Set(stored.map((c) => c.key));
      const credentials = [...stored, ...(seed ? envCredentials(seed.keys, seed.name).filter((c) => !have.has(c.key)) : [])];
      return { keys: credentials.map((c) => c.key), source: `auth:${poolId}`, credentials };
    },
    () => {
      const stored = input.storedCredentials?.[spec.id];
      const keys = (Array.isArray(stored) ? stored : stored ? [stored] : []).map(clean).filter(usableSecret);
      return keys.length ? { keys: [...new Set(keys)], source: `auth:${spec.id}` } : undefined;
    },
  ];
  let choice: KeyChoice | undefined;
  for (const cand of candidates) {
    choice = cand();
    if (choice && choice.keys.length) break;
    choice = undefined;
  }
  if (!choice) {
    if (spec.quirks.noKeyRequired || spec.isCustom || sel.namedIsCustom || isLocalUrl(baseUrl)) {
      choice = { keys: [PLACEHOLDER_KEY], source: 'none' };
    } else if (scopedOut && spec.keyEnvs.some((k) => usableSecret(env[k]))) {
      throw new ResolveError(
        `${spec.keyEnvs[0]} is only sent to ${spec.keyHost}, and ${label} points at ${hostOf(baseUrl)}`,
        `set model.api_key (or providers.<name>.key_env) for that endpoint in ~/.hermes/config.yaml, or remove the base URL override`,
      );
    } else if (spec.keyEnvs.length === 0) {
      throw new ResolveError(`Not signed in to ${spec.name}`, 'run `hermes model` (or `hermes setup`) to sign in', { key: 'errors.not_signed_in', vars: { provider: spec.name } });
    } else {
      const ke = clean(named?.entry.key_env);
      const where = ke ? ke : spec.keyEnvs.join(' or ');
      throw new ResolveError(`No API key for ${spec.name}`, `set ${where} in ~/.hermes/.env or run \`hermes setup\``, { key: 'errors.no_api_key', vars: { provider: spec.name, env: where } });
    }
  }

  const extraHeaders: Record<string, string> = { ...(spec.defaultHeaders ?? {}) };
  for (const [k, v] of Object.entries(named?.entry.extra_headers ?? {})) if (typeof v === 'string') extraHeaders[k] = v;

  const contextLength =
    r.contextLength ??
    cModel?.context_length ??
    (typeof named?.entry.context_length === 'number' && named.entry.context_length > 0 ? named.entry.context_length : undefined);

  const runtime: ProviderRuntime = {
    provider: label,
    apiMode,
    baseUrl,
    apiKey: choice.keys[0],
    keys: choice.keys,
    model,
    source: choice.source,
    extraHeaders,
    quirks: { ...spec.quirks },
    isCustom: !!spec.isCustom || sel.namedIsCustom,
  };
  if (choice.keyEnv) runtime.keyEnv = choice.keyEnv;
  if (choice.credentials) {
    // An endpoint the user chose wins over one a sign-in carries.
    const userUrl = !!(explicitBaseUrl || c?.base_url || clean(named?.entry.base_url));
    runtime.credentials = userUrl ? choice.credentials.map((cr) => ({ ...cr, baseUrl: undefined })) : choice.credentials;
    const strategy = clean(input.poolStrategies?.[sel.namedIsCustom ? label : poolIdOf(spec)]).toLowerCase();
    if (STRATEGY_NAMES.has(strategy)) runtime.keyStrategy = strategy as KeyStrategy;
    if (input.poolHooks) runtime.poolHooks = input.poolHooks;
  }
  if (contextLength !== undefined) runtime.contextLength = contextLength;
  const firstByte = firstByteSetting(named?.entry, model);
  if (firstByte !== undefined) runtime.firstByteTimeoutMs = firstByte;
  return runtime;
}

/** The runtime for the main conversation. Throws ResolveError with a one-line fix. */
export function resolveRuntime(input: ResolveInput): ProviderRuntime {
  const cfg = normModelCfg(input.model);
  const explicit = input.explicit ?? {};
  // A one-off --base-url without --provider means that endpoint (custom, or OpenRouter by host).
  const requested =
    clean(explicit.provider).toLowerCase() ||
    (clean(explicit.baseUrl) ? 'auto' : '') ||
    cfgTarget(cfg) ||
    clean(input.env.HERMES_INFERENCE_PROVIDER).toLowerCase() ||
    (input.activeProvider && findProvider(input.activeProvider) ? clean(input.activeProvider).toLowerCase() : '') ||
    'auto';
  return resolveCore({ requested, cfg, explicit, input });
}

/**
 * Runtimes for `fallback_providers` (in order). An entry needs both provider and model; one that
 * cannot be resolved (unknown provider, missing key) is skipped with the reason, not fatal.
 * The main `model:` block never leaks into a fallback: each entry carries its own settings.
 */
export function resolveFallbackRuntimes(
  entries: FallbackEntry[] | null | undefined,
  input: ResolveInput,
): { runtimes: ProviderRuntime[]; skipped: { entry: FallbackEntry; reason: string }[] } {
  const runtimes: ProviderRuntime[] = [];
  const skipped: { entry: FallbackEntry; reason: string }[] = [];
  for (const entry of entries ?? []) {
    const provider = clean(entry?.provider);
    const model = clean(entry?.model);
    if (!provider || !model) {
      skipped.push({ entry, reason: 'a fallback provider needs both provider and model' });
      continue;
    }
    let keyOverride: KeyChoice | undefined;
    const keyEnv = clean(entry.key_env);
    if (usableSecret(entry.api_key)) keyOverride = { keys: [clean(entry.api_key)], source: 'fallback_providers.api_key' };
    else if (keyEnv) {
      const keys = envKeys(input.env, keyEnv);
      if (!keys.length) {
        skipped.push({ entry, reason: `${keyEnv} is not set (fallback ${provider})` });
        continue;
      }
      keyOverride = { keys, source: 'fallback_providers.key_env', keyEnv };
    }
    try {
      runtimes.push(
        resolveCore({
          requested: provider.toLowerCase(),
          cfg: null,
          explicit: { model, baseUrl: entry.base_url, apiMode: entry.api_mode },
          keyOverride,
          contextLength: typeof entry.context_length === 'number' && entry.context_length > 0 ? entry.context_length : undefined,
          input,
        }),
      );
    } catch (e) {
      skipped.push({ entry, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { runtimes, skipped };
}

/**
 * The runtime for an auxiliary task (`auxiliary.<task>` in config; env `AUXILIARY_<TASK>_*` fills
 * empty fields). `main` → the main runtime; `auto`/empty → the main provider with the task's model
 * if set; an explicit `base_url` → that endpoint with the task's api_key or OPENAI_API_KEY (never
 * OPENROUTER_API_KEY); another provider → resolved like `--provider`. Null when that provider has
 * no credentials (the caller skips the task or uses the main runtime).
 */
export function resolveAuxiliaryRuntime(
  task: string,
  taskCfg: AuxiliaryTaskInput | null | undefined,
  main: ProviderRuntime,
  input: ResolveInput,
): ProviderRuntime | null {
  const envPrefix = `AUXILIARY_${task.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
  const pick = (v: unknown, envName: string) => clean(v) || clean(input.env[envPrefix + envName]);
  const provider = pick(taskCfg?.provider, 'PROVIDER').toLowerCase() || 'auto';
  const model = pick(taskCfg?.model, 'MODEL');
  const baseUrl = pick(taskCfg?.base_url, 'BASE_URL').replace(/\/+$/, '');
  const apiKey = pick(taskCfg?.api_key, 'API_KEY');

  if (baseUrl) {
    if (!hostOf(baseUrl)) return null;
    const keys = usableSecret(apiKey) ? [apiKey] : envKeys(input.env, 'OPENAI_API_KEY');
    const source = usableSecret(apiKey) ? `auxiliary.${task}.api_key` : keys.length ? 'env:OPENAI_API_KEY' : 'none';
    const finalKeys = keys.length ? keys : [PLACEHOLDER_KEY];
    const apiMode = detectApiModeForUrl(baseUrl) ?? 'chat_completions';
    const rt: ProviderRuntime = {
      provider: 'custom',
      apiMode,
      baseUrl: apiMode === 'anthropic_messages' ? baseUrl.replace(/\/v1$/, '') : baseUrl,
      apiKey: finalKeys[0],
      keys: finalKeys,
      model: model || main.model,
      source,
      extraHeaders: {},
      quirks: {},
      isCustom: true,
    };
    if (source === 'env:OPENAI_API_KEY') rt.keyEnv = 'OPENAI_API_KEY';
    return rt;
  }
  if (provider === 'main' || provider === 'auto') {
    const rt: ProviderRuntime = { ...main, keys: [...main.keys], extraHeaders: { ...main.extraHeaders }, quirks: { ...main.quirks } };
    if (model) rt.model = model;
    return rt;
  }
  try {
    return resolveCore({
      requested: provider,
      cfg: null,
      explicit: { model: model || undefined, apiKey: apiKey || undefined },
      input,
    });
  } catch (e) {
    if (e instanceof ResolveError) return null;
    throw e;
  }
}
