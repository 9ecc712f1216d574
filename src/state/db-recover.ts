// `hermes sessions recover`: offline, non-destructive recovery of a damaged state.db, as Hermes does
// it. The source file and its -wal/-shm/-journal sidecars are copied first (SQLite only ever opens the
// copy); the canonical rows (sessions, messages, state_meta, gateway_routing) are read in rowid
// chunks into a NEW database with the current schema; the derived search indexes are rebuilt there.
// The active state.db is never replaced. With `allowPartial`, a chunk that cannot be read is retried
// row by row and the rows that still fail are skipped and recorded; without it, the first damaged
// chunk stops the run and no output is left behind.
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SessionDB } from './db.ts';
import { rebuildSearchIndex } from './db-fts.ts';
import { objectExists, tableColumns } from './db-schema.ts';
import { sqlite, type DatabaseSync } from './sqlite.ts';

export const CANONICAL_TABLES = ['sessions', 'messages', 'state_meta', 'gateway_routing', 'session_model_usage', 'async_delegations'];
const SIDECARS = ['-wal', '-shm', '-journal'];

export interface TableReport {
  readable: boolean;
  source_rows: number | null;
  recovered: number;
  skipped_ranges: [number, number][];
  error?: string;
}

export interface RecoveryReport {
  source: string;
  work_copy: string;
  output: string | null;
  started_at: string;
  finished_at?: string;
  inspect_only: boolean;
  allow_partial: boolean;
  integrity_check: string[];
  tables: Record<string, TableReport>;
  dangling_parents_cleared?: number;
  orphan_messages?: number;
  search_indexes_rebuilt?: number;
  complete: boolean;
}

export class RecoveryError extends Error {
  report: RecoveryReport;
  constructor(message: string, report: RecoveryReport) {
    super(message);
    this.report = report;
  }
}

/** Copies the database and its sidecars into `dir`; returns the copy's path. */
export function copyWithSidecars(source: string, dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const copy = join(dir, `${basename(source)}.recovery-src-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  copyFileSync(source, copy);
  for (const s of SIDECARS) if (existsSync(source + s)) copyFileSync(source + s, copy + s);
  return copy;
}

function pushSkip(ranges: [number, number][], rowid: number): void {
  const last = ranges.at(-1);
  if (last && last[1] === rowid - 1) last[1] = rowid;
  else ranges.push([rowid, rowid]);
}

/** Reads one table of the copy into `write` (or only counts what is readable when `write` is null). */
function salvageTable(src: DatabaseSync, table: string, chunk: number, allowPartial: boolean, write: ((row: Record<string, unknown>) => void) | null): TableReport {
  const rep: TableReport = { readable: true, source_rows: null, recovered: 0, skipped_ranges: [] };
  try {
    rep.source_rows = Number((src.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
  } catch (e) {
    rep.readable = false;
    rep.error = (e as Error).message;
  }
  let maxRowid = 0;
  try {
    maxRowid = Number((src.prepare(`SELECT MAX(rowid) AS m FROM ${table}`).get() as { m: number | null }).m ?? 0);
  } catch (e) {
    rep.readable = false;
    rep.error ??= (e as Error).message;
    if (!allowPartial) return rep;
    maxRowid = Number.MAX_SAFE_INTEGER;
  }
  const page = src.prepare(`SELECT rowid AS __rowid, * FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  const one = src.prepare(`SELECT rowid AS __rowid, * FROM ${table} WHERE rowid = ?`);
  let after = 0;
  let emptyRun = 0;
  while (after < maxRowid) {
    let rows: Record<string, unknown>[];
    try {
      rows = page.all(after, chunk) as Record<string, unknown>[];
    } catch (e) {
      rep.readable = false;
      rep.error ??= (e as Error).message;
      if (!allowPartial) return rep;
      // Row by row through the damaged range: what reads is kept, the rest is recorded.
      const end = Math.min(after + chunk, maxRowid);
      for (let id = after + 1; id <= end; id++) {
        try {
          const r = one.get(id) as Record<string, unknown> | undefined;
          if (r) {
            delete r.__rowid;
            write?.(r);
            rep.recovered++;
          }
        } catch {
          pushSkip(rep.skipped_ranges, id);
        }
      }
      after = end;
      // Unknown end (MAX(rowid) unreadable): stop after a long stretch of nothing.
      if (maxRowid === Number.MAX_SAFE_INTEGER && ++emptyRun > 100) break;
      continue;
    }
    if (!rows.length) break;
    emptyRun = 0;
    for (const r of rows) {
      after = Number(r.__rowid);
      delete r.__rowid;
      write?.(r);
      rep.recovered++;
    }
  }
  return rep;
}

/**
 * Inspects (`output` null) or recovers `source` into the new database `output`. Throws RecoveryError
 * (with the report so far) when a table cannot be read and `allowPartial` is off.
 */
export function recoverStateDb(o: { source: string; output: string | null; workDir: string; chunk: number; allowPartial: boolean }): RecoveryReport {
  const report: RecoveryReport = {
    source: o.source,
    work_copy: '',
    output: o.output,
    started_at: new Date().toISOString(),
    inspect_only: o.output === null,
    allow_partial: o.allowPartial,
    integrity_check: [],
    tables: {},
    complete: false,
  };
  report.work_copy = copyWithSidecars(o.source, o.workDir);
  const { DatabaseSync } = sqlite();
  let src: DatabaseSync;
  try {
    src = new DatabaseSync(report.work_copy);
  } catch (e) {
    throw new RecoveryError(`SQLite cannot open the copy of ${o.source}: ${(e as Error).message}`, report);
  }
  let out: SessionDB | null = null;
  try {
    try {
      report.integrity_check = (src.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).filter((x) => x !== 'ok');
    } catch (e) {
      report.integrity_check = [(e as Error).message];
    }
    const tables = CANONICAL_TABLES.filter((t) => {
      try {
        return objectExists(src, t);
      } catch {
        return t === 'sessions' || t === 'messages';
      }
    });
    if (o.output === null) {
      for (const t of tables) report.tables[t] = salvageTable(src, t, o.chunk, true, null);
      report.complete = Object.values(report.tables).every((t) => t.readable && !t.skipped_ranges.length);
      return report;
    }
    out = SessionDB.open(o.output);
    const dst = out.raw;
    dst.exec('PRAGMA foreign_keys=OFF');
    for (const t of tables) {
      let srcCols: Set<string>;
      try {
        srcCols = tableColumns(src, t);
      } catch {
        srcCols = new Set();
      }
      const cols = [...tableColumns(dst, t)].filter((c) => srcCols.has(c));
      const insert = cols.length ? dst.prepare(`INSERT OR REPLACE INTO ${t} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`) : null;
      dst.exec('BEGIN');
      let n = 0;
      const write = (row: Record<string, unknown>) => {
        insert?.run(...(cols.map((c) => (row[c] ?? null) as never) as never[]));
        if (++n % o.chunk === 0) dst.exec('COMMIT; BEGIN');
      };
      const rep = salvageTable(src, t, o.chunk, o.allowPartial, write);
      dst.exec('COMMIT');
      report.tables[t] = rep;
      if (!rep.readable && !o.allowPartial) throw new RecoveryError(`${t} cannot be read (${rep.error}). Run again with --allow-partial to salvage what reads.`, report);
    }
    dst.exec('BEGIN');
    report.dangling_parents_cleared = Number(dst.prepare('UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id IS NOT NULL AND parent_session_id NOT IN (SELECT id FROM sessions)').run().changes);
    report.orphan_messages = Number((dst.prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)').get() as { n: number }).n);
    report.search_indexes_rebuilt = rebuildSearchIndex(dst);
    dst.exec('COMMIT');
    dst.exec('PRAGMA foreign_keys=ON');
    report.complete = Object.values(report.tables).every((t) => t.readable && !t.skipped_ranges.length);
    return report;
  } catch (e) {
    out?.close();
    out = null;
    if (o.output) for (const s of ['', ...SIDECARS]) rmSync(o.output + s, { force: true });
    if (e instanceof RecoveryError) throw e;
    throw new RecoveryError((e as Error).message, report);
  } finally {
    out?.close();
    src.close();
    report.finished_at = new Date().toISOString();
  }
}
