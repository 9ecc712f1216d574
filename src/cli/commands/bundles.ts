import type { Command } from 'commander';
import { collectList, lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../bundles-cmd.ts'));
  const b = program.command('bundles').description('skill bundles: /<bundle> loads several skills at once (HERMES_HOME/skill-bundles/*.yaml)');
  b.command('list', { isDefault: true }).description('the bundles and their commands').action(run('list'));
  b.command('show <name>').description('one bundle: its skills and instruction').action(run('show'));
  b.command('create <name>')
    .description('create a bundle (its name becomes the /command)')
    .option('-s, --skill <name>', 'a skill to include (repeatable or comma-separated)', collectList)
    .option('-d, --description <text>', 'shown in /bundles and /help')
    .option('-i, --instruction <text>', 'extra guidance put above the skills')
    .option('-f, --force', 'replace a bundle of the same name')
    .action(run('create'));
  b.command('delete <name>').description('delete a bundle').action(run('remove'));
  b.command('reload').description('re-read the bundles folder and say what it holds').action(run('list'));
}
