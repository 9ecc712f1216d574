// `hermes curator list-unmanaged | adopt | consolidate | purge` (Hermes's): who the curator manages,
// handing skills over, merging one skill into another with cron forwarded, deleting old archives.
// The rules live in state/skill-usage.ts (managed = `created_by: agent`) and state/curator-consolidate.ts.
import { curatorSettings } from '../state/curator.ts';
import { consolidateSkills, purgeArchived, purgeCandidates } from '../state/curator-consolidate.ts';
import { ago } from '../state/curator.ts';
import { adoptSkill, unmanagedReport } from '../state/skill-usage.ts';
import { loadContext } from './context.ts';
import { CliError, confirmOrRefuse } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

export function listUnmanaged(): void {
  const rows = unmanagedReport(loadContext().home).sort((a, b) => a.name.localeCompare(b.name));
  if (!rows.length) {
    out('curator: no unmanaged skills — every eligible skill is managed');
    return;
  }
  out(`unmanaged skills (${rows.length}):`);
  for (const r of rows) {
    const why = r.has_provenance_key ? `created_by:${r.created_by ?? 'null'}` : 'no marker';
    out(`  ${r.name.padEnd(44)} activity=${String(r.activity_count).padStart(4)}  last_activity=${ago(r.last_activity_at).padEnd(14)}  (${why})`);
  }
  out('\nadopt one with `hermes curator adopt <name>`, or all with `hermes curator adopt --all-unmanaged`');
}

export async function adopt(names: string[], opts: { allUnmanaged?: boolean; dryRun?: boolean; yes?: boolean }): Promise<void> {
  const { home } = loadContext();
  let list = names;
  if (opts.allUnmanaged) {
    if (names.length) throw new CliError('Pass either skill names or --all-unmanaged, not both.', 2);
    list = unmanagedReport(home).map((r) => r.name);
    if (!list.length) {
      out('curator: no unmanaged skills to adopt');
      return;
    }
  }
  if (!list.length) throw new CliError('Name a skill to adopt, or pass --all-unmanaged (see `hermes curator list-unmanaged`).', 2);
  if (opts.dryRun) {
    out(`curator: would adopt ${list.length} skill(s) (dry run):`);
    for (const n of list) out(`  + ${n}`);
    return;
  }
  // Adopted skills become archivable: a bulk handover is confirmed.
  if (opts.allUnmanaged) await confirmOrRefuse(`Adopt ${list.length} unmanaged skill(s)? They become eligible for automatic staleness and archival.`, opts.yes);
  let failed = 0;
  for (const n of list) {
    const r = adoptSkill(home, n);
    out(`curator: ${r.message}`);
    if (!r.ok) failed++;
  }
  if (list.length > 1) out(`curator: adopted ${list.length - failed}/${list.length}`);
  if (failed) process.exitCode = 1;
}

export async function consolidate(source: string, destination: string): Promise<void> {
  const { forwardSkillInJobs } = await import('../cron/jobs.ts');
  const r = await consolidateSkills(loadContext().home, source, destination, forwardSkillInJobs, 'user');
  const sorted = Object.fromEntries(Object.keys(r).sort().map((k) => [k, r[k as keyof typeof r]]));
  out(`curator: ${JSON.stringify(sorted)}`);
  if (!r.success) process.exitCode = 1;
}

export async function purge(opts: { days?: string; dryRun?: boolean; yes?: boolean }): Promise<void> {
  const ctx = loadContext();
  const days = opts.days === undefined ? curatorSettings(ctx.loaded.config).archiveTtlDays : Number(opts.days);
  if (!Number.isFinite(days)) throw new CliError(`--days expects a number of days, got "${opts.days}".`, 2);
  if (days <= 0) throw new CliError('Purge is off (curator.archive_ttl_days is 0). Set it, or pass --days N to delete archived skills older than N days.');
  const cands = purgeCandidates(ctx.home, days);
  if (!cands.length) {
    out(`curator: no archived skills older than ${days}d.`);
    return;
  }
  out(`Archived skills older than ${days}d:`);
  for (const c of cands) out(`  ${c.name.padEnd(40)} ${c.ageDays}d`);
  if (opts.dryRun) {
    out('(dry run: nothing deleted)');
    return;
  }
  await confirmOrRefuse(`Permanently delete ${cands.length} archived skill(s)? (each is recorded in the ledger)`, opts.yes);
  for (const c of cands) purgeArchived(ctx.home, c, days);
  out(`curator: purged ${cands.length} archived skill(s); ledger entries recorded (\`hermes curator ledger\`).`);
}
