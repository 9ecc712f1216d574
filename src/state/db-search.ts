// Full-text search over state.db: FTS5 (word tokenizer) for most queries, the trigram index for CJK,
// a substring scan for CJK queries too short for trigrams. The most recent RANK_WINDOW matches are
// ranked here with BM25; snippets mark matches >>>like this<<<.
import { hasCjk, queryWords, sanitizeFtsQuery } from './fts-query.ts';
import type { SearchHit, SearchOptions } from './db-rows.ts';
import { likeEscape } from './db-rows.ts';
import type { DatabaseSync, StatementSync } from './sqlite.ts';

/** Matches ranked per search: all of them for rarer words, the most recent this many for common ones. */
export const RANK_WINDOW = 1000;

/** What a search needs from the open database. */
export interface SearchContext {
  db: DatabaseSync;
  stmt(sql: string): StatementSync;
  hasTrigram: boolean;
  hasArchived: boolean;
  /** SQL on `m` selecting the messages a search may find ('' when the file has no such columns). */
  visibleMessages: string;
}

/**
 * Full-text search over every session's messages (FTS5 syntax, sanitized). CJK queries go through
 * the trigram index (or LIKE below 3 characters). Best matches first.
 */
export function searchMessages(c: SearchContext, query: string, opts: SearchOptions = {}): SearchHit[] {
  const limit = searchLimit(opts);
  const { filters, args } = searchFilters(opts, c);
  const extra = filters.length ? ` AND ${filters.join(' AND ')}` : '';
  const cols = SEARCH_COLS;

  let rows: Record<string, unknown>[];
  const cjk = hasCjk(query);
  const plain = query.replace(/["*]/g, ' ').trim();
  if (cjk && (!c.hasTrigram || [...plain.replace(/\s+/g, '')].length < 3)) {
    // Too short for trigrams: substring scan, newest first.
    const words = queryWords(query);
    if (!words.length) return [];
    const likes = words.map(() => `m.content LIKE ? ESCAPE '\\'`).join(' AND ');
    rows = c.db
      .prepare(
        `SELECT ${cols}, substr(m.content, max(1, instr(m.content, ?) - 40), 160) AS snippet
         FROM messages m JOIN sessions s ON s.id = m.session_id
         WHERE ${likes}${extra} ORDER BY m.id DESC LIMIT ?`,
      )
      .all(words[0], ...words.map((w) => `%${likeEscape(w)}%`), ...args, limit) as Record<string, unknown>[];
    rows = rows.map((r) => ({ ...r, snippet: markWords(String(r.snippet ?? ''), words) }));
  } else {
    const table = cjk ? 'messages_fts_trigram' : 'messages_fts';
    const match = cjk ? trigramQuery(query) : sanitizeFtsQuery(query);
    if (!match) return [];
    try {
      // One pass over the most recent RANK_WINDOW matches (after filters), ranked here with BM25
      // (term frequency, length, and IDF from the matches seen). FTS5's own bm25 ordering first walks
      // every match of each term, which costs tens of milliseconds for a word in most messages.
      const window = c.stmt(
        `SELECT ${cols}, m.content AS content
         FROM ${table} f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id
         WHERE ${table} MATCH ?${extra} ORDER BY f.rowid DESC LIMIT ${RANK_WINDOW}`,
      ).all(match, ...args) as Record<string, unknown>[];
      const total = Number((c.stmt('SELECT MAX(id) AS n FROM messages').get() as { n: number | null }).n ?? 0);
      rows = rankWindow(window, queryTerms(query), limit, total);
    } catch (e) {
      if (/fts5|syntax/i.test((e as Error).message)) return [];
      throw e;
    }
  }
  // Neighbours in (timestamp, id) order: an index seek on idx_messages_session, as Hermes does.
  const prev = c.stmt(NEIGHBOUR_SQL.prev);
  const next = c.stmt(NEIGHBOUR_SQL.next);
  return rows.map((r) => {
    const key = [String(r.session_id), Number(r.timestamp), Number(r.id)] as const;
    return toHit(r, [prev.get(...key) as Record<string, unknown> | undefined, next.get(...key) as Record<string, unknown> | undefined]);
  });
}

/** Columns of a search hit row (`m` messages, `s` sessions). */
export const SEARCH_COLS = 'm.id, m.session_id, m.role, m.timestamp, s.source, s.model, s.title, s.started_at AS session_started';

export const searchLimit = (opts: SearchOptions) => Math.max(1, Math.min(opts.limit ?? 20, 200));

/**
 * The filters of a search as SQL terms on `m`/`s` with `?` placeholders: sources, roles, one
 * session, the rows a search may find (live and compacted, not rewound) and archived sessions
 * (hidden unless asked for, or named).
 */
export function searchFilters(opts: SearchOptions, c: { hasArchived: boolean; visibleMessages: string }): { filters: string[]; args: (string | number)[] } {
  const filters: string[] = [];
  const args: (string | number)[] = [];
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : v.split(',')).map((x) => x.trim()).filter(Boolean);
  const sources = list(opts.source);
  const roles = list(opts.role);
  if (sources.length) {
    filters.push(`s.source IN (${sources.map(() => '?').join(',')})`);
    args.push(...sources);
  }
  if (opts.excludeSources?.length) {
    filters.push(`s.source NOT IN (${opts.excludeSources.map(() => '?').join(',')})`);
    args.push(...opts.excludeSources);
  }
  if (roles.length) {
    filters.push(`m.role IN (${roles.map(() => '?').join(',')})`);
    args.push(...roles);
  }
  if (opts.sessionId) {
    filters.push('m.session_id = ?');
    args.push(opts.sessionId);
  }
  if (c.visibleMessages) filters.push(c.visibleMessages);
  if (c.hasArchived && !opts.includeArchived && !opts.sessionId) filters.push('s.archived = 0');
  return { filters, args };
}

/** A hit row and its neighbours → a SearchHit. */
export function toHit(r: Record<string, unknown>, context: (Record<string, unknown> | undefined)[]): SearchHit {
  return {
    id: Number(r.id),
    session_id: String(r.session_id),
    role: String(r.role),
    timestamp: Number(r.timestamp),
    snippet: String(r.snippet ?? ''),
    context: context.filter((c): c is Record<string, unknown> => !!c).map((c) => ({ role: String(c.role), content: String(c.content ?? '') })),
    source: String(r.source),
    model: (r.model as string | null) ?? null,
    title: (r.title as string | null) ?? null,
    session_started: Number(r.session_started),
  };
}

/** The neighbour before or after a hit in (timestamp, id) order, 200 characters (the hit's session, timestamp and id as SQL expressions). */
export function neighbourSql(side: 'prev' | 'next', sid: string, ts: string, id: string): string {
  const [cmp, order] = side === 'prev' ? ['<', 'timestamp DESC, id DESC'] : ['>', 'timestamp, id'];
  return `SELECT role, substr(content, 1, 200) AS content FROM messages WHERE session_id = ${sid} AND (timestamp, id) ${cmp} (${ts}, ${id}) ORDER BY ${order} LIMIT 1`;
}

/** Neighbours of a hit (`?`: session, timestamp, id). */
export const NEIGHBOUR_SQL = { prev: neighbourSql('prev', '?', '?', '?'), next: neighbourSql('next', '?', '?', '?') };

export interface QueryTerm {
  /** A word, or the words of a quoted phrase separated by single spaces. */
  word: string;
  prefix: boolean;
}

/** The words and phrases of a query, for scoring and highlighting (operators and NOT-terms left out). */
export function queryTerms(query: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  const re = /"([^"]*)"(\*?)|(\S+)/g;
  let skipNext = false;
  for (const m of query.replace(/[()]/g, ' ').matchAll(re)) {
    if (m[3] === 'AND' || m[3] === 'OR') continue;
    if (m[3] === 'NOT') {
      skipNext = true;
      continue;
    }
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const raw = m[1] ?? m[3];
    const prefix = (m[2] ?? '') === '*' || raw.endsWith('*');
    const words = raw.split(/[^\p{L}\p{N}_]+/u).filter(Boolean).map((w) => w.toLowerCase());
    if (!words.length) continue;
    if (m[1] !== undefined || words.length > 1) out.push({ word: words.join(' '), prefix });
    else out.push({ word: words[0], prefix });
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

function termPattern(t: QueryTerm): string {
  const body = t.word.split(' ').map(escapeRe).join('[^\\p{L}\\p{N}_]+') + (t.prefix ? '[\\p{L}\\p{N}_]*' : '');
  // CJK text has no spaces between words: match it as a substring.
  return CJK_CHAR.test(t.word) ? body : `(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`;
}

function termRegex(terms: QueryTerm[]): RegExp | null {
  if (!terms.length) return null;
  return new RegExp(terms.map(termPattern).join('|'), 'giu');
}

/** A ~200-character excerpt around the first match, matches marked >>>like this<<<. */
export function makeSnippet(text: string, terms: QueryTerm[]): string {
  const re = termRegex(terms);
  if (!re) return text.slice(0, 200);
  re.lastIndex = 0;
  const first = re.exec(text);
  let start = 0;
  let end = Math.min(text.length, 200);
  if (first) {
    start = Math.max(0, first.index - 60);
    if (start > 0) {
      const sp = text.indexOf(' ', start);
      if (sp >= 0 && sp < first.index) start = sp + 1;
    }
    end = Math.min(text.length, Math.max(start + 200, first.index + first[0].length));
  }
  const body = text.slice(start, end).replace(re, (m) => `>>>${m}<<<`);
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/** BM25 over a window of matching rows: term frequency, length (in characters) and IDF. */
export function rankWindow(window: Record<string, unknown>[], terms: QueryTerm[], limit: number, totalDocs: number): Record<string, unknown>[] {
  const k1 = 1.2;
  const b = 0.75;
  const lens = window.map((r) => String(r.content ?? '').length || 1);
  const avg = lens.reduce((a, x) => a + x, 0) / (lens.length || 1);
  const regs = terms.map((t) => new RegExp(termPattern(t), 'giu'));
  const tfs = window.map((r) => {
    const text = String(r.content ?? '');
    return regs.map((re) => {
      re.lastIndex = 0;
      let f = 0;
      while (re.exec(text)) f++;
      return f;
    });
  });
  const n = Math.max(totalDocs, window.length);
  const idf = terms.map((_, j) => {
    const df = tfs.reduce((c, tf) => c + (tf[j] > 0 ? 1 : 0), 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  const scored = window.map((r, i) => {
    let score = 0;
    tfs[i].forEach((f, j) => {
      if (f) score += (idf[j] * (f * (k1 + 1))) / (f + k1 * (1 - b + (b * lens[i]) / avg));
    });
    return { r, score, id: Number(r.id) };
  });
  scored.sort((x, y) => y.score - x.score || y.id - x.id);
  return scored.slice(0, limit).map(({ r }) => ({ ...r, snippet: makeSnippet(String(r.content ?? ''), terms) }));
}

export function markWords(text: string, words: string[]): string {
  let out = text;
  for (const w of words) out = out.split(w).join(`>>>${w}<<<`);
  return out;
}

/** Trigram MATCH: each whitespace-separated piece as a quoted substring, ANDed. */
export function trigramQuery(q: string): string {
  return queryWords(q)
    .filter((w) => [...w].length >= 3)
    .map((w) => `"${w.replace(/"/g, '""')}"`)
    .join(' ');
}

