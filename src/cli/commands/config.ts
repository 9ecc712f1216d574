import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const config = program.command('config').description('show and change settings (config.yaml and .env)');
  const run = lazyActions(() => import('../config-cmd.ts'));
  config.command('show', { isDefault: true }).description('print the effective configuration (secrets masked)').action(run('show'));
  config.command('get <key>').description('print one setting (dotted key, or an env var name)').option('--json', 'print as JSON').option('--reveal', 'show secret values').action(run('get'));
  config
    .command('set <key> <value>')
    .description('change a setting; API keys and other ENV_NAMES go to .env (mode 0600)')
    .action(run('set'));
  config.command('unset <key>').description('remove a setting (back to its default)').action(run('unset'));
  config.command('path').description('print the path of config.yaml').action(run('path'));
  config.command('env-path').description('print the path of .env').action(run('envPath'));
  config.command('check').description('validate config.yaml and .env, list problems and unset keys').action(run('check'));
  config.command('migrate').description('run Hermes\'s config version steps (renames, moves), add the settings your config.yaml lacks (with their defaults) and bump _config_version; comments kept').option('--dry-run', 'list them; change nothing').action(run('migrate'));
  config.command('edit').description('open config.yaml in $EDITOR').action(run('edit'));
}
