// /plugins: which plugins and shell hooks this session runs (Hermes's /plugins).
import { pluginHost } from '../plugins/state.ts';
import type { CommandDef } from './registry.ts';

export function pluginsCommand(): CommandDef {
  return {
    name: 'plugins',
    description: 'show the plugins and shell hooks loaded in this session',
    category: 'tools',
    surfaces: ['cli', 'gateway', 'acp'],
    midTurn: true,
    async run(c) {
      const host = pluginHost(c.session.info.home);
      if (!host) return { output: 'No plugins are loaded. See `hermes plugins list`.' };
      const { describeLoaded } = await import('../plugins/report.ts');
      return { output: describeLoaded(host) };
    },
  };
}
