// Nous Portal sign-in, as Hermes does it (hermes_cli/auth_nous.py): the device-code grant at
// `<portal>/api/oauth/device/code` and `<portal>/api/oauth/token`, client `hermes-cli`, scope
// `inference:invoke`. The access token is the inference JWT (kept as `agent_key` too, Hermes's field
// for the runtime credential); `refresh_token` renews it two minutes before it expires.
//
// A grant with the older `inference:mint_agent_key` scope (no `inference:invoke`) is used the way
// Hermes did before the Portal moved to invoke JWTs: the access token mints a short-lived inference
// key at `<portal>/api/oauth/agent-key` (Bearer, {min_ttl_seconds: 1800}), kept in the `agent_key*`
// fields and minted again once less than 30 minutes of it remain (a 401 on the mint refreshes first).
//
// State lives in auth.json `providers.nous` with Hermes's fields. The portal comes from `--portal-url`,
// HERMES_PORTAL_BASE_URL / NOUS_PORTAL_BASE_URL, or the saved state; an inference URL the portal
// sends is only accepted on Nous's own hosts (or the one NOUS_INFERENCE_BASE_URL names), so a
// tampered reply cannot send the token elsewhere.
import { pythonUtcNow, type JsonObject } from '../store.ts';
import { envUrl, jwtClaims, jwtExpiryMs, OAuthError, pollDeviceToken, post, printDeviceInstructions, request, s, type LoginIo } from './common.ts';

export const DEFAULT_NOUS_PORTAL_URL = 'https://portal.nousresearch.com';
export const DEFAULT_NOUS_INFERENCE_URL = 'https://inference-api.nousresearch.com/v1';
export const DEFAULT_NOUS_CLIENT_ID = 'hermes-cli';
export const DEFAULT_NOUS_SCOPE = 'inference:invoke';
export const NOUS_MINT_SCOPE = 'inference:mint_agent_key';
/** A minted key is replaced once less than this remains (Hermes's min_key_ttl_seconds). */
export const NOUS_AGENT_KEY_MIN_TTL_S = 1800;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const INFERENCE_HOSTS = new Set(['inference-api.nousresearch.com', 'welcome-api.nousresearch.com']);
const PORTAL_HOSTS = new Set(['portal.nousresearch.com']);

export interface NousLoginOptions {
  portalUrl?: string;
  inferenceUrl?: string;
  clientId?: string;
  scope?: string;
  label?: string;
}

/** The portal to talk to: flag, env override, the saved (allow-listed) portal, else Nous's. */
export function nousPortalUrl(env: NodeJS.ProcessEnv, state?: JsonObject, flag?: string): string {
  const explicit = s(flag).replace(/\/+$/, '') || envUrl(env, 'HERMES_PORTAL_BASE_URL', 'NOUS_PORTAL_BASE_URL');
  if (explicit) return explicit;
  const saved = s(state?.portal_base_url).replace(/\/+$/, '');
  try {
    if (saved && new URL(saved).protocol === 'https:' && PORTAL_HOSTS.has(new URL(saved).hostname)) return saved;
  } catch {
    /* not a URL */
  }
  return DEFAULT_NOUS_PORTAL_URL;
}

/** An inference URL the portal sent, if it may receive the token (https on Nous's hosts, or the operator's override). */
function acceptedInferenceUrl(url: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const raw = s(url).replace(/\/+$/, '');
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    const override = envUrl(env, 'NOUS_INFERENCE_BASE_URL');
    if (override && new URL(override).host === u.host) return raw;
    if (u.protocol === 'https:' && INFERENCE_HOSTS.has(u.hostname)) return raw;
  } catch {
    /* not a URL */
  }
  return undefined;
}

/** The endpoint a Nous grant is used with: NOUS_INFERENCE_BASE_URL, else the one saved with it. */
export function nousInferenceUrl(state: JsonObject, env: NodeJS.ProcessEnv): string {
  return envUrl(env, 'NOUS_INFERENCE_BASE_URL') || acceptedInferenceUrl(state.inference_base_url, env) || DEFAULT_NOUS_INFERENCE_URL;
}

/** ms epoch when the state's access token expires. */
export function nousExpiresAt(state: JsonObject): number | undefined {
  return jwtExpiryMs(state.access_token) ?? (s(state.expires_at) ? Date.parse(s(state.expires_at)) || undefined : undefined);
}

function scopesOf(state: JsonObject): Set<string> {
  const out = new Set<string>();
  const c = jwtClaims(state.access_token);
  for (const v of [state.scope, c.scope, c.scp]) {
    const items = typeof v === 'string' ? v.replace(/,/g, ' ').split(/\s+/) : Array.isArray(v) ? v : [];
    for (const x of items) if (typeof x === 'string' && x) out.add(x);
  }
  return out;
}

/** The grant mints inference keys (older Portal scope) instead of being one (invoke JWT). */
export function nousMintsKeys(state: JsonObject): boolean {
  const sc = scopesOf(state);
  return sc.has(NOUS_MINT_SCOPE) && !sc.has(DEFAULT_NOUS_SCOPE);
}

/** The inference key and when it must be renewed (for a minted key: when its minimum TTL is reached). */
export function nousKey(state: JsonObject): { key: string; renewAt?: number } {
  if (nousMintsKeys(state)) {
    const exp = Date.parse(s(state.agent_key_expires_at));
    return { key: s(state.agent_key), renewAt: Number.isFinite(exp) ? exp - NOUS_AGENT_KEY_MIN_TTL_S * 1000 : 0 };
  }
  return { key: s(state.agent_key) || s(state.access_token), renewAt: nousExpiresAt(state) };
}

/** Mints (or has the Portal reuse) an inference key with the access token. */
export async function mintNousAgentKey(state: JsonObject, env: NodeJS.ProcessEnv): Promise<JsonObject> {
  const access = s(state.access_token);
  if (!access) throw new OAuthError('The Nous Portal sign-in has no access token. Sign in again with `hermes auth add nous`.', 'not_authenticated', true);
  const portal = nousPortalUrl(env, state);
  const r = await request(
    `${portal}/api/oauth/agent-key`,
    { method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${access}` }, body: JSON.stringify({ min_ttl_seconds: NOUS_AGENT_KEY_MIN_TTL_S }) },
    { what: 'Minting a Nous inference key' },
  );
  const key = s(r.json?.api_key);
  if (r.status !== 200 || !key) {
    const code = s(r.json?.error) || (r.status === 401 ? 'invalid_token' : 'server_error');
    const detail = s(r.json?.error_description) || code;
    const hint = /subscription/i.test(detail) ? ` Check your subscription at ${portal}.` : '';
    throw new OAuthError(`Nous Portal did not mint an inference key (${detail}).${hint}`, code, code === 'invalid_grant');
  }
  const now = Date.now();
  const ttl = Number(r.json?.expires_in);
  const expMs = Date.parse(s(r.json?.expires_at)) || (Number.isFinite(ttl) && ttl > 0 ? now + ttl * 1000 : now + 3600_000);
  const inference = acceptedInferenceUrl(r.json?.inference_base_url, env);
  return {
    ...state,
    ...(inference ? { inference_base_url: inference } : {}),
    agent_key: key,
    agent_key_id: s(r.json?.key_id) || null,
    agent_key_expires_at: pythonUtcNow(expMs),
    agent_key_expires_in: Math.max(0, Math.floor((expMs - now) / 1000)),
    agent_key_reused: r.json?.reused === true,
    agent_key_obtained_at: pythonUtcNow(now),
  };
}

/**
 * Makes the state's inference key usable again: a minted key is minted anew (the access token is
 * refreshed first when it is expiring, or when the Portal refuses it); an invoke JWT is refreshed.
 */
export async function renewNous(state: JsonObject, env: NodeJS.ProcessEnv): Promise<JsonObject> {
  if (!nousMintsKeys(state)) return refreshNous(state, env);
  const exp = nousExpiresAt(state);
  if (!s(state.access_token) || (exp && exp <= Date.now() + 120_000)) return refreshNous(state, env);
  try {
    return await mintNousAgentKey(state, env);
  } catch (e) {
    if (e instanceof OAuthError && e.code === 'invalid_token') return refreshNous(state, env);
    throw e;
  }
}

/** Merges a token reply into a `providers.nous` state with Hermes's fields. */
function applyTokens(state: JsonObject, reply: Record<string, unknown>, env: NodeJS.ProcessEnv): JsonObject {
  const now = Date.now();
  const access = s(reply.access_token);
  const expiresIn = Number(reply.expires_in);
  const ttl = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined;
  const expMs = jwtExpiryMs(access) ?? (ttl ? now + ttl * 1000 : undefined);
  const expiresAt = expMs ? pythonUtcNow(expMs) : null;
  const remaining = expMs ? Math.max(0, Math.floor((expMs - now) / 1000)) : ttl ?? null;
  const inference = acceptedInferenceUrl(reply.inference_base_url, env) ?? acceptedInferenceUrl(state.inference_base_url, env) ?? DEFAULT_NOUS_INFERENCE_URL;
  const next: JsonObject = {
    ...state,
    access_token: access,
    refresh_token: s(reply.refresh_token) || s(state.refresh_token) || null,
    token_type: s(reply.token_type) || s(state.token_type) || 'Bearer',
    scope: s(reply.scope) || s(state.scope) || DEFAULT_NOUS_SCOPE,
    inference_base_url: inference,
    obtained_at: pythonUtcNow(now),
    expires_in: remaining,
    expires_at: expiresAt,
  };
  // A minting grant keeps its minted key (renewed separately); an invoke JWT is its own key.
  if (nousMintsKeys(next)) return next;
  return {
    ...next,
    // Hermes keeps the runtime credential in `agent_key`: the inference JWT itself.
    agent_key: access,
    agent_key_id: null,
    agent_key_expires_at: expiresAt,
    agent_key_expires_in: remaining,
    agent_key_reused: false,
    agent_key_obtained_at: pythonUtcNow(now),
  };
}

/** Device-code sign-in; returns the `providers.nous` state to save. */
export async function nousDeviceLogin(o: NousLoginOptions, io: LoginIo): Promise<JsonObject> {
  const portal = nousPortalUrl(io.env, undefined, o.portalUrl);
  const clientId = s(o.clientId) || DEFAULT_NOUS_CLIENT_ID;
  const scope = s(o.scope) || DEFAULT_NOUS_SCOPE;
  const dev = await post(`${portal}/api/oauth/device/code`, { client_id: clientId, scope }, { what: 'Requesting a Nous Portal device code' });
  const d = dev.json ?? {};
  if (dev.status !== 200 || !s(d.device_code) || !s(d.user_code)) {
    throw new OAuthError(`Nous Portal did not issue a device code (HTTP ${dev.status}${s(d.error) ? `: ${s(d.error)}` : ''}). Check --portal-url and try again.`, 'device_code_request_failed');
  }
  printDeviceInstructions(io, s(d.verification_uri_complete) || s(d.verification_uri), s(d.user_code));
  io.print('Waiting for approval…');
  const tokens = await pollDeviceToken(
    () => post(`${portal}/api/oauth/token`, { grant_type: DEVICE_GRANT, client_id: clientId, device_code: s(d.device_code) }, { what: 'Polling Nous Portal' }),
    // Hermes polls at most every second.
    { intervalS: Math.min(1, Number(d.interval) || 1), expiresInS: Number(d.expires_in) || 900, io, provider: 'Nous Portal' },
  );
  const base: JsonObject = {
    client_id: clientId,
    portal_base_url: portal,
    inference_base_url: s(o.inferenceUrl) || null,
    tls: { insecure: false, ca_bundle: null },
  };
  if (o.label) base.label = o.label;
  const state = applyTokens(base, tokens, io.env);
  return nousMintsKeys(state) ? mintNousAgentKey(state, io.env) : state;
}

/** Renews a `providers.nous` state with its refresh token. */
export async function refreshNous(state: JsonObject, env: NodeJS.ProcessEnv): Promise<JsonObject> {
  const refresh = s(state.refresh_token);
  if (!refresh) throw new OAuthError('The Nous Portal sign-in has no refresh token. Sign in again with `hermes auth add nous`.', 'nous_auth_missing_refresh_token', true);
  const portal = nousPortalUrl(env, state);
  const r = await post(`${portal}/api/oauth/token`, { grant_type: 'refresh_token', client_id: s(state.client_id) || DEFAULT_NOUS_CLIENT_ID, refresh_token: refresh }, { what: 'Refreshing the Nous Portal token' });
  if (r.status !== 200 || !s(r.json?.access_token)) {
    const code = s(r.json?.error) || `http_${r.status}`;
    const relogin = ['invalid_grant', 'invalid_token', 'unauthorized_client', 'refresh_token_reused'].includes(code) || r.status === 401;
    throw new OAuthError(`Refreshing the Nous Portal token failed (${code}).${relogin ? ' Sign in again with `hermes auth add nous`.' : ''}`, code, relogin);
  }
  const next = applyTokens(state, r.json!, env);
  return nousMintsKeys(next) ? mintNousAgentKey(next, env) : next;
}
