import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const plugins = program
    .command('plugins')
    .description('plugins: list, enable, disable, install, update, remove, doctor (HERMES_HOME/plugins)')
    .addHelpText(
      'after',
      '\nA plugin is a folder with plugin.yaml and an ES module exporting register(ctx) (index.mjs). Third-party\n' +
        'plugins run only when listed in plugins.enabled; project plugins (./.hermes/plugins) also need\n' +
        'HERMES_ENABLE_PROJECT_PLUGINS=true. register(ctx) may call ctx.register_tool, register_hook,\n' +
        'register_command, register_cli_command, register_skill, register_platform, register_memory_provider,\n' +
        'register_terminal_environment_provider, register_image_gen_provider, register_system_prompt_section,\n' +
        'ctx.llm.complete and ctx.call_mcp (camelCase names work too).',
    );
  const run = lazyActions(() => import('../plugins-cmd.ts'));
  plugins.command('list', { isDefault: true }).description('plugins found, with their state (enabled / disabled / not enabled)').option('--json', 'print JSON').action(run('list'));
  plugins.command('enable <name>').description('allow a plugin to load (adds it to plugins.enabled)').action(run('enable'));
  plugins.command('disable <name>').description('stop a plugin from loading (removes it from plugins.enabled, adds it to plugins.disabled)').action(run('disable'));
  plugins
    .command('install <source>')
    .description('install from a folder, a git URL, owner/repo (GitHub) or npm:<package>')
    .option('--ref <sha>', 'pin a git install to this full 40-character commit')
    .option('--enable', 'enable it right away')
    .option('--no-enable', 'leave it disabled without asking')
    .option('--force', 'replace an installed plugin of the same name')
    .action(run('install'));
  plugins.command('update [name]').description('update git and npm installs (all of them without a name); pinned installs stay').action(run('update'));
  plugins.command('remove <name>').alias('uninstall').description('uninstall a plugin from HERMES_HOME/plugins').option('-y, --yes', 'do not ask for confirmation').action(run('remove'));
  plugins.command('doctor').description('load every enabled plugin and report what is wrong (exit 1 when something is)').action(run('doctor'));
}
