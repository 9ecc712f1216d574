import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const profile = program
    .command('profile')
    .description('profiles: separate Hermes homes (config, keys, sessions, memory, skills, gateway) under HERMES_HOME/profiles/<name>')
    .addHelpText('after', '\nRun any command in a profile with `hermes -p <name> …`; `hermes profile use <name>` makes one the default.');
  const run = lazyActions(() => import('../profile-cmd.ts'));
  profile.command('list', { isDefault: true }).alias('ls').description('all profiles, with their model and gateway; * marks the one in use').option('--json', 'print JSON').action(run('list'));
  profile.command('use <name>').description('make a profile the sticky default (`default` goes back to the root home)').action(run('use'));
  profile
    .command('create <name>')
    .description('create a profile (empty, or cloned from the current one)')
    .option('--clone', 'copy config.yaml, .env, SOUL.md and memories from the current profile')
    .option('--clone-all', 'copy the whole current profile except its session history and cron jobs')
    .option('--clone-from <profile>', 'clone from this profile instead of the current one (implies --clone unless --clone-all)')
    .option('--no-alias', 'do not write the ~/.local/bin/<name> wrapper')
    .action(run('create'));
  profile.command('show [name]').description('a profile’s path, model, keys file, sessions and gateway').action(run('show'));
  profile.command('rename <old> <new>').description('rename a profile (its gateway must be stopped)').action(run('rename'));
  profile.command('delete <name>').alias('rm').description('delete a profile and everything in it').option('-y, --yes', 'do not ask for confirmation').action(run('remove'));
  profile
    .command('export <name>')
    .description('write a profile to a .tar.gz (without .env, auth.json, state.db and logs: no secrets, no history)')
    .option('-o, --output <file>', 'archive path (default ./<name>.tar.gz)')
    .action(run('exportProfile'));
  profile
    .command('import <archive>')
    .description('create a profile from an exported .tar.gz (what it brings that changes trust — .env, auth.json, approvals off, hooks, plugins… — is shown and kept only after a yes)')
    .option('--name <name>', 'profile name (default: the archive’s)')
    .option('--trust', 'keep what the archive brings that changes trust without asking (needed without a terminal)')
    .action(run('importProfile'));
  const alias = lazyActions(() => import('../profile-alias.ts'));
  profile
    .command('alias <name>')
    .description('write (or --remove) the ~/.local/bin wrapper that runs `hermes -p <name>`')
    .option('--remove', 'remove the wrapper instead')
    .option('--name <alias>', 'the wrapper’s command name (default: the profile name)')
    .action(alias('alias'));
  const dist = lazyActions(() => import('../profile-dist.ts'));
  profile
    .command('install <source>')
    .description('install a profile distribution from a git URL or a folder with distribution.yaml')
    .option('--name <name>', 'profile name (default: the manifest’s)')
    .option('--alias', 'also write the ~/.local/bin/<name> wrapper')
    .option('--force', 'install over an existing profile (its memories, sessions and keys stay)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(dist('install'));
  profile
    .command('update <name>')
    .description('pull a distribution-installed profile again and apply it (config.yaml kept unless --force-config)')
    .option('--force-config', 'reset config.yaml to the distribution’s')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(dist('update'));
  profile.command('info <name>').description('the distribution a profile was installed from: version, source, when').action(dist('info'));
}
