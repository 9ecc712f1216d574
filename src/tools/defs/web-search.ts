// web_search: search the web through the configured backend (Firecrawl, Tavily, Exa, Parallel,
// SearXNG). The adapters (web/backends.ts) load on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';
import type { ToolSession } from '../types.ts';
import { webBackendName } from '../web/select.ts';

/** The configured backend's name, `{error}`, or null (see web/select.ts). */
export function searchBackendName(s: ToolSession): string | { error: string } | null {
  return webBackendName(s.env, (s.config.web as { backend?: string } | undefined)?.backend);
}

const schema = (z: Zod) =>
  z.object({
  query: z.string().min(1),
  limit: z.coerce.number().int().min(1).max(20).optional(),
});

export type WebSearchArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'web_search',
  toolset: 'web',
  emoji: '🔍',
  parallelSafe: true,
  description:
    'Search the web: title, url and description per result. Read a page with web_extract.',
  schema,
  check: (s) => typeof searchBackendName(s) === 'string',
  requirement: 'needs FIRECRAWL_API_KEY, TAVILY_API_KEY, EXA_API_KEY, PARALLEL_API_KEY or SEARXNG_URL',
  async handler(a, ctx) {
    const { runWebSearch } = await import('../impl/web-search.ts');
    return runWebSearch(a, ctx);
  },
});
