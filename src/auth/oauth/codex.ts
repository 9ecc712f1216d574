// OpenAI Codex (ChatGPT plan) sign-in, as Hermes does it (hermes_cli/auth_codex.py): its own session,
// separate from the Codex CLI's, so a refresh in one never invalidates the other.
//   1. POST <issuer>/api/accounts/deviceauth/usercode {client_id}          → user_code, device_auth_id
//   2. the person opens <issuer>/codex/device and enters the code
//   3. POST <issuer>/api/accounts/deviceauth/token (403/404 until approved) → authorization_code, code_verifier
//   4. POST <issuer>/oauth/token (authorization_code grant, PKCE)          → access_token, refresh_token
// Tokens live in auth.json `providers.openai-codex` as `{tokens: {access_token, refresh_token},
// last_refresh, auth_mode: "chatgpt"}` and are refreshed two minutes before the JWT expires.
// HERMES_CODEX_AUTH_URL moves the issuer (tests, proxies); HERMES_CODEX_BASE_URL the inference endpoint.
import { pythonUtcNowZ, type JsonObject } from '../store.ts';
import { defaultSleep, envUrl, OAuthError, post, s, type LoginIo, maybeOpenBrowser } from './common.ts';

export const CODEX_OAUTH_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const DEFAULT_CODEX_ISSUER = 'https://auth.openai.com';
export const DEFAULT_CODEX_BASE_URL = 'https://chatgpt.com/backend-api/codex';

export const codexIssuer = (env: NodeJS.ProcessEnv) => envUrl(env, 'HERMES_CODEX_AUTH_URL') || DEFAULT_CODEX_ISSUER;

export interface CodexTokens {
  access_token: string;
  refresh_token: string;
}

/** Device-code sign-in; returns the tokens to save. */
export async function codexDeviceLogin(io: LoginIo): Promise<CodexTokens> {
  const issuer = codexIssuer(io.env);
  const r = await post(`${issuer}/api/accounts/deviceauth/usercode`, { client_id: CODEX_OAUTH_CLIENT_ID }, { json: true, what: 'Requesting an OpenAI device code' });
  const userCode = s(r.json?.user_code);
  const deviceAuthId = s(r.json?.device_auth_id);
  if (r.status !== 200 || !userCode || !deviceAuthId) throw new OAuthError(`OpenAI did not issue a device code (HTTP ${r.status}). Try again in a moment.`, 'device_code_request_error');
  const interval = Math.max(1, Number(r.json?.interval) || 5);
  const url = `${issuer}/codex/device`;
  io.print('To continue, follow these steps:');
  io.print('');
  io.print('  1. Open this URL in your browser:');
  io.print(`     ${url}`);
  io.print('');
  io.print('  2. Enter this code:');
  io.print(`     ${userCode}`);
  io.print('');
  if (maybeOpenBrowser(url, io)) io.print('  (Opened browser for verification)');
  io.print('Waiting for sign-in... (press Ctrl+C to cancel)');

  const sleep = io.sleep ?? defaultSleep;
  const deadline = performance.now() + Math.min(io.timeoutMs ?? Number.POSITIVE_INFINITY, 15 * 60 * 1000);
  let code: Record<string, unknown> | null = null;
  while (performance.now() < deadline) {
    await sleep(interval * 1000);
    const p = await post(`${issuer}/api/accounts/deviceauth/token`, { device_auth_id: deviceAuthId, user_code: userCode }, { json: true, what: 'Polling OpenAI' });
    if (p.status === 200) {
      code = p.json ?? {};
      break;
    }
    if (p.status === 403 || p.status === 404) continue; // not approved yet
    throw new OAuthError(`Polling OpenAI for the sign-in returned HTTP ${p.status}. Run the command again.`, 'device_code_poll_error');
  }
  if (!code) throw new OAuthError('Timed out waiting for the OpenAI sign-in to be approved. Run the command again for a new code.', 'device_code_timeout');
  const authorizationCode = s(code.authorization_code);
  const verifier = s(code.code_verifier);
  if (!authorizationCode || !verifier) throw new OAuthError('OpenAI approved the sign-in but sent no authorization code. Run the command again.', 'device_code_incomplete_exchange');
  const t = await post(
    `${issuer}/oauth/token`,
    { grant_type: 'authorization_code', code: authorizationCode, redirect_uri: `${issuer}/deviceauth/callback`, client_id: CODEX_OAUTH_CLIENT_ID, code_verifier: verifier },
    { what: 'Exchanging the OpenAI authorization code' },
  );
  const access = s(t.json?.access_token);
  if (t.status !== 200 || !access) throw new OAuthError(`OpenAI's token exchange failed (HTTP ${t.status}). Run the command again.`, 'token_exchange_error');
  return { access_token: access, refresh_token: s(t.json?.refresh_token) };
}

/** The `providers.openai-codex` state for a set of tokens. */
export function codexState(tokens: CodexTokens, prev?: JsonObject): JsonObject {
  return { ...(prev ?? {}), tokens: { ...(prev?.tokens && typeof prev.tokens === 'object' && !Array.isArray(prev.tokens) ? prev.tokens : {}), ...tokens }, last_refresh: pythonUtcNowZ(), auth_mode: 'chatgpt' };
}

/** Renews Codex tokens with the refresh token (a new refresh token replaces the old one when sent). */
export async function refreshCodex(tokens: CodexTokens, env: NodeJS.ProcessEnv): Promise<CodexTokens> {
  if (!tokens.refresh_token) throw new OAuthError('The Codex sign-in has no refresh token. Sign in again with `hermes auth add openai-codex`.', 'codex_auth_missing_refresh_token', true);
  const r = await post(`${codexIssuer(env)}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CODEX_OAUTH_CLIENT_ID }, { what: 'Refreshing the Codex token' });
  const access = s(r.json?.access_token);
  if (r.status !== 200 || !access) {
    const code = s(r.json?.error) || `http_${r.status}`;
    const relogin = ['invalid_grant', 'invalid_token', 'invalid_request'].includes(code);
    throw new OAuthError(`Refreshing the Codex token failed (${code}).${relogin ? ' Sign in again with `hermes auth add openai-codex`.' : ''}`, code, relogin);
  }
  return { access_token: access, refresh_token: s(r.json?.refresh_token) || tokens.refresh_token };
}
