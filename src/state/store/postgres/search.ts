// Session search on PostgreSQL, answering exactly as the SQLite search does (db-search.ts): the same
// sanitizer and FTS5 query language (turned into a tsquery by fts.ts), the same filters, the most
// recent RANK_WINDOW matches ranked with the same BM25 in JavaScript, the same snippets and
// neighbours. CJK queries of 3+ characters use the pg_trgm index over the `cjk` column (ILIKE, as
// FTS5's trigram tokenizer is case-insensitive); shorter ones scan, newest first.
import type { SearchHit, SearchOptions } from '../../db-rows.ts';
import { likeEscape } from '../../db-rows.ts';
import { markWords, neighbourSql, queryTerms, RANK_WINDOW, rankWindow, SEARCH_COLS, searchFilters, searchLimit, toHit } from '../../db-search.ts';
import { hasCjk, queryWords, sanitizeFtsQuery } from '../../fts-query.ts';
import { tsqueryFrom } from './fts.ts';
import type { Param, Queryable, Row } from './pool.ts';

/** The first id range a search reads (see below). */
const FIRST_RANGE = 50_000;

/** Rows a search may find: live and compacted, not rewound (as on SQLite). */
const VISIBLE = '(m.active = 1 OR m.active IS NULL OR m.compacted = 1)';

export async function searchPg(q: Queryable, query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
  const limit = searchLimit(opts);
  const { filters, args } = searchFilters(opts, { hasArchived: true, visibleMessages: VISIBLE });
  const extra = filters.length ? ` AND ${filters.join(' AND ')}` : '';
  const from = 'FROM messages m JOIN sessions s ON s.id = m.session_id';
  let rows: Row[];
  const cjk = hasCjk(query);
  const plain = query.replace(/["*]/g, ' ').trim();
  if (cjk && [...plain.replace(/\s+/g, '')].length < 3) {
    const words = queryWords(query);
    if (!words.length) return [];
    const likes = words.map(() => `m.content ILIKE ? ESCAPE '\\'`).join(' AND ');
    rows = await q.all(
      `SELECT ${SEARCH_COLS}, substr(m.content, greatest(1, strpos(m.content, ?) - 40), 160) AS snippet
       ${from} WHERE ${likes}${extra} ORDER BY m.id DESC LIMIT ?`,
      [words[0], ...words.map((w) => `%${likeEscape(w)}%`), ...args, limit],
    );
    rows = rows.map((r) => ({ ...r, snippet: markWords(String(r.snippet ?? ''), words) }));
  } else {
    let where: string;
    let params: Param[];
    if (cjk) {
      const words = queryWords(query).filter((w) => [...w].length >= 3);
      if (!words.length) return [];
      where = words.map(() => `m.cjk ILIKE ? ESCAPE '\\'`).join(' AND ');
      params = words.map((w) => `%${likeEscape(w)}%`);
    } else {
      const tsq = tsqueryFrom(sanitizeFtsQuery(query));
      if (!tsq) return [];
      where = 'm.fts @@ ?::tsquery';
      params = [tsq];
    }
    // The most recent RANK_WINDOW matches, read newest id range first (a GIN index cannot return rows
    // in id order): each range only fetches its own matches, so a common word stops after the first
    // range and a rare one widens the range (×4) until enough are found or the table is covered. A
    // word that reaches a later range matched under RANK_WINDOW rows in the ranges before it (a third
    // of this one's size), so the range holds few matches: they are read through the text index
    // (`m.id + 0` keeps the planner from walking the id index backwards through the whole range).
    const total = Number((await q.get('SELECT MAX(id) AS n FROM messages'))?.n ?? 0);
    const window: Row[] = [];
    for (let hi = total, span = FIRST_RANGE; window.length < RANK_WINDOW && hi > 0; span *= 4) {
      const lo = Math.max(0, hi - span);
      const order = hi === total ? 'm.id' : 'm.id + 0';
      window.push(
        ...(await q.all(`SELECT ${SEARCH_COLS}, m.content AS content ${from} WHERE ${where}${extra} AND m.id > ? AND m.id <= ? ORDER BY ${order} DESC LIMIT ${RANK_WINDOW - window.length}`, [
          ...params,
          ...args,
          lo,
          hi,
        ])),
      );
      hi = lo;
    }
    rows = rankWindow(window, queryTerms(query), limit, total);
  }
  if (!rows.length) return [];
  // Every hit's neighbours in one round trip (the same rows NEIGHBOUR_SQL picks on SQLite).
  const around = await q.all(
    `SELECT h.id, p.role AS prev_role, p.content AS prev_content, n.role AS next_role, n.content AS next_content
     FROM unnest(?::bigint[], ?::text[], ?::float8[]) AS h(id, sid, ts)
     LEFT JOIN LATERAL (${neighbourSql('prev', 'h.sid', 'h.ts', 'h.id')}) p ON true
     LEFT JOIN LATERAL (${neighbourSql('next', 'h.sid', 'h.ts', 'h.id')}) n ON true`,
    [rows.map((r) => Number(r.id)), rows.map((r) => String(r.session_id)), rows.map((r) => Number(r.timestamp))],
  );
  const byId = new Map(around.map((a) => [Number(a.id), a]));
  return rows.map((r) => {
    const a = byId.get(Number(r.id));
    const side = (k: 'prev' | 'next') => (a && a[`${k}_role`] != null ? { role: a[`${k}_role`], content: a[`${k}_content`] } : undefined);
    return toHit(r, [side('prev'), side('next')]);
  });
}
