// Qwen OAuth. Hermes (hermes_cli/auth_qwen.py) uses the Qwen Code CLI's sign-in, ~/.qwen/oauth_creds.json
// (`{access_token, refresh_token, token_type, resource_url, expiry_date}`, expiry in ms), and refreshes
// it at chat.qwen.ai. This project reads and refreshes the same file and, when there is none, signs in
// itself with the device flow the Qwen CLI uses (PKCE-bound: `/api/v1/oauth2/device/code` and
// `/api/v1/oauth2/token`, client f0304373b74a44d2b584a3fb70ca9e56), writing that file (0600), so the
// Qwen CLI and Python Hermes share the session. HERMES_QWEN_OAUTH_URL moves chat.qwen.ai (tests);
// HERMES_QWEN_BASE_URL the inference endpoint (Hermes's variable).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../state/fsutil.ts';
import { envUrl, OAuthError, pkcePair, pollDeviceToken, post, printDeviceInstructions, s, type LoginIo } from './common.ts';

export const QWEN_OAUTH_CLIENT_ID = 'f0304373b74a44d2b584a3fb70ca9e56';
const QWEN_SCOPE = 'openid profile email model.completion';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEFAULT_QWEN_BASE_URL = 'https://portal.qwen.ai/v1';

const qwenOauthBase = (env: NodeJS.ProcessEnv) => envUrl(env, 'HERMES_QWEN_OAUTH_URL') || 'https://chat.qwen.ai';

export interface QwenCreds {
  access_token: string;
  refresh_token: string;
  token_type: string;
  resource_url: string;
  /** ms epoch */
  expiry_date: number;
}

export function qwenCredsPath(env: NodeJS.ProcessEnv): string {
  return join(s(env.HOME) || homedir(), '.qwen', 'oauth_creds.json');
}

export function readQwenCreds(env: NodeJS.ProcessEnv): QwenCreds | null {
  const p = qwenCredsPath(env);
  if (!existsSync(p)) return null;
  try {
    const v = JSON.parse(readFileSync(p, 'utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>;
    if (!s(v.access_token)) return null;
    return {
      access_token: s(v.access_token),
      refresh_token: s(v.refresh_token),
      token_type: s(v.token_type) || 'Bearer',
      resource_url: s(v.resource_url) || 'portal.qwen.ai',
      expiry_date: Number(v.expiry_date) || 0,
    };
  } catch {
    return null;
  }
}

function saveQwenCreds(env: NodeJS.ProcessEnv, c: QwenCreds): void {
  const p = qwenCredsPath(env);
  mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
  // Sorted keys, as Hermes writes this file.
  const sorted = Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileAtomic(p, JSON.stringify(sorted, null, 2), 0o600);
}

function credsFrom(reply: Record<string, unknown>, prev?: QwenCreds): QwenCreds {
  const ttl = Number(reply.expires_in);
  return {
    access_token: s(reply.access_token),
    refresh_token: s(reply.refresh_token) || prev?.refresh_token || '',
    token_type: s(reply.token_type) || prev?.token_type || 'Bearer',
    resource_url: s(reply.resource_url) || prev?.resource_url || 'portal.qwen.ai',
    expiry_date: Date.now() + (Number.isFinite(ttl) && ttl > 0 ? ttl : 6 * 3600) * 1000,
  };
}

/** Device-code sign-in (PKCE); saves and returns the credentials. */
export async function qwenDeviceLogin(io: LoginIo): Promise<QwenCreds> {
  const base = qwenOauthBase(io.env);
  const { verifier, challenge } = pkcePair();
  const d = await post(
    `${base}/api/v1/oauth2/device/code`,
    { client_id: QWEN_OAUTH_CLIENT_ID, scope: QWEN_SCOPE, code_challenge: challenge, code_challenge_method: 'S256' },
    { what: 'Requesting a Qwen device code' },
  );
  const deviceCode = s(d.json?.device_code);
  if (d.status !== 200 || !deviceCode || !s(d.json?.user_code)) throw new OAuthError(`Qwen did not issue a device code (HTTP ${d.status}). Try again in a moment.`, 'device_code_request_failed');
  printDeviceInstructions(io, s(d.json?.verification_uri_complete) || s(d.json?.verification_uri), s(d.json?.user_code));
  io.print('Waiting for approval…');
  const reply = await pollDeviceToken(
    () => post(`${base}/api/v1/oauth2/token`, { grant_type: DEVICE_GRANT, client_id: QWEN_OAUTH_CLIENT_ID, device_code: deviceCode, code_verifier: verifier }, { what: 'Polling Qwen' }),
    { intervalS: Math.max(1, Number(d.json?.interval) || 2), expiresInS: Number(d.json?.expires_in) || 900, io, provider: 'Qwen' },
  );
  const creds = credsFrom(reply);
  saveQwenCreds(io.env, creds);
  return creds;
}

/** Renews the Qwen credentials with the refresh token and saves them. */
export async function refreshQwen(c: QwenCreds, env: NodeJS.ProcessEnv): Promise<QwenCreds> {
  if (!c.refresh_token) throw new OAuthError("The Qwen sign-in has no refresh token. Sign in again with `hermes auth add qwen-oauth` (or 'qwen auth qwen-oauth').", 'qwen_refresh_token_missing', true);
  const r = await post(`${qwenOauthBase(env)}/api/v1/oauth2/token`, { grant_type: 'refresh_token', refresh_token: c.refresh_token, client_id: QWEN_OAUTH_CLIENT_ID }, { what: 'Refreshing the Qwen token' });
  if (r.status >= 400 || !s(r.json?.access_token)) throw new OAuthError(`Refreshing the Qwen token failed (HTTP ${r.status}). Sign in again with \`hermes auth add qwen-oauth\`.`, 'qwen_refresh_failed', r.status === 400 || r.status === 401);
  const next = credsFrom(r.json!, c);
  saveQwenCreds(env, next);
  return next;
}
