// Keeping a Hermes install and its home in shape: backup, import, dump, debug, tools, update,
// uninstall, checkpoints, claw, prompt-size. Implementations load only when a command runs.
import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const backupRun = lazyActions(() => import('../backup-cmd.ts'));
  program
    .command('backup')
    .description('back up the Hermes home (every profile) to a zip; --quick snapshots just the state files')
    .option('-o, --output <path>', 'where to write the zip (default ~/hermes-backup-<time>.zip)')
    .option('-q, --quick', 'quick snapshot of the state files (config, state.db, .env, auth, cron) for /snapshot restore')
    .option('-l, --label <name>', 'label for a --quick snapshot')
    .option('--dry-run', 'list what would be backed up')
    .option('-k, --keep <n>', 'keep only the newest N hermes-backup-*.zip in the output folder (default 3; 0 keeps all)')
    .action(backupRun('backup'));
  program
    .command('import <zipfile>')
    .description('restore a `hermes backup` zip into the Hermes home')
    .option('-f, --force', 'overwrite existing files without asking')
    .action(backupRun('importBackup'));

  const support = lazyActions(() => import('../support-cmd.ts'));
  program.command('dump').description('a plain-text summary of your setup to paste when asking for help (no secrets)').option('--show-keys', 'show the first and last 4 characters of each key').action(support('dump'));
  const debug = program.command('debug').description('debugging aids: a redacted report of your setup and recent logs');
  debug
    .command('share')
    .description('upload a debug report (setup + recent logs, secrets redacted) to a paste service, or print it with --local')
    .option('--lines <n>', 'log lines per file (default 200)')
    .option('--expire <days>', 'paste expiry in days, where the service supports it (default 7)')
    .option('--local', 'print the report here instead of uploading it')
    .option('-o, --output <file>', 'write the report to a file instead of uploading it')
    .option('-y, --yes', 'upload without asking')
    .option('--no-redact', 'do not redact secrets (only for a report you keep yourself)')
    .option('--nous', 'upload privately to Nous diagnostics storage (staff-only, deleted after 14 days) instead of a public paste')
    .action(support('debugShare'));

  const tools = lazyActions(() => import('../tools-cmd.ts'));
  const t = program
    .command('tools')
    .description('which toolsets each platform gets (platform_toolsets in config.yaml); a picker on a terminal')
    .option('--summary', 'print the enabled toolsets per platform and exit')
    .action(tools('tools'));
  t.command('list').description('toolsets and whether each is on').option('--platform <name>', 'platform (default cli)').action(tools('list'));
  t.command('enable <names...>').description('turn toolsets on').option('--platform <name>', 'platform (default cli)').action(tools('enable'));
  t.command('disable <names...>').description('turn toolsets off').option('--platform <name>', 'platform (default cli)').action(tools('disable'));

  const maint = lazyActions(() => import('../maintenance-cmd.ts'));
  program
    .command('update')
    .description('update Hermes (git checkout: pull + npm ci; npm install: npm install -g); --check only looks')
    .option('--check', 'say whether an update is available and what updating would do; change nothing')
    .option('-y, --yes', 'do not ask')
    .option('--no-backup', 'skip the state snapshot taken before updating')
    .action(maint('update'));
  program
    .command('uninstall')
    .description('remove Hermes; your data in the Hermes home is kept unless you say otherwise')
    .option('--keep-data', 'keep the Hermes home (config, keys, sessions, memories, skills)')
    .option('--remove-data', 'delete the Hermes home too')
    .option('-y, --yes', 'do not ask')
    .action(maint('uninstall'));
  const cp = program.command('checkpoints').description('the shadow git store behind /rollback (HERMES_HOME/checkpoints)');
  cp.command('status', { isDefault: true }).alias('list').description('size, projects and their checkpoints').option('--limit <n>', 'how many projects to list (default 20)').action(maint('checkpointsStatus'));
  cp.command('prune')
    .description('drop orphaned and stale projects, gc the store, enforce the size cap')
    .option('--retention-days <n>', 'drop projects untouched for N days (default 7)')
    .option('--max-size-mb <n>', 'then drop the oldest projects until the store is under N MB (default 500)')
    .option('--keep-orphans', 'keep projects whose folder no longer exists')
    .action(maint('checkpointsPrune'));
  cp.command('clear').description('delete the whole checkpoint store').option('-f, --force', 'do not ask').action(maint('checkpointsClear'));
  cp.command('clear-legacy').description('delete only legacy-* archives from the v1 → v2 store migration').option('-f, --force', 'do not ask').action(maint('checkpointsClearLegacy'));
  program
    .command('prompt-size')
    .description('what the system prompt and tool schemas cost on every request, part by part (offline)')
    .option('--platform <name>', 'platform to size for (default cli)')
    .option('--json', 'print JSON')
    .action(maint('promptSize'));

  const claw = lazyActions(() => import('../claw-cmd.ts'));
  const c = program.command('claw').description('OpenClaw migration: bring an OpenClaw home into Hermes');
  c.command('migrate')
    .description('migrate settings, memories, skills (and with --migrate-secrets, tokens and keys) from OpenClaw; previews first')
    .option('--source <path>', 'the OpenClaw folder (default ~/.openclaw, then ~/.clawdbot, ~/.moltbot)')
    .option('--dry-run', 'preview only')
    .option('--preset <name>', 'user-data or full (default full)')
    .option('--overwrite', 'replace existing targets (each is backed up first)')
    .option('--migrate-secrets', 'also import bot tokens and provider API keys into .env')
    .option('--no-backup', 'skip the zip backup of the Hermes home taken before applying')
    .option('--workspace-target <dir>', 'copy the OpenClaw workspace AGENTS.md into this folder')
    .option('--skill-conflict <mode>', 'skip, overwrite or rename when a skill exists (default skip)')
    .option('-y, --yes', 'apply without asking')
    .action(claw('migrate'));
  c.command('cleanup')
    .alias('clean')
    .description('rename leftover OpenClaw folders to <name>.pre-migration')
    .option('--source <path>', 'one OpenClaw folder')
    .option('--dry-run', 'say what would be renamed')
    .option('-y, --yes', 'do not ask')
    .action(claw('cleanup'));
}
