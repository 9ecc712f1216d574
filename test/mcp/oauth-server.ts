// An OAuth-protected MCP server on loopback for the tests: the protected-resource metadata (RFC 9728),
// an authorization server (RFC 8414 metadata, dynamic registration, an authorization endpoint that
// approves at once and redirects, a token endpoint checking PKCE S256 and `resource`) and a
// Streamable HTTP MCP endpoint that wants a Bearer token it issued. Records what it saw.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface OAuthMcp {
  base: string;
  url: string;
  /** Every request: method, path, and the grant or Authorization header it carried. */
  log: string[];
  /** Query of each authorization request. */
  authorizations: URLSearchParams[];
  /** Form of each token request. */
  tokenRequests: URLSearchParams[];
  /** Tokens the MCP endpoint accepts. */
  valid: Set<string>;
  /** Seconds each issued access token lives. */
  expiresIn: number;
  /** What the elicit tool got back. */
  elicited: unknown[];
  close(): Promise<void>;
}

const form = (req: http.IncomingMessage) =>
  new Promise<URLSearchParams>((resolve) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => resolve(new URLSearchParams(body)));
  });
const json = (req: http.IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => resolve(JSON.parse(body || '{}') as Record<string, unknown>));
  });

export async function startOAuthMcp(opts: { expiresIn?: number } = {}): Promise<OAuthMcp> {
  const log: string[] = [];
  const authorizations: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];
  const valid = new Set<string>();
  const elicited: unknown[] = [];
  const codes = new Map<string, { challenge: string; redirect: string; resource: string | null }>();
  const refresh = new Set<string>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  let n = 0;
  let base = '';
  const state = { expiresIn: opts.expiresIn ?? 3600 };

  const issue = () => {
    n++;
    const access = `at-${n}`;
    const rt = `rt-${n}`;
    valid.add(access);
    refresh.add(rt);
    return { access_token: access, token_type: 'Bearer', expires_in: state.expiresIn, refresh_token: rt };
  };

  const mcpServer = () => {
    const s = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    s.registerTool('whoami', { description: 'Says hello' }, async () => ({ content: [{ type: 'text', text: 'hello, signed-in person' }] }));
    s.registerTool('form', { description: 'Asks the person' }, async () => {
      const r = await s.server.elicitInput({
        message: 'Your details',
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name', default: 'Ada' }, age: { type: 'integer', title: 'Age' }, ok: { type: 'boolean', title: 'Agree', default: false } },
          required: ['age'],
        },
      });
      elicited.push(r);
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    });
    return s;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const p = url.pathname;
    log.push(`${req.method} ${p}${req.headers.authorization ? ` ${req.headers.authorization}` : ''}`);
    if (p === '/.well-known/oauth-protected-resource/mcp' || p === '/.well-known/oauth-protected-resource') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['mcp'] }));
      return;
    }
    if (p === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        }),
      );
      return;
    }
    if (p === '/register' && req.method === 'POST') {
      const body = await json(req);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ...body, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) }));
      return;
    }
    if (p === '/authorize') {
      const q = url.searchParams;
      authorizations.push(q);
      const code = `code-${randomUUID()}`;
      codes.set(code, { challenge: q.get('code_challenge') ?? '', redirect: q.get('redirect_uri') ?? '', resource: q.get('resource') });
      const to = new URL(q.get('redirect_uri')!);
      to.searchParams.set('code', code);
      if (q.get('state')) to.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: to.toString() }).end();
      return;
    }
    if (p === '/token' && req.method === 'POST') {
      const f = await form(req);
      tokenRequests.push(f);
      const bad = (error: string) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      if (f.get('grant_type') === 'authorization_code') {
        const c = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        const challenge = createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
        if (!c || c.challenge !== challenge || c.redirect !== f.get('redirect_uri')) return void bad('invalid_grant');
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(issue()));
      }
      if (f.get('grant_type') === 'refresh_token') {
        if (!refresh.delete(f.get('refresh_token') ?? '')) return void bad('invalid_grant');
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(issue()));
      }
      return void bad('unsupported_grant_type');
    }
    if (p !== '/mcp') return void res.writeHead(404).end();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !valid.has(token)) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, created) });
      t = created;
      await mcpServer().connect(t);
    }
    await t.handleRequest(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: `${base}/mcp`,
    log,
    authorizations,
    tokenRequests,
    valid,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(v: number) {
      state.expiresIn = v;
    },
    elicited,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of transports.values()) void t.close();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
