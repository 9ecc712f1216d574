// The slash commands plugins register (src/plugins/state.ts PluginCommand) as CommandDefs: the
// plugin host sits below the commands and keeps them in its own terms; the registry's side adapts
// them here (one definition per plugin command).
import type { PluginCommand } from '../plugins/state.ts';
import type { CommandDef } from './registry.ts';

const defs = new WeakMap<PluginCommand, CommandDef>();

export function pluginCommandDef(p: PluginCommand): CommandDef {
  const known = defs.get(p);
  if (known) return known;
  const def: CommandDef & { owner: string } = {
    name: p.name,
    owner: p.owner,
    description: p.description,
    args: p.args,
    category: 'tools',
    surfaces: ['cli', 'gateway', 'acp'],
    run: (c, args) => p.run(args, { session_id: c.session.id, platform: c.session.info.platform, surface: c.surface }),
  };
  defs.set(p, def);
  return def;
}
