// tool_search: the loader for deferred toolsets. Rarely used toolsets (browser, media, Home
// Assistant, plugins, large MCP servers) stay out of the request; the model sees their names in this
// tool's description, searches, and the matching tools are appended to the session's tool list for
// the rest of the session. The system prompt and the tools already offered never change, so the
// provider's prompt cache keeps its prefix.
import type { JsonSchema } from '../../llm/types.ts';
import { defineTool } from '../registry.ts';
import { rankBm25 } from '../tool-rank.ts';
import type { ToolDefinition } from '../types.ts';

export interface CatalogEntry {
  name: string;
  toolset: string;
  description: string;
  /** The tool's parameter names (ranked with the description). */
  params?: string[];
}

/** The session's deferred tools (ToolSession.toolCatalog). */
export interface ToolCatalog {
  /** Tools not loaded yet. */
  entries(): CatalogEntry[];
  /** Loads tools by name; returns the names loaded. */
  load(names: string[]): string[];
}

const JSON_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    limit: { type: 'integer', maximum: 30 },
  },
  required: ['query'],
};

/** Which catalog entries a query selects: a toolset, exact tool names, or the best BM25 matches (src/tools/tool-rank.ts). */
export function selectTools(entries: CatalogEntry[], query: string, limit = 5): CatalogEntry[] {
  const q = query.trim().toLowerCase();
  const byToolset = entries.filter((e) => e.toolset.toLowerCase() === q || e.toolset.toLowerCase() === `mcp-${q}`);
  if (byToolset.length) return byToolset;
  const names = q.split(/[\s,]+/).filter(Boolean);
  const exact = entries.filter((e) => names.includes(e.name.toLowerCase()));
  if (exact.length) return exact;
  return rankBm25(entries, q)
    .slice(0, limit)
    .map((x) => x.doc);
}

/** The description lists what can be loaded, grouped by toolset (fixed for the session). */
export function toolSearchDescription(entries: CatalogEntry[]): string {
  const groups = new Map<string, string[]>();
  for (const e of entries) groups.set(e.toolset, [...(groups.get(e.toolset) ?? []), e.name]);
  const list = [...groups].map(([ts, names]) => `${ts}: ${names.join(', ')}`).join('; ');
  return `Load more tools by toolset, names or keywords, then call them. Available: ${list}.`;
}

/** The tool_search definition for a session whose deferred tools are `entries`. */
export function toolSearchTool(entries: CatalogEntry[]): ToolDefinition {
  return defineTool({
    name: 'tool_search',
    toolset: 'tool_search',
    description: toolSearchDescription(entries),
    jsonSchema: JSON_SCHEMA,
    schema: (z) => z.object({ query: z.string().min(1), limit: z.coerce.number().int().min(1).max(30).optional() }),
    parallelSafe: false,
    handler: ({ query, limit }, ctx) => {
      const catalog = ctx.toolCatalog;
      if (!catalog) return JSON.stringify({ error: 'No tools can be loaded in this session.' });
      const pending = catalog.entries();
      const picked = selectTools(pending, query, limit ?? 5);
      if (!picked.length) {
        const toolsets = [...new Set(pending.map((e) => e.toolset))];
        return JSON.stringify({ loaded: [], message: `Nothing matched "${query}". Loadable toolsets: ${toolsets.join(', ') || '(none left)'}.` });
      }
      const loaded = new Set(catalog.load(picked.map((e) => e.name)));
      return JSON.stringify({
        loaded: picked.filter((e) => loaded.has(e.name)).map((e) => ({ name: e.name, description: e.description })),
        message: 'These tools are now available: call them directly.',
      });
    },
  });
}
