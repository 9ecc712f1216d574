// The browser tools in a real headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// against pages served on loopback: navigate, snapshots with refs, clicking a button that changes
// the DOM, typing into a form, console output and evaluation, images, downloads, screenshots for the
// vision model, and refused navigations (metadata floor, website blocklist, private addresses).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { classifyAddress } from '../../src/policy/ssrf.ts';
import { findChromium } from '../../src/tools/browser/config.ts';
import { browserUrlSeamsSlot, existingBrowserSession } from '../../src/tools/browser/manager.ts';
import browserBack from '../../src/tools/defs/browser-back.ts';
import browserClick from '../../src/tools/defs/browser-click.ts';
import browserClose from '../../src/tools/defs/browser-close.ts';
import browserConsole from '../../src/tools/defs/browser-console.ts';
import browserGetImages from '../../src/tools/defs/browser-get-images.ts';
import browserNavigate from '../../src/tools/defs/browser-navigate.ts';
import browserPress from '../../src/tools/defs/browser-press.ts';
import browserScroll from '../../src/tools/defs/browser-scroll.ts';
import browserSnapshot from '../../src/tools/defs/browser-snapshot.ts';
import browserType from '../../src/tools/defs/browser-type.ts';
import browserVision from '../../src/tools/defs/browser-vision.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { scripted } from '../helpers/scripted-stream.ts';
import { call, closeServices, makeServices } from './helpers.ts';

const chromium = findChromium(process.env);
const skip = chromium ? false : 'Chromium is not installed (apt-get install chromium, or set BROWSER_EXECUTABLE_PATH)';
if (skip) console.log(`# skipping browser tests: ${skip}`);

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const HOME_PAGE = `<!doctype html><html><head><title>Widget Shop</title></head><body>
<nav><a href="/about">About us</a></nav>
<main><h1>Welcome to the shop</h1>
<p id="status">Nothing clicked yet</p>
<button id="go" onclick="document.getElementById('status').textContent='Button was clicked'; console.log('clicked the button'); console.warn('careful');">Click me</button>
<form onsubmit="event.preventDefault(); document.getElementById('greeting').textContent='Hello, ' + document.getElementById('name').value + '!';">
<label for="name">Your name</label> <input id="name" name="name">
<button type="submit">Send</button></form>
<p id="greeting"></p>
<img src="/logo.png" alt="Shop logo">
<a href="/file.txt" download>Get the price list</a>
<div id="late"></div>
<div style="height:3000px"></div><p>Bottom of the page</p>
</main>
<script>setTimeout(() => { document.getElementById('late').textContent = 'Rendered by JavaScript'; }, 50); console.error('startup error logged'); window.shopData = {items: 3};</script>
</body></html>`;

let server: Server;
let port = 0;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    const p = new URL(req.url!, 'http://x').pathname;
    if (p === '/' || p === '/about') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(p === '/' ? HOME_PAGE : '<!doctype html><title>About</title><h1>About the shop</h1>');
    }
    if (p === '/logo.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(PNG);
    }
    if (p === '/file.txt') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="prices.txt"' });
      return res.end('widget: 3 EUR\n');
    }
    if (p === '/redirect-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    if (p === '/redirect-blocklisted') {
      res.writeHead(302, { location: `http://evil.example:${port}/` });
      return res.end();
    }
    if (p === '/redirect-private') {
      res.writeHead(302, { location: `http://intranet.test:${port}/` });
      return res.end();
    }
    if (p === '/metadata-image') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Sneaky</title><img src="http://169.254.169.254/latest/meta-data/x.png"><p>ok</p>');
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
});
after(() => server.close());

/** Services for a session that may browse loopback (the test pages) but nothing else private. */
function services(over: Partial<ToolSession> = {}): ToolSession {
  const s = makeServices(over);
  (s.config.security as { allow_private_urls: boolean }).allow_private_urls = true;
  return s;
}

describe('browser tools (real Chromium)', { skip }, () => {
  let s: ToolSession;
  before(() => {
    s = services();
  });
  after(async () => {
    await closeServices(s);
  });

  it('navigates and returns a compact snapshot with refs, including JavaScript-rendered content', async () => {
    const r = await call(browserNavigate, { url: `${base}/` }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.title, 'Widget Shop');
    assert.equal(r.json.url, `${base}/`);
    assert.match(r.json.snapshot, /heading "Welcome to the shop" \[level=1\] \[ref=\w+\]/);
    assert.match(r.json.snapshot, /button "Click me" \[ref=\w+\]/);
    assert.ok(r.json.element_count > 5);
    assert.deepEqual(r.json.stealth_features, ['local']);
    assert.ok(!/\/url:/.test(r.json.snapshot), 'compact view drops link URLs');
    const full = await call(browserSnapshot, { full: true }, s);
    assert.match(full.json.snapshot, /\/url: \/about/);
    assert.match(full.json.snapshot, /Rendered by JavaScript/);
  });

  it('clicks a button that changes the DOM', async () => {
    const snap = await call(browserSnapshot, {}, s);
    const ref = /button "Click me" \[ref=(\w+)\]/.exec(snap.json.snapshot)![1];
    const r = await call(browserClick, { ref: `@${ref}` }, s);
    assert.deepEqual(r.json, { success: true, clicked: `@${ref}` });
    const after = await call(browserSnapshot, {}, s);
    assert.match(after.json.snapshot, /Button was clicked/);
  });

  it('types into a form and submits it with Enter', async () => {
    const snap = await call(browserSnapshot, {}, s);
    const ref = /textbox "Your name" \[ref=(\w+)\]/.exec(snap.json.snapshot)![1];
    const typed = await call(browserType, { ref, text: 'Ada' }, s);
    assert.deepEqual(typed.json, { success: true, typed: 'Ada', element: `@${ref}` });
    const pressed = await call(browserPress, { key: 'Enter' }, s);
    assert.equal(pressed.json.pressed, 'Enter');
    const after = await call(browserSnapshot, {}, s);
    assert.match(after.json.snapshot, /Hello, Ada!/);
  });

  it('a secret typed into a field does not come back in the result', async () => {
    const snap = await call(browserSnapshot, {}, s);
    const ref = /textbox "Your name" \[ref=(\w+)\]/.exec(snap.json.snapshot)![1];
    const r = await call(browserType, { ref, text: 'sk-abcdefghijklmnopqrstuvwxyz012345' }, s);
    assert.equal(r.json.success, true);
    assert.ok(!r.raw.includes('sk-abcdefghijklmnopqrstuvwxyz012345'));
  });

  it('reads console output and page errors, evaluates expressions, clears the buffers', async () => {
    const r = await call(browserConsole, {}, s);
    assert.equal(r.json.success, true);
    const texts = r.json.console_messages.map((m: { type: string; text: string }) => `${m.type}:${m.text}`);
    assert.ok(texts.includes('log:clicked the button'), texts.join(' | '));
    assert.ok(texts.includes('warn:careful'));
    assert.ok(texts.includes('error:startup error logged'));
    const ev = await call(browserConsole, { expression: 'window.shopData' }, s);
    assert.deepEqual(ev.json, { success: true, result: { items: 3 }, result_type: 'dict' });
    const title = await call(browserConsole, { expression: 'document.title' }, s);
    assert.equal(title.json.result, 'Widget Shop');
    assert.equal(title.json.result_type, 'str');
    const bad = await call(browserConsole, { expression: 'throw new Error("nope")' }, s);
    assert.equal(bad.json.success, false);
    assert.match(bad.json.error, /nope/);
    await call(browserConsole, { clear: true }, s);
    const empty = await call(browserConsole, {}, s);
    assert.equal(empty.json.total_messages, 0);
  });

  it('lists images, scrolls, and goes back', async () => {
    const imgs = await call(browserGetImages, {}, s);
    assert.equal(imgs.json.count, 1);
    assert.equal(imgs.json.images[0].src, `${base}/logo.png`);
    assert.equal(imgs.json.images[0].alt, 'Shop logo');
    const sc = await call(browserScroll, { direction: 'down' }, s);
    assert.deepEqual(sc.json, { success: true, scrolled: 'down' });
    const y = await call(browserConsole, { expression: 'window.scrollY' }, s);
    assert.ok(y.json.result > 0);
    await call(browserNavigate, { url: `${base}/about` }, s);
    const back = await call(browserBack, {}, s);
    assert.deepEqual(back.json, { success: true, url: `${base}/` });
  });

  it('saves downloads into the workspace', async () => {
    await call(browserNavigate, { url: `${base}/` }, s);
    const snap = await call(browserSnapshot, {}, s);
    const ref = /link "Get the price list" \[ref=(\w+)\]/.exec(snap.json.snapshot)?.[1];
    assert.ok(ref, snap.raw);
    await call(browserClick, { ref: ref! }, s);
    const b = existingBrowserSession(s)!;
    for (let i = 0; i < 100 && !b.downloads.length; i++) await new Promise((r) => setTimeout(r, 50));
    const path = b.downloads[0];
    assert.ok(path?.startsWith(`${s.cwd}/downloads/`), String(path));
    assert.equal(readFileSync(path, 'utf8'), 'widget: 3 EUR\n');
  });

  it('takes a screenshot for the vision model (annotated)', async () => {
    const seen: unknown[] = [];
    const vision = scripted([(req) => (seen.push(req.messages), { text: 'A shop page with a Click me button.' })]);
    s.auxiliary = (task) => (task === 'vision' ? { stream: vision.stream, model: 'vis', provider: 'fake' } : null);
    const r = await call(browserVision, { question: 'What is on the page?', annotate: true }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.analysis, 'A shop page with a Click me button.');
    assert.ok(existsSync(r.json.screenshot_path));
    assert.deepEqual([...readFileSync(r.json.screenshot_path).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.ok(r.json.annotations.some((x: { role: string; name: string }) => x.role === 'button' && x.name === 'Click me'));
    const parts = (vision.requests[0].messages[0] as { content: { type: string }[] }).content;
    assert.ok(parts.some((p) => p.type === 'image_url'));
    const gone = await call(browserConsole, { expression: "document.getElementById('__hermes_annotations')" }, s);
    assert.equal(gone.json.result, null, 'the labels are removed after the screenshot');
  });

  it('refuses a redirect to the cloud metadata address, even with private URLs allowed', async () => {
    const r = await call(browserNavigate, { url: `${base}/redirect-metadata` }, s);
    assert.equal(r.json.success, false);
    assert.match(r.json.error, /Blocked: redirect landed on an address that is not allowed.*169\.254\.169\.254/);
    const snap = await call(browserSnapshot, {}, s);
    assert.equal(snap.json.url, 'about:blank');
    const direct = await call(browserNavigate, { url: 'http://169.254.169.254/latest/meta-data/' }, s);
    assert.equal(direct.json.success, false);
    assert.match(direct.json.error, /metadata/);
  });

  it('refuses subresources from blocked addresses and reports them', async () => {
    const r = await call(browserNavigate, { url: `${base}/metadata-image` }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.match(r.json.blocked_requests[0].url, /169\.254\.169\.254/);
  });

  it('refuses a redirect to a blocklisted site', async () => {
    const blk = services();
    (blk.config.security as { website_blocklist: unknown }).website_blocklist = { enabled: true, domains: ['evil.example'], shared_files: [] };
    try {
      const r = await call(browserNavigate, { url: `${base}/redirect-blocklisted` }, blk);
      assert.equal(r.json.success, false);
      assert.match(r.json.error, /evil\.example/);
      const direct = await call(browserNavigate, { url: `http://evil.example:${port}/` }, blk);
      assert.equal(direct.json.success, false);
      assert.deepEqual(direct.json.blocked_by_policy, { host: 'evil.example', rule: 'evil.example', source: 'config' });
    } finally {
      await closeServices(blk);
    }
  });

  it('refuses private addresses when they are not allowed: directly and after a redirect (checked at connect time)', async () => {
    // shop.test resolves to the test server, counted as public here; intranet.test resolves to a private address.
    const strict = makeServices();
    strict.slots.set(browserUrlSeamsSlot, {
      resolve: async (h: string) => (h === 'shop.test' ? ['127.0.0.1'] : h === 'intranet.test' ? ['10.1.2.3'] : Promise.reject(new Error('ENOTFOUND'))),
      classify: (ip: string) => (ip === '127.0.0.1' ? { blocked: false, kind: 'public' } : classifyAddress(ip)),
    });
    try {
      const ok = await call(browserNavigate, { url: `http://shop.test:${port}/` }, strict);
      assert.equal(ok.json.success, true, ok.raw);
      const r = await call(browserNavigate, { url: `http://shop.test:${port}/redirect-private` }, strict);
      assert.equal(r.json.success, false);
      assert.match(r.json.error, /intranet\.test resolved to 10\.1\.2\.3, a private address/);
      const direct = await call(browserNavigate, { url: `http://127.0.0.2:${port}/` }, strict);
      assert.equal(direct.json.success, false);
      assert.match(direct.json.error, /loopback/);
      const file = await call(browserNavigate, { url: 'file:///etc/passwd' }, strict);
      assert.match(file.json.error, /only opens http and https/);
      const secret = await call(browserNavigate, { url: `http://shop.test:${port}/?k=sk-ant-abcdefghijklmnop1234` }, strict);
      assert.match(secret.json.error, /API key or token/);
    } finally {
      await closeServices(strict);
    }
  });

  it('other tools need a page; browser_close closes the browser; the session end closes it too', async () => {
    const fresh = services();
    const none = await call(browserSnapshot, {}, fresh);
    assert.equal(none.json.success, false);
    assert.match(none.json.error, /browser_navigate first/);
    await call(browserNavigate, { url: `${base}/about` }, fresh);
    const b = existingBrowserSession(fresh)!;
    assert.equal(b.isOpen, true);
    const closed = await call(browserClose, {}, fresh);
    assert.deepEqual(closed.json, { success: true, closed: true });
    assert.equal(b.isOpen, false);
    const again = await call(browserNavigate, { url: `${base}/about` }, fresh);
    assert.equal(again.json.title, 'About');
    await closeServices(fresh);
    assert.equal(b.isOpen, false);
  });

  it('unknown refs get a clear message', async () => {
    await call(browserNavigate, { url: `${base}/about` }, s);
    const r = await call(browserClick, { ref: '@e999' }, s);
    assert.equal(r.json.success, false);
    assert.match(r.json.error, /@e999 was not found.*browser_snapshot/);
  });
});
