// security.website_blocklist (Hermes's semantics): hosts, subdomains, `*.` globs, URL-shaped rules,
// shared rule files; enforced by web_extract (each URL, each redirect hop, backend results),
// web_search (results left out) and vision's downloads. The SSRF rules still apply.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkWebsite, hostMatches, normalizeRule } from '../../src/policy/website.ts';
import webExtract from '../../src/tools/defs/web-extract.ts';
import webSearch from '../../src/tools/defs/web-search.ts';
import { safeFetch, WebsitePolicyError } from '../../src/tools/web/fetch.ts';
import { websitePolicy } from '../../src/tools/web/website-policy.ts';
import { call, makeServices } from './helpers.ts';

let server: Server;
let base = '';
const hits: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const p = new URL(req.url!, 'http://x').pathname;
      hits.push(p);
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (p === '/tavily/extract') return json({ results: JSON.parse(raw).urls.map((u: string) => ({ url: u === 'https://ok.example/moved' ? 'https://intranet.corp.example/landing' : u, raw_content: `page ${u}` })), failed_results: [] });
      if (p === '/tavily/search') return json({ results: [{ title: 'a', url: 'https://docs.example.com/a', content: '' }, { title: 'b', url: 'https://admin.example.org/b', content: '' }, { title: 'c', url: 'https://fine.example.net/c', content: '' }] });
      if (p === '/redirect') {
        res.writeHead(302, { location: `http://blocked.test:${(server.address() as { port: number }).port}/plain` });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

function servicesWith(blocklist: Record<string, unknown>, env: Record<string, string> = {}) {
  const s = makeServices();
  Object.assign(s.env, env);
  (s.config.security as Record<string, unknown>).website_blocklist = blocklist;
  return s;
}

describe('website blocklist', () => {
  it('normalizes rules and matches hosts as Hermes does', () => {
    assert.equal(normalizeRule('https://Admin.Example.com:8443/path?q=1'), 'admin.example.com');
    assert.equal(normalizeRule('www.example.com/x'), 'example.com');
    assert.equal(normalizeRule('user@host.example:22'), 'host.example');
    assert.equal(normalizeRule('# comment'), null);
    assert.equal(normalizeRule('   '), null);
    assert.equal(normalizeRule('169.254.169.254'), '169.254.169.254');
    assert.ok(hostMatches('docs.example.com', 'example.com'));
    assert.ok(hostMatches('example.com', 'example.com'));
    assert.ok(!hostMatches('notexample.com', 'example.com'));
    assert.ok(hostMatches('a.internal.corp', '*.internal.corp'));
    assert.ok(!hostMatches('internal.corp', '*.internal.corp'));
    const policy = { enabled: true, rules: [{ pattern: 'example.com', source: 'config' }] };
    assert.deepEqual(checkWebsite('https://docs.example.com/page', policy), {
      url: 'https://docs.example.com/page',
      host: 'docs.example.com',
      rule: 'example.com',
      source: 'config',
      message: "Blocked by website policy: 'docs.example.com' matched rule 'example.com' from config",
    });
    assert.equal(checkWebsite('https://docs.example.com/', { ...policy, enabled: false }), null);
    assert.equal(checkWebsite('https://other.org/', policy), null);
  });

  it('reads config domains and shared files (relative to HERMES_HOME, # comments, bad files skipped)', () => {
    const s = servicesWith({ enabled: true, domains: ['admin.example.org', '*.corp.example'], shared_files: ['blocked.txt', '/nonexistent/list.txt'] });
    writeFileSync(join(s.home, 'blocked.txt'), '# team list\nhttps://evil.example.net/x\n\nwww.ads.example\n');
    const p = websitePolicy(s);
    assert.deepEqual(
      p.rules.map((r) => [r.pattern, r.source === 'config' ? 'config' : 'file']),
      [
        ['admin.example.org', 'config'],
        ['*.corp.example', 'config'],
        ['evil.example.net', 'file'],
        ['ads.example', 'file'],
      ],
    );
    assert.deepEqual(websitePolicy(servicesWith({ enabled: false, domains: ['x.example'] })).rules, []);
  });

  it('web_extract refuses blocked URLs before any request, and blocked pages a backend was redirected to', async () => {
    const s = servicesWith({ enabled: true, domains: ['example.com', 'corp.example'] }, { TAVILY_API_KEY: 'k', TAVILY_BASE_URL: `${base}/tavily` });
    const before = hits.length;
    const r = await call(webExtract, { urls: ['https://docs.example.com/a', 'https://ok.example/fine', 'https://ok.example/moved'] }, s);
    const [blocked, fine, moved] = r.json.results;
    assert.deepEqual(blocked, { url: 'https://docs.example.com/a', title: '', content: '', error: "Blocked by website policy: 'docs.example.com' matched rule 'example.com' from config", blocked_by_policy: { host: 'docs.example.com', rule: 'example.com', source: 'config' } });
    assert.equal(fine.content, 'page https://ok.example/fine');
    assert.match(moved.error, /intranet\.corp\.example.*corp\.example/);
    assert.equal(hits.length, before + 1, 'one extract call, without the blocked URL');
  });

  it('a redirect onto a blocked host is stopped before it is followed', async () => {
    const blocked = (u: string) => checkWebsite(u, { enabled: true, rules: [{ pattern: 'blocked.test', source: 'config' }] });
    const before = hits.length;
    await assert.rejects(safeFetch(`${base}/redirect`, { allowPrivate: true, blocked }), (e: Error) => e instanceof WebsitePolicyError && e.block.host === 'blocked.test');
    assert.equal(hits.length, before + 1, 'only the first hop was requested');
  });

  it('web_search leaves blocked results out and says how many', async () => {
    const s = servicesWith({ enabled: true, domains: ['example.com', 'admin.example.org'] }, { TAVILY_API_KEY: 'k', TAVILY_BASE_URL: `${base}/tavily` });
    const r = await call(webSearch, { query: 'blocklist test query' }, s);
    assert.deepEqual(
      r.json.data.web.map((h: { url: string }) => h.url),
      ['https://fine.example.net/c'],
    );
    assert.equal(r.json.blocked_by_policy, 2);
  });
});
