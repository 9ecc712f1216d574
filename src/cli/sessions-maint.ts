// `hermes sessions archive|unarchive|prune|optimize|repair|browse`: keeping the session store tidy,
// as in Python Hermes (optimize and repair are state.db file operations: SQLite only). Archiving hides (nothing is deleted); prune deletes ended sessions matched by
// filters (90 days old by default); optimize merges the search index and VACUUMs; repair checks the
// database and rebuilds the search index, after a backup copy; recover salvages a damaged one into a
// new database (src/state/db-recover.ts).
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { storeChoice, type SessionStore } from '../state/store/index.ts';
import { convertToV23, ftsOptimizeAvailable, rebuildSearchIndex } from '../state/db-fts.ts';
import { paths } from '../state/paths.ts';
import { copyDatabase } from '../state/snapshots.ts';
import { sqlite } from '../state/sqlite.ts';
import { openStateDb } from './store-open.ts';
import { loadContext } from './context.ts';
import { CliError, confirmOrRefuse } from './errors.ts';
import { when, withStore } from './sessions.ts';

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

/** `5h`, `2d`, `1w`, a bare number of days, or an ISO date/time → unix seconds that far back. */
export function parseAge(v: string, flag: string): number {
  const now = Date.now() / 1000;
  const m = /^(\d+(?:\.\d+)?)\s*([smhdw]?)$/i.exec(v.trim());
  if (m) {
    const mult: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, '': 86400 };
    return now - Number(m[1]) * mult[m[2].toLowerCase()];
  }
  const t = Date.parse(v.trim().replace(' ', 'T'));
  if (Number.isFinite(t)) return t / 1000;
  throw new CliError(`${flag} "${v}" is not an age (5h, 2d, 1w, a number of days) or a date (2026-07-05 14:30).`, 2);
}

interface FilterOpts {
  olderThan?: string;
  before?: string;
  after?: string;
  newerThan?: string;
  source?: string;
  title?: string;
  minMessages?: string;
  maxMessages?: string;
  includeArchived?: boolean;
  dryRun?: boolean;
  yes?: boolean;
}

function count(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${flag} expects a whole number, got "${v}".`, 2);
  return n;
}

function filterFrom(o: FilterOpts, defaultOlderThanDays?: number) {
  const any = [o.olderThan, o.before, o.after, o.newerThan, o.source, o.title, o.minMessages, o.maxMessages].some((x) => x !== undefined);
  const before = [o.olderThan && parseAge(o.olderThan, '--older-than'), o.before && parseAge(o.before, '--before')].filter((x): x is number => typeof x === 'number');
  const after = [o.after && parseAge(o.after, '--after'), o.newerThan && parseAge(o.newerThan, '--newer-than')].filter((x): x is number => typeof x === 'number');
  if (!any && defaultOlderThanDays !== undefined) before.push(Date.now() / 1000 - defaultOlderThanDays * 86400);
  return {
    any,
    filter: {
      startedBefore: before.length ? Math.min(...before) : undefined,
      startedAfter: after.length ? Math.max(...after) : undefined,
      source: o.source,
      title: o.title,
      minMessages: count(o.minMessages, '--min-messages'),
      maxMessages: count(o.maxMessages, '--max-messages'),
      includeArchived: o.includeArchived,
    },
  };
}

const confirm = (question: string, yes: boolean | undefined, nothing: string) => confirmOrRefuse(question, yes, { nothing });

async function describe(db: SessionStore, ids: string[]): Promise<void> {
  for (const id of ids.slice(0, 20)) {
    const s = await db.getSession(id);
    if (s) out(`  ${id}  ${when(s.started_at)}  ${s.source.padEnd(9)} ${s.title ?? ''}`);
  }
  if (ids.length > 20) out(`  … and ${ids.length - 20} more`);
}

/** optimize and repair are SQLite file operations; PostgreSQL has its own (VACUUM, REINDEX, run by its administrator). */
function sqliteOnly(what: string): ReturnType<typeof loadContext> {
  const ctx = loadContext();
  let backend = 'sqlite';
  try {
    backend = storeChoice(ctx.loaded.config, ctx.env).backend;
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
  if (backend !== 'sqlite') throw new CliError(`hermes sessions ${what} works on state.db; state.backend is postgres, where VACUUM/REINDEX are the database administrator's (nothing was changed).`, 2);
  return ctx;
}

export function archive(ids: string[], o: FilterOpts): Promise<void> {
  return withStore(async (db) => {
    let targets: string[];
    if (ids.length) {
      targets = [];
      for (const k of ids) {
        const id = await db.resolveSession(k);
        if (!id) throw new CliError(`No session matches "${k}". See \`hermes sessions list\`.`);
        targets.push(id);
      }
    } else {
      const f = filterFrom(o);
      if (!f.any) throw new CliError('Say which sessions to archive: session ids, or filters such as --older-than 30d, --source telegram, --title <words>.', 2);
      targets = await db.findSessions({ ...f.filter, anyState: true });
    }
    if (!targets.length) return out('No sessions match.');
    out(`${o.dryRun ? 'Would archive' : 'Archiving'} ${targets.length} session(s):`);
    await describe(db, targets);
    if (o.dryRun) return;
    if (!ids.length) await confirm(`Archive these ${targets.length} session(s)? They stay saved and searchable with --include-archived`, o.yes, 'nothing was archived');
    let n = 0;
    for (const id of targets) if (await db.setArchived(id, true)) n++;
    out(`Archived ${n} session(s). They are hidden from lists, search and --continue; \`hermes sessions unarchive <id>\` brings one back.`);
  });
}

export function unarchive(ids: string[]): Promise<void> {
  if (!ids.length) throw new CliError('Say which sessions: hermes sessions unarchive <id…> (see hermes sessions list --archived).', 2);
  return withStore(async (db) => {
    for (const k of ids) {
      const id = (await db.resolveSession(k)) ?? (await db.listSessions({ archived: 'only', limit: 10_000 })).find((s) => s.id.startsWith(k) || s.title === k)?.id;
      if (!id) throw new CliError(`No session matches "${k}". See \`hermes sessions list --archived\`.`);
      await db.setArchived(id, false);
      out(`Unarchived ${id}.`);
    }
  });
}

export function prune(o: FilterOpts): Promise<void> {
  const f = filterFrom(o, 90);
  return withStore(async (db) => {
    const targets = await db.findSessions(f.filter);
    const what = !f.any ? ' older than 90 days' : o.olderThan && Object.keys(o).filter((k) => k !== 'yes' && k !== 'dryRun' && (o as Record<string, unknown>)[k] !== undefined).length === 1 ? ` older than ${o.olderThan}${/^\d+$/.test(o.olderThan) ? ' days' : ''}` : ' matching the filters';
    if (!targets.length) return out(`No ended sessions${what}.`);
    out(`${o.dryRun ? 'Would delete' : 'Deleting'} ${targets.length} ended session(s)${what}:`);
    await describe(db, targets);
    if (o.dryRun) return;
    await confirm(`Delete these ${targets.length} session(s) and their messages for good?`, o.yes, 'nothing was deleted');
    let n = 0;
    for (const id of targets) if (await db.deleteSession(id)) n++;
    out(`Deleted ${n} session(s).`);
  });
}

async function gatewayHolds(home: string): Promise<number | null> {
  const { runningGateway } = await import('../gateway/pid-file.ts');
  return runningGateway(home)?.pid ?? null;
}

export async function optimize(o: { force?: boolean }): Promise<void> {
  const ctx = sqliteOnly('optimize');
  const pid = await gatewayHolds(ctx.home);
  if (pid && !o.force) throw new CliError(`The gateway (pid ${pid}) has state.db open; rewriting it under a live writer is unsafe. Stop the gateway first, or pass --force.`);
  const file = paths.stateDb(ctx.home);
  if (!existsSync(file)) return out('There is no state.db yet.');
  const { statSync } = await import('node:fs');
  const before = statSync(file).size;
  const db = openStateDb(ctx.home);
  try {
    const raw = db.raw;
    for (const t of ['messages_fts', 'messages_fts_trigram']) {
      const exists = raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t);
      if (exists) raw.exec(`INSERT INTO ${t}(${t}) VALUES('optimize')`);
    }
    raw.exec('VACUUM');
    raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  const after = statSync(file).size;
  out(`Optimized ${file}: ${(before / 1048576).toFixed(1)} MB → ${(after / 1048576).toFixed(1)} MB (search index merged, free pages returned). No data changed.`);
}

/**
 * `hermes sessions optimize-storage`: converts a search index still in the inline layout (a file
 * from before v23) to Hermes's v23 layout, which keeps no second copy of the messages and leaves
 * tool output out of the trigram index; then VACUUM returns the freed pages. One transaction, so an
 * interruption leaves the file as it was.
 */
export async function optimizeStorage(o: { vacuum?: boolean; yes?: boolean; force?: boolean }): Promise<void> {
  const ctx = sqliteOnly('optimize-storage');
  const file = paths.stateDb(ctx.home);
  if (!existsSync(file)) return out('There is no state.db yet.');
  const db = openStateDb(ctx.home);
  try {
    const raw = db.raw;
    if (!ftsOptimizeAvailable(raw)) return out('Search index is already on the compact layout — nothing to do.');
    const pid = await gatewayHolds(ctx.home);
    if (pid && !o.force) throw new CliError(`The gateway (pid ${pid}) has state.db open; the conversion holds the write lock until it is done. Stop the gateway first, or pass --force.`);
    const before = statSync(file).size;
    out(`Search-index optimization for ${file} (${(before / 1048576).toFixed(1)} MB).`);
    await confirmOrRefuse('Rebuild the search index in the compact layout?', o.yes, { nothing: 'nothing was changed' });
    raw.exec('BEGIN IMMEDIATE');
    let n: number;
    try {
      n = convertToV23(raw);
      raw.exec('COMMIT');
    } catch (e) {
      raw.exec('ROLLBACK');
      throw new CliError(`Optimizing the search index failed: ${(e as Error).message}. Nothing was changed.`);
    }
    if (o.vacuum !== false) raw.exec('VACUUM');
    raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const after = statSync(file).size;
    out(`Search index optimized: ${n} message(s) indexed. Database size: ${(before / 1048576).toFixed(1)} MB → ${(after / 1048576).toFixed(1)} MB.`);
  } finally {
    db.close();
  }
}

export async function repair(o: { checkOnly?: boolean; backup?: boolean }): Promise<void> {
  const ctx = sqliteOnly('repair');
  const file = paths.stateDb(ctx.home);
  if (!existsSync(file)) return out('There is no state.db yet; nothing to repair.');
  const { DatabaseSync } = sqlite();
  let problems: string[] = [];
  try {
    const raw = new DatabaseSync(file, { readOnly: true });
    try {
      problems = (raw.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).filter((x) => x !== 'ok');
    } finally {
      raw.close();
    }
  } catch (e) {
    problems = [(e as Error).message];
  }
  out(problems.length ? `state.db has ${problems.length} problem(s):\n${problems.slice(0, 10).map((p) => `  ${p}`).join('\n')}` : 'state.db opens cleanly and passes the integrity check.');
  if (o.checkOnly) {
    if (problems.length) process.exitCode = 1;
    return;
  }
  const pid = await gatewayHolds(ctx.home);
  if (pid) throw new CliError(`The gateway (pid ${pid}) has state.db open; stop it before a repair (hermes gateway stop).`);
  if (o.backup !== false) {
    const copy = `${file}.bak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      await copyDatabase(file, copy);
      out(`Backup copy: ${copy}`);
    } catch (e) {
      throw new CliError(`Could not make a backup copy first (${(e as Error).message}); nothing was changed. Pass --no-backup to repair without one.`);
    }
  }
  const recoverHint = `copy out what can still be read with \`hermes sessions recover --source ${file} --output <new.db>\` (it never changes ${file})`;
  let db: ReturnType<typeof openStateDb>;
  try {
    db = openStateDb(ctx.home);
  } catch (e) {
    const cause = ((e as { cause?: unknown }).cause ?? e) as { errstr?: string; message?: string };
    const why = cause.errstr ?? cause.message ?? String(e);
    throw new CliError(`${file} is too damaged to repair in place (${why}): ${recoverHint}.`);
  }
  try {
    const raw = db.raw;
    raw.exec('BEGIN IMMEDIATE');
    let rebuilt = 0;
    try {
      rebuilt = rebuildSearchIndex(raw);
      raw.exec('COMMIT');
    } catch (e) {
      raw.exec('ROLLBACK');
      throw new CliError(`Rebuilding the search index failed: ${(e as Error).message}. Nothing was changed; restore a backup if searches stay broken.`);
    }
    if (problems.length) raw.exec('REINDEX');
    const after = (raw.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).filter((x) => x !== 'ok');
    const sessions = (raw.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
    const messages = (raw.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
    out(`Rebuilt ${rebuilt} search index(es); ${sessions} session(s) and ${messages} message(s) are there.`);
    if (after.length) {
      out(`Still damaged: ${after.slice(0, 5).join('; ')}. Restore a backup (hermes import, or /snapshot restore), or ${recoverHint}.`);
      process.exitCode = 1;
    } else out('The database is sound.');
  } finally {
    db.close();
  }
}

export async function browse(o: { source?: string; limit?: string }): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError('hermes sessions browse needs a terminal. Use `hermes sessions list` (or search) in scripts.', 2);
  const limit = o.limit ? Number(o.limit) : 500;
  const rows = await withStore((db) => db.listSessions({ source: o.source, limit }));
  if (!rows.length) return out('No saved sessions yet.');
  const p = await import('@clack/prompts');
  const choice = await p.autocomplete({
    message: 'Pick a session to resume (type to search)',
    options: rows.map((r) => ({ value: r.id, label: `${r.title ?? (r.preview ? `“${r.preview}”` : '(empty)')}`, hint: `${when(r.last_active)} · ${r.message_count} msgs · ${r.source} · ${r.id}` })),
    maxItems: 12,
  });
  if (p.isCancel(choice)) return;
  const { runChat } = await import('./chat.ts');
  await runChat({ resume: String(choice) });
}

/**
 * `hermes sessions recover --source <db> (--output <new db> | --inspect-only)`: rebuilds what can be
 * read of a damaged state.db into a separate new database and writes a JSON report. The source and
 * the active state.db are never changed.
 */
export async function recover(o: { source: string; output?: string; inspectOnly?: boolean; workDir?: string; chunkSize?: string; allowPartial?: boolean; report?: string }): Promise<void> {
  const { RecoveryError, recoverStateDb } = await import('../state/db-recover.ts');
  const ctx = loadContext();
  const source = resolve(o.source);
  if (!existsSync(source) || !statSync(source).isFile()) throw new CliError(`--source ${o.source}: no such database file.`, 2);
  const chunk = o.chunkSize === undefined ? 1000 : Number(o.chunkSize);
  if (!Number.isInteger(chunk) || chunk < 1) throw new CliError('--chunk-size expects a positive number.', 2);
  let output: string | null = null;
  if (!o.inspectOnly) {
    if (!o.output) throw new CliError('--output <new database> is required (or pass --inspect-only to only report).', 2);
    output = resolve(o.output);
    if (output === resolve(paths.stateDb(ctx.home)) || output === source) throw new CliError(`--output must be a new file, not ${output}: recovery never replaces a database.`, 2);
    if (existsSync(output)) throw new CliError(`${output} already exists; recovery writes a new database. Choose another --output.`, 2);
  }
  if (o.workDir && !(existsSync(o.workDir) && statSync(o.workDir).isDirectory())) throw new CliError(`--work-dir ${o.workDir}: not an existing directory.`, 2);
  const workDir = o.workDir ? resolve(o.workDir) : output ? dirname(output) : mkdtempSync(join(tmpdir(), 'hermes-recover-'));
  const reportPath = o.report ? resolve(o.report) : output ? `${output}.recovery.json` : null;
  const save = (r: object) => {
    if (reportPath) writeFileSync(reportPath, `${JSON.stringify(r, null, 2)}\n`);
  };
  let rep;
  try {
    rep = recoverStateDb({ source, output, workDir, chunk, allowPartial: !!o.allowPartial });
  } catch (e) {
    if (!(e instanceof RecoveryError)) throw e;
    save(e.report);
    throw new CliError(`Recovery stopped: ${e.message}${reportPath ? ` Report: ${reportPath}` : ''} Nothing was written to ${output ?? 'any database'}.`);
  }
  save(rep);
  out(`Source copied to ${rep.work_copy} (only the copy was opened).`);
  out(rep.integrity_check.length ? `Integrity check of the copy: ${rep.integrity_check.length} problem(s), e.g. ${rep.integrity_check[0]}` : 'Integrity check of the copy: ok.');
  for (const [t, r] of Object.entries(rep.tables)) {
    const skipped = r.skipped_ranges.reduce((n, [a, b]) => n + b - a + 1, 0);
    out(`  ${t.padEnd(16)} ${r.readable ? 'readable' : 'damaged '}  ${rep.inspect_only ? `${r.recovered} readable row(s)` : `${r.recovered} row(s) recovered`}${r.source_rows !== null ? ` of ${r.source_rows}` : ''}${skipped ? `, ${skipped} skipped (${r.skipped_ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')})` : ''}`);
  }
  if (rep.inspect_only) {
    out(rep.complete ? 'Every canonical table reads cleanly.' : 'Some rows cannot be read: recover with --output <new db> --allow-partial.');
    if (!rep.complete) process.exitCode = 1;
    return;
  }
  if (rep.dangling_parents_cleared) out(`${rep.dangling_parents_cleared} link(s) to a parent session that was not recovered were cleared.`);
  if (rep.orphan_messages) out(`${rep.orphan_messages} message(s) belong to a session that was not recovered (kept).`);
  out(`Recovered into ${output}${rep.complete ? '' : ' (partial)'}; search index rebuilt. Report: ${reportPath}`);
  out(`The active state.db was not changed. To use the recovered one: stop Hermes (gateway too), keep a copy of ${paths.stateDb(ctx.home)}, then move ${output} into its place.`);
}
