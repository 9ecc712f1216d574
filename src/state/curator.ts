// The curator: maintenance of the skills the agent wrote, as Hermes does it. A run moves each
// agent-created skill by its last activity (used, viewed or patched; its creation when never):
// idle past `curator.stale_after_days` → stale, past `archive_after_days` → archived into
// skills/.archive/ (recoverable; nothing is ever deleted); a stale skill used again → active.
// Pinned skills, bundled skills and hub installs are never touched. State lives in Hermes's
// HERMES_HOME/skills/.curator_state (last run, summary, paused, run count). Skills a cron job uses
// are treated like pinned ones. Archiving is recorded in the skill ledger (state/skill-ledger.ts).
// The whole run — snapshot, this pass, and the optional LLM consolidation (`curator.consolidate`) —
// is session/curator-review.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fsutil.ts';
import { cronReferencedSkills } from './curator-report.ts';
import { captureFiles, appendEntry } from './skill-ledger.ts';
import { archiveSkill, curatedReport, listArchived, setState, unmanagedReport, type UsageRow } from './skill-usage.ts';
import { discoverSkills, findSkill } from './skills.ts';

export const DEFAULT_INTERVAL_HOURS = 24 * 7;
export const DEFAULT_STALE_AFTER_DAYS = 30;
export const DEFAULT_ARCHIVE_AFTER_DAYS = 90;
export const DEFAULT_MIN_IDLE_HOURS = 2;

export interface CuratorState {
  last_run_at: string | null;
  last_run_duration_seconds: number | null;
  last_run_summary: string | null;
  last_run_summary_shown_at: string | null;
  last_report_path: string | null;
  paused: boolean;
  run_count: number;
  [key: string]: unknown;
}

export interface CuratorSettings {
  enabled: boolean;
  intervalHours: number;
  staleAfterDays: number;
  archiveAfterDays: number;
  consolidate: boolean;
  /** Automatic runs wait until nothing happened in any session for this long. */
  minIdleHours: number;
  /** `hermes curator purge` deletes archives older than this (0 = purge is off). */
  archiveTtlDays: number;
}

const stateFile = (home: string) => join(home, 'skills', '.curator_state');

function defaultState(): CuratorState {
  return { last_run_at: null, last_run_duration_seconds: null, last_run_summary: null, last_run_summary_shown_at: null, last_report_path: null, paused: false, run_count: 0 };
}

export function loadCuratorState(home: string): CuratorState {
  try {
    const v = JSON.parse(readFileSync(stateFile(home), 'utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ...defaultState(), ...(v as Partial<CuratorState>) };
  } catch {
    /* missing or broken: defaults */
  }
  return defaultState();
}

export function saveCuratorState(home: string, s: CuratorState): void {
  const sorted = Object.fromEntries(Object.keys(s).sort().map((k) => [k, s[k]]));
  writeFileAtomic(stateFile(home), JSON.stringify(sorted, null, 2), 0o644);
}

export function setPaused(home: string, paused: boolean): void {
  saveCuratorState(home, { ...loadCuratorState(home), paused });
}

/** `curator:` in config.yaml, with Hermes's defaults (enabled unless it says otherwise). */
export function curatorSettings(config: unknown): CuratorSettings {
  const c = ((config as { curator?: unknown })?.curator ?? {}) as Record<string, unknown>;
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : d);
  return {
    enabled: c.enabled === undefined ? true : c.enabled !== false && c.enabled !== 'false',
    intervalHours: num(c.interval_hours, DEFAULT_INTERVAL_HOURS),
    staleAfterDays: num(c.stale_after_days, DEFAULT_STALE_AFTER_DAYS),
    archiveAfterDays: num(c.archive_after_days, DEFAULT_ARCHIVE_AFTER_DAYS),
    consolidate: c.consolidate === true,
    minIdleHours: num(c.min_idle_hours, DEFAULT_MIN_IDLE_HOURS),
    archiveTtlDays: num(c.archive_ttl_days, 0),
  };
}

export interface Transition {
  name: string;
  from: string;
  to: 'stale' | 'archived' | 'active';
  idleDays: number;
}

export interface CuratorRun {
  checked: number;
  transitions: Transition[];
  summary: string;
}

function idleAnchor(r: UsageRow, now: number): number {
  const t = Date.parse(r.last_activity_at ?? r.created_at ?? '');
  return Number.isNaN(t) ? now : t;
}

/** What a run would do now (pure: nothing is written). */
export function planTransitions(home: string, s: CuratorSettings, now = Date.now()): { checked: number; transitions: Transition[] } {
  const day = 86_400_000;
  const rows = curatedReport(home);
  const transitions: Transition[] = [];
  const cron = cronReferencedSkills(home);
  for (const r of rows) {
    if (r.pinned || cron.has(r.name)) continue;
    const anchor = idleAnchor(r, now);
    const idleDays = Math.max(0, Math.floor((now - anchor) / day));
    const state = r.state ?? 'active';
    if (anchor <= now - s.archiveAfterDays * day && state !== 'archived') transitions.push({ name: r.name, from: state, to: 'archived', idleDays });
    else if (anchor <= now - s.staleAfterDays * day && state === 'active') transitions.push({ name: r.name, from: state, to: 'stale', idleDays });
    else if (anchor > now - s.staleAfterDays * day && state === 'stale') transitions.push({ name: r.name, from: state, to: 'active', idleDays });
  }
  return { checked: rows.length, transitions };
}

/** One curator pass: applies the transitions (unless dryRun) and records the run in .curator_state. */
export function runCurator(home: string, s: CuratorSettings, o: { dryRun?: boolean; now?: number } = {}): CuratorRun {
  const started = Date.now();
  const plan = planTransitions(home, s, o.now);
  const done: Transition[] = [];
  const failed: string[] = [];
  if (!o.dryRun) {
    for (const t of plan.transitions) {
      if (t.to === 'archived') {
        const before = captureFiles(home, findSkill(discoverSkills(home), t.name)?.dir);
        const r = archiveSkill(home, t.name);
        if (r.ok) appendEntry(home, { actor: 'curator', action: 'archive', skill: t.name, before, after: captureFiles(home, r.dest), evidence: { idle_days: t.idleDays } });
        if (r.ok) done.push(t);
        else failed.push(`${t.name}: ${r.message}`);
      } else {
        setState(home, t.name, t.to);
        done.push(t);
      }
    }
  }
  const list = o.dryRun ? plan.transitions : done;
  const count = (to: string) => list.filter((t) => t.to === to).length;
  const summary =
    `${o.dryRun ? 'dry run: would mark' : 'marked'} ${count('stale')} stale, ${o.dryRun ? 'archive' : 'archived'} ${count('archived')}, ${o.dryRun ? 'reactivate' : 'reactivated'} ${count('active')} of ${plan.checked} agent-created skill(s)` +
    (failed.length ? `; ${failed.length} failed (${failed.join('; ')})` : '') +
    list.filter((t) => t.to === 'archived').map((t) => `\n${t.name} → .archive (idle ${t.idleDays}d)`).join('');
  if (!o.dryRun) {
    const st = loadCuratorState(home);
    saveCuratorState(home, { ...st, last_run_at: new Date().toISOString(), last_run_duration_seconds: Math.round((Date.now() - started) / 100) / 10, last_run_summary: summary, run_count: Number(st.run_count || 0) + 1 });
  }
  return { checked: plan.checked, transitions: list, summary };
}

/**
 * Hermes's schedule: due when enabled, not paused and the last run is older than the interval.
 * The first time it is asked, it seeds last_run_at and waits a full interval (never mutates a
 * library on the first tick after an update).
 */
export function curatorDue(home: string, s: CuratorSettings, now = Date.now()): boolean {
  if (!s.enabled) return false;
  const st = loadCuratorState(home);
  if (st.paused) return false;
  const last = Date.parse(st.last_run_at ?? '');
  if (Number.isNaN(last)) {
    saveCuratorState(home, { ...st, last_run_at: new Date(now).toISOString(), last_run_summary: 'deferred first run: the curator runs after one interval; `hermes curator run --dry-run` previews it now' });
    return false;
  }
  return now - last >= s.intervalHours * 3_600_000;
}

/** "3d ago", "never": how long since an ISO time. */
export function ago(ts: string | null | undefined): string {
  const t = Date.parse(ts ?? '');
  if (Number.isNaN(t)) return 'never';
  const s = Math.max(0, Math.floor((Date.now() - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

const row = (r: UsageRow) =>
  `  ${r.name.padEnd(40)}  activity=${String(r.activity_count).padStart(3)}  use=${String(r.use_count).padStart(3)}  view=${String(r.view_count).padStart(3)}  patches=${String(r.patch_count).padStart(3)}  last_activity=${ago(r.last_activity_at)}`;

/** The status block, shared with /curator. */
export function curatorStatusText(home: string, s: CuratorSettings): string {
  const st = loadCuratorState(home);
  const lines = [`curator: ${st.paused ? 'PAUSED' : s.enabled ? 'ENABLED' : 'DISABLED'}`];
  lines.push(`  runs:           ${st.run_count ?? 0}`, `  last run:       ${ago(st.last_run_at)}`);
  const [first, ...rest] = String(st.last_run_summary ?? '(none)').split('\n');
  lines.push(`  last summary:   ${first}`, ...rest.map((l) => `                  ${l}`));
  const ih = s.intervalHours;
  lines.push(`  interval:       every ${ih % 24 === 0 && ih >= 24 ? `${ih / 24}d` : `${ih}h`}`, `  stale after:    ${s.staleAfterDays}d unused`, `  archive after:  ${s.archiveAfterDays}d unused`);
  lines.push(`  min idle:       ${s.minIdleHours}h without activity before an automatic run`);
  lines.push(`  consolidate:    ${s.consolidate ? 'on (LLM umbrella-building pass after the prune)' : 'off (prune-only; `hermes curator run --consolidate` for one run)'}`);
  if (st.last_report_path) lines.push(`  last report:    ${st.last_report_path}/REPORT.md`);
  const rows = curatedReport(home);
  const unmanaged = unmanagedReport(home);
  const unmanagedLines = unmanaged.length
    ? [
        '',
        `unmanaged (no provenance marker): ${unmanaged.length} total`,
        `  pre-dates marker    ${unmanaged.filter((r) => !r.has_provenance_key).length}`,
        `  foreground-created  ${unmanaged.filter((r) => r.has_provenance_key).length}`,
        '  never staled or archived — `hermes curator adopt <name>` hands one over',
      ]
    : [];
  if (!rows.length) {
    lines.push('', 'no curator-managed skills (bundled and hub-installed skills are never curated)', ...unmanagedLines);
    return lines.join('\n');
  }
  const by = (state: string) => rows.filter((r) => (r.state ?? 'active') === state);
  lines.push('', `curator-managed skills: ${rows.length} total`);
  for (const state of ['active', 'stale', 'archived']) lines.push(`  ${state.padEnd(10)} ${by(state).length}`);
  const archived = listArchived(home);
  if (archived.length) lines.push(`  in .archive  ${archived.length} (restore with \`hermes curator restore <name>\`)`);
  const pinned = rows.filter((r) => r.pinned).map((r) => r.name);
  if (pinned.length) lines.push('', `pinned (${pinned.length}): ${pinned.join(', ')}`);
  lines.push(...unmanagedLines);
  const active = by('active');
  if (active.length) {
    const recency = [...active].sort((a, b) => (a.last_activity_at ?? a.created_at ?? '').localeCompare(b.last_activity_at ?? b.created_at ?? ''));
    lines.push('', 'least recently active (top 5):', ...recency.slice(0, 5).map(row));
    const most = [...active].sort((a, b) => b.activity_count - a.activity_count).slice(0, 5);
    if (most[0].activity_count > 0) lines.push('', 'most active (top 5):', ...most.map(row));
  }
  return lines.join('\n');
}
