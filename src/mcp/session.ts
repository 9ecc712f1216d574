// MCP for a session: connect config.yaml's servers before the session is built (its constructor is
// synchronous), then keep the session's tools in step as servers connect, drop and come back.
import type { Session } from '../session/session.ts';
import { paths } from '../state/paths.ts';
import { defineSlot } from '../state/slots.ts';
import { onSessionClose } from '../tools/cleanup.ts';
import { PLATFORM_TOOLSETS } from '../tools/toolsets.ts';
import type { McpServerConfig } from './config.ts';
import { McpManager } from './manager.ts';

const managersSlot = defineSlot<McpManager[]>('mcp_managers');

/** `mcp_servers` as the user wrote it (unexpanded, so unset `${VAR}`s can be reported). */
export function rawMcpServers(loaded: { user?: Record<string, unknown>; config: { mcp_servers?: unknown } }): unknown {
  return loaded.user && 'mcp_servers' in loaded.user ? loaded.user.mcp_servers : loaded.config.mcp_servers;
}

export interface StartMcpOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `mcp_servers` from config.yaml (raw). */
  raw: unknown;
  /** How long to wait for slow servers before going on without them (default: until all settle). */
  waitMs?: number;
  extra?: McpServerConfig[];
  backoffMs?: number[];
}

/** Connects the configured servers. Returns null when there is nothing to connect or report. */
export async function startMcp(o: StartMcpOptions): Promise<McpManager | null> {
  const manager = new McpManager({ env: o.env, cwd: o.cwd, home: o.home, logDir: paths.logs(o.home), extra: o.extra, backoffMs: o.backoffMs }).configure(o.raw);
  if (!manager.configured) return null;
  await manager.start(o.waitMs ?? Infinity);
  return manager;
}

/** Whether explicitly requested toolsets can include any MCP tool (else servers need not start). */
export function toolsetsWantMcp(toolsets: string[] | undefined, serverNames: string[]): boolean {
  if (!toolsets?.length) return true;
  return toolsets.some((t) => {
    const n = t.trim();
    return n === 'all' || n === '*' || n.startsWith('mcp-') || n.startsWith('mcp_') || serverNames.includes(n) || n in PLATFORM_TOOLSETS;
  });
}

/** The MCP managers attached to a session (config.yaml's, and a surface's own). */
export function mcpManagers(session: Session): McpManager[] {
  return session.services.slots.peek(managersSlot) ?? [];
}

/**
 * Ties a manager to a session: its tools live in the session's registry and the session's tool list
 * is rebuilt whenever they change. `owned`: the manager closes with the session.
 */
export function attachMcp(session: Session, manager: McpManager, opts: { owned: boolean; onEvent?: (line: string) => void }): void {
  const list = mcpManagers(session);
  if (!list.includes(manager)) session.services.slots.set(managersSlot, [...list, manager]);
  if (manager.syncInto(session.registry)) session.rebuildTools();
  const seen = new Map<string, string>();
  for (const s of manager.status()) seen.set(s.name, s.state);
  const off = manager.on((e) => {
    session.rebuildTools();
    if (!opts.onEvent || seen.get(e.server) === e.state) return;
    seen.set(e.server, e.state);
    if (manager.reloading) return;
    const st = manager.status().find((s) => s.name === e.server);
    if (e.state === 'ready') opts.onEvent(`✓ MCP server "${e.server}" connected (${st?.tools ?? 0} tools).`);
    else if (e.state === 'reconnecting') opts.onEvent(`↻ MCP server "${e.server}" dropped the connection (${e.error ?? 'unknown reason'}); reconnecting.`);
    else if (e.state === 'failed') opts.onEvent(`⚠ MCP server "${e.server}" is unavailable: ${e.error ?? 'unknown error'}.`);
  });
  onSessionClose(session.services, async () => {
    off();
    session.services.slots.set(managersSlot, mcpManagers(session).filter((m) => m !== manager));
    if (opts.owned) await manager.close();
    else manager.detach(session.registry);
  });
}

/** One line per server for a banner: `fs (14 tools), web (3 tools)`. */
export function readySummary(manager: McpManager): string {
  return manager
    .status()
    .filter((s) => s.state === 'ready')
    .map((s) => `${s.name} (${s.tools} tools)`)
    .join(', ');
}

/**
 * The CLI's MCP start: config.yaml's servers, unless explicitly requested toolsets cannot use them.
 * Returns null (without loading any MCP code) when none are configured.
 */
export async function startCliMcp(
  ctx: { home: string; env: NodeJS.ProcessEnv; loaded: { user?: Record<string, unknown>; config: { mcp_servers?: unknown } } },
  toolsets: string[] | undefined,
  waitMs?: number,
): Promise<McpManager | null> {
  // --safe-mode: no MCP servers at all.
  if (['1', 'true', 'yes'].includes((ctx.env.HERMES_SAFE_MODE ?? '').toLowerCase())) return null;
  const raw = rawMcpServers(ctx.loaded);
  if (!raw || (typeof raw === 'object' && !Object.keys(raw as object).length)) return null;
  if (typeof raw === 'object' && !toolsetsWantMcp(toolsets, Object.keys(raw as object))) return null;
  return startMcp({ home: ctx.home, env: ctx.env, cwd: process.cwd(), raw, waitMs });
}
