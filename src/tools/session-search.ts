// session_search: recall from past conversations in state.db, in Hermes's four shapes (no LLM):
// discovery (`query`: full-text hits, each with the message id to scroll from), scroll (`session_id`
// + `around_message_id`: ±`window` messages), read (`session_id` alone: the session, or its head and
// tail when long) and browse (no arguments: recent sessions).
import { SessionDB } from '../state/db.ts';
import { paths } from '../state/paths.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { ToolServices } from './types.ts';

/** The session store: the session's own, or HERMES_HOME/state.db opened once per session. */
export function sessionDbFor(s: ToolServices): SessionDB {
  if (s.sessionDb?.isOpen) return s.sessionDb;
  let db = s.state.get('session_db') as SessionDB | undefined;
  if (!db?.isOpen) {
    db = SessionDB.open(paths.stateDb(s.home));
    s.state.set('session_db', db);
  }
  return db;
}

const iso = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** Per-message text cap in scroll/read results (tool output can be huge). */
const MESSAGE_CHARS = 2_000;
const READ_HEAD = 20;
const READ_TAIL = 10;

interface Row {
  id: number;
  role: string;
  content: string | null;
  tool_name?: string | null;
  tool_calls?: string | null;
  timestamp: number;
}

const activeCache = new WeakMap<object, string>();

/** Rows of one session around an id, or its head and tail, without reading the whole session. */
function rowsOf(db: SessionDB) {
  const raw = db.raw;
  let act = activeCache.get(raw);
  if (act === undefined) {
    const cols = (raw.prepare('PRAGMA table_info(messages)').all() as { name: string }[]).map((c) => c.name);
    // Later Hermes keeps compacted and rewound rows with active = 0: they are not part of the conversation.
    act = cols.includes('active') ? ' AND (active IS NULL OR active = 1)' : '';
    activeCache.set(raw, act);
  }
  const q = (sql: string, ...args: (string | number)[]) => raw.prepare(`SELECT * FROM messages WHERE session_id = ?${act} ${sql}`).all(...args) as unknown as Row[];
  return {
    count: (sid: string) => Number((raw.prepare(`SELECT COUNT(*) AS n FROM messages WHERE session_id = ?${act}`).get(sid) as { n: number }).n),
    at: (sid: string, id: number) => q('AND id = ?', sid, id)[0],
    before: (sid: string, id: number, n: number) => q('AND id < ? ORDER BY id DESC LIMIT ?', sid, id, n).reverse(),
    after: (sid: string, id: number, n: number) => q('AND id > ? ORDER BY id LIMIT ?', sid, id, n),
    head: (sid: string, n: number) => q('ORDER BY id LIMIT ?', sid, n),
    tail: (sid: string, n: number) => q('ORDER BY id DESC LIMIT ?', sid, n).reverse(),
  };
}

function view(r: Row): Record<string, unknown> {
  let content = r.content ?? '';
  if (!content && r.tool_calls) {
    try {
      const calls = JSON.parse(r.tool_calls) as { function?: { name?: string } }[];
      content = `[called ${calls.map((c) => c.function?.name ?? '?').join(', ')}]`;
    } catch {
      content = '[tool calls]';
    }
  }
  const out: Record<string, unknown> = { id: r.id, role: r.role, when: iso(r.timestamp) };
  if (r.tool_name) out.tool = r.tool_name;
  out.content = content.length > MESSAGE_CHARS ? `${content.slice(0, MESSAGE_CHARS)}… [${(content.length - MESSAGE_CHARS).toLocaleString('en-US')} more characters]` : content;
  return out;
}

export default defineTool({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🔎',
  parallelSafe: true,
  description:
    'Search past conversations with the user (all sessions, all platforms) when they refer to earlier work. `query`: full text ' +
    '(words ANDed, "exact phrase", OR, NOT, prefix*), hits with a >>>match<<< snippet and message_id; `session_id` + ' +
    '`around_message_id`: ±`window` messages around it (re-anchor on the first/last id to page); `session_id` alone: read it; ' +
    'no arguments: recent sessions. It shows what was said then, not the current state. The current session is not searched.',
  schema: (z) =>
    z.object({
    query: z.string().optional().describe('What to look for'),
    session_id: z.string().optional().describe('A session from a result'),
    around_message_id: z.coerce.number().int().optional().describe('A message_id to scroll around'),
    window: z.coerce.number().int().optional().describe('Messages each side (1-20, default 5)'),
    sort: z.enum(['newest', 'oldest']).optional().describe('Order hits by time, not relevance'),
    role_filter: z.string().optional().describe('Only messages from these roles, comma-separated: user, assistant, tool'),
    source: z.string().optional().describe('Only sessions from these sources, comma-separated: cli, telegram, discord, cron, acp…'),
    limit: z.coerce.number().int().min(1).max(20).optional().describe('How many results (default 5, at most 20)'),
  }),
  handler(a, ctx) {
    const s = ctx.services;
    let db: SessionDB;
    try {
      db = sessionDbFor(s);
    } catch (e) {
      return fail(`The session store could not be opened: ${(e as Error).message}`);
    }
    const limit = a.limit ?? 5;

    if (a.around_message_id !== undefined && !a.session_id?.trim())
      return fail('`around_message_id` needs the `session_id` it belongs to (both come from an earlier session_search result).');

    if (a.session_id?.trim() && !a.query?.trim()) {
      const id = db.resolveSession(a.session_id.trim());
      const row = id ? db.getSession(id) : null;
      if (!id || !row) return fail(`No session "${a.session_id}". Use session_search without arguments to list recent sessions.`, { status: 'not_found' });
      const m = rowsOf(db);
      const total = m.count(id);
      const head = { session_id: id, title: row.title, source: row.source, started: iso(row.started_at), total_messages: total };
      if (a.around_message_id !== undefined) {
        const anchor = m.at(id, a.around_message_id);
        if (!anchor) return fail(`Message ${a.around_message_id} is not in session ${id} (or it was compacted away). Use an id from an earlier result.`, head);
        const w = Math.min(Math.max(a.window ?? 5, 1), 20);
        const before = m.before(id, a.around_message_id, w);
        const after = m.after(id, a.around_message_id, w);
        return ok({ mode: 'scroll', ...head, anchor_id: a.around_message_id, window: w, messages: [...before, anchor, ...after].map(view), messages_before: before.length, messages_after: after.length });
      }
      const long = total > READ_HEAD + READ_TAIL;
      const picked = long ? [...m.head(id, READ_HEAD), ...m.tail(id, READ_TAIL)] : m.head(id, READ_HEAD + READ_TAIL);
      return ok({
        mode: 'read',
        ...head,
        messages: picked.map(view),
        ...(long ? { note: `Showing the first ${READ_HEAD} and last ${READ_TAIL} of ${total} messages. Scroll with around_message_id for the middle.` } : {}),
      });
    }

    if (!a.query?.trim()) {
      const recent = db
        .listSessions({ source: a.source, limit: limit + 1 })
        .filter((x) => x.id !== s.sessionId)
        .slice(0, limit)
        .map((x) => ({ session_id: x.id, title: x.title, source: x.source, started: iso(x.started_at), last_active: iso(x.last_active), messages: x.message_count, preview: x.preview }));
      return ok({ mode: 'recent', sessions: recent, count: recent.length });
    }

    const within = a.session_id?.trim() ? (db.resolveSession(a.session_id.trim()) ?? a.session_id.trim()) : undefined;
    let hits = db
      .searchMessages(a.query, { role: a.role_filter, source: a.source, sessionId: within, limit: (a.sort ? 200 : limit + 10), excludeSources: ['tool'] })
      .filter((h) => within || h.session_id !== s.sessionId);
    if (a.sort) hits = [...hits].sort((x, y) => (a.sort === 'newest' ? y.timestamp - x.timestamp || y.id - x.id : x.timestamp - y.timestamp || x.id - y.id));
    hits = hits.slice(0, limit);
    return ok({
      mode: 'search',
      query: a.query,
      ...(a.sort ? { sort: a.sort } : {}),
      count: hits.length,
      results: hits.map((h) => ({
        session_id: h.session_id,
        title: h.title,
        source: h.source,
        when: iso(h.timestamp),
        role: h.role,
        message_id: h.id,
        snippet: h.snippet,
        context: h.context,
      })),
      ...(hits.length ? { hint: 'Scroll around a hit with session_id + around_message_id = its message_id.' } : { note: 'No matches. Try fewer or different words, or a prefix like deploy*.' }),
    });
  },
});
