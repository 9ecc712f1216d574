// A fake LLM server on loopback speaking the three wire formats the way the real APIs do:
// OpenAI Chat Completions (`POST /v1/chat/completions`), Anthropic Messages (`POST /v1/messages`),
// OpenAI Responses (`POST /v1/responses`) — streaming (SSE) and plain JSON — plus `GET /v1/models`.
// Drive it through the official SDKs: `openaiBaseUrl` for `openai`, `anthropicBaseUrl` for
// `@anthropic-ai/sdk`. Replies are queued (`enqueue`) and consumed in order across all wires; when the
// queue is empty the handler answers, else the default reply (`{text: 'ok'}`). No artificial latency
// unless a reply asks for it.

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
  /**
   * Responses wire only: a freeform (custom) tool call whose `input` is the arguments string, as
   * OpenAI models call grammar tools such as Codex's `apply_patch`.
   */
  custom?: boolean;
  /** Responses wire only: the namespace of a namespaced tool (Codex serves MCP tools as `mcp__<server>`). */
  namespace?: string;
}

export interface FakeReply {
  text?: string;
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  usage?: Partial<{ input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number }>;
  /** HTTP status; >= 400 answers with the wire's error JSON. */
  status?: number;
  /** The provider's error message inside the wire's error JSON. */
  error?: string;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** Drop the socket after this many SSE chunks: a broken stream. */
  cutAfterChunks?: number;
  /** Wait before answering. */
  delayMs?: number;
  /** Wait between SSE chunks. */
  chunkDelayMs?: number;
  /** Characters of text per streamed delta (default 8). */
  chunkSize?: number;
  /** Never answer (timeouts, interrupts). */
  hang?: boolean;
  /** Force streaming (true) or plain JSON (false); default: what the request asked. */
  stream?: boolean;
  /** Chat wire only: OpenRouter-style `reasoning_details` items streamed with the reasoning. */
  reasoningDetails?: unknown[];
}

export interface RecordedRequest {
  wire: 'chat' | 'anthropic' | 'responses';
  path: string;
  headers: Record<string, string>;
  // The parsed JSON body as the SDK sent it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** From `Authorization: Bearer …` or `x-api-key`. */
  apiKey: string;
}

export interface FakeLlm {
  /** http://127.0.0.1:<port> */
  url: string;
  /** url + '/v1' (chat completions and responses). */
  openaiBaseUrl: string;
  /** url (the Anthropic SDK appends /v1/messages). */
  anthropicBaseUrl: string;
  enqueue(...replies: FakeReply[]): void;
  setHandler(fn: ((req: RecordedRequest) => FakeReply | Promise<FakeReply>) | null): void;
  requests: RecordedRequest[];
  /** Served by GET /v1/models. */
  models: string[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function pieces(text: string, size = 8): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Split a string into about three parts (the way providers split tool arguments). */
function thirds(s: string): string[] {
  if (s.length < 3) return s ? [s] : [];
  const a = Math.ceil(s.length / 3);
  return [s.slice(0, a), s.slice(a, 2 * a), s.slice(2 * a)].filter(Boolean);
}

const argsString = (tc: FakeToolCall) => (typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments));

function usageOf(reply: FakeReply) {
  const u = reply.usage ?? {};
  return {
    input: u.input ?? 10,
    output: u.output ?? 5,
    cacheRead: u.cacheRead ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    reasoning: u.reasoning ?? 0,
  };
}

const STATUS_TEXT: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'Bad request'],
  401: ['authentication_error', 'Invalid API key'],
  402: ['billing_error', 'Insufficient credits'],
  403: ['permission_error', 'Permission denied'],
  404: ['not_found_error', 'Model not found'],
  413: ['request_too_large', 'Request too large'],
  429: ['rate_limit_error', 'Rate limit exceeded'],
  500: ['api_error', 'Internal server error'],
  502: ['api_error', 'Bad gateway'],
  503: ['api_error', 'Service unavailable'],
  529: ['overloaded_error', 'Overloaded'],
};

function errorBody(wire: RecordedRequest['wire'], status: number, message?: string): Json {
  const [type, text] = STATUS_TEXT[status] ?? (status >= 500 ? ['api_error', 'Server error'] : ['invalid_request_error', 'Request failed']);
  const msg = message ?? text;
  if (wire === 'anthropic') return { type: 'error', error: { type, message: msg } };
  const oaType = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message: msg, type: oaType, code: oaType, param: null } };
}

/** A request's body, read with plain stream events (less machinery per request than `for await`). */
function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What the fake reads from a request body to answer it. */
interface BodyFacts {
  stream: boolean;
  model: unknown;
  includeUsage: boolean;
}

const factsOf = (body: Json): BodyFacts => ({
  stream: body.stream === true,
  model: body.model,
  includeUsage: !!(body.stream_options as Json | undefined)?.include_usage,
});

/**
 * The string index of the `]` closing the top-level member `key` when its value is an array, else -1
 * (strings skipped with their escapes; `text` is valid JSON).
 */
function arrayEnd(text: string, key: string): number {
  const want = JSON.stringify(key);
  let depth = 0;
  let member: string | null = null;
  let inKey = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      if (depth === 1 && inKey) member = text.slice(i, j + 1);
      i = j;
    } else if (c === 123 || c === 91) {
      if (depth === 1 && member === want && c === 91) {
        // The value of `key`: find its closing bracket.
        let d = 0;
        for (let k = i; k < text.length; k++) {
          const x = text.charCodeAt(k);
          if (x === 34) {
            k++;
            while (text.charCodeAt(k) !== 34) k += text.charCodeAt(k) === 92 ? 2 : 1;
          } else if (x === 91 || x === 123) d++;
          else if ((x === 93 || x === 125) && --d === 0) return k;
        }
        return -1;
      }
      depth++;
    } else if (c === 125 || c === 93) depth--;
    else if (depth === 1 && c === 58) inKey = false;
    else if (depth === 1 && c === 44) inKey = true;
  }
  return -1;
}

/**
 * The bodies of one conversation grow by elements inserted at the end of one array ("messages";
 * "input" on the Responses wire). The last body is remembered with where that array ends: a body
 * that is the last one, byte for byte, with only complete elements inserted there (the insert is
 * parsed on its own) has the last one's top-level facts, without parsing ~50 KB per request of a long
 * tool loop. Any other body is parsed whole. Recorded bodies are parsed when a test reads them.
 */
class BodyFactsCache {
  private last?: { key: string; raw: Buffer; end: number; empty: boolean; facts: BodyFacts };
  /** Bodies parsed whole since the last one that extended its predecessor. */
  private misses = 0;

  /** The facts of `raw` when it extends the last body; undefined when it must be parsed. */
  extended(raw: Buffer, key: string): BodyFacts | undefined {
    const l = this.last;
    if (!l || l.key !== key || raw.length <= l.raw.length) return undefined;
    const tail = l.raw.length - l.end;
    if (raw.compare(l.raw, 0, l.end, 0, l.end) !== 0) return undefined;
    if (raw.compare(l.raw, l.end, l.raw.length, raw.length - tail, raw.length) !== 0) return undefined;
    const insert = raw.toString('utf8', l.end, raw.length - tail);
    const items = l.empty ? insert : insert.startsWith(',') ? insert.slice(1) : null;
    if (items === null) return undefined;
    try {
      const v = JSON.parse(`[${items}]`) as unknown;
      if (!Array.isArray(v) || !v.length) return undefined;
    } catch {
      return undefined;
    }
    this.last = { ...l, raw, end: raw.length - tail, empty: false };
    this.misses = 0;
    return l.facts;
  }

  /** Remembers a body that was parsed whole. */
  remember(raw: Buffer, text: string, key: string, facts: BodyFacts): void {
    // Interleaved conversations (the gateway's chats) never extend the last body: look for the
    // array's end only while that may pay off (after a hit, then for one body in 16 of a run of misses).
    this.misses++;
    if (this.misses > 2 && this.misses % 16 !== 0) {
      this.last = undefined;
      return;
    }
    const at = arrayEnd(text, key);
    if (at < 0) {
      this.last = undefined;
      return;
    }
    let before = at - 1;
    while (/\s/.test(text[before])) before--;
    this.last = { key, raw, end: Buffer.byteLength(text.slice(0, at)), empty: text[before] === '[', facts };
  }
}

/** A recorded request whose `body` is parsed on first read. */
function recorded(wire: RecordedRequest['wire'], path: string, headers: Record<string, string>, apiKey: string, raw: Buffer, parsed?: Json): RecordedRequest {
  const rec = { wire, path, headers, apiKey } as RecordedRequest;
  let body = parsed;
  Object.defineProperty(rec, 'body', {
    enumerable: true,
    configurable: true,
    get: () => (body ??= JSON.parse(raw.toString('utf8') || '{}') as Json),
    set: (v: Json) => void (body = v),
  });
  return rec;
}

export async function startFakeLlm(opts: { defaultReply?: FakeReply; requireKey?: string } = {}): Promise<FakeLlm> {
  const queue: FakeReply[] = [];
  let handler: ((req: RecordedRequest) => FakeReply | Promise<FakeReply>) | null = null;
  const requests: RecordedRequest[] = [];
  const bodies = new BodyFactsCache();
  const sockets = new Set<Socket>();
  let seq = 0;
  const nextId = () => (++seq).toString(36).padStart(4, '0');

  const fake: FakeLlm = {
    url: '',
    openaiBaseUrl: '',
    anthropicBaseUrl: '',
    enqueue: (...r) => void queue.push(...r),
    setHandler: (fn) => void (handler = fn),
    requests,
    models: ['fake-model', 'fake-model-large'],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake server failure: ${String(err)}` } }));
      } else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1] ?? '';
    const apiKey = headers['x-api-key'] || bearer;

    if (req.method === 'GET' && path.endsWith('/models')) {
      const anthropic = !!headers['anthropic-version'];
      if (opts.requireKey && apiKey !== opts.requireKey) return sendJson(res, 401, errorBody(anthropic ? 'anthropic' : 'chat', 401));
      const data = anthropic
        ? fake.models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }))
        : fake.models.map((id) => ({ id, object: 'model', created: 1735689600, owned_by: 'fake' }));
      return sendJson(res, 200, anthropic ? { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null } : { object: 'list', data });
    }

    const wire: RecordedRequest['wire'] | undefined = path.endsWith('/chat/completions')
      ? 'chat'
      : path.endsWith('/messages')
        ? 'anthropic'
        : path.endsWith('/responses')
          ? 'responses'
          : undefined;
    if (req.method !== 'POST' || !wire) return sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}` } });

    const raw = await readBody(req);
    const growing = wire === 'responses' ? 'input' : 'messages';
    let facts = bodies.extended(raw, growing);
    let parsed: Json | undefined;
    if (!facts) {
      const text = raw.toString('utf8');
      try {
        parsed = JSON.parse(text || '{}') as Json;
      } catch {
        return sendJson(res, 400, errorBody(wire, 400, 'body is not valid JSON'));
      }
      facts = factsOf(parsed);
      bodies.remember(raw, text, growing, facts);
    }
    const rec = recorded(wire, path, headers, apiKey, raw, parsed);
    requests.push(rec);

    if (opts.requireKey && apiKey !== opts.requireKey) return sendJson(res, 401, errorBody(wire, 401, 'Invalid API key'));

    const reply: FakeReply = queue.shift() ?? (handler ? await handler(rec) : (opts.defaultReply ?? { text: 'ok' }));
    if (reply.hang) return; // the socket stays open until the client gives up or close()
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed || req.socket.destroyed) return;

    if (reply.status && reply.status >= 400) {
      const h: Record<string, string> = {};
      if (reply.retryAfter !== undefined) h['retry-after'] = String(reply.retryAfter);
      return sendJson(res, reply.status, errorBody(wire, reply.status, reply.error), h);
    }
    const stream = reply.stream ?? facts.stream;
    const model = typeof facts.model === 'string' ? facts.model : 'fake-model';
    if (wire === 'chat') return stream ? sse(res, reply, chatEvents(reply, facts.includeUsage, model)) : sendJson(res, 200, chatJson(reply, model));
    if (wire === 'anthropic') return stream ? sse(res, reply, anthropicEvents(reply, model)) : sendJson(res, 200, anthropicJson(reply, model));
    return stream ? sse(res, reply, responsesEvents(reply, model)) : sendJson(res, 200, responsesJson(reply, model));
  }

  function sendJson(res: http.ServerResponse, status: number, payload: unknown, extra: Record<string, string> = {}): void {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
    res.end(text);
  }

  async function sse(res: http.ServerResponse, reply: FakeReply, events: string[]): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Without pacing or a cut, the headers and the whole stream leave in one chunked write (the bytes
    // a client reads are the same; a real server's packets split anywhere).
    if (reply.cutAfterChunks === undefined && !reply.chunkDelayMs) {
      res.end(events.join(''));
      return;
    }
    res.flushHeaders();
    let n = 0;
    for (const ev of events) {
      if (res.destroyed) return;
      if (reply.cutAfterChunks !== undefined && n >= reply.cutAfterChunks) {
        res.socket?.destroy();
        return;
      }
      if (reply.cutAfterChunks !== undefined) await new Promise<void>((r) => res.write(ev, () => r()));
      else res.write(ev);
      n++;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    res.end();
  }

  // ---- Chat Completions --------------------------------------------------------------------

  function chatUsage(reply: FakeReply): Json {
    const u = usageOf(reply);
    const details: Json = { cached_tokens: u.cacheRead };
    if (u.cacheWrite) details.cache_write_tokens = u.cacheWrite;
    const prompt = u.input + u.cacheRead + u.cacheWrite;
    return {
      prompt_tokens: prompt,
      completion_tokens: u.output,
      total_tokens: prompt + u.output,
      prompt_tokens_details: details,
      completion_tokens_details: { reasoning_tokens: u.reasoning },
    };
  }

  function chatEvents(reply: FakeReply, includeUsage: boolean, model: string): string[] {
    const id = `chatcmpl-${nextId()}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Json, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const out = [chunk({ role: 'assistant', content: '' })];
    for (const p of pieces(reply.reasoning ?? '')) out.push(chunk({ reasoning_content: p }));
    if (reply.reasoningDetails?.length) out.push(chunk({ reasoning_details: reply.reasoningDetails }));
    for (const p of pieces(reply.text ?? '', reply.chunkSize)) out.push(chunk({ content: p }));
    (reply.toolCalls ?? []).forEach((tc, index) => {
      out.push(chunk({ tool_calls: [{ index, id: tc.id ?? `call_${nextId()}`, type: 'function', function: { name: tc.name, arguments: '' } }] }));
      for (const p of thirds(argsString(tc))) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
    out.push(chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'));
    if (includeUsage) {
      out.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: chatUsage(reply) })}\n\n`);
    }
    out.push('data: [DONE]\n\n');
    return out;
  }

  function chatJson(reply: FakeReply, model: string): Json {
    const message: Json = { role: 'assistant', content: reply.text ?? (reply.toolCalls?.length ? null : ''), refusal: null };
    if (reply.reasoning) message.reasoning_content = reply.reasoning;
    if (reply.toolCalls?.length) {
      message.tool_calls = reply.toolCalls.map((tc) => ({
        id: tc.id ?? `call_${nextId()}`,
        type: 'function',
        function: { name: tc.name, arguments: argsString(tc) },
      }));
    }
    return {
      id: `chatcmpl-${nextId()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }],
      usage: chatUsage(reply),
    };
  }

  // ---- Anthropic Messages ------------------------------------------------------------------

  function anthropicBlocks(reply: FakeReply): Json[] {
    const blocks: Json[] = [];
    if (reply.reasoning) blocks.push({ type: 'thinking', thinking: reply.reasoning, signature: `sig_${nextId()}` });
    if (reply.text) blocks.push({ type: 'text', text: reply.text });
    for (const tc of reply.toolCalls ?? []) {
      blocks.push({ type: 'tool_use', id: tc.id ?? `toolu_${nextId()}`, name: tc.name, input: typeof tc.arguments === 'string' ? JSON.parse(tc.arguments || '{}') : tc.arguments });
    }
    return blocks;
  }

  function anthropicEvents(reply: FakeReply, model: string): string[] {
    const u = usageOf(reply);
    const ev = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const out = [
      ev('message_start', {
        message: {
          id: `msg_${nextId()}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: u.input, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite, output_tokens: 1 },
        },
      }),
      ev('ping', {}),
    ];
    anthropicBlocks(reply).forEach((b, index) => {
      if (b.type === 'thinking') {
        out.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
        for (const p of pieces(b.thinking as string)) out.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } }));
        out.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } }));
      } else if (b.type === 'text') {
        out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        for (const p of pieces(b.text as string)) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
      } else {
        out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }));
        for (const p of thirds(JSON.stringify(b.input))) out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
      }
      out.push(ev('content_block_stop', { index }));
    });
    out.push(
      ev('message_delta', {
        delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: u.output, input_tokens: u.input, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite },
      }),
    );
    out.push(ev('message_stop', {}));
    return out;
  }

  function anthropicJson(reply: FakeReply, model: string): Json {
    const u = usageOf(reply);
    return {
      id: `msg_${nextId()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: anthropicBlocks(reply),
      stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: u.input, output_tokens: u.output, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite },
    };
  }

  // ---- OpenAI Responses --------------------------------------------------------------------

  function responsesItems(reply: FakeReply): Json[] {
    const items: Json[] = [];
    if (reply.reasoning) {
      items.push({ type: 'reasoning', id: `rs_${nextId()}`, summary: [{ type: 'summary_text', text: reply.reasoning }], encrypted_content: `enc_${nextId()}` });
    }
    if (reply.text) {
      items.push({ type: 'message', id: `msg_${nextId()}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
    }
    for (const tc of reply.toolCalls ?? []) {
      if (tc.custom) items.push({ type: 'custom_tool_call', id: `ctc_${nextId()}`, call_id: tc.id ?? `call_${nextId()}`, name: tc.name, input: argsString(tc), status: 'completed' });
      else items.push({ type: 'function_call', id: `fc_${nextId()}`, call_id: tc.id ?? `call_${nextId()}`, name: tc.name, ...(tc.namespace ? { namespace: tc.namespace } : {}), arguments: argsString(tc), status: 'completed' });
    }
    return items;
  }

  function responsesUsage(reply: FakeReply): Json {
    const u = usageOf(reply);
    return {
      input_tokens: u.input + u.cacheRead,
      input_tokens_details: { cached_tokens: u.cacheRead },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: u.reasoning },
      total_tokens: u.input + u.cacheRead + u.output,
    };
  }

  function responseObject(id: string, model: string, status: string, output: Json[], usage: Json | null): Json {
    return { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model, output, usage, error: null, incomplete_details: null };
  }

  function responsesEvents(reply: FakeReply, model: string): string[] {
    const id = `resp_${nextId()}`;
    let sequence_number = 0;
    const ev = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...data })}\n\n`;
    const items = responsesItems(reply);
    const out = [ev('response.created', { response: responseObject(id, model, 'in_progress', [], null) })];
    out.push(ev('response.in_progress', { response: responseObject(id, model, 'in_progress', [], null) }));
    items.forEach((item, output_index) => {
      const item_id = item.id;
      if (item.type === 'reasoning') {
        out.push(ev('response.output_item.added', { output_index, item: { type: 'reasoning', id: item_id, summary: [] } }));
        out.push(ev('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } }));
        const text = (item.summary as Json[])[0].text as string;
        for (const p of pieces(text)) out.push(ev('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: p }));
        out.push(ev('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text }));
        out.push(ev('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text } }));
      } else if (item.type === 'message') {
        const text = ((item.content as Json[])[0].text as string) ?? '';
        out.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
        out.push(ev('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
        for (const p of pieces(text)) out.push(ev('response.output_text.delta', { item_id, output_index, content_index: 0, delta: p, logprobs: [] }));
        out.push(ev('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] }));
        out.push(ev('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'output_text', text, annotations: [] } }));
      } else if (item.type === 'custom_tool_call') {
        out.push(ev('response.output_item.added', { output_index, item: { ...item, input: '', status: 'in_progress' } }));
        for (const p of thirds(item.input as string)) out.push(ev('response.custom_tool_call_input.delta', { item_id, output_index, delta: p }));
        out.push(ev('response.custom_tool_call_input.done', { item_id, output_index, input: item.input }));
      } else {
        out.push(ev('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } }));
        for (const p of thirds(item.arguments as string)) out.push(ev('response.function_call_arguments.delta', { item_id, output_index, delta: p }));
        out.push(ev('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments }));
      }
      out.push(ev('response.output_item.done', { output_index, item }));
    });
    out.push(ev('response.completed', { response: responseObject(id, model, 'completed', items, responsesUsage(reply)) }));
    return out;
  }

  function responsesJson(reply: FakeReply, model: string): Json {
    const items = responsesItems(reply);
    const r = responseObject(`resp_${nextId()}`, model, 'completed', items, responsesUsage(reply));
    r.output_text = reply.text ?? '';
    return r;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${port}`;
  fake.openaiBaseUrl = `${fake.url}/v1`;
  fake.anthropicBaseUrl = fake.url;
  return fake;
}
