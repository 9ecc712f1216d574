// The browser tools on browsers they did not launch: a Chromium reached over CDP (/browser connect,
// BROWSER_CDP_URL) and the cloud services (Browserbase, Browser Use) through local fakes of their
// REST APIs that hand back the CDP URL of a local Chromium. Requests are checked by route
// interception there; redirect hops after the fact.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/tools/browser/config.ts';
import { browserCommandAction } from '../../src/tools/browser/command.ts';
import { existingBrowserSession } from '../../src/tools/browser/manager.ts';
import browserClose from '../../src/tools/defs/browser-close.ts';
import browserNavigate from '../../src/tools/defs/browser-navigate.ts';
import browserSnapshot from '../../src/tools/defs/browser-snapshot.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { startCdpChromium, type CdpChromium } from '../helpers/chromium.ts';
import { call, closeServices, makeServices } from './helpers.ts';

const skip = findChromium(process.env) ? false : 'Chromium is not installed (apt-get install chromium)';
if (skip) console.log(`# skipping remote browser tests: ${skip}`);

let site: Server;
let base = '';
let api: Server;
let apiBase = '';
let chrome: CdpChromium;
const calls: { method: string; path: string; headers: IncomingMessage['headers']; body: any }[] = [];

before(async () => {
  if (skip) return;
  chrome = await startCdpChromium();
  site = createServer((req, res) => {
    if (req.url === '/redirect-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Remote page</title><h1>Served to a remote browser</h1><img src="http://169.254.169.254/x.png">');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  api = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      calls.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method === 'POST' && req.url === '/bb/v1/sessions') {
        if (req.headers['x-bb-api-key'] !== 'bb-key') return json(401, { error: 'bad key' });
        if (body.keepAlive) return json(402, { error: 'keepAlive needs a paid plan' });
        return json(201, { id: 'sess_123', connectUrl: chrome.wsUrl });
      }
      if (req.method === 'POST' && req.url === '/bb/v1/sessions/sess_123') return json(200, { id: 'sess_123', status: 'COMPLETED' });
      if (req.method === 'POST' && req.url === '/bu/browsers') {
        if (req.headers['x-browser-use-api-key'] !== 'bu-key') return json(401, { detail: 'bad key' });
        return json(201, { id: 'br_9', cdpUrl: chrome.httpUrl, liveUrl: 'https://live.example/br_9' });
      }
      if (req.method === 'PATCH' && req.url === '/bu/browsers/br_9') return json(200, { id: 'br_9', status: 'stopped' });
      json(404, {});
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  apiBase = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
});
after(async () => {
  if (skip) return;
  site.close();
  api.close();
  await chrome.close();
});

function services(env: Record<string, string>, cfg: Record<string, unknown> = {}): ToolSession {
  const s = makeServices();
  Object.assign(s.env, env);
  (s.config.security as { allow_private_urls: boolean }).allow_private_urls = true;
  Object.assign(s.config.browser, cfg);
  return s;
}

async function pageCount(): Promise<number> {
  const r = await fetch(`${chrome.httpUrl}/json/list`);
  return ((await r.json()) as { type: string }[]).filter((t) => t.type === 'page').length;
}

describe('remote and cloud browsers', { skip }, () => {
  it('a browser reached over CDP: navigates in a tab of its own, checks every request, closes only its tab', async () => {
    const before = await pageCount();
    const s = services({ BROWSER_CDP_URL: chrome.httpUrl });
    try {
      const r = await call(browserNavigate, { url: `${base}/` }, s);
      assert.equal(r.json.success, true, r.raw);
      assert.equal(r.json.title, 'Remote page');
      assert.deepEqual(r.json.stealth_features, ['cdp_override']);
      assert.equal(r.json.auth_wall_warning, undefined);
      assert.match(r.json.blocked_requests[0].url, /169\.254\.169\.254/, 'route interception refused the metadata image');
      assert.equal(await pageCount(), before + 1);
      const hop = await call(browserNavigate, { url: `${base}/redirect-metadata` }, s);
      assert.equal(hop.json.success, false);
      assert.match(hop.json.error, /redirect landed/);
      const snap = await call(browserSnapshot, {}, s);
      assert.equal(snap.json.url, 'about:blank');
      const closed = await call(browserClose, {}, s);
      assert.equal(closed.json.closed, true);
      assert.equal(await pageCount(), before, 'our tab is gone');
      assert.equal(chrome.proc.exitCode, null, "the user's browser keeps running");
    } finally {
      await closeServices(s);
    }
  });

  it('Browserbase: creates a session over its API (retrying without paid features), drives it over CDP, releases it', async () => {
    calls.length = 0;
    const s = services({ BROWSERBASE_API_KEY: 'bb-key', BROWSERBASE_PROJECT_ID: 'proj-1', BROWSERBASE_BASE_URL: `${apiBase}/bb` });
    try {
      const r = await call(browserNavigate, { url: `${base}/` }, s);
      assert.equal(r.json.success, true, r.raw);
      assert.equal(r.json.title, 'Remote page');
      assert.deepEqual(r.json.stealth_features, ['basic_stealth', 'proxies']);
      const creates = calls.filter((c) => c.path === '/bb/v1/sessions');
      assert.equal(creates.length, 2);
      assert.deepEqual(creates[0].body, { projectId: 'proj-1', keepAlive: true, proxies: true });
      assert.deepEqual(creates[1].body, { projectId: 'proj-1', proxies: true });
      assert.equal(existingBrowserSession(s)!.backend, 'browserbase');
    } finally {
      await closeServices(s);
    }
    const release = calls.find((c) => c.path === '/bb/v1/sessions/sess_123');
    assert.deepEqual(release?.body, { projectId: 'proj-1', status: 'REQUEST_RELEASE' });
  });

  it('Browser Use: creates a browser, follows its HTTP discovery CDP URL, stops it at the end', async () => {
    calls.length = 0;
    const s = services({ BROWSER_USE_API_KEY: 'bu-key', BROWSER_USE_BASE_URL: `${apiBase}/bu` });
    try {
      const r = await call(browserNavigate, { url: `${base}/` }, s);
      assert.equal(r.json.success, true, r.raw);
      assert.deepEqual(r.json.stealth_features, ['browser_use']);
      assert.equal(calls[0].method, 'POST');
      assert.equal(calls[0].headers['x-browser-use-api-key'], 'bu-key');
    } finally {
      await closeServices(s);
    }
    assert.deepEqual(calls.find((c) => c.method === 'PATCH')?.body, { action: 'stop' });
  });

  it('a cloud provider that refuses the key: a clear error', async () => {
    const s = services({ BROWSERBASE_API_KEY: 'wrong', BROWSERBASE_PROJECT_ID: 'p', BROWSERBASE_BASE_URL: `${apiBase}/bb` }, { cloud_provider: 'browserbase' });
    try {
      const r = await call(browserNavigate, { url: `${base}/` }, s);
      assert.equal(r.json.success, false);
      assert.match(r.json.error, /Failed to start the browser: Failed to create a Browserbase session: HTTP 401/);
    } finally {
      await closeServices(s);
    }
  });

  it('/browser connect switches the tools to a running Chrome; status and disconnect', async () => {
    const s = services({});
    try {
      const dead = await browserCommandAction(s, 'connect http://127.0.0.1:9', 'http://127.0.0.1:9222');
      assert.match(dead, /No browser answers at http:\/\/127\.0\.0\.1:9\/? .*--remote-debugging-port=9222/);
      assert.equal(s.env.BROWSER_CDP_URL, undefined);
      const ok = await browserCommandAction(s, `connect ${chrome.httpUrl}`, 'http://127.0.0.1:9222');
      assert.match(ok, /Browser tools now use .*Chrome.* at http:\/\/127\.0\.0\.1:\d+/);
      const r = await call(browserNavigate, { url: `${base}/` }, s);
      assert.equal(r.json.success, true, r.raw);
      assert.equal(existingBrowserSession(s)!.backend, 'cdp');
      assert.match(await browserCommandAction(s, 'status', ''), /Backend: CDP http:\/\/127\.0\.0\.1:\d+\nOpen: http:\/\/127\.0\.0\.1/);
      assert.match(await browserCommandAction(s, 'disconnect', ''), /Disconnected\. The browser tools use the local Chromium again/);
      assert.equal(s.env.BROWSER_CDP_URL, undefined);
      assert.match(await browserCommandAction(s, 'status', ''), /Backend: local Chromium .*\nNot open/);
      assert.equal(chrome.proc.exitCode, null);
    } finally {
      await closeServices(s);
    }
  });
});
