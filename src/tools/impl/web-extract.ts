// web_extract's implementation: through the backend's extract API when it has one, else fetched
// here (SSRF-checked per redirect hop) and converted with Readability + Turndown.
import { lookup } from 'node:dns/promises';
import type { ToolOutcome } from '../../agent/types.ts';
import { checkUrl, privateUrlsAllowed } from '../../policy/ssrf.ts';
import { fail, ok } from '../result.ts';
import type { ToolContext, ToolSession } from '../types.ts';
import type { WebExtractArgs } from '../defs/web-extract.ts';
import { searchBackendName } from '../defs/web-search.ts';
import { createWebBackend } from '../web/backends.ts';
import { capChars, htmlToMarkdown } from '../web/extract.ts';
import { FetchBlockedError, safeFetch, WebsitePolicyError } from '../web/fetch.ts';
import { isPdf, pdfToText } from '../web/pdf.ts';
import { websiteBlocked } from '../web/website-policy.ts';
import { HAS_EXTRACT } from '../web/select.ts';

interface PageResult {
  url: string;
  title?: string;
  content?: string;
  truncated?: boolean;
  error?: string;
  blocked_by_policy?: { host: string; rule: string; source: string };
}

/** The result entry for a URL the website blocklist refuses (Hermes's shape). */
function policyBlocked(s: ToolSession, url: string): PageResult | null {
  const b = websiteBlocked(s, url);
  return b ? { url, title: '', content: '', error: b.message, blocked_by_policy: { host: b.host, rule: b.rule, source: b.source } } : null;
}

const resolveAll = async (h: string) => (await lookup(h, { all: true })).map((a) => a.address);

export async function fetchAsMarkdown(url: string, s: ToolSession, signal: AbortSignal): Promise<PageResult> {
  try {
    const r = await safeFetch(url, { allowPrivate: privateUrlsAllowed(s.env, s.config), signal, timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024, blocked: (u) => websiteBlocked(s, u) });
    if (r.status >= 400) return { url, error: `HTTP ${r.status} from ${r.url}` };
    const ct = r.contentType.toLowerCase();
    if (isPdf(ct, r.body)) {
      if (r.truncated) return { url: r.url, error: 'The PDF is larger than 10 MB; only whole files can be read. Download it with the terminal and read it there.' };
      const pdf = await pdfToText(r.body);
      if (!pdf.content.trim()) return { url: r.url, error: `The PDF (${pdf.pages} page(s)) has no text layer — probably scanned images. Use vision_analyze on its pages instead.` };
      return { url: r.url, title: pdf.title, content: pdf.content };
    }
    const text = r.body.toString('utf8');
    if (ct.includes('html') || (!ct && /^\s*<(!doctype|html)/i.test(text))) {
      const md = await htmlToMarkdown(text, r.url);
      return { url: r.url, title: md.title, content: md.content };
    }
    if (ct.startsWith('text/') || ct.includes('json') || ct.includes('xml') || ct.includes('markdown')) return { url: r.url, title: '', content: text };
    return { url, error: `Unsupported content type "${ct || 'unknown'}".` };
  } catch (e) {
    if (e instanceof WebsitePolicyError) return { url, title: '', content: '', error: e.message, blocked_by_policy: e.block };
    if (e instanceof FetchBlockedError) return { url, error: e.message };
    if (/PDF/.test((e as Error).message)) return { url, error: (e as Error).message };
    return { url, error: `Could not fetch ${url}: ${(e as Error).message}` };
  }
}

export async function runWebExtract(a: WebExtractArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const s = ctx;
  const limit = Number((s.config.web as { extract_char_limit?: number } | undefined)?.extract_char_limit) || 15_000;
  const allowPrivate = privateUrlsAllowed(s.env, s.config);
  const results: PageResult[] = [];
  const allowed: string[] = [];
  const name = searchBackendName(s);
  const backend = typeof name === 'string' && HAS_EXTRACT.has(name) ? createWebBackend(name, s.env) : null;
  for (const u of a.urls) {
    const blocked = policyBlocked(s, u);
    if (blocked) {
      results.push(blocked);
      continue;
    }
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
      // A backend may have followed a redirect onto a blocked host.
      const blocked = p.url ? policyBlocked(s, p.url) : null;
      if (blocked) {
        results.push(blocked);
        continue;
      }
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
}
