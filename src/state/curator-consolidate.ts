// `hermes curator consolidate <source> <destination>` and `purge`, as Hermes has them.
// Consolidate is one transaction: a curator-managed, active, unpinned source skill is archived and every
// cron job that loads it is forwarded to the destination (an active local skill), so scheduled jobs keep
// working; if cron cannot be rewritten the source is put back. The archive is a ledger entry with
// `absorbed_into`, so `hermes curator rollback <entry>` brings the files back.
// Purge deletes archived skills older than `curator.archive_ttl_days` (or --days): explicit only, never
// automatic, and each deletion is a `purge` ledger entry whose before-files stay in the blob store.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendEntry, captureFiles } from './skill-ledger.ts';
import { agentCreatedSkills, archiveDir, archiveSkill, isManagedRecord, loadUsage, restoreSkill } from './skill-usage.ts';
import { discoverSkills } from './skills.ts';

export interface ConsolidateReceipt {
  success: boolean;
  source: string;
  destination: string;
  archived_to?: string;
  cron_jobs_forwarded?: string[];
  ledger_entry?: string | null;
  error?: string;
}

/**
 * Rewrites every scheduled job that loads skill `from` to load `to` instead and returns the ids it
 * changed. The cron store lives above state (src/cron/jobs.ts `forwardSkillInJobs`), so the caller
 * passes it in.
 */
export type ForwardJobs = (home: string, from: string, to: string) => Promise<string[]>;

export async function consolidateSkills(home: string, source: string, destination: string, forwardJobs: ForwardJobs, actor: 'user' | 'curator' = 'user'): Promise<ConsolidateReceipt> {
  const fail = (error: string): ConsolidateReceipt => ({ success: false, source, destination, error });
  if (!source || !destination) return fail('name a source and a destination skill');
  if (source === destination) return fail('the source and the destination are the same skill');
  const rec = loadUsage(home)[source];
  const src = agentCreatedSkills(home).find((s) => s.name === source);
  if (!src) return fail(`no active local skill '${source}' (bundled and hub-installed skills are never consolidated)`);
  if (!isManagedRecord(rec)) return fail(`'${source}' is not curator-managed; adopt it first with \`hermes curator adopt ${source}\``);
  if ((rec?.state ?? 'active') === 'archived') return fail(`'${source}' is already archived`);
  if (rec?.pinned) return fail(`'${source}' is pinned; unpin it first with \`hermes curator unpin ${source}\``);
  const dest = discoverSkills(home).find((s) => s.name === destination && s.source === 'user');
  if (!dest) return fail(`no active local skill '${destination}' to forward to`);
  const before = captureFiles(home, src.dir);
  const archived = archiveSkill(home, source);
  if (!archived.ok) return fail(archived.message);
  let forwarded: string[];
  try {
    forwarded = await forwardJobs(home, source, destination);
  } catch (e) {
    const back = restoreSkill(home, source);
    return fail(`cron jobs could not be forwarded (${(e as Error).message}); ${back.ok ? `'${source}' was put back` : `'${source}' stays archived: ${back.message}`}`);
  }
  const entry = appendEntry(home, {
    actor,
    action: 'archive',
    skill: source,
    before,
    after: captureFiles(home, archived.dest),
    evidence: { absorbed_into: destination, cron_jobs_forwarded: forwarded },
  });
  return { success: true, source, destination, archived_to: archived.dest, cron_jobs_forwarded: forwarded, ledger_entry: entry };
}

/** Archived skill folders last changed more than `days` ago. */
export function purgeCandidates(home: string, days: number, now = Date.now()): { name: string; dir: string; ageDays: number }[] {
  const root = archiveDir(home);
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
  const cutoff = now - days * 86_400_000;
  return names
    .map((name) => ({ name, dir: join(root, name), mtime: statSync(join(root, name)).mtimeMs }))
    .filter((c) => c.mtime < cutoff)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => ({ name: c.name, dir: c.dir, ageDays: Math.floor((now - c.mtime) / 86_400_000) }));
}

/** Deletes one archived skill folder, recording it (files kept as blobs) in the ledger. */
export function purgeArchived(home: string, c: { name: string; dir: string }, ttlDays: number): void {
  const before = captureFiles(home, c.dir);
  rmSync(c.dir, { recursive: true, force: true });
  appendEntry(home, { actor: 'user', action: 'purge', skill: c.name, before, after: [], evidence: { ttl_days: ttlDays } });
}
