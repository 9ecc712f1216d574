// Sessions tab: list with source/model/date filters, full-text search (state.db FTS5), one
// session's transcript, rename, export JSONL, delete. All through the session store (state.db or
// PostgreSQL), as `hermes sessions`.
import type { Hono } from 'hono';
import { redactSecrets } from '../../policy/redact.ts';
import { TitleConflictError, parseJson } from '../../state/db.ts';
import { body, fail, str, type DashboardContext } from '../context.ts';
import type { FacetsResponse, MessageView, SearchResponse, SessionListResponse, SessionResponse } from '../api-types.ts';

const int = (v: string | undefined, dflt: number, max: number) => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : dflt;
};

/** `2026-06-01` (local midnight) or unix seconds → unix seconds; undefined when empty or invalid. */
function dayOrSeconds(v: string | undefined, endOfDay = false): number | undefined {
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (endOfDay ? 1 : 0));
  return d.getTime() / 1000;
}

/** One transcript message for the page: text redacted, tool calls parsed, reasoning kept apart. */
function messageView(r: Record<string, unknown>): MessageView {
  const calls = parseJson<{ id?: string; function?: { name?: string; arguments?: string }; name?: string; arguments?: unknown }[]>(r.tool_calls) ?? [];
  const reasoning = str(r.reasoning) || str(r.reasoning_content);
  let content = r.content === null || r.content === undefined ? '' : String(r.content);
  // Multimodal content is stored as JSON parts: show the text parts.
  if (content.startsWith('[{')) {
    const parts = parseJson<{ type?: string; text?: string }[]>(content);
    if (Array.isArray(parts)) content = parts.map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type ?? 'part'}]`)).join('\n');
  }
  return {
    id: Number(r.id),
    role: String(r.role),
    content: redactSecrets(content),
    reasoning: reasoning ? redactSecrets(reasoning) : null,
    toolCalls: calls.map((c) => ({
      id: c.id ?? '',
      name: c.function?.name ?? c.name ?? '?',
      arguments: redactSecrets(typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.arguments ?? c.function?.arguments ?? {})),
    })),
    toolName: r.tool_name ? String(r.tool_name) : null,
    toolCallId: r.tool_call_id ? String(r.tool_call_id) : null,
    timestamp: Number(r.timestamp),
    compacted: Number(r.active ?? 1) === 0,
  };
}

export function registerSessions(app: Hono, ctx: DashboardContext): void {
  app.get('/api/sessions', async (c) => {
    const q = c.req.query();
    const opts = {
      source: q.source || undefined,
      model: q.model || undefined,
      startedAfter: dayOrSeconds(q.from),
      startedBefore: dayOrSeconds(q.to, true),
      archived: (q.archived === 'only' ? 'only' : q.archived === 'include' ? 'include' : 'hide') as 'only' | 'include' | 'hide',
      includeTool: q.source === 'tool',
    };
    const db = await ctx.store();
    const limit = int(q.limit, 50, 500);
    const offset = int(q.offset, 0, 10_000_000);
    const sessions = (await db.listSessions({ ...opts, limit, offset })).map((s) => ({
      id: s.id,
      title: s.title,
      source: s.source,
      model: s.model,
      started_at: s.started_at,
      ended_at: s.ended_at,
      last_active: s.last_active,
      message_count: s.message_count,
      tool_call_count: s.tool_call_count,
      input_tokens: s.input_tokens,
      output_tokens: s.output_tokens,
      estimated_cost_usd: s.estimated_cost_usd,
      archived: !!s.archived,
      preview: redactSecrets(s.preview),
    }));
    return c.json({ sessions, total: await db.countSessions(opts), limit, offset } satisfies SessionListResponse);
  });

  app.get('/api/sessions/facets', async (c) => c.json((await (await ctx.store()).facets()) satisfies FacetsResponse));

  app.get('/api/sessions/search', async (c) => {
    const q = c.req.query('q')?.trim() ?? '';
    if (!q) return fail(c, 400, 'Type a word or phrase to search for.');
    const source = c.req.query('source') || undefined;
    let hits;
    try {
      hits = await (await ctx.store()).searchMessages(q, { source, limit: int(c.req.query('limit'), 50, 200) });
    } catch (e) {
      return fail(c, 400, `The search could not run: ${(e as Error).message}`, 'Use plain words; quotes for a phrase.');
    }
    return c.json({
      query: q,
      hits: hits.map((h) => ({ ...h, snippet: redactSecrets(h.snippet), context: h.context.map((x) => ({ role: x.role, content: redactSecrets(x.content) })) })),
    } satisfies SearchResponse);
  });

  app.get('/api/sessions/:id', async (c) => {
    const db = await ctx.store();
    const id = await db.resolveSession(c.req.param('id'));
    const s = id ? await db.getSession(id) : null;
    if (!s || !id) return fail(c, 404, `No session "${c.req.param('id')}".`, 'It may have been deleted; reload the list.');
    const { system_prompt: _prompt, model_config: _cfg, ...meta } = s;
    return c.json({ session: meta, messages: (await db.getMessageRows(id, 'shown')).map(messageView) } satisfies SessionResponse);
  });

  app.patch('/api/sessions/:id', async (c) => {
    const b = await body(c);
    if (!b || (b.title !== null && typeof b.title !== 'string')) return fail(c, 400, 'Send {"title": "new title"} (or null to clear it).');
    const db = await ctx.store();
    const id = c.req.param('id');
    if (!(await db.getSession(id))) return fail(c, 404, `No session "${id}".`);
    try {
      await db.setTitle(id, b.title === null ? null : String(b.title));
    } catch (e) {
      if (e instanceof TitleConflictError) return fail(c, 409, e.message, 'Pick another title.');
      return fail(c, 400, (e as Error).message);
    }
    return c.json({ ok: true, title: (await db.getSession(id))?.title ?? null });
  });

  app.delete('/api/sessions/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await (await ctx.store()).deleteSession(id))) return fail(c, 404, `No session "${id}".`);
    ctx.log?.write('INFO', 'dashboard.sessions', `deleted session ${id}`);
    return c.json({ ok: true });
  });

  app.get('/api/sessions/:id/export', async (c) => {
    const id = c.req.param('id');
    const row = await (await ctx.store()).exportSession(id);
    if (!row) return fail(c, 404, `No session "${id}".`);
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="hermes-session-${id.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl"`);
    return c.body(`${JSON.stringify(row)}\n`);
  });
}
