// GitHub Copilot sign-in, as Hermes does it (hermes_cli/copilot_auth.py): GitHub's device flow with
// VS Code's Copilot app id, saved as COPILOT_GITHUB_TOKEN in HERMES_HOME/.env (where `hermes model`
// saves it). At run time the GitHub token is exchanged for a short-lived Copilot API token
// (`/copilot_internal/v2/token`, re-exchanged before it expires); when the exchange is refused the
// GitHub token is sent as it is, as Hermes does.
// Hosts: COPILOT_GH_HOST (Hermes: the GitHub host, https); HERMES_COPILOT_GITHUB_URL and
// HERMES_COPILOT_TOKEN_URL move the device flow and the exchange anywhere (tests, proxies).
import pkg from '../../../package.json' with { type: 'json' };
import { envUrl, OAuthError, pollDeviceToken, post, request, s, type LoginIo, printDeviceInstructions } from './common.ts';

export const COPILOT_OAUTH_CLIENT_ID = 'Iv1.b507a08c87ecfe98';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const EDITOR_VERSION = 'vscode/1.104.1';
// Our own name, never another client's (the exchange needs an Editor-Version header; the
// User-Agent is free, and we do not pose as the Copilot Chat extension).
const EXCHANGE_USER_AGENT = `hermes-agent-ts/${pkg.version}`;

function githubBase(env: NodeJS.ProcessEnv): string {
  const override = envUrl(env, 'HERMES_COPILOT_GITHUB_URL');
  if (override) return override;
  const host = s(env.COPILOT_GH_HOST).replace(/^https?:\/\//, '').replace(/\/+$/, '') || 'github.com';
  return `https://${host}`;
}

function exchangeUrl(env: NodeJS.ProcessEnv): string {
  return envUrl(env, 'HERMES_COPILOT_TOKEN_URL') || 'https://api.github.com/copilot_internal/v2/token';
}

/** Classic PATs (ghp_) are refused by the Copilot API: say so instead of failing later. */
export function copilotTokenProblem(token: string): string | null {
  if (!token.trim()) return 'The token is empty.';
  if (token.trim().startsWith('ghp_'))
    return 'Classic personal access tokens (ghp_…) are not accepted by the Copilot API. Sign in with `hermes auth add copilot --type oauth`, or use a fine-grained token (github_pat_…) with the Copilot Requests permission.';
  return null;
}

/** GitHub device flow; returns the GitHub OAuth token. */
export async function copilotDeviceLogin(io: LoginIo): Promise<string> {
  const base = githubBase(io.env);
  const headers = { 'User-Agent': 'HermesAgent/1.0' };
  const d = await post(`${base}/login/device/code`, { client_id: COPILOT_OAUTH_CLIENT_ID, scope: 'read:user' }, { headers, what: 'Requesting a GitHub device code' });
  const deviceCode = s(d.json?.device_code);
  const userCode = s(d.json?.user_code);
  if (d.status !== 200 || !deviceCode || !userCode) throw new OAuthError(`GitHub did not issue a device code (HTTP ${d.status}). Try again in a moment.`, 'device_code_request_failed');
  printDeviceInstructions(io, s(d.json?.verification_uri) || `${base}/login/device`, userCode);
  io.print('Waiting for authorization…');
  const tokens = await pollDeviceToken(
    () => post(`${base}/login/oauth/access_token`, { client_id: COPILOT_OAUTH_CLIENT_ID, device_code: deviceCode, grant_type: DEVICE_GRANT }, { headers, what: 'Polling GitHub' }),
    // GitHub answers slow_down to clients at its exact interval: keep a second of margin.
    { intervalS: Math.max(1, Number(d.json?.interval) || 5) + 1, expiresInS: Number(d.json?.expires_in) || 900, io, provider: 'GitHub Copilot' },
  );
  return s(tokens.access_token);
}

export interface CopilotApiToken {
  token: string;
  /** ms epoch */
  expiresAt: number;
  /** The API host this token is for (`endpoints.api`), when GitHub names one. */
  apiBase?: string;
}

/** Exchanges a GitHub token for a Copilot API token; null when GitHub refuses (the raw token is used then). */
export async function exchangeCopilotToken(githubToken: string, env: NodeJS.ProcessEnv): Promise<CopilotApiToken | null> {
  const r = await request(
    exchangeUrl(env),
    { method: 'GET', headers: { Authorization: `token ${githubToken}`, Accept: 'application/json', 'Editor-Version': EDITOR_VERSION, 'User-Agent': EXCHANGE_USER_AGENT } },
    { what: 'Exchanging the GitHub token for a Copilot token', timeoutMs: 15_000 },
  );
  const token = s(r.json?.token);
  if (r.status !== 200 || !token) return null;
  const exp = Number(r.json?.expires_at);
  const endpoints = r.json?.endpoints as Record<string, unknown> | undefined;
  const api = s(endpoints?.api).replace(/\/+$/, '');
  return { token, expiresAt: Number.isFinite(exp) && exp > 0 ? exp * 1000 : Date.now() + 25 * 60 * 1000, ...(/^https?:\/\//.test(api) ? { apiBase: api } : {}) };
}
