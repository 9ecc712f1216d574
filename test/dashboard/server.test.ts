// The dashboard's server from the outside (HTTP and WebSocket, no browser): every /api route and
// socket needs the token, cross-origin writes are refused, the Host must be ours, pages carry a
// strict CSP, keys never come back, a taken port says BACKEND_PORT_IN_USE and exits 75, and a
// non-loopback bind refuses to start without a login.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { seedHome, startDashboardProcess, type RunningDash } from '../helpers/dashboard.ts';

const KEY = 'sk-or-v1-abcdefghijklmnopqrstuvwxyz0123456789';

function raw(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

function wsStatus(url: string, headers: Record<string, string>): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

describe('hermes dashboard server', { timeout: 180_000 }, () => {
  let home: string;
  let dash: RunningDash;
  let cookie: string;

  before(async () => {
    home = homeWithModel('http://127.0.0.1:9/v1');
    writeFileSync(join(home, '.env'), `OPENROUTER_API_KEY=${KEY}\n`, { mode: 0o600 });
    seedHome(home);
    dash = await startDashboardProcess(home);
    cookie = `hermes_dashboard=${dash.token}`;
  });
  after(async () => {
    await dash?.stop();
  });

  it('prints a loopback link with a fresh token', () => {
    assert.match(dash.loginUrl, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{40,}$/);
  });

  it('answers 401 to /api requests without the token (or with a wrong one)', async () => {
    for (const path of ['/api/status', '/api/sessions', '/api/config', '/api/env', '/api/logs', '/api/cron', '/api/plugins', '/api/nope']) {
      const r = await raw(`${dash.origin}${path}`);
      assert.equal(r.status, 401, path);
      assert.match(r.body, /Not signed in/);
    }
    assert.equal((await raw(`${dash.origin}/api/status`, { headers: { cookie: 'hermes_dashboard=wrong' } })).status, 401);
    assert.equal((await raw(`${dash.origin}/api/status`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    assert.equal((await raw(`${dash.origin}/api/status`, { headers: { cookie } })).status, 200);
    assert.equal((await raw(`${dash.origin}/api/status`, { headers: { authorization: `Bearer ${dash.token}` } })).status, 200);
  });

  it('refuses WebSockets without the token or from another origin', async () => {
    const ws = dash.origin.replace('http', 'ws');
    assert.equal(await wsStatus(`${ws}/api/events?channel=abcdefgh12`, { origin: dash.origin }), 401);
    assert.equal(await wsStatus(`${ws}/api/events?channel=abcdefgh12`, { cookie, origin: 'http://evil.example' }), 403);
    assert.equal(await wsStatus(`${ws}/api/pty?channel=abcdefgh12`, { cookie }), 403, 'no Origin: not from the page');
    assert.equal(await wsStatus(`${ws}/api/events?channel=abcdefgh12`, { cookie, origin: dash.origin }), 'open');
  });

  it('refuses a cross-origin POST that rides on the cookie, and one with no origin at all', async () => {
    const body = JSON.stringify({ platform: 'telegram' });
    const evil = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' }, body });
    assert.equal(evil.status, 403);
    assert.match(evil.body, /Cross-origin request refused/);
    const site = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body });
    assert.equal(site.status, 403);
    const bare = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
    assert.equal(bare.status, 403);
    // A form post (not JSON) is refused even from the page.
    const form = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { cookie, origin: dash.origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    assert.equal(form.status, 415);
    const ok = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { cookie, origin: dash.origin, 'content-type': 'application/json' }, body });
    assert.equal(ok.status, 200);
    const script = await raw(`${dash.origin}/api/pairing/clear`, { method: 'POST', headers: { authorization: `Bearer ${dash.token}`, 'content-type': 'application/json' }, body });
    assert.equal(script.status, 200, 'a script with the token in a header needs no origin');
  });

  it('answers only to its own host name (DNS rebinding)', async () => {
    const port = new URL(dash.origin).port;
    const r = await raw(`${dash.origin}/api/status`, { headers: { cookie, host: `evil.example:${port}` } });
    assert.equal(r.status, 421);
    assert.equal((await raw(`${dash.origin}/api/status`, { headers: { cookie, host: `localhost:${port}` } })).status, 200);
  });

  it('sends a strict CSP and no-store on the API', async () => {
    const page = await raw(dash.loginUrl);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(String(page.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
    const api = await raw(`${dash.origin}/api/status`, { headers: { cookie } });
    assert.equal(api.headers['cache-control'], 'no-store');
  });

  it('never sends a key back: masked in lists and config, write-only to set', async () => {
    const env = await raw(`${dash.origin}/api/env`, { headers: { cookie } });
    assert.equal(env.status, 200);
    assert.ok(!env.body.includes(KEY));
    const row = (JSON.parse(env.body) as { keys: { name: string; set: boolean; preview: string }[] }).keys.find((k) => k.name === 'OPENROUTER_API_KEY');
    assert.equal(row?.set, true);
    assert.ok(row!.preview.length < 20);
    const cfg = await raw(`${dash.origin}/api/config`, { headers: { cookie } });
    assert.ok(!cfg.body.includes('test-key'), 'model.api_key is masked');
    // The OS sandbox's settings are on the form, with their choices.
    const form = JSON.parse(cfg.body) as { schema: { key: string; options?: string[] }[]; values: Record<string, unknown> };
    assert.deepEqual(form.schema.find((f) => f.key === 'terminal.sandbox.mode')?.options, ['workspace-write', 'read-only', 'off']);
    assert.deepEqual(form.schema.find((f) => f.key === 'terminal.sandbox.network')?.options, ['on', 'off']);
    assert.equal(form.values['terminal.sandbox.mode'], 'workspace-write');
    const newKey = 'sk-ant-api03-zyxwvutsrqponmlkjihgfedcba9876543210';
    const set = await raw(`${dash.origin}/api/env`, { method: 'PUT', headers: { cookie, origin: dash.origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ANTHROPIC_API_KEY', value: newKey }) });
    assert.equal(set.status, 200);
    assert.ok(!set.body.includes(newKey));
    const denied = await raw(`${dash.origin}/api/env`, { method: 'PUT', headers: { cookie, origin: dash.origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'LD_PRELOAD', value: '/tmp/x.so' }) });
    assert.equal(denied.status, 403);
  });

  it('lists, searches and exports sessions through the API', async () => {
    const list = JSON.parse((await raw(`${dash.origin}/api/sessions?source=telegram`, { headers: { cookie } })).body) as { total: number; sessions: { id: string }[] };
    assert.equal(list.total, 1);
    const hits = JSON.parse((await raw(`${dash.origin}/api/sessions/search?q=pelican`, { headers: { cookie } })).body) as { hits: { session_id: string }[] };
    assert.ok(hits.hits.some((h) => h.session_id === list.sessions[0].id));
    const exp = await raw(`${dash.origin}/api/sessions/${list.sessions[0].id}/export`, { headers: { cookie } });
    assert.match(String(exp.headers['content-disposition']), /attachment; filename="hermes-session-.*\.jsonl"/);
    assert.equal(JSON.parse(exp.body.trim()).id, list.sessions[0].id);
    const missing = await raw(`${dash.origin}/api/sessions/nope`, { headers: { cookie } });
    assert.equal(missing.status, 404);
    assert.match(missing.body, /No session/);
  });

  it('says BACKEND_PORT_IN_USE and exits 75 when the port is taken', async () => {
    const srv: Server = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    try {
      const r = await hermes(['dashboard', '--no-open', '--port', String(port)], { home, timeoutMs: 60_000 });
      assert.equal(r.code, 75, r.stderr);
      assert.equal(r.stdout.trim(), `BACKEND_PORT_IN_USE port=${port}`);
    } finally {
      srv.close();
    }
  });

  it('refuses a non-loopback bind without a login, and asks for the password with one', async () => {
    const r = await hermes(['dashboard', '--no-open', '--host', '0.0.0.0', '--port', '0'], { home, timeoutMs: 60_000 });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes: Refusing to bind the dashboard to 0\.0\.0\.0.*dashboard\.basic_auth/s);
    const hash = await hermes(['dashboard', 'hash-password'], { home, input: 'correct horse' });
    assert.equal(hash.code, 0, hash.stderr);
    const h2 = homeWithModel('http://127.0.0.1:9/v1', `dashboard:\n  basic_auth:\n    username: admin\n    password_hash: "${hash.stdout.trim()}"\n`);
    const d = await startDashboardProcess(h2, { args: ['--host', '0.0.0.0'] });
    try {
      assert.doesNotMatch(d.loginUrl, /token=/, 'no token in the printed link on a password-protected bind');
      const origin = d.origin;
      assert.equal((await raw(`${origin}/api/status`)).status, 401);
      const page = await raw(`${origin}/`);
      assert.match(page.body, /protected by a password/);
      const bad = await raw(`${origin}/auth/login`, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=admin&password=wrong' });
      assert.equal(bad.status, 401);
      const good = await raw(`${origin}/auth/login`, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=admin&password=correct%20horse' });
      assert.equal(good.status, 303);
      const set = String(good.headers['set-cookie']);
      const c = /hermes_dashboard=[^;]+/.exec(set)![0];
      assert.equal((await raw(`${origin}/api/status`, { headers: { cookie: c } })).status, 200);
    } finally {
      await d.stop();
    }
  });
});
