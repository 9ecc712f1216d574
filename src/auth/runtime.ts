// auth.json → the credential pools runtime resolution uses (src/llm/resolve.ts `pools`), with what
// OAuth credentials need to stay usable (refresh before expiry, after a 401) and the hooks that keep
// auth.json's `last_status*` fields current, so every Hermes process (Python too) skips a benched key.
//
// Per provider, in priority order: the `credential_pool.<provider>` entries; the OAuth sign-ins
// (`providers.nous`, `providers.openai-codex`, the Qwen CLI's ~/.qwen/oauth_creds.json); for GitHub
// Copilot also the GitHub tokens of COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN, each exchanged for
// a Copilot API token. Plain env keys join in resolve.ts, after these.
import type { CredentialStatus, PoolCredential, PoolHooks, RefreshedToken } from '../llm/credentials.ts';
import { jwtExpiryMs, labelFromToken, s } from './oauth/common.ts';
import { HERMES_PKCE_SOURCE, readAnthropicOAuthFile, refreshAnthropic, updateAnthropicOAuthFile } from './oauth/anthropic.ts';
import { codexState, refreshCodex } from './oauth/codex.ts';
import { exchangeCopilotToken } from './oauth/copilot.ts';
import { OAuthError } from './oauth/common.ts';
import { nousInferenceUrl, nousKey, nousMintsKeys, renewNous } from './oauth/nous.ts';
import { clearSharedNous, mergeSharedNous, writeSharedNous } from './oauth/nous-shared.ts';
import { readQwenCreds, refreshQwen } from './oauth/qwen.ts';
import { entryStatus, poolArray, poolEntries, poolProviders, setPoolStatus, type PoolEntry } from './pool.ts';
import { AuthStore, isObject, providerState, type AuthData, type JsonObject } from './store.ts';

export interface AuthResolveInputs {
  pools: Record<string, PoolCredential[]>;
  suppressedSources: Record<string, string[]>;
  activeProvider: string | null;
  poolHooks: PoolHooks;
  /** auth.json could not be read (shown once by the surface); resolution goes on without it. */
  problem?: string;
}

/** Sources whose credentials mirror an OAuth sign-in kept under `providers.<id>`. */
const SINGLETON_SOURCES = new Set(['device_code']);
const COPILOT_ENVS = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'];

function suppressedOf(data: AuthData): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isObject(data.suppressed_sources)) return out;
  for (const [k, v] of Object.entries(data.suppressed_sources)) if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  return out;
}

/** Tokens for one refresh: reuses what another process already renewed, else asks the provider. */
async function refreshSingleton(
  store: AuthStore,
  id: 'nous' | 'openai-codex',
  force: boolean,
  env: NodeJS.ProcessEnv,
  staleKey: string,
): Promise<RefreshedToken | null> {
  const current = providerState(store.read(), id);
  if (!current) return null;
  if (id === 'nous') {
    const fresh = (st: JsonObject): RefreshedToken | null => {
      const k = nousKey(st);
      return k.key && (!k.renewAt || k.renewAt > Date.now() + 120_000) ? { key: k.key, expiresAt: k.renewAt, baseUrl: nousInferenceUrl(st, env) } : null;
    };
    const now = fresh(current);
    if (now && (now.key !== staleKey || !force)) return now;
    // Another profile may have rotated the single-use refresh token: take the newer pair first.
    const merged = { ...current };
    if (mergeSharedNous(merged, env) && !nousMintsKeys(merged)) Object.assign(merged, { agent_key: merged.access_token, agent_key_expires_at: merged.expires_at });
    const adopted = fresh(merged);
    let next: JsonObject;
    if (adopted && adopted.key !== staleKey) next = merged;
    else {
      try {
        next = await renewNous(merged, env);
      } catch (e) {
        if (e instanceof OAuthError && e.relogin) await clearSharedNous(env, s(merged.refresh_token));
        throw e;
      }
      await writeSharedNous(next, env);
    }
    await store.update((data) => {
      const st = providerState(data, 'nous', true)!;
      Object.assign(st, next);
      for (const e of poolArray(data, 'nous'))
        if (e.source === 'device_code') Object.assign(e, { access_token: next.access_token, refresh_token: next.refresh_token, agent_key: next.agent_key, agent_key_expires_at: next.agent_key_expires_at, expires_at: next.expires_at, inference_base_url: next.inference_base_url });
    });
    return fresh(next) ?? { key: nousKey(next).key, expiresAt: nousKey(next).renewAt, baseUrl: nousInferenceUrl(next, env) };
  }
  const tokens = isObject(current.tokens) ? current.tokens : {};
  const access = s(tokens.access_token);
  const exp = jwtExpiryMs(access);
  if (access && access !== staleKey && (!exp || exp > Date.now() + 120_000)) return { key: access, expiresAt: exp };
  if (!force && access && exp && exp > Date.now() + 120_000) return { key: access, expiresAt: exp };
  const next = await refreshCodex({ access_token: access, refresh_token: s(tokens.refresh_token) }, env);
  await store.update((data) => {
    const prev = providerState(data, 'openai-codex', true)!;
    Object.assign(prev, codexState(next, prev));
    for (const e of poolArray(data, 'openai-codex')) if (e.source === 'device_code') Object.assign(e, { access_token: next.access_token, refresh_token: next.refresh_token });
  });
  return { key: next.access_token, expiresAt: jwtExpiryMs(next.access_token) };
}

function entryCredential(provider: string, e: PoolEntry): PoolCredential | null {
  const key = provider === 'nous' ? s(e.agent_key) || s(e.access_token) : s(e.access_token);
  if (!key) return null;
  const authType = e.auth_type === 'oauth' ? 'oauth' : 'api_key';
  const cred: PoolCredential = {
    id: s(e.id) || `${provider}:${s(e.label)}`,
    label: s(e.label) || s(e.id),
    source: s(e.source) || 'manual',
    authType,
    key,
    priority: typeof e.priority === 'number' ? e.priority : 0,
    status: entryStatus(e),
    requestCount: typeof e.request_count === 'number' ? e.request_count : 0,
  };
  const exp = jwtExpiryMs(key) ?? (typeof e.expires_at_ms === 'number' && e.expires_at_ms > 0 ? e.expires_at_ms : undefined);
  if (exp) cred.expiresAt = exp;
  return cred;
}

/** A pool entry holding its own OAuth grant (a second Codex account, a Claude sign-in): refreshed in place. */
function entryRefresh(store: AuthStore, provider: string, entryId: string, env: NodeJS.ProcessEnv): PoolCredential['refresh'] | undefined {
  if (provider === 'anthropic') return anthropicEntryRefresh(store, entryId, env);
  if (provider !== 'openai-codex') return undefined;
  return async () => {
    const e = poolArray(store.read(), provider).find((x) => x.id === entryId);
    if (!e || !s(e.refresh_token)) return null;
    const next = await refreshCodex({ access_token: s(e.access_token), refresh_token: s(e.refresh_token) }, env);
    await store.update((data) => {
      const x = poolArray(data, provider).find((y) => y.id === entryId);
      if (x) Object.assign(x, { access_token: next.access_token, refresh_token: next.refresh_token });
    });
    return { key: next.access_token, expiresAt: jwtExpiryMs(next.access_token) };
  };
}

/**
 * A Claude sign-in (`credential_pool.anthropic` oauth entry): its single-use refresh token is
 * redeemed under the auth.json lock, reusing what another process renewed meanwhile, and the new pair
 * is saved at once (and into Python Hermes's .anthropic_oauth.json when that file held the grant).
 */
function anthropicEntryRefresh(store: AuthStore, entryId: string, env: NodeJS.ProcessEnv): PoolCredential['refresh'] {
  return async (force) => {
    const e = poolArray(store.read(), 'anthropic').find((x) => x.id === entryId);
    if (!e || !s(e.refresh_token)) return null;
    const exp = typeof e.expires_at_ms === 'number' ? e.expires_at_ms : 0;
    if (!force && exp > Date.now() + 120_000) return { key: s(e.access_token), expiresAt: exp };
    const oldRefresh = s(e.refresh_token);
    const next = await refreshAnthropic(oldRefresh, env);
    await store.update((data) => {
      const x = poolArray(data, 'anthropic').find((y) => y.id === entryId);
      if (x) Object.assign(x, { access_token: next.access_token, refresh_token: next.refresh_token, expires_at_ms: next.expires_at_ms });
    });
    updateAnthropicOAuthFile(store.home, oldRefresh, next);
    return { key: next.access_token, expiresAt: next.expires_at_ms };
  };
}

/** Python Hermes's `.anthropic_oauth.json` grant as a credential (when no pool entry already holds it). */
function anthropicFileCredential(home: string, env: NodeJS.ProcessEnv, known: PoolCredential[]): PoolCredential | null {
  const t = readAnthropicOAuthFile(home);
  if (!t || known.some((c) => c.key === t.access_token)) return null;
  let current = t;
  const cred: PoolCredential = { id: `anthropic:${HERMES_PKCE_SOURCE}`, label: 'claude-oauth', source: HERMES_PKCE_SOURCE, authType: 'oauth', key: t.access_token, priority: -1, expiresAt: t.expires_at_ms || undefined };
  cred.refresh = async (force) => {
    const onDisk = readAnthropicOAuthFile(home) ?? current;
    if (onDisk.access_token !== cred.key && onDisk.expires_at_ms > Date.now() + 120_000) current = onDisk;
    else if (!force && onDisk.expires_at_ms > Date.now() + 120_000) current = onDisk;
    else {
      const next = await refreshAnthropic(onDisk.refresh_token, env);
      updateAnthropicOAuthFile(home, onDisk.refresh_token, next);
      current = next;
    }
    return { key: current.access_token, expiresAt: current.expires_at_ms };
  };
  return cred;
}

function copilotCredential(token: string, base: Omit<PoolCredential, 'key' | 'refresh'>, env: NodeJS.ProcessEnv): PoolCredential {
  const cred: PoolCredential = { ...base, key: token, expiresAt: 0 };
  cred.refresh = async () => {
    const t = await exchangeCopilotToken(token, env).catch(() => null);
    // Refused: the GitHub token itself is sent (as Hermes does); try the exchange again in 10 minutes.
    if (!t) return { key: token, expiresAt: Date.now() + 10 * 60 * 1000 };
    return { key: t.token, expiresAt: t.expiresAt, ...(t.apiBase && !s(env.COPILOT_API_BASE_URL) ? { baseUrl: t.apiBase } : {}) };
  };
  return cred;
}

/** Everything auth.json (and the sign-in files beside it) adds to runtime resolution. */
export function authResolveInputs(home: string, env: NodeJS.ProcessEnv): AuthResolveInputs {
  const store = new AuthStore(home);
  const owners = new Map<string, string>();
  const hooks: PoolHooks = {
    onStatus(cred: PoolCredential, status: CredentialStatus) {
      const provider = owners.get(cred.id);
      if (!provider) return;
      store.update((data) => void setPoolStatus(data, provider, cred.id, status)).catch(() => undefined);
    },
  };
  const out: AuthResolveInputs = { pools: {}, suppressedSources: {}, activeProvider: null, poolHooks: hooks };
  let data: AuthData;
  try {
    data = store.read();
  } catch (e) {
    out.problem = (e as Error).message;
    data = {};
  }
  out.suppressedSources = suppressedOf(data);
  out.activeProvider = typeof data.active_provider === 'string' ? data.active_provider : null;
  const add = (provider: string, cred: PoolCredential | null) => {
    if (!cred) return;
    (out.pools[provider] ??= []).push(cred);
  };

  for (const provider of poolProviders(data)) {
    const singleton = providerState(data, provider);
    for (const e of poolEntries(data, provider)) {
      const source = s(e.source);
      // Mirrors of a sign-in are read from `providers.<id>` below (that is where refreshes land).
      if (SINGLETON_SOURCES.has(source) && singleton && (provider === 'nous' || provider === 'openai-codex')) continue;
      // An env-seeded entry (Python writes them) stands for the variable: its current value, if set.
      if (source.startsWith('env:')) {
        const v = s(env[source.slice(4)]);
        if (!v) continue;
        e.access_token = v;
      }
      if (provider === 'copilot') {
        const base = entryCredential(provider, e);
        if (base) {
          owners.set(base.id, provider);
          add(provider, copilotCredential(base.key, base, env));
        }
        continue;
      }
      const cred = entryCredential(provider, e);
      if (!cred) continue;
      owners.set(cred.id, provider);
      const refresh = entryRefresh(store, provider, cred.id, env);
      if (refresh) cred.refresh = refresh;
      add(provider, cred);
    }
  }

  // OAuth sign-ins kept as provider state.
  const nous = providerState(data, 'nous');
  const nk = nous ? nousKey(nous) : { key: '' };
  if (nous && nk.key) {
    const entryId = s(poolArray(data, 'nous').find((e) => e.source === 'device_code')?.id);
    const cred: PoolCredential = {
      id: entryId || 'nous:device_code',
      label: s(nous.label) || labelFromToken(s(nous.access_token), 'nous-oauth'),
      source: 'device_code',
      authType: 'oauth',
      key: nk.key,
      priority: -1,
      expiresAt: nk.renewAt,
      baseUrl: nousInferenceUrl(nous, env),
    };
    if (entryId) {
      owners.set(entryId, 'nous');
      cred.status = entryStatus(poolArray(data, 'nous').find((e) => e.id === entryId)!);
    }
    cred.refresh = (force) => refreshSingleton(store, 'nous', force, env, cred.key);
    out.pools.nous = [cred, ...(out.pools.nous ?? [])];
  }
  const codex = providerState(data, 'openai-codex');
  const codexTokens = codex && isObject(codex.tokens) ? (codex.tokens as JsonObject) : null;
  if (codexTokens && s(codexTokens.access_token)) {
    const key = s(codexTokens.access_token);
    const cred: PoolCredential = {
      id: 'openai-codex:device_code',
      label: labelFromToken(key, 'openai-codex-oauth'),
      source: 'device_code',
      authType: 'oauth',
      key,
      priority: -1,
      expiresAt: jwtExpiryMs(key),
    };
    cred.refresh = (force) => refreshSingleton(store, 'openai-codex', force, env, cred.key);
    out.pools['openai-codex'] = [cred, ...(out.pools['openai-codex'] ?? [])];
  }
  const claudeFile = anthropicFileCredential(home, env, out.pools.anthropic ?? []);
  if (claudeFile) out.pools.anthropic = [...(out.pools.anthropic ?? []), claudeFile];
  const qwen = readQwenCreds(env);
  if (qwen) {
    let current = qwen;
    const cred: PoolCredential = { id: 'qwen-oauth:qwen_cli', label: 'qwen-cli', source: 'qwen_cli', authType: 'oauth', key: qwen.access_token, priority: -1, expiresAt: qwen.expiry_date || undefined };
    cred.refresh = async () => {
      const onDisk = readQwenCreds(env) ?? current;
      current = onDisk.access_token !== cred.key && onDisk.expiry_date > Date.now() + 120_000 ? onDisk : await refreshQwen(onDisk, env);
      return { key: current.access_token, expiresAt: current.expiry_date };
    };
    out.pools['qwen-oauth'] = [cred, ...(out.pools['qwen-oauth'] ?? [])];
  }
  // GitHub tokens in the environment, exchanged for Copilot API tokens.
  const suppressedCopilot = new Set(out.suppressedSources.copilot ?? []);
  for (const name of COPILOT_ENVS) {
    const v = s(env[name]);
    if (!v || suppressedCopilot.has(`env:${name}`)) continue;
    if (!(out.pools.copilot ?? []).some((c) => c.source === `env:${name}`))
      add('copilot', copilotCredential(v, { id: `env:${name}`, label: name, source: `env:${name}`, authType: 'api_key', priority: 1000 }, env));
    break;
  }
  return out;
}
