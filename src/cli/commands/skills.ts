import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const skills = program.command('skills').description('list, inspect, install and audit skills (HERMES_HOME/skills)');
  const run = lazyActions(() => import('../skills-cmd.ts'));
  skills.command('list', { isDefault: true }).description('installed skills by category').option('--json', 'print JSON').action(run('list'));
  skills.command('inspect <name>').description('a skill’s details, files, provenance and guard verdict').action(run('inspect'));
  skills
    .command('install <source>')
    .description('install from a folder, a git URL (url#subdir works), a SKILL.md URL, or a registry identifier (owner/repo/path, or a name from hermes skills search); scanned in quarantine first')
    .option('--category <category>', 'category folder to install under')
    .option('--skill <name>', 'which skill, when the source holds several')
    .option('--force', 'install despite cautionary findings (never despite dangerous ones)')
    .action(run('install'));
  skills.command('uninstall <name>').description('remove an installed skill').option('-y, --yes', 'do not ask for confirmation').action(run('uninstall'));
  skills.command('audit [name]').description('re-scan installed skills with the skills guard').option('--json', 'print JSON').action(run('audit'));
  const hub = lazyActions(() => import('../skills-hub-cmd.ts'));
  const sources = 'all, official, hermes-index, github';
  skills
    .command('search <query>')
    .description('search the skill registries (the Hermes skills index and GitHub taps)')
    .option('--source <source>', `where to look: ${sources} (default all)`)
    .option('--limit <n>', 'how many results (default 10)')
    .option('--json', 'print JSON')
    .action(hub('search'));
  skills
    .command('browse')
    .description('every skill the registries offer, a page at a time')
    .option('--page <n>', 'page number (default 1)')
    .option('--size <n>', 'results per page (default 20)')
    .option('--source <source>', `where to look: ${sources} (default all)`)
    .action(hub('browse'));
  skills.command('check [name]').description('check skills installed from a registry for updates').action(hub('check'));
  skills.command('update [name]').description('update skills installed from a registry (through the guard again)').option('--force', 'replace copies you changed too').action(hub('update'));
  skills
    .command('reset <name>')
    .description('offer a bundled skill you hid again, or track a copy Python Hermes seeded again; --restore archives your copy and uses the bundled version')
    .option('--restore', 'move your copy to skills/.archive and use the bundled version')
    .option('-y, --yes', 'do not ask before --restore')
    .action(hub('reset'));
  skills.command('diff <name>').description('how an installed skill differs from its bundled or registry version').action(hub('diff'));
  const tap = skills.command('tap').description('GitHub repositories searched for skills (skills/.hub/taps.json)');
  tap.command('list', { isDefault: true }).description('default and added taps').action(hub('tapList'));
  tap.command('add <repo>').description('add a GitHub repository (owner/repo) as a skill source').option('--path <path>', 'folder holding the skills (default skills/)').action(hub('tapAdd'));
  tap.command('remove <repo>').alias('rm').description('remove a tap').action(hub('tapRemove'));
  const extra = lazyActions(() => import('../skills-extra-cmd.ts'));
  skills
    .command('opt-out')
    .description('stop offering bundled skills in this profile (writes HERMES_HOME/.no-bundled-skills)')
    .option('--remove', 'also delete the bundled skills copied into this home that you never changed')
    .option('-y, --yes', 'do not ask before --remove')
    .action(extra('optOut'));
  skills.command('opt-in').description('offer bundled skills again (removes the opt-out marker)').option('--sync', 'accepted as Hermes takes it (nothing to copy: they are read in place)').action(extra('optIn'));
  const snap = skills.command('snapshot').description('export or import the skills installed from registries, and your taps');
  snap.command('export <file>').description('write a snapshot JSON (- = stdout)').action(extra('snapshotExport'));
  snap.command('import <file>').description('restore the taps and reinstall every skill in a snapshot').option('--force', 'reinstall skills already there; install despite cautionary findings').action(extra('snapshotImport'));
  skills
    .command('publish <path>')
    .description('propose a skill to a GitHub repository as a pull request (scanned by the guard first; needs GITHUB_TOKEN)')
    .option('--to <target>', 'github (default) or clawhub')
    .option('--repo <owner/repo>', 'the repository to open the pull request against')
    .action(extra('publish'));
  skills
    .command('config')
    .description('enable or disable skills everywhere or per platform (skills.disabled, skills.platform_disabled); a picker on a terminal')
    .option('--platform <name>', 'one platform (cli, telegram, …); default every platform')
    .option('--enable <names...>', 'turn these skills on')
    .option('--disable <names...>', 'turn these skills off')
    .action(extra('config'));
}
