// web_extract: read web pages as clean Markdown. Through the backend's extract API when it has one,
// else fetched here (SSRF-checked per redirect hop) and converted with Readability + Turndown.
import { lookup } from 'node:dns/promises';
import { z } from 'zod';
import { checkUrl, privateUrlsAllowed } from '../policy/ssrf.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { ToolServices } from './types.ts';
import { searchBackendFor } from './web-search.ts';
import { capChars, htmlToMarkdown } from './web/extract.ts';
import { FetchBlockedError, safeFetch } from './web/fetch.ts';

interface PageResult {
  url: string;
  title?: string;
  content?: string;
  truncated?: boolean;
  error?: string;
}

const resolveAll = async (h: string) => (await lookup(h, { all: true })).map((a) => a.address);

export async function fetchAsMarkdown(url: string, s: ToolServices, signal: AbortSignal): Promise<PageResult> {
  try {
    const r = await safeFetch(url, { allowPrivate: privateUrlsAllowed(s.env, s.config), signal, timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024 });
    if (r.status >= 400) return { url, error: `HTTP ${r.status} from ${r.url}` };
    const ct = r.contentType.toLowerCase();
    const text = r.body.toString('utf8');
    if (ct.includes('html') || (!ct && /^\s*<(!doctype|html)/i.test(text))) {
      const md = await htmlToMarkdown(text, r.url);
      return { url: r.url, title: md.title, content: md.content };
    }
    if (ct.startsWith('text/') || ct.includes('json') || ct.includes('xml') || ct.includes('markdown')) return { url: r.url, title: '', content: text };
    if (ct.includes('pdf')) return { url, error: 'This is a PDF. Reading PDFs needs a web backend with extraction (Firecrawl, Tavily, Exa or Parallel).' };
    return { url, error: `Unsupported content type "${ct || 'unknown'}".` };
  } catch (e) {
    if (e instanceof FetchBlockedError) return { url, error: e.message };
    return { url, error: `Could not fetch ${url}: ${(e as Error).message}` };
  }
}

export default defineTool({
  name: 'web_extract',
  toolset: 'web',
  emoji: '📄',
  parallelSafe: true,
  description:
    'Read web pages as clean Markdown (main content only). Give one or more URLs (at most 5). Each page is capped (web.extract_char_limit, 15,000 characters). ' +
    'Internal, private and cloud-metadata addresses are refused.',
  schema: z.object({
    urls: z.array(z.string().min(1)).min(1).max(5).describe('URLs to read (http or https)'),
  }),
  async handler(a, ctx) {
    const s = ctx.services;
    const limit = Number((s.config.web as { extract_char_limit?: number } | undefined)?.extract_char_limit) || 15_000;
    const allowPrivate = privateUrlsAllowed(s.env, s.config);
    const results: PageResult[] = [];
    const allowed: string[] = [];
    const b = searchBackendFor(s);
    const backend = b && !('error' in b) && b.extract ? b : null;
    for (const u of a.urls) {
      // A remote extract API fetches from its own network: a name we cannot resolve here is fine.
      const v = await checkUrl(u, { allowPrivate, lookup: resolveAll, allowUnresolved: !!backend });
      if (v.ok) allowed.push(v.url.toString());
      else results.push({ url: u, error: v.reason });
    }
    if (allowed.length) {
      let pages: PageResult[];
      if (backend) {
        try {
          pages = await backend.extract!(allowed, ctx.signal);
        } catch (e) {
          return fail(`web_extract via ${backend.name} failed: ${(e as Error).message}`, { results });
        }
      } else pages = await Promise.all(allowed.map((u) => fetchAsMarkdown(u, s, ctx.signal)));
      for (const p of pages) {
        if (p.error || !p.content) {
          results.push({ url: p.url, error: p.error ?? 'No content could be extracted from this page.' });
          continue;
        }
        const capped = capChars(p.content, limit);
        results.push({ url: p.url, title: p.title ?? '', content: capped.text, ...(capped.truncated ? { truncated: true } : {}) });
      }
    }
    const order = new Map(a.urls.map((u, i) => [u, i]));
    results.sort((x, y) => (order.get(x.url) ?? 99) - (order.get(y.url) ?? 99));
    const anyOk = results.some((r) => !r.error);
    return { content: ok({ results, ...(backend ? { backend: backend.name } : {}) }), isError: !anyOk };
  },
});
