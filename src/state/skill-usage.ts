// Skill usage and lifecycle, in Hermes's sidecar HERMES_HOME/skills/.usage.json (keyed by skill
// name): view/use/patch counters bumped by skill_view, skill invocations and skill_manage, plus the
// curator's lifecycle state (active → stale → archived) and the pin that exempts a skill.
// Only skills the agent or the user wrote are tracked and curated: bundled skills (.bundled_manifest)
// and hub installs (.hub/lock.json) are maintained upstream and never recorded or touched here.
// Every write is best-effort and atomic: a broken sidecar never breaks the tool call that bumped it.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fsutil.ts';
import { bundledSkills, bundledSkillsRoot, readBundledManifest } from './skills-bundled.ts';
import { discoverSkills, readHubLock } from './skills.ts';

export type SkillState = 'active' | 'stale' | 'archived';

export interface UsageRecord {
  use_count: number;
  view_count: number;
  last_used_at: string | null;
  last_viewed_at: string | null;
  patch_count: number;
  last_patched_at: string | null;
  created_at: string;
  state: SkillState;
  pinned: boolean;
  archived_at: string | null;
  /** Fields written by other Hermes versions are kept as they are. */
  [key: string]: unknown;
}

export interface UsageRow extends UsageRecord {
  name: string;
  /** The newest of last used / viewed / patched. */
  last_activity_at: string | null;
  activity_count: number;
}

const nowIso = () => new Date().toISOString();

function emptyRecord(): UsageRecord {
  return { use_count: 0, view_count: 0, last_used_at: null, last_viewed_at: null, patch_count: 0, last_patched_at: null, created_at: nowIso(), state: 'active', pinned: false, archived_at: null };
}

const skillsDir = (home: string) => join(home, 'skills');
const usageFile = (home: string) => join(skillsDir(home), '.usage.json');
export const archiveDir = (home: string) => join(skillsDir(home), '.archive');

export function loadUsage(home: string): Record<string, UsageRecord> {
  try {
    const v = JSON.parse(readFileSync(usageFile(home), 'utf8')) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: Record<string, UsageRecord> = {};
    for (const [k, r] of Object.entries(v)) if (r && typeof r === 'object' && !Array.isArray(r)) out[k] = { ...emptyRecord(), ...(r as Partial<UsageRecord>) };
    return out;
  } catch {
    return {};
  }
}

/** Hermes writes the file with sorted keys and two-space indentation. */
function saveUsage(home: string, data: Record<string, UsageRecord>): void {
  const sorted = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const out = sorted(Object.fromEntries(Object.entries(data).map(([k, r]) => [k, sorted(r)])));
  mkdirSync(skillsDir(home), { recursive: true, mode: 0o700 });
  writeFileAtomic(usageFile(home), JSON.stringify(out, null, 2), 0o644);
}

/** Names maintained upstream: the package's bundled skills, those Python Hermes seeded, and hub installs. */
function upstreamNames(home: string): Set<string> {
  return new Set([...bundledSkills(bundledSkillsRoot()).map((s) => s.name), ...readBundledManifest(home).keys(), ...Object.keys(readHubLock(home).installed)]);
}

export function isAgentCreated(home: string, name: string): boolean {
  return !upstreamNames(home).has(name);
}

/** Skills under HERMES_HOME/skills the agent or the user wrote (the ones the curator may touch). */
export function agentCreatedSkills(home: string): { name: string; dir: string }[] {
  const off = upstreamNames(home);
  return discoverSkills(home)
    .filter((s) => s.source === 'user' && !off.has(s.name))
    .map((s) => ({ name: s.name, dir: s.dir }));
}

function mutate(home: string, name: string, fn: (r: UsageRecord) => void): boolean {
  if (!name) return false;
  try {
    if (!isAgentCreated(home, name)) return false;
    const data = loadUsage(home);
    const rec = data[name] ?? emptyRecord();
    fn(rec);
    data[name] = rec;
    saveUsage(home, data);
    return true;
  } catch {
    return false; // best-effort: telemetry never fails the caller
  }
}

export function bumpView(home: string, name: string): void {
  mutate(home, name, (r) => {
    r.view_count = Number(r.view_count || 0) + 1;
    r.last_viewed_at = nowIso();
  });
}

export function bumpUse(home: string, name: string): void {
  mutate(home, name, (r) => {
    r.use_count = Number(r.use_count || 0) + 1;
    r.last_used_at = nowIso();
  });
}

export function bumpPatch(home: string, name: string): void {
  mutate(home, name, (r) => {
    r.patch_count = Number(r.patch_count || 0) + 1;
    r.last_patched_at = nowIso();
  });
}

export function setState(home: string, name: string, state: SkillState): void {
  mutate(home, name, (r) => {
    r.state = state;
    if (state === 'archived') r.archived_at = nowIso();
    else if (state === 'active') r.archived_at = null;
  });
}

export function setPinned(home: string, name: string, pinned: boolean): boolean {
  return mutate(home, name, (r) => {
    r.pinned = pinned;
  });
}

/** Drops a deleted skill's record. */
export function forget(home: string, name: string): void {
  const data = loadUsage(home);
  if (!(name in data)) return;
  delete data[name];
  try {
    saveUsage(home, data);
  } catch {
    /* best-effort */
  }
}

function withActivity(name: string, r: UsageRecord): UsageRow {
  const times = [r.last_used_at, r.last_viewed_at, r.last_patched_at].filter((t): t is string => typeof t === 'string' && !Number.isNaN(Date.parse(t)));
  const last = times.length ? times.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b)) : null;
  return { ...r, name, last_activity_at: last, activity_count: Number(r.use_count || 0) + Number(r.view_count || 0) + Number(r.patch_count || 0) };
}

/** Every agent-created skill on disk with its record (defaults when it has none yet). */
export function agentCreatedReport(home: string): UsageRow[] {
  const data = loadUsage(home);
  return agentCreatedSkills(home).map((s) => withActivity(s.name, data[s.name] ?? emptyRecord()));
}

// Curator management, as Hermes decides it: `created_by: "agent"` in the record is an opt-in flag
// (written when the background review or the curator creates a skill, or by `hermes curator adopt`).
// Only managed skills are staled, archived, consolidated or pruned. A skill the person asked for in
// the foreground (`created_by: null`) or one whose record predates the marker (no key) is unmanaged:
// listed by `hermes curator list-unmanaged`, never touched until adopted. Provenance is declared,
// never inferred from activity.

export const isManagedRecord = (r: Partial<UsageRecord> | undefined): boolean => !!r && (r.created_by === 'agent' || r.agent_created === true);

/** Curator-managed skills on disk, with their records. */
export function curatedReport(home: string): UsageRow[] {
  return agentCreatedReport(home).filter((r) => isManagedRecord(r));
}

/** Eligible skills the curator leaves alone; `has_provenance_key` false = the record predates the marker. */
export function unmanagedReport(home: string): (UsageRow & { has_provenance_key: boolean })[] {
  const data = loadUsage(home);
  return agentCreatedReport(home)
    .filter((r) => !isManagedRecord(r))
    .map((r) => ({ ...r, has_provenance_key: !!data[r.name] && 'created_by' in data[r.name] }));
}

/** Records who created a skill: `agent` (background review, curator) makes it curator-managed. */
export function markCreated(home: string, name: string, by: 'agent' | null): void {
  mutate(home, name, (r) => {
    r.created_by = by;
  });
}

/** Hands a skill to the curator by the person's declaration; its inactivity clock is kept. */
export function adoptSkill(home: string, name: string): { ok: boolean; message: string } {
  if (!name) return { ok: false, message: 'no skill name given' };
  if (!isAgentCreated(home, name)) return { ok: false, message: `'${name}' is bundled or hub-installed; its upstream owns it` };
  if (!agentCreatedSkills(home).some((s) => s.name === name)) return { ok: false, message: `skill '${name}' not found in ${skillsDir(home)}` };
  if (isManagedRecord(loadUsage(home)[name])) return { ok: true, message: `'${name}' is already curator-managed` };
  if (!mutate(home, name, (r) => void (r.created_by = 'agent'))) return { ok: false, message: `could not write ${usageFile(home)}` };
  return { ok: true, message: `adopted '${name}' (now curator-managed: eligible for staleness and archival)` };
}

/** Moves an agent-created skill to skills/.archive/<folder> (a timestamp is added on a clash). */
export function archiveSkill(home: string, name: string): { ok: boolean; message: string; dest?: string } {
  if (!isAgentCreated(home, name)) return { ok: false, message: `skill '${name}' is bundled or hub-installed; it is never archived` };
  const skill = agentCreatedSkills(home).find((s) => s.name === name);
  if (!skill) return { ok: false, message: `skill '${name}' not found` };
  const root = archiveDir(home);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const folder = skill.dir.split(/[\\/]/).pop()!;
  let dest = join(root, folder);
  if (existsSync(dest)) dest = join(root, `${folder}-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`);
  try {
    renameSync(skill.dir, dest);
  } catch (e) {
    return { ok: false, message: `failed to archive: ${(e as Error).message}` };
  }
  setState(home, name, 'archived');
  return { ok: true, message: `archived to ${dest}`, dest };
}

/** Archived skill folders (their names; timestamped duplicates included). */
export function listArchived(home: string): string[] {
  try {
    return readdirSync(archiveDir(home), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Moves an archived skill back to skills/<name> (flat; the category folder is not rebuilt). */
export function restoreSkill(home: string, name: string): { ok: boolean; message: string } {
  if (!isAgentCreated(home, name)) return { ok: false, message: `skill '${name}' is now bundled or hub-installed; restoring would shadow the upstream version` };
  const archived = listArchived(home);
  const pick = archived.includes(name) ? name : archived.filter((n) => n.startsWith(`${name}-`)).sort().reverse()[0];
  if (!pick) return { ok: false, message: `skill '${name}' not found in the archive (see \`hermes curator list-archived\`)` };
  const dest = join(skillsDir(home), name);
  if (existsSync(dest)) return { ok: false, message: `destination already exists: ${dest}` };
  try {
    renameSync(join(archiveDir(home), pick), dest);
  } catch (e) {
    return { ok: false, message: `failed to restore: ${(e as Error).message}` };
  }
  setState(home, name, 'active');
  return { ok: true, message: `restored to ${dest}` };
}
