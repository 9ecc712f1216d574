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

export default defineTool({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🔎',
  parallelSafe: true,
  description:
    'Search the transcripts of past conversations with the user (all sessions on all platforms). Use it when the user refers to ' +
    'earlier work ("what did we decide about…", "like last time"), or to recover details an earlier conversation had. The query uses ' +
    'full-text syntax: words are ANDed, "exact phrase", OR, NOT, prefix*. Results are the best matches with a snippet ' +
    '(>>>match<<<) and the message before and after. Without a query it lists recent sessions. The current session is not searched ' +
    '(it is already in your context).',
  schema: (z) =>
    z.object({
    query: z.string().optional().describe('What to look for; omit to list recent sessions'),
    role_filter: z.string().optional().describe('Only messages from these roles, comma-separated: user, assistant, tool'),
    source: z.string().optional().describe('Only sessions from these sources, comma-separated: cli, telegram, discord, slack, cron, acp…'),
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
    if (!a.query?.trim()) {
      const recent = db
        .listSessions({ source: a.source, limit: limit + 1 })
        .filter((x) => x.id !== s.sessionId)
        .slice(0, limit)
        .map((x) => ({ session_id: x.id, title: x.title, source: x.source, started: iso(x.started_at), last_active: iso(x.last_active), messages: x.message_count, preview: x.preview }));
      return ok({ mode: 'recent', sessions: recent, count: recent.length });
    }
    const hits = db
      .searchMessages(a.query, { role: a.role_filter, source: a.source, limit: limit + 10, excludeSources: ['tool'] })
      .filter((h) => h.session_id !== s.sessionId)
      .slice(0, limit);
    return ok({
      mode: 'search',
      query: a.query,
      count: hits.length,
      results: hits.map((h) => ({
        session_id: h.session_id,
        title: h.title,
        source: h.source,
        when: iso(h.timestamp),
        role: h.role,
        snippet: h.snippet,
        context: h.context,
      })),
      ...(hits.length ? {} : { note: 'No matches. Try fewer or different words, or a prefix like deploy*.' }),
    });
  },
});
