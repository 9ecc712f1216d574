// tool_search: the loader for deferred toolsets. Rarely used toolsets (browser, media, Home
// Assistant, plugins, large MCP servers) stay out of the request; the model sees their names in this
// tool's description, searches, and the matching tools are appended to the session's tool list for
// the rest of the session. The system prompt and the tools already offered never change, so the
// provider's prompt cache keeps its prefix.
import type { JsonSchema } from '../llm/types.ts';
import { defineTool } from './registry.ts';
import type { ToolDefinition } from './types.ts';

export interface CatalogEntry {
  name: string;
  toolset: string;
  description: string;
}

/** The session's deferred tools (ToolServices.toolCatalog). */
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

const words = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);

/** Which catalog entries a query selects: a toolset, exact tool names, or the best keyword matches. */
export function selectTools(entries: CatalogEntry[], query: string, limit = 5): CatalogEntry[] {
  const q = query.trim().toLowerCase();
  const byToolset = entries.filter((e) => e.toolset.toLowerCase() === q || e.toolset.toLowerCase() === `mcp-${q}`);
  if (byToolset.length) return byToolset;
  const names = q.split(/[\s,]+/).filter(Boolean);
  const exact = entries.filter((e) => names.includes(e.name.toLowerCase()));
  if (exact.length) return exact;
  const terms = words(q);
  const scored = entries
    .map((e) => {
      const name = words(`${e.name} ${e.toolset}`);
      const desc = words(e.description);
      let score = 0;
      for (const t of terms) {
        if (name.some((w) => w === t)) score += 3;
        else if (name.some((w) => w.startsWith(t) || t.startsWith(w))) score += 2;
        if (desc.includes(t)) score += 1;
      }
      return { e, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((x) => x.e);
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
      const catalog = ctx.services.toolCatalog;
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
