// `hermes <name> …` commands plugins add (ctx.register_cli_command). Plugins load only when the
// first word of the command line is not a built-in command, so `hermes --version`, `hermes chat` and
// every built-in command pay nothing for this.
import type { Command } from 'commander';
import { action } from './errors.ts';

/** Adds the enabled plugins' CLI commands to `program` (called when `word` names no built-in command). */
export async function addPluginCliCommands(program: Command, word: string): Promise<void> {
  if (!word) return;
  const { loadContext } = await import('./context.ts');
  let ctx;
  try {
    ctx = loadContext();
  } catch {
    return; // a broken config is reported by the command that runs next
  }
  const { loadSurfacePlugins } = await import('../plugins/load.ts');
  const { pluginPorts } = await import('../mcp/plugin-call.ts');
  const host = await loadSurfacePlugins({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, ports: pluginPorts });
  for (const c of host?.cliCommandList ?? []) {
    if (program.commands.some((x) => x.name() === c.name)) continue;
    const cmd = program.command(c.name).description(`${c.description} (plugin ${c.owner.replace(/^plugin:/, '')})`);
    c.setup?.(cmd);
    const handler = c.handler;
    if (handler)
      cmd.action(
        action(async (...a: unknown[]) => {
          const command = a[a.length - 1] as Command;
          await handler(command.opts(), command.args, command);
        }),
      );
  }
}
