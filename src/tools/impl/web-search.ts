// web_search's implementation, loaded on the first call.
import type { ToolOutcome } from '../../agent/types.ts';
import { fail, ok } from '../result.ts';
import type { ToolContext } from '../types.ts';
import { searchBackendName, type WebSearchArgs } from '../defs/web-search.ts';
import { createWebBackend, type SearchHit } from '../web/backends.ts';
import { websiteBlocked } from '../web/website-policy.ts';

const TTL_MS = 20 * 60_000;
const cache = new Map<string, { at: number; hits: SearchHit[] }>();

export async function runWebSearch(a: WebSearchArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const name = searchBackendName(ctx);
  if (!name) return fail('No web search backend is configured. Set one of FIRECRAWL_API_KEY, TAVILY_API_KEY, EXA_API_KEY, PARALLEL_API_KEY or SEARXNG_URL.');
  if (typeof name !== 'string') return fail(name.error);
  const b = createWebBackend(name, ctx.env);
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
  // Results on hosts the website blocklist refuses are left out (reading them would fail anyway).
  const shown = hits.filter((h) => !websiteBlocked(ctx, h.url));
  const left = hits.length - shown.length;
  return ok({ success: true, backend: b.name, data: { web: shown.map((h, i) => ({ ...h, position: i + 1 })) }, ...(left ? { blocked_by_policy: left } : {}) });
}
