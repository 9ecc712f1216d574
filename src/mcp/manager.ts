// All MCP servers of a config: connected in parallel with a bounded wait, their tools kept in sync
// with tool registries, failures reported to the person (warnings) and the model (notes).
import pkg from '../../package.json' with { type: 'json' };
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { parseMcpServers, type McpConfigProblem, type McpServerConfig } from './config.ts';
import { McpConnection, type McpConnectionEvent, type McpConnectionOptions, type McpState } from './connection.ts';
import { mcpToolDefinitions } from './tools.ts';

export interface McpServerStatus {
  name: string;
  state: McpState | 'invalid' | 'disabled';
  target: string;
  tools: number;
  error?: string;
}

export interface McpManagerOptions extends Omit<McpConnectionOptions, 'clientName' | 'clientVersion'> {
  /** Extra servers given by the surface (e.g. an editor over ACP), beside config.yaml's. */
  extra?: McpServerConfig[];
  /** `config`: config.yaml's servers (what /reload-mcp reloads); `client`: a surface's own. */
  source?: 'config' | 'client';
}

export class McpManager {
  readonly connections = new Map<string, McpConnection>();
  problems: McpConfigProblem[] = [];
  private disabled: McpServerConfig[] = [];
  private readonly opts: McpManagerOptions;
  private readonly listeners = new Set<(e: McpConnectionEvent) => void>();
  private readonly registered = new Map<ToolRegistry, Set<string>>();
  private unsubs: (() => void)[] = [];

  constructor(opts: McpManagerOptions) {
    this.opts = opts;
  }

  get source(): 'config' | 'client' {
    return this.opts.source ?? 'config';
  }

  /** Reads `mcp_servers` (raw, unexpanded) and prepares a connection per enabled server. */
  configure(raw: unknown): this {
    const { servers, problems } = parseMcpServers(raw, this.opts.env);
    const all = [...servers, ...(this.opts.extra ?? [])];
    this.problems = problems;
    this.disabled = all.filter((s) => !s.enabled);
    for (const cfg of all.filter((s) => s.enabled)) {
      if (this.connections.has(cfg.name)) {
        this.problems.push({ server: cfg.name, message: `MCP server "${cfg.name}" is defined twice; the first definition is used.` });
        continue;
      }
      const conn = new McpConnection(cfg, { ...this.opts, clientName: 'hermes-agent', clientVersion: pkg.version });
      this.unsubs.push(conn.on((e) => this.forward(e)));
      this.connections.set(cfg.name, conn);
    }
    return this;
  }

  get size(): number {
    return this.connections.size;
  }

  /** Whether anything is configured at all (servers, or problems to report). */
  get configured(): boolean {
    return this.connections.size > 0 || this.problems.length > 0 || this.disabled.length > 0;
  }

  on(fn: (e: McpConnectionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private forward(e: McpConnectionEvent): void {
    for (const r of this.registered.keys()) this.syncInto(r);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* ignore */
      }
    }
  }

  /**
   * Connects every server in parallel and waits until all have settled or `waitMs` passes; servers
   * still connecting after that keep going in the background (their tools arrive with a 'tools' event).
   */
  async start(waitMs = Infinity): Promise<void> {
    const all = Promise.all([...this.connections.values()].map((c) => c.connect()));
    if (waitMs === Infinity) {
      await all;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      all,
      new Promise<void>((r) => {
        timer = setTimeout(r, waitMs);
        timer.unref?.();
      }),
    ]);
    if (timer) clearTimeout(timer);
  }

  private readonly defsCache = new WeakMap<McpConnection, { tools: readonly unknown[]; defs: ToolDefinition[] }>();

  /** Tool definitions of a server (the same objects until its tool list changes). */
  private defsOf(c: McpConnection): ToolDefinition[] {
    const cached = this.defsCache.get(c);
    if (c.state === 'closed') return [];
    if (cached && (cached.tools === c.tools || c.state !== 'ready')) return cached.defs;
    if (c.state !== 'ready') return [];
    const defs = mcpToolDefinitions(c);
    this.defsCache.set(c, { tools: c.tools, defs });
    return defs;
  }

  /**
   * Tool definitions of every connected server. A server that dropped keeps its tools while Hermes
   * reconnects, and after it gave up: a call waits for the reconnect, or tries once more and says why
   * it cannot run.
   */
  definitions(): ToolDefinition[] {
    return [...this.connections.values()].flatMap((c) => this.defsOf(c));
  }

  /**
   * Puts the current MCP tools into `registry` (and removes ones that went away) and keeps doing so
   * as servers connect, reconnect or change their tool lists. Returns whether anything changed.
   */
  syncInto(registry: ToolRegistry): boolean {
    const before = this.registered.get(registry) ?? new Set<string>();
    const defs = this.definitions();
    const now = new Set(defs.map((d) => d.name));
    let changed = false;
    for (const name of before)
      if (!now.has(name)) {
        registry.unregister(name);
        changed = true;
      }
    for (const d of defs) {
      const existing = registry.get(d.name);
      if (existing && existing.toolset !== d.toolset) continue; // a built-in tool of that name wins
      if (existing === d) continue;
      changed = true;
      registry.register(d, { override: true });
    }
    this.registered.set(registry, now);
    return changed;
  }

  /** Stops keeping `registry` in sync and removes the MCP tools from it. */
  detach(registry: ToolRegistry): void {
    for (const name of this.registered.get(registry) ?? []) registry.unregister(name);
    this.registered.delete(registry);
  }

  status(): McpServerStatus[] {
    const out: McpServerStatus[] = [];
    for (const c of this.connections.values())
      out.push({ name: c.name, state: c.state, target: c.describe(), tools: this.defsOf(c).length, error: c.error });
    for (const d of this.disabled) out.push({ name: d.name, state: 'disabled', target: '', tools: 0 });
    for (const p of this.problems) out.push({ name: p.server, state: 'invalid', target: '', tools: 0, error: p.message });
    return out;
  }

  /** One line per server that is not usable, for the person. */
  warnings(): string[] {
    const lines: string[] = [];
    for (const s of this.status()) {
      if (s.state === 'failed') lines.push(`MCP server "${s.name}" failed to connect: ${s.error ?? 'unknown error'}. Its tools are unavailable; \`hermes mcp test ${s.name}\` shows details.`);
      else if (s.state === 'invalid') lines.push(`MCP server "${s.name}" is not configured correctly: ${s.error}`);
      else if (s.state === 'connecting' || s.state === 'reconnecting') lines.push(`MCP server "${s.name}" is still connecting; its tools join when it is ready.`);
    }
    return lines;
  }

  /** What the model is told about servers whose tools are missing (so it never assumes they exist). */
  notes(): string[] {
    const bad = this.status().filter((s) => s.state === 'failed' || s.state === 'invalid' || s.state === 'connecting' || s.state === 'reconnecting');
    if (!bad.length) return [];
    const lines = bad.map((s) =>
      s.state === 'connecting' || s.state === 'reconnecting'
        ? `- "${s.name}": still connecting when this session started; its tools (mcp_${s.name.replace(/[^A-Za-z0-9_]/g, '_')}_*) may appear later.`
        : `- "${s.name}": unavailable (${s.error ?? 'failed to connect'}).`,
    );
    return [
      `MCP servers configured by the user that are not available in this session:\n${lines.join('\n')}\n` +
        'Their tools are missing. If the user asks for something that needs them, say so plainly (they can fix the server and run /reload-mcp) instead of working around it.',
    ];
  }

  /** Closes every connection and forgets the servers (the registries keep nothing of them). */
  async closeAll(): Promise<void> {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    const conns = [...this.connections.values()];
    this.connections.clear();
    for (const r of this.registered.keys()) this.syncInto(r);
    await Promise.all(conns.map((c) => c.close()));
  }

  /** True while /reload-mcp restarts the servers (surfaces report the result, not each step). */
  reloading = false;

  /** Closes everything and starts again from a new `mcp_servers` mapping (/reload-mcp). */
  async reload(raw: unknown, waitMs = Infinity): Promise<void> {
    this.reloading = true;
    try {
      await this.reloadNow(raw, waitMs);
    } finally {
      this.reloading = false;
    }
  }

  private async reloadNow(raw: unknown, waitMs: number): Promise<void> {
    await this.closeAll();
    this.problems = [];
    this.disabled = [];
    this.configure(raw);
    for (const r of this.registered.keys()) this.syncInto(r);
    await this.start(waitMs);
    for (const r of this.registered.keys()) this.syncInto(r);
  }

  async close(): Promise<void> {
    const regs = [...this.registered.keys()];
    await this.closeAll();
    for (const r of regs) this.detach(r);
  }
}
