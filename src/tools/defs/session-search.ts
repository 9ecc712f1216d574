// session_search: recall from past conversations in state.db, in Hermes's four shapes (no LLM):
// discovery (`query`: full-text hits, each with the message id to scroll from), scroll (`session_id`
// + `around_message_id`: ±`window` messages), read (`session_id` alone: the session, or its head and
// tail when long) and browse (no arguments: recent sessions).
import { openSessionStore, type SessionStore } from '../../state/store/index.ts';
import { defineSlot } from '../../state/slots.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import type { ToolSession } from '../types.ts';

/** The store session_search opened itself (the Session closes it: src/session/session-state.ts). */
export const sessionDbSlot = defineSlot<SessionStore>('session_db');

/** The session store: the session's own, or the configured one (state.db or PostgreSQL) opened once per session. */
export async function sessionDbFor(s: ToolSession): Promise<SessionStore> {
  if (s.sessionDb?.isOpen) return s.sessionDb;
  let db = s.slots.peek(sessionDbSlot);
  if (!db?.isOpen) {
    db = await openSessionStore(s.home, s.config, s.env);
    s.slots.set(sessionDbSlot, db);
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
    'Search past conversations (all sessions and platforms but this one). query: full text (AND, "phrase", OR, NOT, prefix*); session_id + around_message_id: the messages around a hit; session_id: read it; no arguments: recent sessions.',
  schema: (z) =>
    z.object({
    query: z.string().optional(),
    session_id: z.string().optional(),
    around_message_id: z.coerce.number().int().optional(),
    window: z.coerce.number().int().optional().describe('Messages each side (default 5)'),
    sort: z.enum(['newest', 'oldest']).optional(),
    role_filter: z.string().optional().describe('Roles, comma-separated'),
    source: z.string().optional().describe('Sources, comma-separated'),
    limit: z.coerce.number().int().min(1).max(20).optional(),
  }),
  async handler(a, ctx) {
    const s = ctx;
    let db: SessionStore;
    try {
      db = await sessionDbFor(s);
    } catch (e) {
      return fail(`The session store could not be opened: ${(e as Error).message}`);
    }
    const limit = a.limit ?? 5;

    if (a.around_message_id !== undefined && !a.session_id?.trim())
      return fail('`around_message_id` needs the `session_id` it belongs to (both come from an earlier session_search result).');

    if (a.session_id?.trim() && !a.query?.trim()) {
      const id = await db.resolveSession(a.session_id.trim());
      const row = id ? await db.getSession(id) : null;
      if (!id || !row) return fail(`No session "${a.session_id}". Use session_search without arguments to list recent sessions.`, { status: 'not_found' });
      const page = async (p: Parameters<SessionStore['messagePage']>[1]) => (await db.messagePage(id, p)) as unknown as Row[];
      const total = await db.liveMessageCount(id);
      const head = { session_id: id, title: row.title, source: row.source, started: iso(row.started_at), total_messages: total };
      if (a.around_message_id !== undefined) {
        const anchor = (await page({ at: a.around_message_id }))[0];
        if (!anchor) return fail(`Message ${a.around_message_id} is not in session ${id} (or it was compacted away). Use an id from an earlier result.`, head);
        const w = Math.min(Math.max(a.window ?? 5, 1), 20);
        const before = await page({ before: a.around_message_id, limit: w });
        const after = await page({ after: a.around_message_id, limit: w });
        return ok({ mode: 'scroll', ...head, anchor_id: a.around_message_id, window: w, messages: [...before, anchor, ...after].map(view), messages_before: before.length, messages_after: after.length });
      }
      const long = total > READ_HEAD + READ_TAIL;
      const picked = long ? [...(await page({ head: READ_HEAD })), ...(await page({ tail: READ_TAIL }))] : await page({ head: READ_HEAD + READ_TAIL });
      return ok({
        mode: 'read',
        ...head,
        messages: picked.map(view),
        ...(long ? { note: `Showing the first ${READ_HEAD} and last ${READ_TAIL} of ${total} messages. Scroll with around_message_id for the middle.` } : {}),
      });
    }

    if (!a.query?.trim()) {
      const recent = (await db.listSessions({ source: a.source, limit: limit + 1 }))
        .filter((x) => x.id !== s.sessionId)
        .slice(0, limit)
        .map((x) => ({ session_id: x.id, title: x.title, source: x.source, started: iso(x.started_at), last_active: iso(x.last_active), messages: x.message_count, preview: x.preview }));
      return ok({ mode: 'recent', sessions: recent, count: recent.length });
    }

    const within = a.session_id?.trim() ? ((await db.resolveSession(a.session_id.trim())) ?? a.session_id.trim()) : undefined;
    let hits = (await db.searchMessages(a.query, { role: a.role_filter, source: a.source, sessionId: within, limit: a.sort ? 200 : limit + 10, excludeSources: ['tool'] })).filter((h) => within || h.session_id !== s.sessionId);
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
