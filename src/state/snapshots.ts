// Quick state snapshots (`hermes backup --quick`, `/snapshot`): the critical state files copied to
// HERMES_HOME/state-snapshots/<UTC yyyymmdd-hhmmss>[-label]/ with a manifest.json, in Python
// Hermes's layout, so either program can list and restore the other's snapshots. SQLite databases
// are copied with SQLite's backup API (consistent even while Hermes runs) and restored the same way,
// into the live file, so open connections see the restored data.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { sqlite } from './sqlite.ts';

export const SNAPSHOTS_DIR = 'state-snapshots';
export const QUICK_STATE_FILES = [
  'state.db',
  'config.yaml',
  '.env',
  'auth.json',
  'cron/jobs.json',
  'gateway_state.json',
  'channel_directory.json',
  'channel_aliases.json',
  'processes.json',
  'pairing',
  'platforms/pairing',
];
const DEFAULT_KEEP = 20;

export interface SnapshotManifest {
  id: string;
  timestamp: string;
  label: string | null;
  file_count: number;
  total_size: number;
  files: Record<string, number>;
}

/** Copies a SQLite database consistently (backup API; VACUUM INTO where the API is missing). */
export async function copyDatabase(src: string, dest: string): Promise<void> {
  const { DatabaseSync, backup } = sqlite() as typeof import('node:sqlite') & { backup?: (db: unknown, path: string) => Promise<number> };
  const db = new DatabaseSync(src, { readOnly: true });
  try {
    rmSync(dest, { force: true });
    if (typeof backup === 'function') await backup(db, dest);
    else db.exec(`VACUUM INTO '${dest.replace(/'/g, "''")}'`);
  } finally {
    db.close();
  }
}

/** Writes the pages of `src` into the database at `dest` (created if missing). */
export async function restoreDatabase(src: string, dest: string): Promise<void> {
  const { DatabaseSync, backup } = sqlite() as typeof import('node:sqlite') & { backup?: (db: unknown, path: string) => Promise<number> };
  const db = new DatabaseSync(src, { readOnly: true });
  try {
    if (typeof backup === 'function') await backup(db, dest);
    else {
      for (const x of ['', '-wal', '-shm']) rmSync(`${dest}${x}`, { force: true });
      db.exec(`VACUUM INTO '${dest.replace(/'/g, "''")}'`);
    }
  } finally {
    db.close();
  }
}

const stamp = (d = new Date()) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

function filesOf(home: string, rel: string): string[] {
  const p = join(home, rel);
  if (!existsSync(p)) return [];
  const st = statSync(p);
  if (st.isFile()) return [rel];
  if (!st.isDirectory()) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const q = join(d, e.name);
      if (e.isDirectory()) walk(q);
      else if (e.isFile()) out.push(relative(home, q).split('\\').join('/'));
    }
  };
  walk(p);
  return out;
}

/** Creates a snapshot; returns its id, or null when there was nothing to copy. */
export async function createQuickSnapshot(home: string, label?: string | null, keep = DEFAULT_KEEP): Promise<string | null> {
  const safeLabel = label ? label.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) : '';
  const ts = stamp();
  let id = safeLabel ? `${ts}-${safeLabel}` : ts;
  const root = join(home, SNAPSHOTS_DIR);
  for (let n = 2; existsSync(join(root, id)); n++) id = `${safeLabel ? `${ts}-${safeLabel}` : ts}-${n}`;
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: Record<string, number> = {};
  for (const entry of QUICK_STATE_FILES) {
    for (const rel of filesOf(home, entry)) {
      const src = join(home, rel);
      const dst = join(dir, rel);
      mkdirSync(dirname(dst), { recursive: true });
      try {
        if (rel.endsWith('.db')) await copyDatabase(src, dst);
        else copyFileSync(src, dst);
        files[rel] = statSync(dst).size;
      } catch {
        /* unreadable: left out of the snapshot */
      }
    }
  }
  if (!Object.keys(files).length) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const manifest: SnapshotManifest = {
    id,
    timestamp: ts,
    label: label ?? null,
    file_count: Object.keys(files).length,
    total_size: Object.values(files).reduce((a, b) => a + b, 0),
    files,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  pruneQuickSnapshots(home, keep);
  return id;
}

export function listQuickSnapshots(home: string, limit = 20): SnapshotManifest[] {
  const root = join(home, SNAPSHOTS_DIR);
  if (!existsSync(root)) return [];
  const out: SnapshotManifest[] = [];
  for (const name of readdirSync(root).sort().reverse()) {
    const d = join(root, name);
    if (!statSync(d).isDirectory()) continue;
    try {
      out.push(JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as SnapshotManifest);
    } catch {
      out.push({ id: name, timestamp: '', label: null, file_count: 0, total_size: 0, files: {} });
    }
    if (out.length >= limit) break;
  }
  return out;
}

/** Restores a snapshot over the current state files. Returns how many files came back. */
export async function restoreQuickSnapshot(home: string, id: string): Promise<number> {
  if (!id || /[/\\]/.test(id) || id === '.' || id === '..') throw new Error(`Invalid snapshot id: ${id}`);
  const root = resolve(home, SNAPSHOTS_DIR);
  const dir = resolve(root, id);
  if (!dir.startsWith(`${root}/`) || !existsSync(join(dir, 'manifest.json'))) throw new Error(`No snapshot ${id}. See /snapshot (or \`hermes backup --quick\` to make one).`);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as SnapshotManifest;
  let restored = 0;
  for (const rel of Object.keys(manifest.files ?? {})) {
    const src = resolve(dir, rel);
    const dst = resolve(home, rel);
    if (!src.startsWith(`${dir}/`) || !dst.startsWith(`${resolve(home)}/`) || !existsSync(src)) continue;
    mkdirSync(dirname(dst), { recursive: true });
    if (rel.endsWith('.db')) await restoreDatabase(src, dst);
    else copyFileSync(src, dst);
    restored++;
  }
  return restored;
}

export function pruneQuickSnapshots(home: string, keep = DEFAULT_KEEP): number {
  const root = join(home, SNAPSHOTS_DIR);
  if (!existsSync(root)) return 0;
  const dirs = readdirSync(root)
    .filter((n) => statSync(join(root, n)).isDirectory())
    .sort()
    .reverse();
  let n = 0;
  for (const d of dirs.slice(Math.max(0, keep))) {
    rmSync(join(root, d), { recursive: true, force: true });
    n++;
  }
  return n;
}
