// OAuth 2.1 for remote MCP servers and elicitation: a sign-in against a loopback authorization
// server through a "browser" ($BROWSER) that follows the redirect to Hermes's callback, the token
// files in Python Hermes's format (0600, bound to their issuer), refresh ahead of expiry, no
// refresh token sent to another issuer, no browser without a person, the callback listener's
// checks, `auth: oauth` in config.yaml, and elicitation questions through the request broker.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentRequest, Answered } from '../../src/agent/types.ts';
import { parseServer, type McpServerConfig } from '../../src/mcp/config.ts';
import { McpConnection } from '../../src/mcp/connection.ts';
import { elicitThroughPerson } from '../../src/mcp/elicitation.ts';
import { startCallbackServer } from '../../src/mcp/oauth-callback.ts';
import { McpTokenStore, tokenFileStem } from '../../src/mcp/oauth-store.ts';
import { startOAuthMcp, type OAuthMcp } from './oauth-server.ts';

const servers: OAuthMcp[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A home with a "browser" that opens the URL the way a person's would: following the redirects. */
function home(): { home: string; env: NodeJS.ProcessEnv; opened: string } {
  const h = mkdtempSync(join(tmpdir(), 'hermes-oauth-'));
  const opened = join(h, 'opened.txt');
  const browser = join(h, 'browser.mjs');
  writeFileSync(browser, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(opened)}, process.argv[2] + '\\n');\nawait fetch(process.argv[2]).then((r) => r.text());\n`);
  return { home: h, env: { PATH: process.env.PATH, HOME: h, BROWSER: `${process.execPath} ${browser}` }, opened };
}

function cfg(url: string, oauth: Record<string, unknown> = {}): McpServerConfig {
  const r = parseServer('remote', { url, auth: 'oauth', oauth: { timeout: 30, cimd: false, ...oauth } }, {});
  assert.equal(r.problem, undefined);
  return r.config!;
}

async function connect(c: McpServerConfig, h: { home: string; env: NodeJS.ProcessEnv }, interactive: boolean, notes: string[] = []): Promise<McpConnection> {
  const conn = new McpConnection(c, { env: h.env, home: h.home, backoffMs: [], oauthInteractive: interactive, notify: (l) => notes.push(l) });
  await conn.connect();
  return conn;
}

describe('MCP OAuth sign-in', () => {
  it('discovers, registers, signs in with PKCE S256 and `resource`, and stores tokens 0600 bound to the issuer', async () => {
    const s = await startOAuthMcp();
    servers.push(s);
    const h = home();
    const notes: string[] = [];
    const conn = await connect(cfg(s.url), h, true, notes);
    assert.equal(conn.state, 'ready', conn.error);
    assert.deepEqual(conn.tools.map((t) => t.name).sort(), ['form', 'whoami']);
    const q = s.authorizations[0];
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(q.get('resource'), s.url);
    assert.match(q.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.ok((q.get('state') ?? '').length >= 32);
    // The URL is always printed, and it went to $BROWSER.
    assert.match(notes.join('\n'), /sign in[\s\S]*\/authorize\?/);
    assert.match(readFileSync(h.opened, 'utf8'), /\/authorize\?/);
    const r = await conn.callTool('whoami', {});
    assert.match(JSON.stringify(r.content), /signed-in person/);
    const store = new McpTokenStore(h.home, 'remote');
    assert.equal(statSync(store.tokensPath).mode & 0o777, 0o600);
    assert.equal(statSync(join(h.home, 'mcp-tokens')).mode & 0o777, 0o700);
    const file = JSON.parse(readFileSync(store.tokensPath, 'utf8'));
    assert.ok(String(file.hermes_issuer).startsWith(s.base));
    assert.equal(typeof file.expires_at, 'number');
    assert.equal(file.issuer, undefined);
    assert.match(JSON.parse(readFileSync(store.clientPath, 'utf8')).client_id, /^client-/);
    // The next connection uses the stored tokens: no new sign-in.
    await conn.close();
    const again = await connect(cfg(s.url), h, false);
    assert.equal(again.state, 'ready', again.error);
    assert.equal(s.authorizations.length, 1);
    await again.close();
  });

  it('refreshes the access token before it expires, and keeps the tokens bound to their issuer', async () => {
    const s = await startOAuthMcp({ expiresIn: 30 }); // inside the 60 s margin: due for refresh at once
    servers.push(s);
    const h = home();
    const conn = await connect(cfg(s.url), h, true);
    assert.equal(conn.state, 'ready', conn.error);
    const before = s.tokenRequests.length;
    await conn.callTool('whoami', {});
    const grants = s.tokenRequests.slice(before).map((f) => f.get('grant_type'));
    assert.ok(grants.includes('refresh_token'), `no refresh: ${grants.join(',')}`);
    assert.equal(s.tokenRequests.at(-1)?.get('resource'), s.url);
    const last = s.log.filter((l) => l.startsWith('POST /mcp')).at(-1) ?? '';
    const stored = new McpTokenStore(h.home, 'remote').tokens();
    assert.ok(last.endsWith(`Bearer ${stored?.access_token}`), `${last} vs ${stored?.access_token}`);
    await conn.close();
  });

  it('never sends a refresh token to an authorization server other than the one that granted it', async () => {
    const s = await startOAuthMcp();
    servers.push(s);
    const h = home();
    const store = new McpTokenStore(h.home, 'remote');
    // Tokens granted by another issuer (expired): this server must not see the refresh token.
    store.saveClientInformation({ client_id: 'elsewhere-client', redirect_uris: ['http://127.0.0.1:1/callback'], issuer: 'https://other-issuer.example' } as never);
    store.saveTokens({ access_token: 'old', token_type: 'Bearer', expires_in: 0, refresh_token: 'rt-from-elsewhere', issuer: 'https://other-issuer.example' });
    const notes: string[] = [];
    const conn = await connect(cfg(s.url), h, false, notes);
    assert.equal(conn.state, 'failed');
    assert.match(conn.error ?? '', /hermes mcp login remote/);
    assert.ok(!s.tokenRequests.some((f) => f.get('refresh_token') === 'rt-from-elsewhere'));
    assert.ok(!s.log.some((l) => l.includes('rt-from-elsewhere')));
    assert.equal(notes.length, 0, 'no browser without a person');
    await conn.close();
  });

  it('without a person and without tokens: one clear message, no browser, no listener', async () => {
    const s = await startOAuthMcp();
    servers.push(s);
    const h = home();
    const conn = await connect(cfg(s.url), h, false);
    assert.equal(conn.state, 'failed');
    assert.match(conn.error ?? '', /not signed in.*hermes mcp login remote/);
    assert.equal(s.authorizations.length, 0);
    assert.equal(s.log.length, 0, 'nothing was sent to the server');
    await conn.close();
  });

  it('reads token files Python Hermes wrote (expires_at, hermes_issuer)', () => {
    const h = mkdtempSync(join(tmpdir(), 'hermes-oauth-'));
    mkdirSync(join(h, 'mcp-tokens'));
    const now = Date.now() / 1000;
    writeFileSync(join(h, 'mcp-tokens', 'my_server.json'), JSON.stringify({ access_token: 'a', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r', expires_at: now + 100, hermes_issuer: 'https://as.example/' }));
    assert.equal(tokenFileStem('my.server'), 'my_server');
    const t = new McpTokenStore(h, 'my.server').tokens()!;
    assert.equal(t.issuer, 'https://as.example/');
    assert.ok(t.expires_in! <= 100 && t.expires_in! >= 98);
    assert.equal((t as Record<string, unknown>).hermes_issuer, undefined);
  });
});

describe('OAuth callback listener', () => {
  it('listens on 127.0.0.1 only, refuses a redirect with the wrong state, takes one code and closes', async () => {
    const cb = await startCallbackServer(0);
    const got = cb.wait('right-state', 10_000);
    const wrong = await fetch(`http://127.0.0.1:${cb.port}/callback?code=evil&state=wrong`);
    assert.equal(wrong.status, 400);
    const ok = await fetch(`http://127.0.0.1:${cb.port}/callback?code=good&state=right-state`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await got, { code: 'good', iss: undefined });
    await assert.rejects(fetch(`http://127.0.0.1:${cb.port}/callback?code=again&state=right-state`));
  });

  it('gives up after its deadline, and reports an error redirect', async () => {
    const cb = await startCallbackServer(0);
    await assert.rejects(cb.wait('s', 200), /no authorization arrived within/);
    const cb2 = await startCallbackServer(0);
    const refused = assert.rejects(cb2.wait('s2', 10_000), /access_denied/);
    await fetch(`http://127.0.0.1:${cb2.port}/callback?error=access_denied&state=s2`);
    await refused;
  });
});

describe('mcp_servers.<name>.auth: oauth', () => {
  it('parses Hermes keys (client_id, client_secret, scope, redirect_port, timeout) and refuses what cannot work', () => {
    const r = parseServer('x', { url: 'https://h/mcp', auth: 'oauth', oauth: { client_id: 'id', client_secret: '${SECRET}', scope: ['a', 'b'], redirect_port: 8765, timeout: 10 } }, { SECRET: 's3' });
    assert.equal(r.problem, undefined);
    assert.deepEqual({ ...r.config!.oauth }, { clientId: 'id', clientSecret: 's3', scope: 'a b', redirectPort: 8765, redirectHost: undefined, redirectUri: undefined, clientName: undefined, tokenEndpointAuthMethod: undefined, clientMetadataUrl: undefined, cimd: true, timeoutMs: 10_000 });
    assert.equal(parseServer('x', { url: 'https://h/mcp' }, {}).config!.oauth, undefined);
    assert.match(parseServer('x', { command: 'srv', auth: 'oauth' }, {}).problem!, /needs `url`/);
    assert.match(parseServer('x', { url: 'https://h/mcp', auth: 'basic' }, {}).problem!, /must be "oauth"/);
    assert.match(parseServer('x', { url: 'https://h/mcp', auth: 'oauth', oauth: { redirect_port: 'abc' } }, {}).problem!, /redirect_port/);
  });
});

describe('MCP elicitation through the request broker', () => {
  const asker = (answers: string[], source: Answered<AgentRequest>['source'] = 'person') => {
    const asked: AgentRequest[] = [];
    return {
      asked,
      ask: async (req: AgentRequest) => {
        asked.push(req);
        return { answer: (answers.shift() ?? '') as never, source };
      },
    };
  };
  const schema = {
    properties: { name: { type: 'string', title: 'Name', default: 'Ada' }, age: { type: 'integer', title: 'Age' }, color: { type: 'string', enum: ['red', 'blue'] }, ok: { type: 'boolean', default: false } },
    required: ['age'],
  };

  it('asks one question per field; Enter keeps the default (left to the SDK), answers are typed', async () => {
    const a = asker(['', '42', '2', 'yes']);
    const r = await elicitThroughPerson('srv', { message: 'Who are you?', requestedSchema: schema }, a.ask);
    assert.deepEqual(r, { action: 'accept', content: { age: 42, color: 'blue', ok: true } });
    assert.equal(a.asked.length, 4);
    assert.ok(a.asked.every((q) => q.kind === 'clarify'));
    assert.match((a.asked[0] as { question: string }).question, /MCP server "srv" asks: Who are you\?[\s\S]*Name.*Enter keeps "Ada"/);
    assert.deepEqual((a.asked[2] as { choices?: string[] }).choices, ['red', 'blue']);
  });

  it('asks again for a bad value, declines on "decline", cancels with nobody to answer', async () => {
    const a = asker(['', 'forty', '40', 'purple', 'decline']);
    assert.deepEqual(await elicitThroughPerson('srv', { message: 'm', requestedSchema: schema }, a.ask), { action: 'decline' });
    assert.match((a.asked[2] as { question: string }).question, /not valid for Age/);
    assert.deepEqual(await elicitThroughPerson('srv', { message: 'm', requestedSchema: schema }, asker([], 'no_responder').ask), { action: 'cancel' });
    assert.deepEqual(await elicitThroughPerson('srv', { message: 'm', requestedSchema: schema }, undefined), { action: 'cancel' });
  });

  it("reaches the person of the tool call under way, and the server gets the defaults applied (SEP-1034)", async () => {
    const s = await startOAuthMcp();
    servers.push(s);
    const h = home();
    const conn = await connect(cfg(s.url), h, true);
    assert.equal(conn.state, 'ready', conn.error);
    const a = asker(['', '7', '']);
    const r = await conn.callTool('form', {}, undefined, undefined, a.ask);
    assert.deepEqual(JSON.parse((r.content as { text: string }[])[0].text), { action: 'accept', content: { name: 'Ada', age: 7, ok: false } });
    // With nobody to ask, the server hears "cancel".
    const r2 = await conn.callTool('form', {}, undefined, undefined, asker([], 'no_responder').ask);
    assert.deepEqual(JSON.parse((r2.content as { text: string }[])[0].text), { action: 'cancel' });
    await conn.close();
  });
});

describe('hermes mcp login / logout (the real binary)', () => {
  it('signs in through $BROWSER without a terminal (the URL printed), lists the server as signed in, and logs out', async () => {
    const { hermes } = await import('../helpers/cli.ts');
    const s = await startOAuthMcp();
    servers.push(s);
    const h = home();
    writeFileSync(join(h.home, 'config.yaml'), `mcp_servers:\n  remote:\n    url: ${s.url}\n    auth: oauth\n    oauth:\n      cimd: false\n      timeout: 60\n`);
    const env = { BROWSER: h.env.BROWSER! };
    const login = await hermes(['mcp', 'login', 'remote'], { home: h.home, env });
    assert.equal(login.code, 0, login.stderr + login.stdout);
    assert.match(login.stdout, /Signed in to "remote": 2 tools/);
    assert.match(login.stderr + login.stdout, /\/authorize\?response_type=code/);
    assert.doesNotMatch(login.stderr + login.stdout, /at-\d|rt-\d/, 'no token on the screen');
    const list = await hermes(['mcp', 'list'], { home: h.home, env });
    assert.match(list.stdout, /OAuth: signed in/);
    const out = await hermes(['mcp', 'logout', 'remote'], { home: h.home, env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /Signed out of "remote"/);
    assert.equal(new McpTokenStore(h.home, 'remote').has(), false);
    const notOauth = await hermes(['mcp', 'login', 'nope'], { home: h.home, env });
    assert.notEqual(notOauth.code, 0);
    assert.match(notOauth.stderr, /No MCP server named "nope"/);
  });
});
