// web_search: search the web through the configured backend (Firecrawl, Tavily, Exa, Parallel, SearXNG).
import { z } from 'zod';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { ToolServices } from './types.ts';
import { webBackend, type SearchHit, type WebBackend } from './web/backends.ts';

const TTL_MS = 20 * 60_000;
const cache = new Map<string, { at: number; hits: SearchHit[] }>();

export function searchBackendFor(s: ToolServices): WebBackend | { error: string } | null {
  return webBackend(s.env, (s.config.web as { backend?: string } | undefined)?.backend);
}

export default defineTool({
  name: 'web_search',
  toolset: 'web',
  emoji: '🔍',
  parallelSafe: true,
  description:
    'Search the web. Returns up to `limit` results (title, url, description). Use web_extract to read a page in full.',
  schema: z.object({
    query: z.string().min(1).describe('What to search for'),
    limit: z.coerce.number().int().min(1).max(20).optional().describe('Number of results (default 5, at most 20)'),
  }),
  check: (s) => {
    const b = searchBackendFor(s);
    return !!b && !('error' in b);
  },
  async handler(a, ctx) {
    const b = searchBackendFor(ctx.services);
    if (!b) return fail('No web search backend is configured. Set one of FIRECRAWL_API_KEY, TAVILY_API_KEY, EXA_API_KEY, PARALLEL_API_KEY or SEARXNG_URL.');
    if ('error' in b) return fail(b.error);
    const limit = a.limit ?? 5;
    const key = `${b.name}\0${limit}\0${a.query.trim()}`;
    const hit = cache.get(key);
    let hits: SearchHit[];
    if (hit && Date.now() - hit.at < TTL_MS) hits = hit.hits;
    else {
      try {
        hits = (await b.search(a.query.trim(), limit, ctx.signal)).filter((h) => h.url).slice(0, limit);
      } catch (e) {
        return fail(`web_search failed: ${(e as Error).message}`);
      }
      cache.set(key, { at: Date.now(), hits });
      if (cache.size > 200) cache.delete(cache.keys().next().value!);
    }
    return ok({ success: true, backend: b.name, data: { web: hits.map((h, i) => ({ ...h, position: i + 1 })) } });
  },
});
