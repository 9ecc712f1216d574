// Curator backups, as Hermes keeps them: before any run that may change skills, HERMES_HOME/skills is
// packed into skills/.curator_backups/<UTC id>/skills.tar.gz with a manifest.json, plus a copy of
// cron/jobs.json (cron-jobs.json). `.curator_backups`, `.hub` (the hub's own) and `.git` are left
// out. The newest `curator.backup.keep` (default 5) are kept. A rollback first snapshots the current
// tree (so it can be undone), then replaces the skills tree with the chosen snapshot.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractTarGz, writeTarGz } from './tar.ts';

const EXCLUDED = new Set(['.curator_backups', '.hub', '.git']);
const ARCHIVE = 'skills.tar.gz';
const ID_RE = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z(-\d{2})?$/;
export const DEFAULT_KEEP = 5;

export interface BackupSettings {
  enabled: boolean;
  keep: number;
}

export function backupSettings(config: unknown): BackupSettings {
  const b = ((config as { curator?: { backup?: unknown } })?.curator?.backup ?? {}) as Record<string, unknown>;
  const keep = Number(b.keep);
  return { enabled: b.enabled !== false, keep: Number.isInteger(keep) && keep >= 1 ? keep : DEFAULT_KEEP };
}

export interface BackupManifest {
  id: string;
  reason: string;
  created_at: string;
  archive: string;
  archive_bytes: number;
  skill_files: number;
  cron_jobs: { backed_up: boolean; jobs_count: number; reason?: string };
  path?: string;
}

const skillsDir = (home: string) => join(home, 'skills');
const backupsDir = (home: string) => join(skillsDir(home), '.curator_backups');

function utcId(now = new Date()): string {
  return `${now.toISOString().slice(0, 19).replace(/:/g, '-')}Z`;
}

function countSkillFiles(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (EXCLUDED.has(e.name)) continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === 'SKILL.md') n++;
    }
  };
  walk(dir);
  return n;
}

/** Packs HERMES_HOME/skills; returns the snapshot folder, or null when disabled or nothing to pack. */
export function snapshotSkills(home: string, reason: string, s: BackupSettings, protect: string[] = []): string | null {
  if (!s.enabled || !existsSync(skillsDir(home))) return null;
  mkdirSync(backupsDir(home), { recursive: true, mode: 0o700 });
  const base = utcId();
  let id = base;
  for (let n = 1; existsSync(join(backupsDir(home), id)); n++) id = `${base}-${String(n).padStart(2, '0')}`;
  const dest = join(backupsDir(home), id);
  mkdirSync(dest, { mode: 0o700 });
  try {
    const archive = join(dest, ARCHIVE);
    writeTarGz(skillsDir(home), archive, { skip: (part) => EXCLUDED.has(part) });
    const jobs = join(home, 'cron', 'jobs.json');
    let cron: BackupManifest['cron_jobs'] = { backed_up: false, jobs_count: 0, reason: 'no cron/jobs.json present' };
    if (existsSync(jobs)) {
      const raw = readFileSync(jobs, 'utf8');
      writeFileSync(join(dest, 'cron-jobs.json'), raw);
      let count = 0;
      try {
        const v = JSON.parse(raw) as { jobs?: unknown[] } | unknown[];
        count = (Array.isArray(v) ? v : Array.isArray(v.jobs) ? v.jobs : []).length;
      } catch {
        /* stored raw */
      }
      cron = { backed_up: true, jobs_count: count };
    }
    const manifest: BackupManifest = { id, reason, created_at: new Date().toISOString(), archive: ARCHIVE, archive_bytes: statSync(archive).size, skill_files: countSkillFiles(skillsDir(home)), cron_jobs: cron };
    writeFileSync(join(dest, 'manifest.json'), JSON.stringify(Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b))), null, 2));
  } catch (e) {
    rmSync(dest, { recursive: true, force: true });
    throw e;
  }
  pruneBackups(home, s.keep, [id, ...protect]);
  return dest;
}

function restorable(home: string): string[] {
  const dir = backupsDir(home);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => ID_RE.test(n) && existsSync(join(dir, n, ARCHIVE)))
    .sort()
    .reverse();
}

function pruneBackups(home: string, keep: number, protect: string[]): void {
  for (const id of restorable(home).slice(keep)) if (!protect.includes(id)) rmSync(join(backupsDir(home), id), { recursive: true, force: true });
}

/** Snapshots, newest first. */
export function listBackups(home: string): BackupManifest[] {
  return restorable(home).map((id) => {
    const dir = join(backupsDir(home), id);
    let m: Partial<BackupManifest> = {};
    try {
      m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    } catch {
      /* a snapshot without a readable manifest still restores */
    }
    return { id, reason: m.reason ?? '?', created_at: m.created_at ?? '', archive: ARCHIVE, archive_bytes: statSync(join(dir, ARCHIVE)).size, skill_files: m.skill_files ?? 0, cron_jobs: m.cron_jobs ?? { backed_up: false, jobs_count: 0 }, path: dir };
  });
}

/**
 * Replaces HERMES_HOME/skills with snapshot `id` (newest when omitted). A safety snapshot of the
 * current tree is taken first; when it fails, nothing is changed. `.hub` and the backups stay.
 */
export function rollbackSkills(home: string, id: string | undefined, s: BackupSettings): { restored: string; safety: string | null; files: number } {
  const ids = restorable(home);
  const target = id ?? ids[0];
  if (!target || !ids.includes(target)) throw new Error(id ? `No curator snapshot named ${id} (see \`hermes curator rollback --list\`).` : 'There are no curator snapshots to roll back to.');
  const safety = snapshotSkills(home, `pre-rollback to ${target}`, { ...s, enabled: true }, [target]);
  const root = skillsDir(home);
  const staging = join(backupsDir(home), `.rollback-staging-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  let files = 0;
  try {
    files = extractTarGz(join(backupsDir(home), target, ARCHIVE), staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`The snapshot ${target} could not be read (${(e as Error).message}); nothing was changed.`);
  }
  for (const e of readdirSync(root)) if (!EXCLUDED.has(e)) rmSync(join(root, e), { recursive: true, force: true });
  for (const e of readdirSync(staging)) renameSync(join(staging, e), join(root, e));
  rmSync(staging, { recursive: true, force: true });
  return { restored: target, safety: safety ? safety.split(/[\\/]/).pop()! : null, files };
}
