import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const skills = program.command('skills').description('list, inspect, install and audit skills (HERMES_HOME/skills)');
  const run = lazyActions(() => import('../skills-cmd.ts'));
  skills.command('list', { isDefault: true }).description('installed skills by category').option('--json', 'print JSON').action(run('list'));
  skills.command('inspect <name>').description('a skill’s details, files, provenance and guard verdict').action(run('inspect'));
  skills
    .command('install <source>')
    .description('install from a folder, a git URL (url#subdir works) or a SKILL.md URL; scanned in quarantine first')
    .option('--category <category>', 'category folder to install under')
    .option('--skill <name>', 'which skill, when the source holds several')
    .option('--force', 'install despite cautionary findings (never despite dangerous ones)')
    .action(run('install'));
  skills.command('uninstall <name>').description('remove an installed skill').option('-y, --yes', 'do not ask for confirmation').action(run('uninstall'));
  skills.command('audit [name]').description('re-scan installed skills with the skills guard').option('--json', 'print JSON').action(run('audit'));
}
