// `hermes curator`: maintenance of the skills the agent wrote (stale → archived by inactivity,
// pins, archive and restore). Implementations load only when a command runs.
import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../curator-cmd.ts'));
  const cur = program.command('curator').description('skill maintenance: agent-created skills go stale, then to skills/.archive, when unused; an optional LLM pass merges overlapping ones; status, run, pin, backups, ledger');
  cur.command('status', { isDefault: true }).description('curator state, settings, the curator-managed skills by state and the unmanaged ones').action(run('status'));
  cur
    .command('run')
    .description('run a curator pass now: mark unused skills stale, archive long-unused ones, reactivate used ones')
    .option('--dry-run', 'report what would change; change nothing')
    .option('--consolidate', 'also run the LLM consolidation pass this time (merges overlapping skills into umbrellas), whatever curator.consolidate says')
    .action(run('run'));
  cur.command('pause').description('pause automatic curator runs').action(run('pause'));
  cur.command('resume').description('resume automatic curator runs').action(run('resume'));
  cur.command('pin <skill>').description('pin a skill so the curator never stales or archives it').action(run('pin'));
  cur.command('unpin <skill>').description('unpin a skill').action(run('unpin'));
  cur.command('archive <skill>').description('move an agent-created skill to skills/.archive (out of the prompt; recoverable)').action(run('archive'));
  cur.command('restore <skill>').description('bring an archived skill back').action(run('restore'));
  cur.command('list-archived').description('archived (recoverable) skills').action(run('listArchivedCmd'));
  cur
    .command('prune')
    .description('archive unpinned agent-created skills idle for N days or more (default curator.archive_after_days)')
    .option('--days <n>', 'idle days (default curator.archive_after_days, 90)')
    .option('--dry-run', 'list them; change nothing')
    .option('-y, --yes', 'do not ask')
    .action(run('prune'));
  cur
    .command('usage')
    .description('use, view and patch counts of the agent-created skills (skills/.usage.json)')
    .option('--sort <order>', 'activity (default), recent or name')
    .option('--json', 'print JSON')
    .action(run('usage'));
  cur.command('backup').description('snapshot skills/ now into skills/.curator_backups (taken automatically before every real run)').option('--reason <text>', 'label stored in manifest.json (default manual)').action(run('backup'));
  cur
    .command('rollback [entry-id]')
    .description('restore skills/ from a snapshot (newest by default), or undo one ledger entry')
    .option('--list', 'list the snapshots')
    .option('--id <snapshot>', 'which snapshot (see --list)')
    .option('-y, --yes', 'do not ask')
    .action(run('rollback'));
  const manage = lazyActions(() => import('../curator-manage-cmd.ts'));
  cur.command('list-unmanaged').description('skills the curator leaves alone (no created_by: agent marker): yours, or older than the marker').action(manage('listUnmanaged'));
  cur
    .command('adopt [skills...]')
    .description('hand skills to the curator (they become eligible for staleness and archival)')
    .option('--all-unmanaged', 'adopt every unmanaged skill')
    .option('--dry-run', 'list what would be adopted; write nothing')
    .option('-y, --yes', 'do not ask (with --all-unmanaged)')
    .action(manage('adopt'));
  cur.command('consolidate <source> <destination>').description('archive a curator-managed skill and forward the cron jobs that load it to another skill, in one step').action(manage('consolidate'));
  cur
    .command('purge')
    .description('delete archived skills older than curator.archive_ttl_days (explicit only; recorded in the ledger)')
    .option('--days <n>', 'override curator.archive_ttl_days this time')
    .option('--dry-run', 'list them; delete nothing')
    .option('-y, --yes', 'do not ask')
    .action(manage('purge'));
  cur.command('ledger').description('every change to a skill (agent, curator, you), newest first (skills/.curator_ledger.jsonl)').option('--skill <name>', 'only this skill').option('--limit <n>', 'how many (default 20)').action(run('ledger'));
}
