// Claude Pro/Max sign-in, as Hermes does it (agent/anthropic_adapter.py run_hermes_oauth_login_pure):
// Claude Code's public PKCE client. The person opens the authorize link, approves, and the console's
// callback page shows `code#state`, which they paste back (with a browser on this machine, the
// approval also comes straight back to a loopback callback, as Claude Code's own sign-in does). The
// code is exchanged (JSON body) for an `sk-ant-oat…` access token and a single-use refresh token.
//
// Opt-in only, behind ANTHROPIC_OAUTH_WARNING: Anthropic's terms reserve these tokens for Claude Code
// and claude.ai, and enforce it. Hermes never pretends to be another client: the token endpoint gets
// Hermes's own user agent (TOKEN_USER_AGENT), and requests carry no `claude-code-…` beta flag and no
// Claude Code identity prompt (src/llm/anthropic.ts). If Anthropic refuses such a request, so be it.
//
// Where it lives is Hermes's too: a `credential_pool.anthropic` entry (auth_type oauth, source
// `manual:hermes_pkce`, access_token, refresh_token, expires_at_ms). Python Hermes also keeps a
// singleton `HERMES_HOME/.anthropic_oauth.json` ({accessToken, refreshToken, expiresAt}); it is read
// as a credential when present and kept current when its grant is refreshed.
// HERMES_ANTHROPIC_OAUTH_URL moves both endpoints (tests, proxies): <url>/oauth/authorize, <url>/v1/oauth/token.
import { randomBytes } from 'node:crypto';
import pkg from '../../../package.json' with { type: 'json' };
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../state/fsutil.ts';
import { envUrl, maybeOpenBrowser, OAuthError, pkcePair, post, s, type HttpReply, type LoginIo } from './common.ts';

export const ANTHROPIC_OAUTH_CLIENT_ID = '9d1c250a-e61b-44d9-88ed-5944d1962f5e';
export const ANTHROPIC_AUTHORIZE_URL = 'https://claude.ai/oauth/authorize';
/** Anthropic moved the token endpoint to platform.claude.com; the console host is the fallback. */
export const ANTHROPIC_TOKEN_URLS = ['https://platform.claude.com/v1/oauth/token', 'https://console.anthropic.com/v1/oauth/token'];
export const ANTHROPIC_REDIRECT_URI = 'https://console.anthropic.com/oauth/code/callback';
export const ANTHROPIC_SCOPES = 'org:create_api_key user:profile user:inference';
export const ANTHROPIC_API_BASE_URL = 'https://api.anthropic.com';
/** Who is asking, honestly: Hermes, never another client's user agent. */
export const TOKEN_USER_AGENT = `hermes-agent-ts/${pkg.version} (+https://github.com/NousResearch/hermes-agent)`;

/**
 * What a person reads before signing in with a Claude subscription (`hermes auth add anthropic
 * --type oauth`), in `hermes auth status`, and in docs/security.md. The quote is from the
 * "Authentication and credential use" section of Claude Code's Legal and compliance page, which
 * applies Anthropic's Consumer Terms of Service to Free, Pro and Max plans.
 */
export const ANTHROPIC_OAUTH_WARNING = [
  'Warning: signing in with a Claude Pro/Max subscription breaks Anthropic\'s terms for any tool but Claude Code and claude.ai.',
  '  Anthropic: "OAuth authentication (used with Free, Pro, and Max plans) is intended exclusively for Claude Code and',
  '  Claude.ai. Using OAuth tokens obtained through Claude Free, Pro, or Max accounts in any other product, tool, or',
  '  service ... is not permitted and constitutes a violation of the Consumer Terms of Service." Anthropic enforces this',
  '  (requests refused, accounts restricted) and may do so without notice; opencode removed its Claude sign-in after a',
  '  legal request from Anthropic (March 2026). Hermes does not disguise itself as Claude Code, so Anthropic may also',
  '  simply refuse the token here.',
  '  Recommended instead: an API key from https://console.anthropic.com (`hermes auth add anthropic --api-key <key>`,',
  '  or ANTHROPIC_API_KEY in ~/.hermes/.env). More in docs/security.md.',
];

/** The one line `hermes auth status` and the setup wizard show next to a Claude subscription credential. */
export const ANTHROPIC_OAUTH_STATUS_WARNING = 'warning: this is a Claude Pro/Max sign-in; Anthropic\'s consumer terms allow those tokens only in Claude Code and claude.ai, and your account may be restricted. Use an API key instead (docs/security.md).';
export const HERMES_PKCE_SOURCE = 'hermes_pkce';
export const ANTHROPIC_OAUTH_FILE = '.anthropic_oauth.json';

export interface AnthropicTokens {
  access_token: string;
  refresh_token: string;
  expires_at_ms: number;
}

function endpoints(env: NodeJS.ProcessEnv): { authorize: string; tokens: string[] } {
  const base = envUrl(env, 'HERMES_ANTHROPIC_OAUTH_URL');
  return base ? { authorize: `${base}/oauth/authorize`, tokens: [`${base}/v1/oauth/token`] } : { authorize: ANTHROPIC_AUTHORIZE_URL, tokens: ANTHROPIC_TOKEN_URLS };
}

/** POSTs to the first token endpoint that answers (a 404 from a retired host moves on to the next). */
async function tokenRequest(env: NodeJS.ProcessEnv, body: Record<string, string>, what: string): Promise<HttpReply> {
  let last: HttpReply | OAuthError | null = null;
  for (const url of endpoints(env).tokens) {
    try {
      const r = await post(url, body, { json: true, headers: { 'User-Agent': TOKEN_USER_AGENT }, what });
      if (r.status !== 404) return r;
      last = r;
    } catch (e) {
      last = e as OAuthError;
    }
  }
  if (last instanceof Error) throw last;
  return last!;
}

function tokensFrom(r: HttpReply, prevRefresh = ''): AnthropicTokens | null {
  const access = s(r.json?.access_token);
  if (r.status !== 200 || !access) return null;
  const ttl = Number(r.json?.expires_in);
  return { access_token: access, refresh_token: s(r.json?.refresh_token) || prevRefresh, expires_at_ms: Date.now() + (Number.isFinite(ttl) && ttl > 0 ? ttl : 3600) * 1000 };
}

/** What the person pasted: `code#state`, or the whole callback URL (`…?code=…&state=…`). */
export function parsePastedCode(raw: string): { code: string; state: string } {
  const text = raw.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      const u = new URL(text);
      const code = u.searchParams.get('code') ?? '';
      const state = u.searchParams.get('state') ?? u.hash.replace(/^#/, '');
      if (code) return { code, state };
    } catch {
      /* not a URL after all */
    }
  }
  const [code = '', state = ''] = text.split('#');
  return { code: code.trim(), state: state.trim() };
}

/**
 * A loopback listener for the browser's redirect (`http://localhost:<port>/callback?code=…&state=…`):
 * resolves with the code once a request carries the expected state. Bound to 127.0.0.1 only.
 */
async function startCallback(state: string): Promise<{ redirectUri: string; code: Promise<string>; close: () => void }> {
  const http = await import('node:http');
  let resolve!: (code: string) => void;
  const code = new Promise<string>((r) => (resolve = r));
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://localhost');
    const ok = u.pathname === '/callback' && !!u.searchParams.get('code') && u.searchParams.get('state') === state;
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ok ? '<p>Hermes is signed in to Claude. You can close this tab.</p>' : '<p>This sign-in link is not the one Hermes is waiting for.</p>');
    if (ok) resolve(u.searchParams.get('code')!);
  });
  await new Promise<void>((r, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return { redirectUri: `http://localhost:${port}/callback`, code, close: () => server.close() };
}

function authorizeUrl(env: NodeJS.ProcessEnv, redirectUri: string, challenge: string, state: string, manual: boolean): string {
  const params = new URLSearchParams({
    ...(manual ? { code: 'true' } : {}),
    client_id: ANTHROPIC_OAUTH_CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: ANTHROPIC_SCOPES,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  });
  return `${endpoints(env).authorize}?${params}`;
}

/**
 * The PKCE sign-in. With a browser to open, the approval comes back by itself to a loopback
 * callback; the printed link (Anthropic's console callback page, which shows `code#state`) works
 * anywhere, and `io.readLine` takes the pasted code. Whichever arrives first is used.
 */
export async function anthropicLogin(io: LoginIo): Promise<AnthropicTokens> {
  if (!io.readLine) throw new OAuthError('Signing in to Claude needs the code from the browser pasted back; run this in a terminal.', 'no_input');
  const { verifier, challenge } = pkcePair();
  // The state is its own random value: reusing the verifier would leak it through the URL.
  const state = randomBytes(32).toString('base64url');
  const url = authorizeUrl(io.env, ANTHROPIC_REDIRECT_URI, challenge, state, true);
  io.print('');
  io.print('Authorize Hermes with your Claude Pro/Max subscription.');
  io.print('');
  io.print('  Open this link in your browser:');
  io.print(`  ${url}`);
  io.print('');
  const callback = io.openBrowser ? await startCallback(state).catch(() => null) : null;
  const opened = !!callback && maybeOpenBrowser(authorizeUrl(io.env, callback.redirectUri, challenge, state, false), io);
  if (!opened) callback?.close();
  io.print(opened ? 'Opened your browser: approve there and this continues by itself, or paste the code the link above shows.' : 'After authorizing you will see a code. Paste it below.');
  const ac = new AbortController();
  let got: { code: string; state: string; redirect: string };
  try {
    // With the browser open, an empty paste (or stdin at its end) just leaves the callback to come.
    type Got = { code: string } | { text: string };
    const viaBrowser: Promise<Got> | null = opened ? callback!.code.then((code) => ({ code })) : null;
    const pasted: Promise<Got> = io.readLine('Authorization code: ', ac.signal).then((text): Got | Promise<Got> => (viaBrowser && !text.trim() ? viaBrowser : { text }));
    const first: Got = viaBrowser ? await Promise.race([pasted, viaBrowser]) : await pasted;
    if ('code' in first) {
      io.print('');
      io.print('Approved in the browser.');
      got = { code: first.code, state, redirect: callback!.redirectUri };
    } else {
      if (!first.text.trim()) throw new OAuthError('No code entered; nothing was added. Run the command again to sign in.', 'no_code');
      const p = parsePastedCode(first.text);
      got = { ...p, redirect: ANTHROPIC_REDIRECT_URI };
    }
  } finally {
    ac.abort();
    callback?.close();
  }
  if (got.state !== state) throw new OAuthError('The pasted code belongs to another sign-in (state mismatch); nothing was added. Run the command again and paste the code it shows.', 'state_mismatch');
  const r = await tokenRequest(
    io.env,
    { grant_type: 'authorization_code', client_id: ANTHROPIC_OAUTH_CLIENT_ID, code: got.code, state: got.state, redirect_uri: got.redirect, code_verifier: verifier },
    'Exchanging the Claude authorization code',
  );
  const tokens = tokensFrom(r);
  if (!tokens) throw new OAuthError(`Claude's token exchange failed (${s(r.json?.error) || `HTTP ${r.status}`}). The code is single-use and expires quickly: run the command again.`, 'token_exchange_error');
  return tokens;
}

/** Renews a Claude grant; the refresh token is single-use, so the new one must be saved at once. */
export async function refreshAnthropic(refreshToken: string, env: NodeJS.ProcessEnv): Promise<AnthropicTokens> {
  if (!refreshToken) throw new OAuthError('The Claude sign-in has no refresh token. Sign in again with `hermes auth add anthropic --type oauth`.', 'anthropic_missing_refresh_token', true);
  const r = await tokenRequest(env, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: ANTHROPIC_OAUTH_CLIENT_ID }, 'Refreshing the Claude token');
  const tokens = tokensFrom(r, refreshToken);
  if (!tokens) {
    const code = s(r.json?.error) || `http_${r.status}`;
    const relogin = ['invalid_grant', 'invalid_token', 'invalid_request'].includes(code) || r.status === 401;
    throw new OAuthError(`Refreshing the Claude token failed (${code}).${relogin ? ' Sign in again with `hermes auth add anthropic --type oauth`.' : ''}`, code, relogin);
  }
  return tokens;
}

/** Python Hermes's singleton grant file, as tokens (null when absent or unreadable). */
export function readAnthropicOAuthFile(home: string): AnthropicTokens | null {
  const file = join(home, ANTHROPIC_OAUTH_FILE);
  if (!existsSync(file)) return null;
  try {
    const d = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (!s(d.accessToken)) return null;
    return { access_token: s(d.accessToken), refresh_token: s(d.refreshToken), expires_at_ms: Number(d.expiresAt) || 0 };
  } catch {
    return null;
  }
}

/** Rewrites the singleton file after its grant was refreshed (only when it held that grant). */
export function updateAnthropicOAuthFile(home: string, oldRefresh: string, next: AnthropicTokens): void {
  const cur = readAnthropicOAuthFile(home);
  if (!cur || (cur.refresh_token !== oldRefresh && cur.access_token !== next.access_token)) return;
  writeFileAtomic(join(home, ANTHROPIC_OAUTH_FILE), `${JSON.stringify({ accessToken: next.access_token, refreshToken: next.refresh_token, expiresAt: next.expires_at_ms }, null, 2)}\n`, 0o600);
}
