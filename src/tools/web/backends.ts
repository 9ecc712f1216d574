// Web search/extract backends: small adapters over each service's HTTP API, chosen by web.backend
// or by which key is set. Base URLs are overridable for self-hosting and for tests.

export interface SearchHit {
  title: string;
  url: string;
  description: string;
}

export interface ExtractedPage {
  url: string;
  title: string;
  content: string;
  error?: string;
}

export interface WebBackend {
  name: string;
  search(query: string, limit: number, signal: AbortSignal): Promise<SearchHit[]>;
  /** Backends without an extract API leave extraction to the local fetcher. */
  extract?(urls: string[], signal: AbortSignal): Promise<ExtractedPage[]>;
}

export class WebBackendError extends Error {}

async function post(url: string, body: unknown, headers: Record<string, string>, signal: AbortSignal, name: string): Promise<any> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]) });
  } catch (e) {
    throw new WebBackendError(`${name}: request failed (${(e as Error).message}).`);
  }
  return parse(res, name);
}

async function parse(res: Response, name: string): Promise<any> {
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = null;
  }
  if (!res.ok) {
    const msg = json?.error?.message ?? json?.error ?? json?.detail ?? json?.message ?? text.slice(0, 300);
    const hint = res.status === 401 || res.status === 403 ? ' Check the API key.' : res.status === 429 ? ' Rate limited; try again later.' : res.status === 402 ? ' The account is out of credits.' : '';
    throw new WebBackendError(`${name} answered HTTP ${res.status}: ${typeof msg === 'string' ? msg : JSON.stringify(msg)}.${hint}`);
  }
  if (json === null) throw new WebBackendError(`${name} returned something that is not JSON.`);
  return json;
}

const clip = (s: unknown, n = 500) => {
  const t = typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '';
  return t.length > n ? t.slice(0, n) + '…' : t;
};
const base = (v: string | undefined, d: string) => (v?.trim() || d).replace(/\/+$/, '');

export function tavily(key: string, env: NodeJS.ProcessEnv): WebBackend {
  const root = base(env.TAVILY_BASE_URL, 'https://api.tavily.com');
  const auth = { authorization: `Bearer ${key}` };
  return {
    name: 'tavily',
    async search(query, limit, signal) {
      const j = await post(`${root}/search`, { query, max_results: limit, search_depth: 'basic' }, auth, signal, 'Tavily');
      return (j.results ?? []).map((r: any) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), description: clip(r.content) }));
    },
    async extract(urls, signal) {
      const j = await post(`${root}/extract`, { urls }, auth, signal, 'Tavily');
      const ok: ExtractedPage[] = (j.results ?? []).map((r: any) => ({ url: String(r.url), title: String(r.title ?? ''), content: String(r.raw_content ?? r.content ?? '') }));
      const failed: ExtractedPage[] = (j.failed_results ?? []).map((r: any) => ({ url: String(r.url), title: '', content: '', error: String(r.error ?? 'extraction failed') }));
      return [...ok, ...failed];
    },
  };
}

export function exa(key: string, env: NodeJS.ProcessEnv): WebBackend {
  const root = base(env.EXA_BASE_URL, 'https://api.exa.ai');
  const auth = { 'x-api-key': key };
  return {
    name: 'exa',
    async search(query, limit, signal) {
      const j = await post(`${root}/search`, { query, numResults: limit, type: 'auto', contents: { text: { maxCharacters: 600 } } }, auth, signal, 'Exa');
      return (j.results ?? []).map((r: any) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), description: clip(r.summary ?? r.highlights?.[0] ?? r.text) }));
    },
    async extract(urls, signal) {
      const j = await post(`${root}/contents`, { urls, text: true }, auth, signal, 'Exa');
      const pages: ExtractedPage[] = (j.results ?? []).map((r: any) => ({ url: String(r.url ?? r.id), title: String(r.title ?? ''), content: String(r.text ?? '') }));
      for (const st of j.statuses ?? []) if (st.status === 'error') pages.push({ url: String(st.id), title: '', content: '', error: String(st.error?.tag ?? 'extraction failed') });
      return pages;
    },
  };
}

export function firecrawl(key: string | undefined, env: NodeJS.ProcessEnv): WebBackend {
  const root = base(env.FIRECRAWL_API_URL, 'https://api.firecrawl.dev');
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return {
    name: 'firecrawl',
    async search(query, limit, signal) {
      const j = await post(`${root}/v1/search`, { query, limit }, auth, signal, 'Firecrawl');
      const data = Array.isArray(j.data) ? j.data : (j.data?.web ?? []);
      return data.map((r: any) => ({ title: String(r.title ?? r.metadata?.title ?? ''), url: String(r.url ?? ''), description: clip(r.description ?? r.markdown) }));
    },
    async extract(urls, signal) {
      return Promise.all(
        urls.map(async (url) => {
          try {
            const j = await post(`${root}/v1/scrape`, { url, formats: ['markdown'], onlyMainContent: true }, auth, signal, 'Firecrawl');
            if (j.success === false) return { url, title: '', content: '', error: String(j.error ?? 'scrape failed') };
            return { url, title: String(j.data?.metadata?.title ?? ''), content: String(j.data?.markdown ?? '') };
          } catch (e) {
            return { url, title: '', content: '', error: (e as Error).message };
          }
        }),
      );
    },
  };
}

export function parallel(key: string, env: NodeJS.ProcessEnv): WebBackend {
  const root = base(env.PARALLEL_BASE_URL, 'https://api.parallel.ai');
  const headers = { 'x-api-key': key, 'parallel-beta': 'search-extract-2025-10-10' };
  return {
    name: 'parallel',
    async search(query, limit, signal) {
      const j = await post(`${root}/v1beta/search`, { objective: query, search_queries: [query], max_results: limit }, headers, signal, 'Parallel');
      return (j.results ?? []).map((r: any) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), description: clip(Array.isArray(r.excerpts) ? r.excerpts.join(' ') : r.excerpt) }));
    },
    async extract(urls, signal) {
      const j = await post(`${root}/v1beta/extract`, { urls, full_content: true, excerpts: false }, headers, signal, 'Parallel');
      const pages: ExtractedPage[] = (j.results ?? []).map((r: any) => ({ url: String(r.url), title: String(r.title ?? ''), content: String(r.full_content ?? (r.excerpts ?? []).join('\n\n')) }));
      for (const e of j.errors ?? []) pages.push({ url: String(e.url), title: '', content: '', error: String(e.content ?? e.error_type ?? 'extraction failed') });
      return pages;
    },
  };
}

export function searxng(url: string): WebBackend {
  const root = url.trim().replace(/\/+$/, '');
  return {
    name: 'searxng',
    async search(query, limit, signal) {
      let res: Response;
      try {
        res = await fetch(`${root}/search?${new URLSearchParams({ q: query, format: 'json' })}`, { headers: { accept: 'application/json' }, signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]) });
      } catch (e) {
        throw new WebBackendError(`SearXNG at ${root}: request failed (${(e as Error).message}).`);
      }
      if (res.status === 403) throw new WebBackendError(`SearXNG at ${root} refused JSON output (HTTP 403). Enable "json" under search.formats in its settings.yml.`);
      const j = await parse(res, 'SearXNG');
      return (j.results ?? []).slice(0, limit).map((r: any) => ({ title: String(r.title ?? ''), url: String(r.url ?? ''), description: clip(r.content) }));
    },
  };
}

/** Creates the adapter for a backend chosen by webBackendName (web/select.ts). */
export function createWebBackend(name: string, env: NodeJS.ProcessEnv): WebBackend {
  switch (name) {
    case 'firecrawl':
      return firecrawl(env.FIRECRAWL_API_KEY, env);
    case 'tavily':
      return tavily(env.TAVILY_API_KEY ?? '', env);
    case 'exa':
      return exa(env.EXA_API_KEY ?? '', env);
    case 'parallel':
      return parallel(env.PARALLEL_API_KEY ?? '', env);
    case 'searxng':
      return searxng(env.SEARXNG_URL ?? '');
    default:
      throw new WebBackendError(`Unknown web backend "${name}".`);
  }
}
