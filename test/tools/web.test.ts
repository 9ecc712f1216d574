// web_search / web_extract against local fake servers of each backend's HTTP API, and the safe
// fetcher's SSRF rules (per redirect hop, at connect time).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { classifyAddress } from '../../src/policy/ssrf.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import webExtract from '../../src/tools/defs/web-extract.ts';
import webSearch from '../../src/tools/defs/web-search.ts';
import { FetchBlockedError, safeFetch } from '../../src/tools/web/fetch.ts';
import { call, makeServices } from './helpers.ts';

const ARTICLE = `<!doctype html><html><head><title>Fake Article</title></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<article><h1>Understanding Widgets</h1>
<p>Widgets are <strong>small</strong> components. See <a href="/docs/widgets">the docs</a> for details. ${'Widgets compose well with other widgets. '.repeat(20)}</p>
<h2>Usage</h2><ul><li>Install the widget</li><li>Configure it</li></ul>
<pre><code>widget.run()</code></pre></article>
<footer>Copyright footer text</footer><script>alert(1)</script></body></html>`;

let server: Server;
let base = '';
const seen: { method: string; path: string; headers: IncomingMessage['headers']; body: any }[] = [];

function json(res: import('node:http').ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ method: req.method!, path: url.pathname, headers: req.headers, body });
      const p = url.pathname;
      const auth = req.headers.authorization;
      const xkey = req.headers['x-api-key'];
      // Tavily
      if (p === '/tavily/search') {
        if (auth !== 'Bearer tvly-good') return json(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
        return json(res, 200, { results: Array.from({ length: body.max_results }, (_, i) => ({ title: `T${i} ${body.query}`, url: `https://t.example/${i}`, content: `about ${body.query}` })) });
      }
      if (p === '/tavily/extract') return json(res, 200, { results: body.urls.map((u: string) => ({ url: u, raw_content: `# Page ${u}\n\n${'x'.repeat(20_000)}` })), failed_results: [] });
      // Exa
      if (p === '/exa/search') {
        if (xkey !== 'exa-good') return json(res, 401, { error: 'Invalid API key' });
        return json(res, 200, { results: [{ title: `E ${body.query}`, url: 'https://e.example/1', text: `exa text ${body.numResults}` }] });
      }
      if (p === '/exa/contents') return json(res, 200, { results: body.urls.map((u: string) => ({ url: u, title: 'Exa page', text: 'exa body' })) });
      // Firecrawl
      if (p === '/fc/v1/search') {
        if (auth !== 'Bearer fc-good') return json(res, 401, { success: false, error: 'Unauthorized' });
        return json(res, 200, { success: true, data: [{ title: `F ${body.query}`, url: 'https://f.example/1', description: `limit ${body.limit}` }] });
      }
      if (p === '/fc/v1/scrape') return json(res, 200, { success: true, data: { markdown: `# Scraped ${body.url}`, metadata: { title: 'FC' } } });
      // Parallel
      if (p === '/par/v1beta/search') {
        if (xkey !== 'par-good') return json(res, 403, { error: { message: 'forbidden' } });
        return json(res, 200, { results: [{ title: `P ${body.objective}`, url: 'https://p.example/1', excerpts: ['one', 'two'] }] });
      }
      if (p === '/par/v1beta/extract') return json(res, 200, { results: body.urls.map((u: string) => ({ url: u, title: 'Par', full_content: 'parallel full' })), errors: [] });
      // SearXNG
      if (p === '/searx/search') {
        if (url.searchParams.get('format') !== 'json') return json(res, 403, {});
        return json(res, 200, { results: [{ title: `S ${url.searchParams.get('q')}`, url: 'https://s.example/1', content: 'searx content' }, { title: 'S2', url: 'https://s.example/2', content: '' }] });
      }
      // Pages for local extraction
      if (p === '/article') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(ARTICLE);
      }
      if (p === '/plain') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('just text');
      }
      if (p === '/redirect-meta') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      if (p === '/redirect-internal') {
        res.writeHead(301, { location: `http://internal.test:${(server.address() as { port: number }).port}/plain` });
        return res.end();
      }
      if (p === '/redirect-ok') {
        res.writeHead(307, { location: `http://ok.test:${(server.address() as { port: number }).port}/plain` });
        return res.end();
      }
      if (p === '/missing') return json(res, 404, {});
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

const envFor = (extra: Record<string, string>) => {
  const s = makeServices();
  Object.assign(s.env, extra);
  return s;
};

describe('web_search backends (fake servers)', () => {
  it('Tavily', async () => {
    const s = envFor({ TAVILY_API_KEY: 'tvly-good', TAVILY_BASE_URL: `${base}/tavily` });
    const r = await call(webSearch, { query: 'node streams', limit: 3 }, s);
    assert.equal(r.json.backend, 'tavily');
    assert.equal(r.json.data.web.length, 3);
    assert.deepEqual(r.json.data.web[1], { title: 'T1 node streams', url: 'https://t.example/1', description: 'about node streams', position: 2 });
  });
  it('Exa, Firecrawl, Parallel, SearXNG', async () => {
    const exa = await call(webSearch, { query: 'q1' }, envFor({ EXA_API_KEY: 'exa-good', EXA_BASE_URL: `${base}/exa` }));
    assert.equal(exa.json.data.web[0].title, 'E q1');
    assert.equal(exa.json.data.web[0].description, 'exa text 5');
    const fc = await call(webSearch, { query: 'q2', limit: 7 }, envFor({ FIRECRAWL_API_KEY: 'fc-good', FIRECRAWL_API_URL: `${base}/fc` }));
    assert.equal(fc.json.data.web[0].description, 'limit 7');
    const par = await call(webSearch, { query: 'q3' }, envFor({ PARALLEL_API_KEY: 'par-good', PARALLEL_BASE_URL: `${base}/par` }));
    assert.equal(par.json.data.web[0].description, 'one two');
    const sx = await call(webSearch, { query: 'q4', limit: 1 }, envFor({ SEARXNG_URL: `${base}/searx` }));
    assert.equal(sx.json.backend, 'searxng');
    assert.deepEqual(sx.json.data.web.map((h: any) => h.title), ['S q4']);
  });
  it('explains API errors', async () => {
    const r = await call(webSearch, { query: 'x' }, envFor({ TAVILY_API_KEY: 'tvly-bad', TAVILY_BASE_URL: `${base}/tavily` }));
    assert.equal(r.isError, true);
    assert.match(r.json.error, /Tavily answered HTTP 401.*Check the API key/);
    const p = await call(webSearch, { query: 'x' }, envFor({ PARALLEL_API_KEY: 'nope', PARALLEL_BASE_URL: `${base}/par` }));
    assert.match(p.json.error, /HTTP 403: forbidden/);
  });
  it('picks the backend by key, or web.backend; hides web_search without one', () => {
    const reg = new ToolRegistry();
    reg.register(webSearch);
    reg.register(webExtract);
    const none = makeServices();
    const av = reg.availability(none);
    assert.equal(av.find((x) => x.name === 'web_search')!.available, false);
    assert.equal(av.find((x) => x.name === 'web_extract')!.available, true, 'extraction works without a backend');
    const both = envFor({ TAVILY_API_KEY: 'tvly-good', SEARXNG_URL: `${base}/searx` });
    both.config.web.backend = 'searxng';
    assert.equal(reg.availability(both).find((x) => x.name === 'web_search')!.available, true);
    const missing = makeServices();
    missing.config.web.backend = 'exa';
    assert.equal(reg.availability(missing).find((x) => x.name === 'web_search')!.available, false);
  });
});

describe('web_extract', () => {
  it('uses the backend extract API and caps each page', async () => {
    const s = envFor({ TAVILY_API_KEY: 'tvly-good', TAVILY_BASE_URL: `${base}/tavily` });
    const r = await call(webExtract, { urls: ['https://docs.example/a'] }, s);
    assert.equal(r.json.backend, 'tavily');
    const page = r.json.results[0];
    assert.equal(page.truncated, true);
    assert.ok(page.content.length < 15_300);
    assert.match(page.content, /^# Page https:\/\/docs\.example\/a/);
    assert.match(page.content, /truncated: [\d,]+ more characters/);
  });

  it('other backends extract too', async () => {
    const fc = await call(webExtract, { urls: ['https://x.example/p'] }, envFor({ FIRECRAWL_API_KEY: 'fc-good', FIRECRAWL_API_URL: `${base}/fc` }));
    assert.equal(fc.json.results[0].content, '# Scraped https://x.example/p');
    const exa = await call(webExtract, { urls: ['https://x.example/q'] }, envFor({ EXA_API_KEY: 'exa-good', EXA_BASE_URL: `${base}/exa` }));
    assert.equal(exa.json.results[0].content, 'exa body');
    const par = await call(webExtract, { urls: ['https://x.example/r'] }, envFor({ PARALLEL_API_KEY: 'par-good', PARALLEL_BASE_URL: `${base}/par` }));
    assert.equal(par.json.results[0].content, 'parallel full');
  });

  it('refuses internal URLs even through a backend', async () => {
    const before = seen.length;
    const s = envFor({ TAVILY_API_KEY: 'tvly-good', TAVILY_BASE_URL: `${base}/tavily` });
    const r = await call(webExtract, { urls: ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/'] }, s);
    assert.equal(r.isError, true);
    assert.ok(r.json.results.every((x: any) => /Blocked/.test(x.error)));
    assert.equal(seen.length, before, 'the backend was not even asked');
  });

  it('fetches and converts pages locally (SearXNG has no extract API) with private URLs opted in', async () => {
    const s = envFor({ SEARXNG_URL: `${base}/searx`, HERMES_ALLOW_PRIVATE_URLS: '1' });
    const r = await call(webExtract, { urls: [`${base}/article`, `${base}/plain`, `${base}/missing`] }, s);
    const [article, plain, missing] = r.json.results;
    assert.equal(article.title, 'Fake Article');
    assert.match(article.content, /^# Understanding Widgets|## Usage/m);
    assert.match(article.content, /\*\*small\*\*/);
    assert.match(article.content, new RegExp(`\\[the docs\\]\\(${base.replace(/[.]/g, '\\.')}/docs/widgets\\)`));
    assert.match(article.content, /```\nwidget\.run\(\)\n```/);
    assert.doesNotMatch(article.content, /alert\(1\)|Copyright footer/);
    assert.equal(plain.content, 'just text');
    assert.match(missing.error, /HTTP 404/);
  });

  it('blocks loopback without HERMES_ALLOW_PRIVATE_URLS (IP and names that resolve to it)', async () => {
    const before = seen.length;
    const s = makeServices();
    const port = (server.address() as { port: number }).port;
    const r = await call(webExtract, { urls: [`${base}/article`, `http://localhost:${port}/article`, `http://2130706433:${port}/article`, `http://[::ffff:127.0.0.1]:${port}/article`] }, s);
    assert.equal(r.isError, true);
    for (const x of r.json.results) assert.match(x.error, /Blocked|loopback/, JSON.stringify(x));
    assert.equal(seen.length, before, 'no request reached the server');
  });
});

describe('safeFetch: redirects and rebinding', () => {
  const port = () => (server.address() as { port: number }).port;
  // In these tests 127.0.0.1 plays a public server; 10/8 and 169.254/16 stay internal.
  const classify = (ip: string) => (ip === '127.0.0.1' ? { blocked: false, kind: 'public' } : classifyAddress(ip));
  const names: Record<string, string[]> = { 'ok.test': ['127.0.0.1'], 'internal.test': ['10.0.0.5'] };
  const resolve = async (h: string) => {
    if (!names[h]) throw new Error(`ENOTFOUND ${h}`);
    return names[h];
  };

  it('follows an allowed redirect', async () => {
    const r = await safeFetch(`http://127.0.0.1:${port()}/redirect-ok`, { allowPrivate: false, classify, resolve });
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), 'just text');
    assert.match(r.url, /^http:\/\/ok\.test:\d+\/plain$/);
  });

  it('re-checks every hop: a redirect to metadata or a private name is blocked', async () => {
    await assert.rejects(safeFetch(`http://127.0.0.1:${port()}/redirect-meta`, { allowPrivate: false, classify, resolve }), (e: Error) => e instanceof FetchBlockedError && /169\.254\.169\.254.*metadata/.test(e.message));
    const before = seen.length;
    await assert.rejects(safeFetch(`http://127.0.0.1:${port()}/redirect-internal`, { allowPrivate: false, classify, resolve }), (e: Error) => e instanceof FetchBlockedError && /internal\.test \(10\.0\.0\.5\)/.test(e.message));
    assert.equal(seen.length, before + 1, 'only the first hop was requested');
  });

  it('checks the address actually connected to (DNS rebinding)', async () => {
    let calls = 0;
    const flipping = async (h: string) => {
      if (h !== 'rebind.test') throw new Error('ENOTFOUND');
      return ++calls === 1 ? ['127.0.0.1'] : ['10.1.2.3'];
    };
    await assert.rejects(safeFetch(`http://rebind.test:${port()}/plain`, { allowPrivate: false, classify, resolve: flipping }), (e: Error) => e instanceof FetchBlockedError && /10\.1\.2\.3/.test(e.message));
  });

  it('caps redirects', async () => {
    const loop = createServer((req, res) => {
      res.writeHead(302, { location: req.url + 'x' });
      res.end();
    });
    await new Promise<void>((r) => loop.listen(0, '127.0.0.1', r));
    const p = (loop.address() as { port: number }).port;
    await assert.rejects(safeFetch(`http://127.0.0.1:${p}/`, { allowPrivate: true }), /Too many redirects/);
    loop.close();
  });
});
