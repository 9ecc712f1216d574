// Toolsets: named groups of tools. Core toolsets come from the tools' own `toolset` field;
// composites and platform toolsets are lists of core toolsets (or tool names), as in Hermes.

/** Core toolsets every platform toolset starts from (Hermes's _HERMES_CORE_TOOLS, by toolset). */
export const HERMES_CORE_TOOLSETS = [
  'terminal',
  'file',
  'web',
  'browser',
  'vision',
  'image_gen',
  'tts',
  'skills',
  'memory',
  'todo',
  'session_search',
  'clarify',
  'code_execution',
  'delegation',
  'cronjob',
  'messaging',
  'homeassistant',
];

const without = (list: string[], drop: string[]) => list.filter((x) => !drop.includes(x));

export const COMPOSITE_TOOLSETS: Record<string, string[]> = {
  debugging: ['file', 'terminal', 'web'],
  coding: ['file', 'terminal', 'todo', 'search_files', 'code_execution', 'delegation'],
  safe: ['web_search', 'web_extract', 'vision_analyze', 'image_generate'],
  research: ['web', 'file', 'todo', 'session_search'],
};

export const PLATFORM_TOOLSETS: Record<string, string[]> = {
  'hermes-cli': HERMES_CORE_TOOLSETS,
  'hermes-acp': without(HERMES_CORE_TOOLSETS, ['clarify', 'cronjob', 'image_gen', 'tts', 'homeassistant', 'messaging']),
  'hermes-api-server': without(HERMES_CORE_TOOLSETS, ['clarify', 'tts']),
  'hermes-webhook': ['web_search', 'web_extract', 'vision_analyze', 'clarify'],
  'hermes-cron': without(HERMES_CORE_TOOLSETS, ['cronjob', 'clarify']),
  'hermes-telegram': HERMES_CORE_TOOLSETS,
  'hermes-discord': HERMES_CORE_TOOLSETS,
  'hermes-slack': HERMES_CORE_TOOLSETS,
  'hermes-email': HERMES_CORE_TOOLSETS,
  'hermes-gateway': HERMES_CORE_TOOLSETS,
  'hermes-subagent': without(HERMES_CORE_TOOLSETS, ['delegation', 'clarify', 'memory', 'messaging', 'code_execution', 'cronjob']),
};

/**
 * Toolsets only ever enabled by name (or by their own tools' `autoInclude`): `all` / `*` and the
 * platform toolsets leave them out, as Hermes does for kanban.
 */
export const OPT_IN_TOOLSETS = ['kanban'];

/** Old names still found in Hermes configs. */
const LEGACY: Record<string, string> = {
  web_tools: 'web',
  terminal_tools: 'terminal',
  file_tools: 'file',
  browser_tools: 'browser',
  vision_tools: 'vision',
  skills_tools: 'skills',
};

export class UnknownToolsetError extends Error {}

/**
 * Expands toolset names (core, composite, platform, custom, `mcp-<server>`, `all`/`*`) and bare tool
 * names into tool names; then removes the tools of `disabled` toolsets.
 */
export function resolveToolsetNames(
  requested: string[],
  disabled: string[],
  registered: Map<string, string[]>,
  custom: Record<string, string[]> = {},
): Set<string> {
  const allTools = new Set([...registered.values()].flat());
  const everything = [...registered].filter(([ts]) => !OPT_IN_TOOLSETS.includes(ts)).flatMap(([, names]) => names);
  const expand = (name: string, seen: Set<string>, strict: boolean): string[] => {
    const n = LEGACY[name] ?? name;
    if (seen.has(n)) return [];
    seen.add(n);
    if (n === 'all' || n === '*') return everything;
    if (registered.has(n)) return registered.get(n)!;
    if (allTools.has(n)) return [n];
    const group = custom[n] ?? COMPOSITE_TOOLSETS[n] ?? PLATFORM_TOOLSETS[n];
    if (group) {
      const tools = group.flatMap((g) => expand(g, seen, false));
      // Platform toolsets include every connected MCP server's tools (mcp-<server>), as in Hermes.
      if (!custom[n] && PLATFORM_TOOLSETS[n]) for (const [ts, names] of registered) if (ts.startsWith('mcp-')) tools.push(...names);
      return tools;
    }
    if (registered.has(`mcp-${n}`)) return registered.get(`mcp-${n}`)!;
    // Known toolsets whose tools are not installed (yet) expand to nothing.
    // An MCP server that did not connect (or is still connecting) contributes no tools yet.
    if (HERMES_CORE_TOOLSETS.includes(n) || n.startsWith('mcp-') || !strict) return [];
    throw new UnknownToolsetError(
      `Unknown toolset or tool "${name}". Known toolsets: ${knownToolsets(registered, custom).join(', ')}.`,
    );
  };
  const out = new Set<string>();
  for (const r of requested) for (const t of expand(r.trim(), new Set(), true)) out.add(t);
  for (const d of disabled) for (const t of expand(d.trim(), new Set(), false)) out.delete(t);
  return out;
}

export function knownToolsets(registered: Map<string, string[]>, custom: Record<string, string[]> = {}): string[] {
  return [
    ...new Set([
      ...HERMES_CORE_TOOLSETS,
      ...registered.keys(),
      ...Object.keys(COMPOSITE_TOOLSETS),
      ...Object.keys(PLATFORM_TOOLSETS),
      ...Object.keys(custom),
      'all',
    ]),
  ].sort();
}

/**
 * Toolsets whose schemas go into every request. Any other toolset reached through a platform
 * toolset, a composite or `all` (browser, media, Home Assistant, plugins, large MCP servers, and
 * every toolset added later) is deferred behind `tool_search`, which loads its schemas on demand.
 * Toolsets the user names directly are always sent in full.
 */
export const EAGER_TOOLSETS = [...without(HERMES_CORE_TOOLSETS, ['browser', 'image_gen', 'tts', 'homeassistant']), 'kanban'];

/** MCP servers with at most this many tools stay in the request; larger ones are deferred. */
export const MCP_EAGER_MAX_TOOLS = 5;

/** The toolsets of `registered` to keep out of the request until the model asks for them. */
export function deferredToolsets(requested: string[], registered: Map<string, string[]>, custom: Record<string, string[]> = {}, platform?: string): Set<string> {
  // A platform's own toolset (Home Assistant's ha_* tools in its gateway chats) is always sent.
  const named = new Set<string>(platform ? [platform] : []);
  for (const r of requested) {
    const n = LEGACY[r.trim()] ?? r.trim();
    if (custom[n]) for (const x of custom[n]) named.add(x);
    named.add(n);
    named.add(`mcp-${n}`);
  }
  const out = new Set<string>();
  for (const [ts, names] of registered) {
    if (EAGER_TOOLSETS.includes(ts) || named.has(ts) || names.some((t) => named.has(t))) continue;
    if (ts.startsWith('mcp-') && names.length <= MCP_EAGER_MAX_TOOLS) continue;
    out.add(ts);
  }
  return out;
}
