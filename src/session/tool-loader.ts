// The session's deferred tools: toolsets kept out of the request (src/tools/toolsets.ts
// `deferredToolsets`) wait here until tool_search — or a direct call by name — loads them. Loaded
// tools are appended to the session's tool list in load order and stay for the session, so every
// request's prefix (system prompt, then the tools offered before) stays byte-stable.
import type { AgentTool } from '../agent/types.ts';
import type { CatalogEntry, ToolCatalog } from '../tools/defs/tool-search.ts';

const entry = (t: AgentTool): CatalogEntry => ({ name: t.name, toolset: t.toolset, description: t.schema.description ?? '', params: Object.keys((t.schema.parameters as { properties?: object } | undefined)?.properties ?? {}) });

export class ToolLoader implements ToolCatalog {
  private pending: AgentTool[] = [];
  private readonly loaded: string[] = [];
  private byName = new Map<string, AgentTool>();
  private readonly offered: () => AgentTool[];

  /** `offered` is the session's current tool list (loads append to it in place). */
  constructor(offered: () => AgentTool[]) {
    this.offered = offered;
  }

  /**
   * Splits freshly built tools into the ones offered and the deferred ones; returns the list to
   * offer: eager tools, then tool_search (when anything is deferred), then the tools loaded so far.
   */
  arrange(built: AgentTool[], lazy: Set<string>, searchTool: (entries: CatalogEntry[]) => AgentTool): AgentTool[] {
    const eager: AgentTool[] = [];
    const deferred: AgentTool[] = [];
    // `lazy` names toolsets, and single tools as `tool:<name>` (lean mode keeps part of a toolset).
    for (const t of built) (lazy.has(t.toolset) || lazy.has(`tool:${t.name}`) ? deferred : eager).push(t);
    this.byName = new Map(deferred.map((t) => [t.name, t]));
    this.pending = deferred.filter((t) => !this.loaded.includes(t.name));
    if (!deferred.length) return eager;
    const loaded = this.loaded.map((n) => this.byName.get(n)).filter((t): t is AgentTool => !!t);
    return [...eager, searchTool(deferred.map(entry)), ...loaded];
  }

  /** Deferred tools not loaded yet. */
  get deferred(): AgentTool[] {
    return this.pending;
  }

  /**
   * A deferred tool by name, loaded first when it is still pending (a turn whose tool list was
   * rebuilt meanwhile adds it to its own list).
   */
  get(name: string): AgentTool | undefined {
    this.load([name]);
    return this.loaded.includes(name) ? this.byName.get(name) : undefined;
  }

  entries(): CatalogEntry[] {
    return this.pending.map(entry);
  }

  load(names: string[]): string[] {
    const done: string[] = [];
    for (const name of names) {
      const t = this.pending.find((x) => x.name === name);
      if (!t) continue;
      this.pending = this.pending.filter((x) => x !== t);
      this.loaded.push(name);
      this.offered().push(t);
      done.push(name);
    }
    return done;
  }
}
