// The per-mutation skill ledger, in Hermes's files: every change to a skill (by the agent, the
// curator or the user) appends one JSON line to HERMES_HOME/skills/.curator_ledger.jsonl with the
// files before and after, whose contents are stored once by SHA-256 under
// HERMES_HOME/.curator_backups/blobs/. `hermes curator ledger` lists it; `hermes curator rollback
// <entry id>` puts one mutation's before-state back (after recording the current state, so the
// rollback can itself be rolled back). Telemetry, not a gate: a failed write never stops a change.
// Off with `skills.ledger: false`.
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

export type LedgerActor = 'curator' | 'agent' | 'user';

export interface FileRef {
  path: string;
  sha256: string;
}

export interface LedgerEntry {
  id: string;
  ts: string;
  actor: LedgerActor;
  action: string;
  skill: string;
  evidence: Record<string, unknown>;
  before: FileRef[];
  after: FileRef[];
}

export const ledgerPath = (home: string) => join(home, 'skills', '.curator_ledger.jsonl');
const blobsDir = (home: string) => join(home, '.curator_backups', 'blobs');

export function ledgerEnabled(config: unknown): boolean {
  return ((config as { skills?: { ledger?: unknown } })?.skills?.ledger ?? true) !== false;
}

function storeBlob(home: string, data: Buffer): string {
  const digest = createHash('sha256').update(data).digest('hex');
  const dest = join(blobsDir(home), digest);
  if (!existsSync(dest)) {
    mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    const tmp = `${dest}.tmp-${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, dest);
  }
  return digest;
}

export function readBlob(home: string, sha: string): Buffer | null {
  if (!/^[0-9a-f]{64}$/.test(sha)) return null;
  try {
    return readFileSync(join(blobsDir(home), sha));
  } catch {
    return null;
  }
}

/** Every file under `root` (a folder or one file) with its content stored as a blob. */
export function captureFiles(home: string, root: string | null | undefined): FileRef[] {
  if (!root || !existsSync(root)) return [];
  const out: FileRef[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(join(p, e));
    else if (st.isFile()) out.push({ path: p, sha256: storeBlob(home, readFileSync(p)) });
  };
  walk(root);
  return out;
}

/** Appends one entry; returns its id, or null when the ledger is off or the write failed. */
export function appendEntry(home: string, e: Omit<LedgerEntry, 'id' | 'ts' | 'evidence'> & { evidence?: Record<string, unknown> }, config?: unknown): string | null {
  if (config !== undefined && !ledgerEnabled(config)) return null;
  try {
    const entry: LedgerEntry = { id: randomBytes(6).toString('hex'), ts: new Date().toISOString(), actor: e.actor, action: e.action, skill: e.skill, evidence: e.evidence ?? {}, before: e.before, after: e.after };
    mkdirSync(dirname(ledgerPath(home)), { recursive: true });
    appendFileSync(ledgerPath(home), `${JSON.stringify(entry)}\n`);
    return entry.id;
  } catch {
    return null;
  }
}

/**
 * Records a mutation around `mutate`: the files under `beforeRoot` are captured first, those under
 * `afterRoot()` (evaluated after the change) last. Never throws for the ledger's sake.
 */
export function recordMutation<T>(home: string, o: { action: string; skill: string; actor: LedgerActor; beforeRoot: string | null; afterRoot: () => string | null; evidence?: Record<string, unknown>; config?: unknown }, mutate: () => T): T {
  let before: FileRef[] | null = null;
  if (o.config === undefined || ledgerEnabled(o.config)) {
    try {
      before = captureFiles(home, o.beforeRoot);
    } catch {
      before = null;
    }
  }
  const result = mutate();
  if (before !== null) {
    try {
      appendEntry(home, { actor: o.actor, action: o.action, skill: o.skill, evidence: o.evidence, before, after: captureFiles(home, o.afterRoot()) });
    } catch {
      /* telemetry only */
    }
  }
  return result;
}

/** The ledger, newest first (malformed lines skipped). */
export function listEntries(home: string, o: { skill?: string; limit?: number } = {}): LedgerEntry[] {
  let rows: LedgerEntry[] = [];
  try {
    for (const line of readFileSync(ledgerPath(home), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as LedgerEntry;
        if (v && typeof v === 'object' && typeof v.id === 'string') rows.push(v);
      } catch {
        /* skip */
      }
    }
  } catch {
    return [];
  }
  if (o.skill) rows = rows.filter((r) => r.skill === o.skill);
  rows.reverse();
  return o.limit !== undefined && o.limit >= 0 ? rows.slice(0, o.limit) : rows;
}

function inside(home: string, p: string): boolean {
  const rel = relative(normalize(home), normalize(p));
  return !!rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
}

/**
 * Puts the before-state of entry `id` back: its files are rewritten and files it created removed.
 * Fails closed: every blob must exist and the current state must be recorded first.
 */
export function rollbackEntry(home: string, id: string): { ok: boolean; message: string } {
  const entry = listEntries(home).find((e) => e.id === id);
  if (!entry) return { ok: false, message: `no ledger entry with id '${id}' (see \`hermes curator ledger\`)` };
  for (const f of [...entry.before, ...entry.after]) if (!inside(home, f.path)) return { ok: false, message: `refusing rollback: the entry names a path outside ${home}: ${f.path}` };
  for (const f of entry.before) if (!readBlob(home, f.sha256)) return { ok: false, message: `missing blob ${f.sha256} for ${f.path}; rollback aborted, nothing was changed` };
  const touched = [...new Set([...entry.before, ...entry.after].map((f) => f.path))].sort();
  let safety: FileRef[];
  try {
    safety = touched.filter((p) => existsSync(p)).flatMap((p) => captureFiles(home, p));
  } catch (e) {
    return { ok: false, message: `pre-rollback safety capture failed (${(e as Error).message}); rollback aborted, nothing was changed` };
  }
  const safetyId = appendEntry(home, { actor: 'user', action: 'pre-rollback', skill: entry.skill, before: safety, after: safety, evidence: { rollback_target: id } });
  if (!safetyId) return { ok: false, message: 'pre-rollback safety capture could not be written; rollback aborted, nothing was changed' };
  const beforePaths = new Set(entry.before.map((f) => f.path));
  let restored = 0;
  let removed = 0;
  for (const f of entry.before) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, readBlob(home, f.sha256)!);
    restored++;
  }
  for (const f of entry.after) {
    if (beforePaths.has(f.path) || !existsSync(f.path)) continue;
    rmSync(f.path, { force: true });
    removed++;
  }
  appendEntry(home, { actor: 'user', action: 'rollback', skill: entry.skill, before: safety, after: entry.before, evidence: { rollback_target: id, restored, removed } });
  return { ok: true, message: `rolled back entry ${id} (${entry.action} on '${entry.skill}'): ${restored} file(s) restored, ${removed} removed. Safety entry ${safetyId} holds the state before the rollback.` };
}
