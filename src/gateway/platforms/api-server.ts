// The OpenAI-compatible API server (hono): any OpenAI client talks to the agent.
//   POST /v1/chat/completions   stateless (the whole conversation in each request); SSE streaming
//                               with standard chunks plus `event: hermes.tool.progress`
//   POST /v1/responses          server-side state: previous_response_id, named `conversation`
//   GET|DELETE /v1/responses/:id, GET /v1/models, GET /v1/capabilities, GET /health
//   /api/sessions…              Hermes's session resource API (api-sessions.ts; `hermes peer dm` uses it)
// Binds 127.0.0.1:8642 by default; a non-loopback bind refuses to start without API_SERVER_KEY
// (a bearer token every /v1 request must carry). Browsers are served only from the origins in
// API_SERVER_CORS_ORIGINS. Runs are unattended: approvals get the unattended policy (deny).
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { AgentEvent, TurnResult } from '../../agent/types.ts';
import { messageText } from '../../agent/repair.ts';
import type { ContentPart, Message } from '../../llm/types.ts';
import { redactSecrets } from '../../policy/redact.ts';
import { describeToolCall } from '../../session/describe.ts';
import type { Session } from '../../session/session.ts';
import { splitList } from '../auth.ts';
import { platformSettings, truthy } from '../config.ts';
import type { GatewayRunner } from '../runner.ts';
import type { InboundHandlers, PlatformAdapter, SendResult } from '../types.ts';
import { PlatformSetupError } from '../types.ts';
import { gateStream, sseBody, type SseSink } from './api-sse.ts';
import { apiServer as apiServerEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export interface ApiServerSettings {
  host: string;
  port: number;
  key: string;
  corsOrigins: string[];
  modelName: string;
  showReasoning: boolean;
  /** Largest request body accepted (bytes); larger ones get 413 before they are read. */
  maxBodyBytes: number;
  /** A request (headers and body) must arrive within this many ms, or it gets 408. */
  requestTimeoutMs: number;
  /** A streaming client that reads nothing for this many ms while output waits is cut off (its turn interrupted). */
  writeTimeoutMs: number;
  /** Turns run at once; later requests wait their turn in arrival order. */
  maxConcurrent: number;
  /** Requests that may wait for a turn; past that a request gets 503 with Retry-After. */
  maxQueue: number;
}

const num = (v: unknown, fallback: number) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : fallback);

export function apiServerSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): ApiServerSettings {
  const s = platformSettings(config, 'api_server');
  const display = ((config.display as Record<string, unknown> | undefined)?.platforms as Record<string, Record<string, unknown>> | undefined)?.api_server;
  return {
    host: env.API_SERVER_HOST || String(s.host ?? '127.0.0.1'),
    port: Number(env.API_SERVER_PORT ?? s.port ?? 8642),
    key: env.API_SERVER_KEY || String(s.key ?? ''),
    corsOrigins: splitList(env.API_SERVER_CORS_ORIGINS ?? (Array.isArray(s.cors_origins) ? s.cors_origins.join(',') : String(s.cors_origins ?? ''))),
    modelName: env.API_SERVER_MODEL_NAME || String(s.model_name ?? 'hermes-agent'),
    showReasoning: display?.show_reasoning === true,
    maxBodyBytes: num(env.API_SERVER_MAX_BODY_BYTES ?? s.max_body_bytes, 20 * 1024 * 1024),
    requestTimeoutMs: num(env.API_SERVER_REQUEST_TIMEOUT ?? s.request_timeout, 60) * 1000,
    writeTimeoutMs: num(env.API_SERVER_WRITE_TIMEOUT ?? s.write_timeout, 120) * 1000,
    maxConcurrent: Math.floor(num(env.API_SERVER_MAX_CONCURRENT ?? s.max_concurrent, 64)),
    maxQueue: Math.floor(num(env.API_SERVER_MAX_QUEUE ?? s.max_queue, 1024)),
  };
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  constructor(status: number, message: string, type = 'invalid_request_error', code: string | null = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = code;
  }
}

const rid = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

function tooLarge(max: number) {
  return {
    error: {
      message: `The request body is larger than ${max.toLocaleString('en-US')} bytes (platforms.api_server.max_body_bytes / API_SERVER_MAX_BODY_BYTES).`,
      type: 'invalid_request_error',
      code: 'request_too_large',
      param: null,
    },
  };
}
const nowS = () => Math.floor(Date.now() / 1000);

interface StoredResponse {
  id: string;
  session_id: string;
  /** Conversation length (messages) when this response was made. */
  history_len: number;
  conversation?: string;
  created_at: number;
  response: Record<string, unknown>;
  deleted?: boolean;
}

/** Stored responses: in memory (most recent 2,000) and appended to HERMES_HOME/api_server/responses.jsonl. */
class ResponseStore {
  private readonly map = new Map<string, StoredResponse>();
  private readonly conversations = new Map<string, string>();
  private readonly path: string;
  private readonly max = 2000;

  constructor(home: string) {
    const dir = join(home, 'api_server');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'responses.jsonl');
    if (existsSync(this.path)) {
      for (const line of readFileSync(this.path, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          const r = JSON.parse(line) as StoredResponse;
          if (r.deleted) {
            this.map.delete(r.id);
            continue;
          }
          this.put(r, false);
        } catch {
          /* torn line */
        }
      }
    }
  }

  private put(r: StoredResponse, persist: boolean): void {
    this.map.delete(r.id);
    this.map.set(r.id, r);
    if (r.conversation) this.conversations.set(r.conversation, r.id);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
    if (persist) appendFileSync(this.path, JSON.stringify(r) + '\n', { mode: 0o600 });
  }

  save(r: StoredResponse): void {
    this.put(r, true);
  }

  get(id: string): StoredResponse | undefined {
    return this.map.get(id);
  }

  latest(conversation: string): string | undefined {
    const id = this.conversations.get(conversation);
    return id && this.map.has(id) ? id : undefined;
  }

  /** The newest stored response of a session (a chain continues the session only from its tip). */
  tipOf(sessionId: string): StoredResponse | undefined {
    let tip: StoredResponse | undefined;
    for (const r of this.map.values()) if (r.session_id === sessionId && (!tip || r.history_len >= tip.history_len)) tip = r;
    return tip;
  }

  delete(id: string): boolean {
    if (!this.map.delete(id)) return false;
    appendFileSync(this.path, JSON.stringify({ id, deleted: true }) + '\n', { mode: 0o600 });
    return true;
  }
}

type Json = Record<string, unknown>;

/** OpenAI content (string or parts) → ours; files and non-image data URLs are refused. */
function convertContent(content: unknown, where: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw new HttpError(400, `${where}: content must be a string or an array of parts.`);
  const parts: ContentPart[] = [];
  for (const p of content as Json[]) {
    const type = String(p?.type ?? '');
    if (type === 'text' || type === 'input_text' || type === 'output_text') parts.push({ type: 'text', text: String(p.text ?? '') });
    else if (type === 'image_url' || type === 'input_image') {
      const url = typeof p.image_url === 'string' ? p.image_url : String((p.image_url as Json | undefined)?.url ?? '');
      if (!/^https?:\/\//i.test(url) && !/^data:image\//i.test(url)) throw new HttpError(400, `${where}: only http(s) and data:image/ URLs are supported for images.`, 'invalid_request_error', 'unsupported_content_type');
      parts.push({ type: 'image_url', image_url: { url } });
    } else throw new HttpError(400, `${where}: content parts of type "${type}" are not supported (text and images only).`, 'invalid_request_error', 'unsupported_content_type');
  }
  return parts.every((p) => p.type === 'text') ? parts.map((p) => (p as { text: string }).text).join('\n') : parts;
}

function usageOf(r: TurnResult) {
  const input = r.usage.input_tokens + r.usage.cache_read_tokens + r.usage.cache_write_tokens;
  return { input, output: r.usage.output_tokens };
}

/**
 * An SSE response with backpressure (api-sse.ts): the session's model stream waits while the client
 * is behind, text deltas waiting for it are merged, and a client that stops reading is cut off.
 */
function sseResponse(
  headers: Record<string, string>,
  session: Session,
  o: { writeTimeoutMs: number; log: (line: string) => void; streams: Set<SseSink>; cutOff: () => void },
  run: (sink: SseSink) => Promise<void>,
): Response {
  const body = sseBody(
    async (sink) => {
      session.llm = gateStream(session.llm, () => sink.ready());
      o.streams.add(sink);
      try {
        await run(sink);
      } catch (e) {
        sink.send(JSON.stringify({ error: { message: redactSecrets((e as Error).message), type: 'server_error' } }));
      } finally {
        o.streams.delete(sink);
      }
    },
    {
      writeTimeoutMs: o.writeTimeoutMs,
      onCancel: () => session.interrupt(),
      onSlowClient: (line) => {
        o.log(`api_server: ${line}`);
        // (Its socket waits for a drain that will not come: closed here, not by the stream's error.)
        o.cutOff();
      },
    },
  );
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers } });
}

export class ApiServer implements PlatformAdapter {
  readonly name = 'api_server';
  readonly maxMessageLength = Number.POSITIVE_INFINITY;
  readonly supportsButtons = false;
  readonly settings: ApiServerSettings;
  private server: import('node:http').Server | null = null;
  private readonly runner: GatewayRunner;
  private store: ResponseStore | null = null;
  private readonly active = new Set<Session>();
  /** The open event streams' sinks (their buffered bytes: `streamBuffered`). */
  private readonly streams = new Set<SseSink>();
  /** Turns running now, and the requests waiting for one (first come, first served). */
  private running = 0;
  private readonly slots = new Map<Session, () => void>();
  private readonly waiting: (() => void)[] = [];
  /** Port actually bound (port 0 in tests). */
  port = 0;

  constructor(runner: GatewayRunner, settings: ApiServerSettings) {
    this.runner = runner;
    this.settings = settings;
  }

  async connect(_handlers: InboundHandlers): Promise<void> {
    const s = this.settings;
    if (!isLoopback(s.host) && !s.key)
      throw new PlatformSetupError(`API server: refusing to bind ${s.host} without API_SERVER_KEY. Anyone who can reach that address could run the agent (and its tools). Set API_SERVER_KEY in ~/.hermes/.env, or bind 127.0.0.1.`);
    this.store = new ResponseStore(this.runner.home);
    const app = await this.app();
    const { serve } = await import('@hono/node-server');
    await new Promise<void>((resolve, reject) => {
      // A request that never finishes arriving (slow or partial bodies) is cut off with 408.
      const serverOptions = { requestTimeout: s.requestTimeoutMs, headersTimeout: Math.min(s.requestTimeoutMs, 60_000), connectionsCheckingInterval: Math.min(5000, Math.max(250, s.requestTimeoutMs / 4)) };
      const srv = serve({ fetch: app.fetch, port: s.port, hostname: s.host, serverOptions }, (info) => {
        this.port = info.port;
        resolve();
      }) as import('node:http').Server;
      srv.once('error', reject);
      this.server = srv;
    });
    this.runner.log(`api_server: listening on http://${s.host}:${this.port}/v1${s.key ? '' : ' (no API_SERVER_KEY: loopback only)'}`);
  }

  async stopIntake(): Promise<void> {
    this.server?.close();
  }

  async disconnect(): Promise<void> {
    for (const sess of this.active) sess.interrupt();
    const srv = this.server;
    this.server = null;
    if (srv) {
      (srv as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  }

  async send(): Promise<SendResult> {
    return { ok: false, error: 'the API server answers requests; it cannot send messages' };
  }

  /**
   * A turn slot: at most `maxConcurrent` turns (sessions, model calls, tools) run at once, the rest
   * wait in arrival order — so under load every request waits about as long as the others (the
   * latency stays even) and memory stays bounded by the slots, not by the number of clients. A full
   * queue is refused with 503; a client that leaves while it waits gives its place up. Resolves with
   * the release function (call it once the turn is over).
   */
  private admit(signal?: AbortSignal): Promise<() => void> {
    const grant = () => {
      this.running++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.running--;
        while (this.running < this.settings.maxConcurrent && this.waiting.length) this.waiting.shift()!();
      };
    };
    if (this.running < this.settings.maxConcurrent && !this.waiting.length) return Promise.resolve(grant());
    if (this.waiting.length >= this.settings.maxQueue)
      return Promise.reject(
        new HttpError(503, `The API server is at capacity (${this.settings.maxConcurrent} turns running, ${this.waiting.length} waiting); retry shortly (platforms.api_server.max_concurrent / API_SERVER_MAX_CONCURRENT).`, 'server_error', 'server_busy'),
      );
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', gone);
        resolve(grant());
      };
      const gone = () => {
        const i = this.waiting.indexOf(wake);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new HttpError(499, 'The client closed the request while it waited for a turn.', 'invalid_request_error', 'client_closed'));
      };
      signal?.addEventListener('abort', gone, { once: true });
      this.waiting.push(wake);
    });
  }

  /** The request's session, holding the turn slot `release` until `finish`. */
  private sessionFor(release: () => void, o: Parameters<GatewayRunner['serviceSession']>[0]): Session {
    let session: Session;
    try {
      session = this.runner.serviceSession(o);
    } catch (e) {
      release();
      throw e;
    }
    this.slots.set(session, release);
    return session;
  }

  /** Ends a request's session and gives its turn slot to the next request waiting. */
  private async finish(session: Session): Promise<void> {
    try {
      await session.close('api_request_done');
    } finally {
      this.slots.get(session)?.();
      this.slots.delete(session);
    }
  }

  /** Turns running and requests waiting (diagnostics). */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private authorized(header: string | undefined): boolean {
    const key = this.settings.key;
    if (!key) return true;
    const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
    if (!m) return false;
    const a = Buffer.from(m[1].trim());
    const b = Buffer.from(key);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private async app() {
    const { Hono } = await import('hono');
    const app = new Hono();
    const s = this.settings;
    const allowed = new Set(s.corsOrigins);
    app.use('*', async (c, next) => {
      const origin = c.req.header('origin');
      const corsOk = !!origin && (allowed.has(origin) || allowed.has('*'));
      if (c.req.method === 'OPTIONS') {
        if (!corsOk) return c.body(null, 403);
        return c.body(null, 204, {
          'access-control-allow-origin': origin!,
          'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
          'access-control-allow-headers': c.req.header('access-control-request-headers') ?? 'authorization, content-type',
          'access-control-max-age': '600',
          vary: 'Origin',
        });
      }
      if (origin && !corsOk) return c.json({ error: { message: `Origin ${origin} is not allowed (API_SERVER_CORS_ORIGINS).`, type: 'invalid_request_error', code: 'cors_origin_denied' } }, 403);
      await next();
      if (corsOk) {
        c.res.headers.set('access-control-allow-origin', origin!);
        c.res.headers.set('vary', 'Origin');
        c.res.headers.set('access-control-expose-headers', 'X-Hermes-Session-Id');
      }
    });
    app.get('/health', (c) => c.json({ status: 'ok', platform: 'api_server' }));
    const guard = async (c: import('hono').Context, next: () => Promise<void>) => {
      if (!this.authorized(c.req.header('authorization'))) return c.json({ error: { message: 'Invalid or missing API key (Authorization: Bearer <API_SERVER_KEY>).', type: 'invalid_request_error', code: 'invalid_api_key' } }, 401);
      // Too large by its own declaration: refused before a byte of it is read.
      const declared = Number(c.req.header('content-length') ?? 0);
      if (declared > s.maxBodyBytes) return c.json(tooLarge(s.maxBodyBytes), 413, { connection: 'close' });
      await next();
    };
    app.use('/v1/*', guard);
    app.use('/api/*', guard);
    app.onError((e, c) => {
      if (e instanceof HttpError)
        return c.json({ error: { message: e.message, type: e.type, code: e.code, param: null } }, e.status as 400, e.status === 413 ? { connection: 'close' } : e.status === 503 ? { 'retry-after': '1' } : undefined);
      this.runner.log(`api_server: ${(e as Error).stack ?? e}`);
      return c.json({ error: { message: redactSecrets((e as Error).message), type: 'server_error', code: null, param: null } }, 500);
    });
    app.get('/v1/models', (c) => c.json({ object: 'list', data: [{ id: s.modelName, object: 'model', created: nowS(), owned_by: 'hermes' }] }));
    app.get('/v1/capabilities', (c) =>
      c.json({
        object: 'hermes.api_server.capabilities',
        platform: 'hermes-agent',
        model: s.modelName,
        auth: { type: 'bearer', required: !!s.key },
        features: { chat_completions: true, chat_completions_streaming: true, responses_api: true, responses_streaming: true, reasoning_streaming: s.showReasoning, run_submission: false },
      }),
    );
    // (The Node response under Hono: a streaming client that stops reading is cut off on it.)
    const socketOf = (c: { env: unknown }) => (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing;
    app.post('/v1/chat/completions', async (c) => this.chatCompletions(await this.body(c.req.raw), socketOf(c), c.req.raw.signal));
    app.post('/v1/responses', async (c) => this.responses(await this.body(c.req.raw), socketOf(c), c.req.raw.signal));
    app.get('/v1/responses/:id', (c) => {
      const r = this.store!.get(c.req.param('id'));
      if (!r) throw new HttpError(404, `Response ${c.req.param('id')} not found.`, 'invalid_request_error', 'not_found');
      return c.json(r.response);
    });
    app.delete('/v1/responses/:id', (c) => {
      const id = c.req.param('id');
      if (!this.store!.delete(id)) throw new HttpError(404, `Response ${id} not found.`, 'invalid_request_error', 'not_found');
      return c.json({ id, object: 'response.deleted', deleted: true });
    });
    const { mountSessionApi } = await import('./api-sessions.ts');
    mountSessionApi(app, { store: () => this.runner.transcripts.db, modelName: s.modelName, body: (r) => this.body(r), turn: (o) => this.turnIn(o) });
    // Anything else is an OpenAI-style JSON error too, not a bare text page (clients parse it).
    app.notFound((c) =>
      c.json(
        {
          error: {
            message: `No route ${c.req.method} ${new URL(c.req.url).pathname}. This server answers GET /v1/models, POST /v1/chat/completions, POST /v1/responses, GET and DELETE /v1/responses/{id}, GET /v1/capabilities, /api/sessions (list, create, get, patch, delete, messages, chat) and GET /health.`,
            type: 'invalid_request_error',
            code: 'not_found',
            param: null,
          },
        },
        404,
      ),
    );
    return app;
  }

  private async body(req: Request): Promise<Json> {
    // Read with a cap: a chunked body has no length to check up front.
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (req.body) {
      const reader = req.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > this.settings.maxBodyBytes) {
          await reader.cancel().catch(() => {});
          throw new HttpError(413, tooLarge(this.settings.maxBodyBytes).error.message, 'invalid_request_error', 'request_too_large');
        }
        chunks.push(value);
      }
    }
    let v: unknown;
    try {
      v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new HttpError(400, 'The request body is not valid JSON.');
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new HttpError(400, 'The request body must be a JSON object.');
    return v as Json;
  }

  /**
   * One request's turn; background work it started with notify_on_complete (or a background
   * subagent) is waited for, bounded by terminal.oneshot_completion_wait_seconds, and answered in
   * follow-up turns of the same response, as a one-shot run does.
   */
  private async prompt(session: Session, message: Message): Promise<TurnResult> {
    const { promptWithFollowUps } = await import('../../session/inbox.ts');
    const waitS = Number(this.runner.config.terminal?.oneshot_completion_wait_seconds ?? 600);
    return promptWithFollowUps(session, message, (Number.isFinite(waitS) ? waitS : 600) * 1000);
  }

  /** One turn in a stored session (the session API's chat), holding a turn slot while it runs. */
  private async turnIn(o: { sessionId: string; history: Message[]; systemPrompt?: string; systemExtra?: string; message: Message; signal?: AbortSignal; env?: Record<string, string> }) {
    const session = this.sessionFor(await this.admit(o.signal), { platform: 'api_server', sessionId: o.sessionId, history: o.history, systemPrompt: o.systemPrompt, systemExtra: o.systemExtra, env: o.env });
    this.active.add(session);
    try {
      return { result: await this.prompt(session, o.message), sessionId: session.id };
    } finally {
      this.active.delete(session);
      await this.finish(session);
    }
  }

  private progressPayload(e: Extract<AgentEvent, { type: 'tool_start' }>) {
    const d = describeToolCall(e.name, e.args, { emoji: e.emoji });
    return { object: 'hermes.tool.progress', choices: [], tool: e.name, emoji: d.icon, label: redactSecrets(d.arg || e.name), toolCallId: e.callId, status: 'running' };
  }

  // ---- chat completions ------------------------------------------------------------------------

  private async chatCompletions(body: Json, out?: { destroy(): void }, signal?: AbortSignal): Promise<Response> {
    const messages = body.messages;
    if (!Array.isArray(messages) || !messages.length) throw new HttpError(400, '`messages` must be a non-empty array.');
    const system: string[] = [];
    const history: Message[] = [];
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as Json;
      const role = String(m?.role ?? '');
      if (role === 'system' || role === 'developer') system.push(messageText(convertContent(m.content, `messages[${i}]`) as never));
      else if (role === 'user' || role === 'assistant') history.push({ role, content: convertContent(m.content, `messages[${i}]`) });
    }
    const last = history.pop();
    if (!last || last.role !== 'user') throw new HttpError(400, 'The last message must be from the user.');
    const session = this.sessionFor(await this.admit(signal), { platform: 'api_server', history, systemExtra: system.join('\n\n') || undefined });
    const id = rid('chatcmpl-');
    const created = nowS();
    const model = this.settings.modelName;
    const headers = { 'X-Hermes-Session-Id': session.id };
    if (body.stream === true) {
      const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
      return sseResponse(headers, session, this.streamOptions(out), async (sink) => {
          const send = (data: string, event?: string) => sink.send(data, event);
          const chunkOf = (delta: Json, finish: string | null = null, extra: Json = {}) => JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra });
          const chunk = (delta: Json, finish: string | null = null, extra: Json = {}) => send(chunkOf(delta, finish, extra));
          const content = (text: string) => chunkOf({ content: text });
          const reasoning = (text: string) => chunkOf({ reasoning_content: text });
          chunk({ role: 'assistant', content: '' });
          const off = session.on((e) => {
            if (e.type === 'text_delta') sink.sendText(e.text, content);
            else if (e.type === 'reasoning_delta' && this.settings.showReasoning) sink.sendText(e.text, reasoning);
            else if (e.type === 'tool_start') send(JSON.stringify(this.progressPayload(e)), 'hermes.tool.progress');
            // A broken model stream is sent again: the content since the last step is void (clients that know the event drop it).
            else if (e.type === 'retract' && e.shown) send(JSON.stringify({ object: 'hermes.retract', choices: [], reason: redactSecrets(e.error.message) }), 'hermes.retract');
          });
          this.active.add(session);
          try {
            const r = await this.prompt(session, { role: 'user', content: last.content });
            if (r.failed && !r.interrupted) send(JSON.stringify({ error: { message: redactSecrets(r.error?.message ?? 'The agent failed.'), type: 'server_error', code: null, param: null } }));
            else {
              chunk({}, r.partial ? 'length' : 'stop');
              if (includeUsage) {
                const u = usageOf(r);
                send(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } }));
              }
            }
            send('[DONE]');
          } finally {
            off();
            this.active.delete(session);
            await this.finish(session);
          }
      });
    }
    this.active.add(session);
    try {
      const r = await this.prompt(session, { role: 'user', content: last.content });
      if (r.failed) throw new HttpError(502, redactSecrets(r.error?.message ?? 'The agent failed.'), 'server_error');
      const u = usageOf(r);
      return Response.json(
        {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: redactSecrets(r.finalText), refusal: null }, finish_reason: r.partial ? 'length' : 'stop', logprobs: null }],
          usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
        },
        { headers },
      );
    } finally {
      this.active.delete(session);
      await this.finish(session);
    }
  }

  // ---- responses -------------------------------------------------------------------------------

  private inputMessages(input: unknown): Message[] {
    if (typeof input === 'string') return [{ role: 'user', content: input }];
    if (!Array.isArray(input)) throw new HttpError(400, '`input` must be a string or an array of input items.');
    const out: Message[] = [];
    input.forEach((item: Json, i) => {
      const type = String(item?.type ?? 'message');
      if (type !== 'message') return; // function_call_output etc. from the client: the agent runs its own tools
      const role = String(item.role ?? 'user');
      if (role === 'system' || role === 'developer') out.push({ role: 'system', content: messageText(convertContent(item.content, `input[${i}]`) as never) });
      else if (role === 'user' || role === 'assistant') out.push({ role, content: convertContent(item.content, `input[${i}]`) });
    });
    return out;
  }

  private async responses(body: Json, out?: { destroy(): void }, signal?: AbortSignal): Promise<Response> {
    const store = this.store!;
    let prevId = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
    const conversation = typeof body.conversation === 'string' ? body.conversation : typeof (body.conversation as Json | undefined)?.id === 'string' ? String((body.conversation as Json).id) : undefined;
    if (!prevId && conversation) prevId = store.latest(conversation);
    const prev = prevId ? store.get(prevId) : undefined;
    if (prevId && !prev) throw new HttpError(404, `Previous response with id '${prevId}' not found.`, 'invalid_request_error', 'previous_response_not_found');

    const input = this.inputMessages(body.input);
    const system = input.filter((m) => m.role === 'system').map((m) => String(m.content));
    const convo = input.filter((m) => m.role !== 'system');
    const last = convo.pop();
    if (!last || last.role !== 'user') throw new HttpError(400, 'The input must end with a user message.');
    if (typeof body.instructions === 'string' && body.instructions.trim()) system.unshift(body.instructions);

    let sessionId: string | undefined;
    let history: Message[] = [];
    let systemPrompt: string | undefined;
    if (prev) {
      const stored = await this.runner.transcripts.getMessages(prev.session_id);
      history = stored.slice(0, prev.history_len);
      const tip = store.tipOf(prev.session_id);
      // Continuing from the newest response keeps the session; from an older one, it forks.
      if (tip?.id === prev.id && stored.length === prev.history_len) {
        sessionId = prev.session_id;
        systemPrompt = (await this.runner.transcripts.getStoredSession(prev.session_id))?.systemPrompt ?? undefined;
      }
    }
    history.push(...convo);
    const session = this.sessionFor(await this.admit(signal), { platform: 'api_server', sessionId, history, systemPrompt, systemExtra: system.join('\n\n') || undefined });
    const id = rid('resp_');
    const created_at = nowS();
    const model = this.settings.modelName;
    const storeIt = body.store !== false;
    const base = (status: string, output: Json[], usage: Json | null) => ({
      id,
      object: 'response',
      created_at,
      status,
      model,
      output,
      usage,
      error: null,
      incomplete_details: null,
      instructions: typeof body.instructions === 'string' ? body.instructions : null,
      previous_response_id: prevId ?? null,
      ...(conversation ? { conversation: { id: conversation } } : {}),
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      metadata: {},
      store: storeIt,
      text: { format: { type: 'text' } },
    });
    const finish = (r: TurnResult, output: Json[]) => {
      const u = usageOf(r);
      const usage = { input_tokens: u.input, input_tokens_details: { cached_tokens: r.usage.cache_read_tokens }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: r.usage.reasoning_tokens }, total_tokens: u.input + u.output };
      const status = r.failed ? 'failed' : r.partial ? 'incomplete' : 'completed';
      const response: Json = { ...base(status, output, usage) };
      if (r.failed) response.error = { code: 'server_error', message: redactSecrets(r.error?.message ?? 'The agent failed.') };
      if (storeIt && !r.failed) store.save({ id, session_id: session.id, history_len: session.history.length, conversation, created_at, response });
      return response;
    };
    const headers = { 'X-Hermes-Session-Id': session.id };

    if (body.stream !== true) {
      this.active.add(session);
      try {
        const r = await this.prompt(session, last);
        return Response.json(finish(r, outputItems(r.messages)), { headers });
      } finally {
        this.active.delete(session);
        await this.finish(session);
      }
    }

    return sseResponse(headers, session, this.streamOptions(out), async (sink) => {
        // Sequence numbers are given as events are written (a merged delta takes one).
        let seq = 0;
        const ev = (type: string, data: Json) => sink.send(() => JSON.stringify({ type, sequence_number: seq++, ...data }), type);
        const output: Json[] = [];
        let open: { index: number; id: string; text: string; delta: (text: string) => string } | null = null;
        const closeText = () => {
          if (!open) return;
          const o = open;
          open = null;
          const part = { type: 'output_text', text: o.text, annotations: [] };
          ev('response.output_text.done', { item_id: o.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] });
          ev('response.content_part.done', { item_id: o.id, output_index: o.index, content_index: 0, part });
          const item = { type: 'message', id: o.id, status: 'completed', role: 'assistant', content: [part] };
          output[o.index] = item;
          ev('response.output_item.done', { output_index: o.index, item });
        };
        const addItem = (item: Json) => {
          const index = output.length;
          output.push(item);
          ev('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
          ev('response.output_item.done', { output_index: index, item });
        };
        ev('response.created', { response: base('in_progress', [], null) });
        ev('response.in_progress', { response: base('in_progress', [], null) });
        const off = session.on((e) => {
          if (e.type === 'text_delta') {
            if (!open) {
              const item = { index: output.length, id: rid('msg_') };
              open = { ...item, text: '', delta: (text) => JSON.stringify({ type: 'response.output_text.delta', sequence_number: seq++, item_id: item.id, output_index: item.index, content_index: 0, delta: text, logprobs: [] }) };
              output.push({});
              ev('response.output_item.added', { output_index: open.index, item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] } });
              ev('response.content_part.added', { item_id: open.id, output_index: open.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
            }
            open.text += e.text;
            sink.sendText(e.text, open.delta, 'response.output_text.delta');
          } else if (e.type === 'retract') {
            // A broken model stream is sent again: the open message's text starts over (its done events carry only the new text).
            if (open) {
              open.text = '';
              ev('hermes.retract', { item_id: open.id, output_index: open.index, reason: redactSecrets(e.error.message) });
            }
          } else if (e.type === 'message' && e.message.role === 'assistant' && e.message.tool_calls?.length) {
            closeText();
            for (const tc of e.message.tool_calls) addItem({ type: 'function_call', id: `fc_${tc.id}`, call_id: tc.id, name: tc.function.name, arguments: tc.function.arguments, status: 'completed' });
          } else if (e.type === 'tool_end') {
            addItem({ type: 'function_call_output', id: `fco_${e.callId}`, call_id: e.callId, output: redactSecrets(e.content), status: 'completed' });
          }
        });
        this.active.add(session);
        try {
          const r = await this.prompt(session, last);
          closeText();
          const final = output.filter((o) => Object.keys(o).length);
          if (!final.some((o) => o.type === 'message') && r.finalText) final.push({ type: 'message', id: rid('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: r.finalText, annotations: [] }] });
          const response = finish(r, final);
          ev(r.failed ? 'response.failed' : r.partial ? 'response.incomplete' : 'response.completed', { response });
        } finally {
          off();
          this.active.delete(session);
          await this.finish(session);
        }
    });
  }

  private streamOptions(out?: { destroy(): void }) {
    return { writeTimeoutMs: this.settings.writeTimeoutMs, log: (line: string) => this.runner.log(line), streams: this.streams, cutOff: () => out?.destroy() };
  }

  /** Bytes each open event stream holds for its client right now (diagnostics; bounded by backpressure). */
  streamBuffered(): number[] {
    return [...this.streams].map((s) => s.buffered);
  }
}

/** A turn's messages as Responses output items: the tool calls it already ran, then the answer. */
function outputItems(messages: Message[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = messageText(m.content as never);
      if (text) out.push({ type: 'message', id: rid('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: redactSecrets(text), annotations: [] }] });
      for (const tc of m.tool_calls ?? []) out.push({ type: 'function_call', id: `fc_${tc.id}`, call_id: tc.id, name: tc.function.name, arguments: tc.function.arguments, status: 'completed' });
    } else if (m.role === 'tool') out.push({ type: 'function_call_output', id: `fco_${m.tool_call_id}`, call_id: m.tool_call_id, output: redactSecrets(messageText(m.content as never)), status: 'completed' });
  }
  return out;
}

export function truthyEnabled(env: NodeJS.ProcessEnv): boolean {
  return truthy(env.API_SERVER_ENABLED);
}

export const definition: PlatformDefinition = {
  ...apiServerEntry,
  maxMessageLength: Number.POSITIVE_INFINITY,
  create: async (ctx) => {
    if (!ctx.runner) throw new Error('the API server runs inside the gateway');
    return new ApiServer(ctx.runner, apiServerSettings(ctx.env, ctx.config));
  },
};
