// Fake OAuth servers on loopback for the sign-ins Hermes does, speaking their real wire shapes:
//   Nous Portal   POST /api/oauth/device/code, POST /api/oauth/token (device_code + refresh_token grants),
//                 POST /api/oauth/agent-key (Bearer access token → a minted inference key)
//   OpenAI        POST /api/accounts/deviceauth/usercode, POST /api/accounts/deviceauth/token,
//                 POST /oauth/token (authorization_code with PKCE, refresh_token)
//   GitHub        POST /login/device/code, POST /login/oauth/access_token, GET /copilot_internal/v2/token
//   Qwen          POST /api/v1/oauth2/device/code (PKCE), POST /api/v1/oauth2/token
//   Anthropic     GET /oauth/authorize (the person approving: the callback page's `code#state`),
//                 POST /v1/oauth/token (JSON; authorization_code with PKCE, refresh_token; single-use refresh tokens)
// Every device code is approved after one "pending" poll. Tokens are JWT-shaped (unsigned) with
// `exp`, `scope` and `email`, so expiry and labels work as with the real ones.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, string>;
}

export interface FakeOAuth {
  url: string;
  requests: OAuthRequest[];
  /** Seconds until issued access tokens expire (default 3600). */
  ttl: number;
  /** What /api/oauth/token hands Nous clients as inference_base_url. */
  nousInferenceUrl: string;
  /** Copilot exchange: the API host returned in `endpoints.api` ('' = none). */
  copilotApi: string;
  /** The scope Nous tokens carry (set `inference:mint_agent_key` for the minting Portal). */
  nousScope: string;
  /** Seconds minted Nous agent keys live. */
  agentKeyTtl: number;
  /** Minted Nous agent keys, in order. */
  agentKeys: string[];
  /** Refresh grants fail with invalid_grant while true. */
  refuseRefresh: boolean;
  issued: string[];
  close(): Promise<void>;
}

export function fakeJwt(claims: Record<string, unknown>): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b({ alg: 'none', typ: 'JWT' })}.${b(claims)}.${randomBytes(8).toString('base64url')}`;
}

export async function startFakeOAuth(): Promise<FakeOAuth> {
  const polls = new Map<string, number>();
  const qwenChallenges = new Map<string, string>();
  const codexVerifiers = new Map<string, string>();
  const claudeCodes = new Map<string, { challenge: string; state: string; redirect: string }>();
  const refreshTokens = new Set<string>();
  const state: FakeOAuth = {
    url: '',
    requests: [],
    ttl: 3600,
    nousInferenceUrl: '',
    nousScope: 'inference:invoke',
    agentKeyTtl: 3600,
    agentKeys: [],
    copilotApi: '',
    refuseRefresh: false,
    issued: [],
    close: async () => undefined,
  };
  const token = (scope: string, email: string) => {
    const t = fakeJwt({ exp: Math.floor(Date.now() / 1000) + state.ttl, scope, email, jti: randomBytes(4).toString('hex') });
    state.issued.push(t);
    return t;
  };
  const refreshToken = () => {
    const r = `rt-${randomBytes(6).toString('hex')}`;
    refreshTokens.add(r);
    return r;
  };
  const pendingOnce = (key: string): boolean => {
    const n = polls.get(key) ?? 0;
    polls.set(key, n + 1);
    return n === 0;
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const ct = String(req.headers['content-type'] ?? '');
      let body: Record<string, string> = {};
      try {
        body = ct.includes('json') ? (JSON.parse(raw || '{}') as Record<string, string>) : Object.fromEntries(new URLSearchParams(raw));
      } catch {
        body = {};
      }
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      state.requests.push({ method: req.method ?? '', path, headers: req.headers as Record<string, string>, body });
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const refreshGrant = (scope: string, email: string, extra: Record<string, unknown> = {}) => {
        if (state.refuseRefresh || !refreshTokens.has(body.refresh_token)) return send(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
        refreshTokens.delete(body.refresh_token);
        return send(200, { access_token: token(scope, email), refresh_token: refreshToken(), token_type: 'Bearer', expires_in: state.ttl, scope, ...extra });
      };

      // --- Nous Portal
      if (path === '/api/oauth/device/code') {
        const dc = `nous-dc-${randomBytes(4).toString('hex')}`;
        return send(200, { device_code: dc, user_code: 'NOUS-1234', verification_uri: `${state.url}/device`, verification_uri_complete: `${state.url}/device?code=NOUS-1234`, expires_in: 600, interval: 1 });
      }
      if (path === '/api/oauth/token') {
        const extra = state.nousInferenceUrl ? { inference_base_url: state.nousInferenceUrl } : {};
        if (body.grant_type === 'refresh_token') return refreshGrant(state.nousScope, 'ana@nous.test', extra);
        if (pendingOnce(body.device_code)) return send(400, { error: 'authorization_pending' });
        return send(200, { access_token: token(state.nousScope, 'ana@nous.test'), refresh_token: refreshToken(), token_type: 'Bearer', expires_in: state.ttl, scope: state.nousScope, ...extra });
      }
      if (path === '/api/oauth/agent-key') {
        const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
        const claims = bearer.split('.').length === 3 ? (JSON.parse(Buffer.from(bearer.split('.')[1], 'base64url').toString()) as { exp?: number; scope?: string }) : {};
        if (!state.issued.includes(bearer) || (claims.exp ?? 0) * 1000 <= Date.now()) return send(401, { error: 'invalid_token', error_description: 'access token expired' });
        if (!String(claims.scope).includes('inference:mint_agent_key')) return send(403, { error: 'insufficient_scope' });
        const key = `nous-agent-${randomBytes(8).toString('hex')}`;
        state.agentKeys.push(key);
        return send(200, { api_key: key, key_id: `key-${state.agentKeys.length}`, expires_in: state.agentKeyTtl, reused: false, ...(state.nousInferenceUrl ? { inference_base_url: state.nousInferenceUrl } : {}) });
      }
      // --- OpenAI (Codex)
      if (path === '/api/accounts/deviceauth/usercode') return send(200, { user_code: 'CODX-5678', device_auth_id: `dai-${randomBytes(4).toString('hex')}`, interval: '1' });
      if (path === '/api/accounts/deviceauth/token') {
        if (pendingOnce(body.device_auth_id)) return send(403, { error: 'pending' });
        const verifier = randomBytes(16).toString('hex');
        const code = `ac-${randomBytes(4).toString('hex')}`;
        codexVerifiers.set(code, verifier);
        return send(200, { authorization_code: code, code_verifier: verifier });
      }
      if (path === '/oauth/token') {
        if (body.grant_type === 'refresh_token') return refreshGrant('openid', 'ana@chatgpt.test');
        if (body.grant_type !== 'authorization_code' || codexVerifiers.get(body.code) !== body.code_verifier) return send(400, { error: 'invalid_request' });
        return send(200, { access_token: token('openid', 'ana@chatgpt.test'), refresh_token: refreshToken(), id_token: 'x' });
      }
      // --- GitHub (Copilot)
      if (path === '/login/device/code') return send(200, { device_code: `gh-dc-${randomBytes(4).toString('hex')}`, user_code: 'GITH-9012', verification_uri: `${state.url}/login/device`, expires_in: 900, interval: 1 });
      if (path === '/login/oauth/access_token') {
        if (pendingOnce(body.device_code)) return send(200, { error: 'authorization_pending' });
        return send(200, { access_token: `gho_${randomBytes(12).toString('hex')}`, token_type: 'bearer', scope: 'read:user' });
      }
      if (path === '/copilot_internal/v2/token') {
        const auth = String(req.headers.authorization ?? '');
        if (!auth.startsWith('token gho_')) return send(404, { message: 'Not Found' });
        const t = `tid=copilot;exp=${Date.now()};${randomBytes(6).toString('hex')}`;
        state.issued.push(t);
        return send(200, { token: t, expires_at: Math.floor(Date.now() / 1000) + state.ttl, ...(state.copilotApi ? { endpoints: { api: state.copilotApi } } : {}) });
      }
      // --- Anthropic (Claude Pro/Max PKCE)
      if (path === '/oauth/authorize') {
        const q = new URL(req.url ?? '/', 'http://x').searchParams;
        if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state')) return send(400, { error: 'invalid_request' });
        const code = `claude-ac-${randomBytes(4).toString('hex')}`;
        const redirect = q.get('redirect_uri') ?? '';
        claudeCodes.set(code, { challenge: q.get('code_challenge')!, state: q.get('state')!, redirect });
        // A loopback redirect (Claude Code's automatic flow): the browser is sent back with the code.
        if (/^http:\/\/(localhost|127\.0\.0\.1):\d+\//.test(redirect)) {
          res.writeHead(302, { location: `${redirect}?${new URLSearchParams({ code, state: q.get('state')! })}` });
          return res.end();
        }
        // What the console's callback page shows the person to paste.
        return send(200, { paste: `${code}#${q.get('state')}` });
      }
      if (path === '/v1/oauth/token') {
        const sk = (kind: 'oat' | 'ort') => `sk-ant-${kind}01-${randomBytes(12).toString('hex')}`;
        if (body.grant_type === 'refresh_token') {
          if (state.refuseRefresh || !refreshTokens.has(body.refresh_token)) return send(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
          refreshTokens.delete(body.refresh_token);
          const at = sk('oat');
          state.issued.push(at);
          const rt = sk('ort');
          refreshTokens.add(rt);
          return send(200, { access_token: at, refresh_token: rt, expires_in: state.ttl, token_type: 'Bearer' });
        }
        const grant = claudeCodes.get(body.code);
        claudeCodes.delete(body.code);
        if (body.grant_type !== 'authorization_code' || !grant || grant.state !== body.state || grant.redirect !== body.redirect_uri) return send(400, { error: 'invalid_grant' });
        if (createHash('sha256').update(body.code_verifier ?? '').digest('base64url') !== grant.challenge) return send(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        const at = sk('oat');
        state.issued.push(at);
        const rt = sk('ort');
        refreshTokens.add(rt);
        return send(200, { access_token: at, refresh_token: rt, expires_in: state.ttl, token_type: 'Bearer', scope: 'user:inference user:profile' });
      }
      // --- Qwen
      if (path === '/api/v1/oauth2/device/code') {
        const dc = `qw-dc-${randomBytes(4).toString('hex')}`;
        qwenChallenges.set(dc, body.code_challenge);
        return send(200, { device_code: dc, user_code: 'QWEN-3456', verification_uri: `${state.url}/authorize`, verification_uri_complete: `${state.url}/authorize?user_code=QWEN-3456`, expires_in: 600 });
      }
      if (path === '/api/v1/oauth2/token') {
        if (body.grant_type === 'refresh_token') {
          if (state.refuseRefresh || !refreshTokens.has(body.refresh_token)) return send(400, { error: 'invalid_grant' });
          refreshTokens.delete(body.refresh_token);
          return send(200, { access_token: `qwen-at-${randomBytes(6).toString('hex')}`, refresh_token: refreshToken(), token_type: 'Bearer', expires_in: state.ttl, resource_url: 'portal.qwen.ai' });
        }
        const challenge = qwenChallenges.get(body.device_code);
        if (!challenge || createHash('sha256').update(body.code_verifier ?? '').digest('base64url') !== challenge) return send(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        if (pendingOnce(body.device_code)) return send(400, { error: 'authorization_pending' });
        const at = `qwen-at-${randomBytes(6).toString('hex')}`;
        state.issued.push(at);
        return send(200, { access_token: at, refresh_token: refreshToken(), token_type: 'Bearer', expires_in: state.ttl, resource_url: 'portal.qwen.ai' });
      }
      send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
