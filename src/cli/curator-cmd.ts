// `hermes curator …`: status, run, pause/resume, pin/unpin, archive/restore, list-archived, prune,
// usage, backup, rollback, ledger. The lifecycle rules are in state/curator.ts, a whole run in
// session/curator-review.ts, the records in state/skill-usage.ts and state/skill-ledger.ts.
import { backupSettings, listBackups, rollbackSkills, snapshotSkills } from '../state/curator-backup.ts';
import { ago, curatorSettings, curatorStatusText, setPaused, type CuratorSettings } from '../state/curator.ts';
import { appendEntry, captureFiles, listEntries, rollbackEntry } from '../state/skill-ledger.ts';
import { adoptSkill, agentCreatedReport, archiveSkill, curatedReport, unmanagedReport, isAgentCreated, listArchived, loadUsage, restoreSkill, setPinned, type UsageRow } from '../state/skill-usage.ts';
import { discoverSkills } from '../state/skills.ts';
import { loadContext } from './context.ts';
import { CliError, confirmOrRefuse } from './errors.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);

function setup(): { home: string; s: CuratorSettings } {
  const ctx = loadContext();
  return { home: ctx.home, s: curatorSettings(ctx.loaded.config) };
}

export function status(): void {
  const { home, s } = setup();
  out(curatorStatusText(home, s));
}

export async function run(opts: { dryRun?: boolean; consolidate?: boolean }): Promise<void> {
  const ctx = loadContext();
  const s = curatorSettings(ctx.loaded.config);
  if (!s.enabled) throw new CliError('The curator is disabled in config.yaml; enable it with `hermes config set curator.enabled true`.');
  out(opts.dryRun ? 'curator: running DRY-RUN (report only, no changes)…' : 'curator: running review pass…');
  const { runCuratorPass } = await import('../session/curator-review.ts');
  const r = await runCuratorPass({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, dryRun: opts.dryRun, consolidate: opts.consolidate ? true : undefined, say: out });
  for (const t of r.record.state_transitions) out(`  ${t.name}: ${t.from} → ${t.to}${t.to === 'active' ? ' (used again)' : ` (idle ${t.idle_days}d)`}`);
  out(`curator: ${r.summary}`);
  out(`report: ${r.reportDir}/REPORT.md`);
  if (r.record.llm.error) process.exitCode = 1;
  if (opts.dryRun) out('dry-run: nothing was changed. Run `hermes curator run` to apply.');
}

export function backup(opts: { reason?: string }): void {
  const ctx = loadContext();
  const dir = snapshotSkills(ctx.home, opts.reason || 'manual', { ...backupSettings(ctx.loaded.config), enabled: true });
  if (!dir) throw new CliError(`There is no ${ctx.home}/skills folder to back up.`);
  out(`curator: snapshot ${dir.split(/[\\/]/).pop()} written to ${dir}`);
}

export async function rollback(entryId: string | undefined, opts: { list?: boolean; id?: string; yes?: boolean }): Promise<void> {
  const ctx = loadContext();
  if (opts.list) {
    const rows = listBackups(ctx.home);
    if (!rows.length) {
      out('curator: no snapshots yet (one is taken before every real run; `hermes curator backup` takes one now)');
      return;
    }
    for (const b of rows) out(`  ${b.id}  ${b.reason.padEnd(24)} ${String(b.skill_files).padStart(4)} skill(s)  ${(b.archive_bytes / 1024).toFixed(1)} KB`);
    return;
  }
  if (entryId) {
    await confirmOrRefuse(`Roll back ledger entry ${entryId}?`, opts.yes);
    const r = rollbackEntry(ctx.home, entryId);
    if (!r.ok) throw new CliError(r.message);
    out(`curator: ${r.message}`);
    return;
  }
  const target = opts.id ?? listBackups(ctx.home)[0]?.id;
  if (!target) throw new CliError('There are no curator snapshots to roll back to (see `hermes curator rollback --list`).');
  await confirmOrRefuse(`Replace ${ctx.home}/skills with snapshot ${target}? (the current state is snapshotted first)`, opts.yes);
  try {
    const r = rollbackSkills(ctx.home, target, backupSettings(ctx.loaded.config));
    out(`curator: restored snapshot ${r.restored} (${r.files} file(s)); the state before is snapshot ${r.safety}.`);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

export function ledger(opts: { skill?: string; limit?: string }): void {
  const { home } = setup();
  const limit = opts.limit === undefined ? 20 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit expects a positive number.', 2);
  const rows = listEntries(home, { skill: opts.skill, limit });
  if (!rows.length) {
    out('curator: the skill ledger is empty');
    return;
  }
  for (const e of rows) out(`  ${e.id}  ${e.ts.slice(0, 19).replace('T', ' ')}  ${e.actor.padEnd(7)}  ${e.action.padEnd(12)} ${e.skill}  (${e.before.length}→${e.after.length} file(s))`);
  out('Undo one with: hermes curator rollback <id>');
}

export function pause(): void {
  setPaused(setup().home, true);
  out('curator: paused');
}

export function resume(): void {
  setPaused(setup().home, false);
  out('curator: resumed');
}

function requireAgentSkill(home: string, name: string, verb: string): void {
  if (!isAgentCreated(home, name)) throw new CliError(`'${name}' is bundled or hub-installed; only agent-created skills take part in curation, so there is nothing to ${verb}.`);
  if (!discoverSkills(home).some((s) => s.name === name) && !(name in loadUsage(home))) throw new CliError(`No skill named '${name}' in ${home}/skills. See \`hermes skills list\`.`);
}

export function pin(name: string): void {
  const { home } = setup();
  requireAgentSkill(home, name, 'pin');
  if (!setPinned(home, name, true)) throw new CliError(`Could not record the pin in skills/.usage.json.`);
  out(`curator: pinned '${name}' (runs never stale or archive it)`);
}

export function unpin(name: string): void {
  const { home } = setup();
  requireAgentSkill(home, name, 'unpin');
  if (!setPinned(home, name, false)) throw new CliError(`Could not record the change in skills/.usage.json.`);
  out(`curator: unpinned '${name}'`);
}

export function archive(name: string): void {
  const { home } = setup();
  if (loadUsage(home)[name]?.pinned) throw new CliError(`'${name}' is pinned; unpin it first with \`hermes curator unpin ${name}\`.`);
  const before = captureFiles(home, discoverSkills(home).find((x) => x.name === name)?.dir);
  const r = archiveSkill(home, name);
  if (!r.ok) throw new CliError(r.message);
  appendEntry(home, { actor: 'user', action: 'archive', skill: name, before, after: captureFiles(home, r.dest) });
  out(`curator: ${r.message}`);
}

export function restore(name: string): void {
  const { home } = setup();
  const r = restoreSkill(home, name);
  if (!r.ok) throw new CliError(r.message);
  const to = /restored to (.+)$/.exec(r.message)?.[1];
  appendEntry(home, { actor: 'user', action: 'restore', skill: name, before: [], after: captureFiles(home, to) });
  out(`curator: ${r.message}`);
}

export function listArchivedCmd(): void {
  const names = listArchived(setup().home);
  out(names.length ? names.join('\n') : 'curator: no archived skills');
}

export async function prune(opts: { days?: string; dryRun?: boolean; yes?: boolean }): Promise<void> {
  const { home, s } = setup();
  const days = opts.days === undefined ? s.archiveAfterDays : Number(opts.days);
  if (!Number.isInteger(days) || days < 1) throw new CliError(`--days must be a whole number of at least 1, got "${opts.days}".`, 2);
  const now = Date.now();
  const idle = (r: UsageRow) => Math.floor((now - (Date.parse(r.last_activity_at ?? r.created_at) || now)) / 86_400_000);
  const cands = curatedReport(home)
    .filter((r) => !r.pinned && r.state !== 'archived' && idle(r) >= days)
    .sort((a, b) => idle(b) - idle(a));
  if (!cands.length) {
    out(`curator: nothing to prune (no unpinned skills idle ${days}d or more)`);
    return;
  }
  out(`curator: ${cands.length} skill(s) idle ${days}d or more:`);
  for (const r of cands) out(`  ${r.name.padEnd(40)} idle ${idle(r)}d`);
  if (opts.dryRun) {
    out('(dry run: nothing was changed)');
    return;
  }
  await confirmOrRefuse(`Archive ${cands.length} skill(s)?`, opts.yes);
  const failed: string[] = [];
  for (const r of cands) {
    const a = archiveSkill(home, r.name);
    if (!a.ok) failed.push(`${r.name}: ${a.message}`);
  }
  out(`curator: archived ${cands.length - failed.length}/${cands.length}`);
  if (failed.length) throw new CliError(`Some skills were not archived:\n  ${failed.join('\n  ')}`);
}

export function usage(opts: { json?: boolean; sort?: string }): void {
  const { home } = setup();
  const rows = agentCreatedReport(home);
  const sort = opts.sort ?? 'activity';
  if (!['activity', 'recent', 'name'].includes(sort)) throw new CliError(`--sort takes activity, recent or name; got "${sort}".`, 2);
  rows.sort(sort === 'name' ? (a, b) => a.name.localeCompare(b.name) : sort === 'recent' ? (a, b) => (b.last_activity_at ?? '').localeCompare(a.last_activity_at ?? '') : (a, b) => b.activity_count - a.activity_count);
  if (opts.json) {
    out(JSON.stringify(rows, null, 2));
    return;
  }
  if (!rows.length) {
    out('curator: no agent-created skills');
    return;
  }
  out(`  ${'skill'.padEnd(40)}  ${'state'.padEnd(8)}  ${'use'.padStart(4)}  ${'view'.padStart(4)}  ${'patch'.padStart(5)}  last_activity`);
  for (const r of rows) out(`  ${r.name.slice(0, 40).padEnd(40)}  ${String(r.state ?? 'active').padEnd(8)}  ${String(r.use_count).padStart(4)}  ${String(r.view_count).padStart(4)}  ${String(r.patch_count).padStart(5)}  ${ago(r.last_activity_at)}`);
}
