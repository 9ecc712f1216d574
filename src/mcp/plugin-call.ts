// The ports plugins get from the layers above them (src/plugins/state.ts PluginPorts), lent by each
// surface that loads plugins: `ctx.call_mcp(server, tool, args, timeout)` calls a tool of one of the
// user's MCP servers (config.yaml `mcp_servers`) through the same client the agent uses (the plugin
// context has already checked `plugins.entries.<id>.mcp_allowlist`: no access by default, no
// wildcards), and `ctx.llm.complete` runs one model call (src/session/plugin-llm.ts, loaded on use).
import type { PluginHost } from '../plugins/host.ts';
import type { PluginPorts } from '../plugins/state.ts';
import type { McpManager } from './manager.ts';

type Obj = Record<string, unknown>;
const MAX_RESULT = 64 * 1024;
const managers = new Map<string, Promise<McpManager | null>>();

export async function pluginCallMcp(host: PluginHost, server: string, tool: string, args: Obj, timeoutS: number): Promise<Obj> {
  const raw = (host.config as { mcp_servers?: Obj } | undefined)?.mcp_servers ?? {};
  if (!(server in raw)) return { ok: false, error: `MCP server "${server}" is not configured (mcp_servers in config.yaml)` };
  const key = `${host.home}\0${server}`;
  let pending = managers.get(key);
  if (!pending) {
    pending = import('./session.ts').then((s) => s.startMcp({ home: host.home, env: host.env, cwd: host.cwd, raw: { [server]: raw[server] }, waitMs: 30_000 }));
    managers.set(key, pending);
  }
  const manager = await pending;
  const conn = manager?.connections.get(server);
  if (!conn) return { ok: false, error: `MCP server "${server}" could not be started` };
  const seconds = Math.min(600, Math.max(1, Number.isFinite(timeoutS) ? timeoutS : 30));
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), seconds * 1000);
  try {
    const r = (await conn.callTool(tool, args, ac.signal)) as { content?: unknown; structuredContent?: unknown; isError?: boolean };
    const { contentText } = await import('./tools.ts');
    let text = contentText(r.content as never);
    if (r.isError) return { ok: false, error: text || 'the MCP tool reported an error' };
    const truncated = text.length > MAX_RESULT;
    if (truncated) text = text.slice(0, MAX_RESULT);
    return { ok: true, result: text, ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}), ...(truncated ? { truncated: true } : {}) };
  } catch (e) {
    return { ok: false, error: ac.signal.aborted ? `timed out after ${seconds}s` : (e as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Closes the MCP connections plugins opened (process exit). */
export async function closePluginMcp(): Promise<void> {
  const all = [...managers.values()];
  managers.clear();
  await Promise.all(all.map(async (p) => (await p)?.close()));
}

export const pluginPorts: PluginPorts = {
  complete: async (host, m, req) => (await import('../session/plugin-llm.ts')).completeForPlugin(host, m, req),
  callMcp: pluginCallMcp,
};
