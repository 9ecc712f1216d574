// The API server's session resource API (Hermes 0.19's `/api/sessions`, the surface `hermes peer dm`
// drives on another machine):
//   GET    /api/sessions                 list (limit, offset, source; `title` finds one by exact title)
//   POST   /api/sessions                 create an empty session (id, title, model, system_prompt)
//   GET    /api/sessions/{id}            one session
//   PATCH  /api/sessions/{id}            title, end_reason
//   DELETE /api/sessions/{id}            delete it and its messages
//   GET    /api/sessions/{id}/messages   its transcript
//   POST   /api/sessions/{id}/chat       one agent turn in it: {message} → {message: {role, content}}
// Same bearer key, body limit and error shape as /v1 (api-server.ts mounts it). Session rows leave
// out the system prompt and model config (only whether they exist), as Hermes's do.
import type { Context, Hono } from 'hono';
import type { TurnResult } from '../../agent/types.ts';
import type { Message } from '../../llm/types.ts';
import { redactSecrets } from '../../policy/redact.ts';
import type { SessionRow } from '../../state/db-rows.ts';
import type { SessionStore } from '../../state/store/types.ts';

type Json = Record<string, unknown>;

/** Hops a bot-to-bot DM may travel (the `hermes peer dm` client stops at the same count). */
export const PEER_MAX_HOPS = 4;

/** What the session API needs of the API server. */
export interface SessionApiHost {
  /** The session store, or undefined when transcripts are kept without one. */
  store(): SessionStore | undefined;
  modelName: string;
  body(req: Request): Promise<Json>;
  /** One turn in session `sessionId` (its history and system prompt given), holding a turn slot. */
  turn(o: { sessionId: string; history: Message[]; systemPrompt?: string; systemExtra?: string; message: Message; signal?: AbortSignal; env?: Record<string, string> }): Promise<{ result: TurnResult; sessionId: string }>;
}

const SESSION_KEYS = [
  'id', 'source', 'user_id', 'model', 'title', 'started_at', 'ended_at', 'end_reason', 'message_count', 'tool_call_count',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd',
  'actual_cost_usd', 'api_call_count', 'parent_session_id', 'last_active', 'preview',
] as const;

const MESSAGE_KEYS = ['id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'token_count', 'finish_reason', 'reasoning', 'reasoning_content'] as const;

/** A client-safe session: no system prompt or model config, only whether they exist. */
export function sessionView(row: SessionRow & Partial<{ preview: string; last_active: number }>): Json {
  const r = row as unknown as Json;
  const out: Json = {};
  for (const k of SESSION_KEYS) if (k in r) out[k] = r[k];
  out.has_system_prompt = !!row.system_prompt;
  out.has_model_config = !!row.model_config;
  return out;
}

function messageView(m: Json): Json {
  const out: Json = {};
  for (const k of MESSAGE_KEYS) if (k in m) out[k] = k === 'tool_calls' && typeof m[k] === 'string' ? safeJson(m[k] as string) : m[k];
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, message: string, code: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const param = (c: Context): string => c.req.param('id') ?? '';

const intParam = (v: string | undefined, fallback: number, max: number) => {
  const n = Number(v);
  return v !== undefined && Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
};

/** A session id a client may choose: no path separators, control characters or leading dots. */
function checkId(id: string): string {
  if (!id || id.length > 256 || /[\r\n\0/\\]/.test(id) || id.startsWith('.')) throw new ApiError(400, 'Invalid session ID.', 'invalid_session_id');
  return id;
}

/** The user message of a chat request: `message` (string) or OpenAI-style `messages` ending with the user's. */
function chatMessage(body: Json): string {
  if (typeof body.message === 'string' && body.message.trim()) return body.message;
  if (typeof body.input === 'string' && body.input.trim()) return body.input;
  const ms = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = ms.at(-1);
  if (last?.role === 'user' && typeof last.content === 'string' && last.content.trim()) return last.content;
  throw new ApiError(400, 'Send the user message as `message` (a non-empty string).', 'missing_message');
}

export function mountSessionApi(app: Hono, host: SessionApiHost): void {
  const store = () => {
    const s = host.store();
    if (!s) throw new ApiError(503, 'Session database unavailable: this gateway keeps transcripts without a session store.', 'session_db_unavailable');
    return s;
  };
  const existing = async (id: string) => {
    const row = await store().getSession(id);
    if (!row) throw new ApiError(404, `Session not found: ${id}`, 'session_not_found');
    return row;
  };
  const run = (fn: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await fn(c);
    } catch (e) {
      if (e instanceof ApiError) return c.json({ error: { message: e.message, type: 'invalid_request_error', code: e.code, param: null } }, e.status as 400);
      throw e;
    }
  };

  app.get('/api/sessions', run(async (c) => {
    const limit = intParam(c.req.query('limit'), 50, 200);
    const offset = intParam(c.req.query('offset'), 0, 1_000_000);
    const title = c.req.query('title');
    const s = store();
    if (title !== undefined) {
      // An exact-title lookup (Hermes 0.21: how `peer dm` finds a bot's chat), archived ones included.
      const id = await s.resolveSession(title);
      const row = id ? await s.getSession(id) : null;
      const data = row && row.title === title ? [sessionView(row)] : [];
      return c.json({ object: 'list', data, limit, offset, has_more: false });
    }
    const rows = await s.listSessions({ source: c.req.query('source') || undefined, limit, offset });
    return c.json({ object: 'list', data: rows.map(sessionView), limit, offset, has_more: rows.length === limit });
  }));

  app.post('/api/sessions', run(async (c) => {
    const body = await host.body(c.req.raw);
    const s = store();
    const raw = body.id ?? body.session_id;
    const id = checkId(raw ? String(raw).trim() : `api_${Math.floor(Date.now() / 1000)}_${Math.random().toString(16).slice(2, 10)}`);
    if (body.system_prompt !== undefined && body.system_prompt !== null && typeof body.system_prompt !== 'string')
      throw new ApiError(400, 'system_prompt must be a string.', 'invalid_system_prompt');
    if (await s.getSession(id)) throw new ApiError(409, `Session already exists: ${id}`, 'session_exists');
    const title = typeof body.title === 'string' && body.title.trim() ? body.title.trim() : undefined;
    if (title) {
      const taken = await s.resolveSession(title);
      const holder = taken ? await s.getSession(taken) : null;
      if (holder?.title === title) throw new ApiError(400, `Title already in use by session ${holder.id}`, 'invalid_title');
    }
    await s.createSession({ id, source: 'api_server', model: typeof body.model === 'string' ? body.model : host.modelName, systemPrompt: (body.system_prompt as string | undefined) ?? undefined, title });
    return c.json({ object: 'hermes.session', session: sessionView(await existing(id)) }, 201);
  }));

  app.get('/api/sessions/:id', run(async (c) => c.json({ object: 'hermes.session', session: sessionView(await existing(param(c))) })));

  app.patch('/api/sessions/:id', run(async (c) => {
    const id = param(c);
    await existing(id);
    const body = await host.body(c.req.raw);
    const unknown = Object.keys(body).filter((k) => k !== 'title' && k !== 'end_reason');
    if (unknown.length) throw new ApiError(400, `Unsupported session fields: ${unknown.sort().join(', ')} (title and end_reason can change).`, 'unsupported_session_field');
    const s = store();
    if ('title' in body) {
      try {
        await s.setTitle(id, body.title === null ? null : String(body.title));
      } catch (e) {
        throw new ApiError(400, (e as Error).message, 'invalid_title');
      }
    }
    if (typeof body.end_reason === 'string' && body.end_reason) await s.endSession(id, body.end_reason);
    return c.json({ object: 'hermes.session', session: sessionView(await existing(id)) });
  }));

  app.delete('/api/sessions/:id', run(async (c) => {
    const id = param(c);
    await existing(id);
    return c.json({ object: 'hermes.session.deleted', id, deleted: await store().deleteSession(id) });
  }));

  app.get('/api/sessions/:id/messages', run(async (c) => {
    const id = param(c);
    await existing(id);
    const rows = await store().getMessageRows(id, 'shown');
    return c.json({ object: 'list', session_id: id, data: rows.map((m) => messageView(m)) });
  }));

  app.post('/api/sessions/:id/chat', run(async (c) => {
    const id = param(c);
    const row = await existing(id);
    const body = await host.body(c.req.raw);
    const text = chatMessage(body);
    const extra = body.system_message ?? body.instructions;
    if (extra !== undefined && extra !== null && typeof extra !== 'string') throw new ApiError(400, 'system_message must be a string.', 'invalid_system_message');
    // A bot-to-bot DM (`hermes peer dm`) says how many hops it has travelled; the turn's commands
    // inherit the count, so a DM back counts one more and a ping-pong ends at PEER_MAX_HOPS.
    const hops = Number(c.req.header('x-hermes-peer-hops') ?? 0);
    if (!Number.isInteger(hops) || hops < 0) throw new ApiError(400, 'X-Hermes-Peer-Hops must be a whole number.', 'invalid_peer_hops');
    if (hops > PEER_MAX_HOPS) throw new ApiError(508, `Refused: this bot-to-bot conversation has crossed ${hops} hops (the limit is ${PEER_MAX_HOPS}).`, 'peer_loop');
    const history = await store().getMessages(id);
    const { result, sessionId } = await host.turn({
      sessionId: id,
      history,
      systemPrompt: row.system_prompt ?? undefined,
      systemExtra: (extra as string | undefined) || undefined,
      message: { role: 'user', content: text },
      signal: c.req.raw.signal,
      env: hops ? { HERMES_PEER_HOPS: String(hops) } : undefined,
    });
    if (result.failed && !result.interrupted) throw new ApiError(502, redactSecrets(result.error?.message ?? 'The agent failed.'), 'agent_failed');
    const u = result.usage;
    const input = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
    return c.json(
      {
        object: 'hermes.session.chat.completion',
        session_id: sessionId,
        message: { role: 'assistant', content: redactSecrets(result.finalText) },
        usage: { prompt_tokens: input, completion_tokens: u.output_tokens, total_tokens: input + u.output_tokens },
      },
      200,
      { 'X-Hermes-Session-Id': sessionId },
    );
  }));
}
