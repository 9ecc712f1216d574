// /reload-mcp: reconnect config.yaml's MCP servers (after editing them, or when one was down).
import { ALL_SURFACES, type CommandDef } from './registry.ts';
import { McpManager, type McpServerStatus } from '../mcp/manager.ts';
import { attachMcp, mcpManagers, rawMcpServers } from '../mcp/session.ts';

export function statusLine(s: McpServerStatus): string {
  switch (s.state) {
    case 'ready':
      return `✓ ${s.name}: ${s.tools} tool${s.tools === 1 ? '' : 's'} (${s.target})`;
    case 'disabled':
      return `○ ${s.name}: disabled (enabled: false)`;
    case 'connecting':
    case 'reconnecting':
      return `… ${s.name}: still connecting (${s.target})`;
    default:
      return `✗ ${s.name}: ${s.error ?? s.state}`;
  }
}

export function reloadMcpCommand(): CommandDef {
  return {
    name: 'reload-mcp',
    aliases: ['reload_mcp'],
    description: 'reconnect the MCP servers in config.yaml and reload their tools',
    category: 'tools',
    surfaces: ALL_SURFACES,
    async run(ctx) {
      const s = ctx.session;
      const { loadConfig } = await import('../state/config.ts');
      const loaded = loadConfig(s.info.home, s.info.env);
      const raw = rawMcpServers(loaded);
      let manager = mcpManagers(s).find((m) => m.source === 'config');
      const before = new Set(s.tools.map((t) => t.name));
      if (!manager) {
        manager = new McpManager({ env: s.info.env, cwd: s.info.cwd, home: s.info.home, source: 'config' });
        attachMcp(s, manager, { owned: true });
      }
      await manager.reload(raw);
      s.rebuildTools();
      const status = manager.status();
      const after = new Set(s.tools.map((t) => t.name));
      const added = [...after].filter((n) => !before.has(n)).length;
      const removed = [...before].filter((n) => !after.has(n)).length;
      const summary = `${s.tools.length} tools active${added || removed ? ` (+${added} −${removed}); the provider's prompt cache starts cold` : ''}.`;
      if (!status.length) return { output: `No MCP servers are configured (mcp_servers in config.yaml); add one with \`hermes mcp add\`. ${summary}` };
      return { output: [...status.map(statusLine), summary].join('\n') };
    },
  };
}
