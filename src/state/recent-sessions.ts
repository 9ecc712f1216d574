// The session listing, most recently active first, at a cost that does not grow with the number of
// sessions. A session's last activity is its newest message's time (its start without messages), a
// value no column keeps (state.db's layout is Hermes's), so ranking every session means one
// MAX(timestamp) per session. Instead:
//   1. the newest W messages (idx_messages_timestamp) name the sessions active most recently, each
//      with its true last activity (its newest message is among them); when the K-th of those that
//      pass the filter is newer than the window's oldest message, no session outside it can rank
//      higher. Otherwise W grows (×8) up to MAX_WINDOW, while the share that passes promises K;
//   2. sessions without messages rank by their start: only those started at or after the K-th
//      (idx_sessions_started) can enter;
//   3. previews and full rows are read for the page only.
// (CROSS JOIN keeps SQLite walking the window first rather than a filter's index over every session.)
// A filter few recent sessions pass (a rare source, an old workspace), or a page as large as the
// listing, falls back to ranking the sessions that pass it (few, or all asked for anyway). The plan
// is a generator of queries so that SQLite (sync) and PostgreSQL (async) run the same steps with
// the same SQL text.
import { rankedPageSql, sessionPageSql } from './db-rows.ts';

export type Row = Record<string, unknown>;
export interface Query {
  sql: string;
  args: (string | number)[];
}

const MAX_WINDOW = 32_768;
/** Ids per query when the page's rows are read. */
const PAGE_CHUNK = 500;
/** Most sessions without messages read by start time before the filter applies. */
const MAX_QUIET = 2_000;

interface Ranked {
  id: string;
  last_active: number;
  started_at: number;
}

const byActivity = (a: Ranked, b: Ranked) => b.last_active - a.last_active || b.started_at - a.started_at;
const ranked = (rows: Row[]): Ranked[] => rows.map((r) => ({ id: String(r.id), last_active: Number(r.last_active), started_at: Number(r.started_at) }));

/**
 * The queries that list `limit` sessions after `offset`, most recently active first; the last rows
 * received are the page (session columns, `preview`, `last_active`), in order.
 */
export function* listPlan(where: string[], args: (string | number)[], limit: number, offset: number): Generator<Query, Row[], Row[]> {
  const k = limit + offset;
  if (k <= 0) return [];
  let top: Ranked[] | null = null;
  for (let window = Math.max(512, k * 16); window <= MAX_WINDOW; window *= 8) {
    const [edge] = yield { sql: 'SELECT MIN(timestamp) AS edge, COUNT(*) AS n FROM (SELECT timestamp FROM messages ORDER BY timestamp DESC LIMIT ?) w', args: [window] };
    const rows = ranked(
      yield {
        sql: `SELECT x.id, x.t AS last_active, s.started_at FROM (
                SELECT w.session_id AS id, MAX(w.timestamp) AS t
                FROM (SELECT session_id, timestamp FROM messages ORDER BY timestamp DESC LIMIT ?) w GROUP BY w.session_id
              ) x CROSS JOIN sessions s WHERE ${['s.id = x.id', ...where].join(' AND ')}`,
        args: [window, ...args],
      },
    ).sort(byActivity);
    const all = Number(edge?.n ?? 0) < window;
    if (all || (rows.length >= k && rows[k - 1].last_active > Number(edge.edge))) {
      top = rows.slice(0, k);
      break;
    }
    // Too few pass the filter for the largest window to hold K of them: rank those that pass.
    if ((window * k) / Math.max(rows.length, 0.5) > MAX_WINDOW) break;
  }
  // Few recent sessions pass the filter (or the page is most of them): rank those that pass it (the
  // per-session MAX is indexed), in one query that also reads the page.
  if (!top) {
    const rows = yield { sql: rankedPageSql(where), args: [...args, limit, offset] };
    for (const r of rows) r.last_active = Number(r.last_active);
    return rows;
  }
  // Sessions without messages that started at or after the K-th: found by start time alone (the
  // planner would rather walk a filter's index, e.g. every cli session), then filtered.
  const floor = top.length >= k ? top[k - 1].last_active : null;
  const quietSql = (cond: string[]) =>
    `SELECT s.id, s.started_at AS last_active, s.started_at FROM sessions s
     WHERE ${[...cond, 'NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)'].join(' AND ')} ORDER BY s.started_at DESC LIMIT ?`;
  let quiet: Ranked[];
  if (floor === null) quiet = ranked(yield { sql: quietSql(where), args: [...args, k] });
  else {
    const ids = (yield { sql: quietSql(['s.started_at >= ?']), args: [floor, MAX_QUIET + 1] }).map((r) => String(r.id));
    if (ids.length > MAX_QUIET) quiet = ranked(yield { sql: quietSql([...where, 's.started_at >= ?']), args: [...args, floor, k] });
    else quiet = ids.length ? ranked(yield { sql: quietSql([...where, `s.id IN (${ids.map(() => '?').join(', ')})`]), args: [...args, ...ids, k] }) : [];
  }
  top = [...top, ...quiet].sort(byActivity);
  const page = top.slice(offset, k);
  if (!page.length) return [];
  // The page's rows by id, PAGE_CHUNK ids a query (SQLite and PostgreSQL cap bound parameters).
  const byId = new Map<string, Row>();
  for (let i = 0; i < page.length; i += PAGE_CHUNK) {
    const ids = page.slice(i, i + PAGE_CHUNK).map((r) => r.id);
    for (const r of yield { sql: sessionPageSql(ids.length), args: ids }) byId.set(String(r.id), r);
  }
  return page.flatMap((p) => {
    const r = byId.get(p.id);
    return r ? [{ ...r, last_active: p.last_active }] : [];
  });
}

/** Runs a plan on a synchronous connection. */
export function runPlanSync(plan: Generator<Query, Row[], Row[]>, all: (q: Query) => Row[]): Row[] {
  let step = plan.next([]);
  while (!step.done) step = plan.next(all(step.value));
  return step.value;
}

/** Runs a plan on an asynchronous connection. */
export async function runPlan(plan: Generator<Query, Row[], Row[]>, all: (q: Query) => Promise<Row[]>): Promise<Row[]> {
  let step = plan.next([]);
  while (!step.done) step = plan.next(await all(step.value));
  return step.value;
}
