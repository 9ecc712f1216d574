// Wire adapter: OpenAI-compatible Chat Completions (OpenRouter, Nous, OpenAI, DeepSeek, local servers…),
// one streaming attempt through the official `openai` SDK (loaded on first use).

import { sdkFetch } from './http.ts';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { type AdapterOptions, type AttemptContext, contentText, defaultTimeoutMs, isClaudeModel } from './attempt.ts';
import { StreamCutError } from './errors.ts';
import { appendUnit, type BodyRun, COMMA, cachedBodyStream, finishBody, keepUnits, needsComma, openRun, ownBytes, utf8 } from './body-run.ts';
import { readApiEvents } from './sse.ts';
import { sharedClient } from './shared-clients.ts';
import { settleOrphanThink, ThinkSplitter } from './think-split.ts';
import type { ProviderRuntime } from './resolve.ts';
import { type Message, type StopReason, type StreamFn, type StreamRequest, type ToolSchema, type Usage } from './types.ts';

let sdk: Promise<typeof import('openai')> | undefined;
/** The `openai` module, imported once on first use (keeps CLI start-up free of it). */
export const loadOpenAI = (): Promise<typeof import('openai')> => (sdk ??= import('openai'));

type Json = Record<string, unknown>;

/**
 * An OpenAI SDK client for a runtime: no SDK retries (ours wrap it), no ambient env credentials.
 * Shared with every other runtime of the process that has the same key, URL, headers and timeout.
 */
export async function openaiClient(runtime: ProviderRuntime, opts: AdapterOptions): Promise<OpenAI> {
  const { default: OpenAIClass } = await loadOpenAI();
  const fetch = opts.fetch ?? sdkFetch();
  const config = { apiKey: runtime.apiKey, baseURL: runtime.baseUrl, timeout: opts.timeoutMs ?? defaultTimeoutMs(), defaultHeaders: runtime.extraHeaders };
  return sharedClient('openai', config, fetch, () => new OpenAIClass({ ...config, maxRetries: 0, organization: null, project: null, fetch }));
}

const bareModel = (model: string) => model.slice(model.lastIndexOf('/') + 1);

/** Anthropic-style `cache_control` marker. */
export const cacheMarker = (ttl?: '5m' | '1h'): Json => (ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' });

/**
 * Prompt caching "system_and_3" on chat-shaped messages: the system message and the last three
 * others get a breakpoint (string content becomes one text part carrying it).
 */
export function applyChatCacheControl(messages: Json[], ttl?: '5m' | '1h'): void {
  const marker = cacheMarker(ttl);
  const system = messages.find((m) => m.role === 'system' || m.role === 'developer');
  const rest = messages.filter((m) => m !== system).slice(-3);
  for (const m of system ? [system, ...rest] : rest) {
    const c = m.content;
    if (typeof c === 'string' && c) m.content = [{ type: 'text', text: c, cache_control: marker }];
    else if (Array.isArray(c) && c.length) {
      const parts = c.slice() as Json[];
      parts[parts.length - 1] = { ...parts[parts.length - 1], cache_control: marker };
      m.content = parts;
    } else m.cache_control = marker;
  }
}

const isOpenRouterDetail = (d: unknown): boolean =>
  typeof d === 'object' && d !== null && typeof (d as Json).type === 'string' && ((d as Json).type as string).startsWith('reasoning.');

/** Internal history → chat completions messages, applying the runtime's reasoning-replay quirks. */
export function toChatMessages(runtime: ProviderRuntime, req: StreamRequest): Json[] {
  const q = runtime.quirks;
  const out: Json[] = [];
  if (req.system) {
    const developer = q.supportsDeveloperRole && /^(o\d|gpt-5)/i.test(bareModel(req.model || runtime.model));
    out.push({ role: developer ? 'developer' : 'system', content: req.system });
  }
  for (const m of req.messages) out.push(toChatMessage(m, runtime));
  return out;
}

function toChatMessage(m: Message, runtime: ProviderRuntime): Json {
  const q = runtime.quirks;
  switch (m.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: typeof m.content === 'string' ? m.content : contentText(m.content) };
    case 'assistant': {
      const text = contentText(m.content);
      const msg: Json = { role: 'assistant', content: text || (m.tool_calls?.length ? null : '') };
      if (m.tool_calls?.length) {
        msg.tool_calls = m.tool_calls.map((tc) => ({
          id: tc.id,
          type: 'function',
          function: { name: tc.function.name, arguments: tc.function.arguments || '{}' },
        }));
      }
      if (!q.stripReasoning) {
        if (q.replayReasoningDetails && Array.isArray(m.reasoning_details)) {
          const items = m.reasoning_details.filter(isOpenRouterDetail);
          if (items.length) msg.reasoning_details = items;
        }
        if (q.echoReasoningContent) {
          if (m.reasoning) msg.reasoning_content = m.reasoning;
          else if (m.tool_calls?.length) msg.reasoning_content = '';
        }
      }
      return msg;
    }
    default:
      return { role: m.role, content: m.content ?? '' };
  }
}

function reasoningParams(runtime: ProviderRuntime, effort: string | undefined): Json {
  const q = runtime.quirks;
  if (!effort || q.stripReasoning || q.reasoningParam === 'none') return {};
  const e = effort.toLowerCase();
  const norm = e === 'max' || e === 'ultra' ? 'xhigh' : e;
  if (q.reasoningParam === 'openrouter') return { reasoning: norm === 'none' ? { enabled: false } : { effort: norm } };
  return { reasoning_effort: norm };
}

export function buildChatBody(runtime: ProviderRuntime, req: StreamRequest): Json {
  const model = req.model || runtime.model;
  const messages = toChatMessages(runtime, req);
  if (runtime.quirks.claudeCacheControl && isClaudeModel(model)) applyChatCacheControl(messages, req.cacheTtl);
  return { model, messages, ...bodyTail(runtime, req) };
}

/** Everything after `messages`, in wire order. */
function bodyTail(runtime: ProviderRuntime, req: StreamRequest): Json {
  const body: Json = { stream: true };
  if (!runtime.quirks.noStreamUsage) body.stream_options = { include_usage: true };
  if (req.tools.length) body.tools = req.tools.map(chatTool);
  const cap = req.maxTokens || req.outputCap;
  if (cap) body[runtime.quirks.maxTokensField ?? 'max_tokens'] = cap;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  Object.assign(body, reasoningParams(runtime, req.reasoningEffort));
  if (req.serviceTier) body.service_tier = req.serviceTier;
  if (req.extraBody) for (const [k, v] of Object.entries(req.extraBody)) if (!(k in body) && k !== 'model' && k !== 'messages') body[k] = v;
  return body;
}

const chatTool = (t: ToolSchema): Json => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } });

/**
 * What one stream function reuses from request to request, as UTF-8 bytes: in a long turn every
 * request re-sends the same tool schemas and the same history, and serialising them again — then
 * measuring and encoding the whole body for the socket (slow for the two-byte string one "—" in a
 * tool description makes of it) — was most of the loop's own CPU per step. The history part is kept
 * as one run of bytes that the next request extends with the messages appended since (assembling
 * hundreds of small pieces per request cost more than the copy). History messages are never edited
 * in place once sent (the loop appends new ones; compression and repair build new objects); should a
 * sent message's top-level fields be reassigned anyway, or the history be replaced, the run is
 * serialised again from the first message that differs.
 */
export interface ChatWireCache {
  /** The body up to the end of the cached history, as bytes (one unit per history message; body-run.ts). */
  history?: BodyRun;
  /** Everything after the messages array, for the tool list and settings it was made from. */
  tail?: { key: string; tools: ToolSchema[]; bytes: Buffer };
  /** The last system message sent without a cache marker, and its JSON. */
  system?: { text: string; role: unknown; bytes: Buffer };
}

export const chatWireCache = (): ChatWireCache => ({});

/** `]` and everything after the messages array: stream options, tools (cached while the list and settings stay), limits. */
function tailBytes(runtime: ProviderRuntime, req: StreamRequest, cache: ChatWireCache): Buffer {
  const rest = bodyTail(runtime, { ...req, tools: [] });
  const key = JSON.stringify(rest);
  const t = cache.tail;
  if (t && t.key === key && t.tools.length === req.tools.length && t.tools.every((x, i) => x === req.tools[i])) return t.bytes;
  const chunks: Buffer[] = [Buffer.from(']')];
  const withTools = req.tools.length ? bodyTail(runtime, req) : rest;
  for (const [k, v] of Object.entries(withTools)) {
    if (k !== 'tools') chunks.push(Buffer.from(`,${JSON.stringify(k)}:${JSON.stringify(v)}`));
    else chunks.push(Buffer.from(`,"tools":[${req.tools.map((x) => JSON.stringify(chatTool(x))).join(',')}]`));
  }
  chunks.push(Buffer.from('}'));
  const bytes = ownBytes(chunks);
  cache.tail = { key, tools: [...req.tools], bytes };
  return bytes;
}

/**
 * The request body as UTF-8 JSON, byte for byte `JSON.stringify(buildChatBody(…))`, assembled from
 * cached pieces. With Claude cache markers (on the system prompt and the last three messages) those
 * four are serialised each time; the messages before them come from the cache.
 */
export function chatBodyBytes(runtime: ProviderRuntime, req: StreamRequest, cache: ChatWireCache): Buffer {
  const model = req.model || runtime.model;
  const marked = runtime.quirks.claudeCacheControl && isClaudeModel(model) ? 3 : 0;
  const fresh = toChatMessages(runtime, { ...req, messages: marked ? req.messages.slice(-marked) : [] });
  if (marked) applyChatCacheControl(fresh, req.cacheTtl);
  const hasSystem = !!req.system;
  let system: Buffer | null = null;
  if (hasSystem) {
    const c = cache.system;
    if (marked || !c || c.text !== req.system || c.role !== fresh[0].role) {
      system = ownBytes([utf8(fresh[0])]);
      if (!marked) cache.system = { text: req.system, role: fresh[0].role, bytes: system };
    } else system = c.bytes;
  }
  const cachedCount = marked ? Math.max(0, req.messages.length - marked) : req.messages.length;
  // The history run (`{"model":…,"messages":[`, the system message, then one unit per message);
  // a different model or system message starts a new one.
  const h = (cache.history = openRun(cache.history, `{"model":${JSON.stringify(model)},"messages":[`, system));
  for (let i = keepUnits(h, req.messages, cachedCount); i < cachedCount; i++) appendUnit(h, req.messages, utf8(toChatMessage(req.messages[i], runtime)), i + 1, undefined);
  // The rest (the marked messages, then `]` and the tail) goes right after the run, in its buffer.
  const rest: Buffer[] = [];
  let comma = needsComma(h);
  for (const c of fresh.slice(hasSystem ? 1 : 0)) {
    if (comma) rest.push(COMMA);
    rest.push(utf8(c));
    comma = true;
  }
  rest.push(tailBytes(runtime, req, cache));
  return finishBody(h, rest);
}

/** Chat-completions usage → ours (`input_tokens` without cache reads/writes). */
export function chatUsage(u: Json | null | undefined): Usage {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const pd = (u?.prompt_tokens_details ?? {}) as Json;
  const cd = (u?.completion_tokens_details ?? {}) as Json;
  const cacheRead = num(pd.cached_tokens) || num(u?.prompt_cache_hit_tokens);
  const cacheWrite = num(pd.cache_write_tokens) || num(pd.cache_creation_tokens) || num(u?.cache_creation_input_tokens);
  return {
    input_tokens: Math.max(0, num(u?.prompt_tokens) - cacheRead - cacheWrite),
    output_tokens: num(u?.completion_tokens),
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: num(cd.reasoning_tokens),
  };
}

/** Folds a streamed `reasoning_details` item into the list (OpenRouter streams them in pieces). */
function mergeDetail(list: unknown[], raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) return '';
  const item = raw as Json;
  const textOf = (x: Json) => (typeof x.text === 'string' ? x.text : typeof x.summary === 'string' ? x.summary : '');
  const idx = typeof item.index === 'number' ? item.index : undefined;
  const target = (idx !== undefined ? list.find((x) => (x as Json).index === idx && (x as Json).type === item.type) : undefined) as Json | undefined;
  if (!target) {
    list.push({ ...item });
    return textOf(item);
  }
  for (const key of ['text', 'summary', 'data']) {
    if (typeof item[key] === 'string') target[key] = (typeof target[key] === 'string' ? target[key] : '') + (item[key] as string);
  }
  for (const [k, v] of Object.entries(item)) {
    if (['text', 'summary', 'data'].includes(k)) continue;
    if (v !== null && v !== undefined) target[k] = v;
  }
  return textOf(item);
}

function stopFor(finish: string | null, hasTools: boolean): StopReason {
  if (hasTools && (finish === 'tool_calls' || finish === 'function_call' || finish === 'stop' || finish === null)) return 'tool_calls';
  if (finish === 'length') return 'length';
  if (finish === 'content_filter') return 'content_filter';
  if (finish === 'tool_calls') return 'tool_calls';
  return 'stop';
}

/** A StreamFn speaking Chat Completions to `runtime` (one attempt per call; never throws). */
export function createChatCompletionsStream(runtime: ProviderRuntime, opts: AdapterOptions = {}): StreamFn {
  // The cache's buffer holds the body being sent: a request made while another is on its way builds its own.
  return cachedBodyStream(runtime, opts, () => openaiClient(runtime, opts), chatWireCache, attempt);
  async function attempt(req: StreamRequest, ctx: AttemptContext, c: OpenAI, wire: ChatWireCache): Promise<StopReason> {
    // The body goes as UTF-8 JSON built from cached pieces (chatBodyBytes); the SDK sends a byte
    // `body` option as is and reads only `stream` from the params.
    const params: ChatCompletionCreateParamsStreaming = { model: req.model || runtime.model, messages: [], stream: true };
    const body = chatBodyBytes(runtime, req, wire);
    // The SDK sends the request and turns error statuses into its APIError; the event stream is
    // read here (sse.ts), the way the SDK's Stream reads it, with one await per network chunk.
    const res = await c.chat.completions.create(params, { signal: ctx.signal, body, headers: { 'content-type': 'application/json' } }).asResponse();
    ctx.responded();
    const { acc } = ctx;
    let finish: string | null = null;
    let sawFinish = false;
    // Provider tool-call index → our slot (name may arrive after the id).
    const pending = new Map<string, { id?: string; name?: string; args: string; slot?: number }>();
    let order = 0;
    // `<think>` blocks in the content are reasoning (think-split.ts).
    const think = new ThinkSplitter((t) => acc.addText(t), (t) => acc.addReasoning(t));
    const onChunk = (raw: Json) => {
      if (raw.usage) acc.usage = chatUsage(raw.usage as Json);
      const choice = (raw as unknown as ChatCompletionChunk).choices?.[0];
      if (!choice) return;
      const d = (choice.delta ?? {}) as Json;
      const r = typeof d.reasoning_content === 'string' ? d.reasoning_content : typeof d.reasoning === 'string' ? d.reasoning : undefined;
      let detailText = '';
      if (Array.isArray(d.reasoning_details)) for (const item of d.reasoning_details) detailText += mergeDetail(acc.reasoningDetails, item);
      acc.addReasoning(r ?? detailText);
      if (typeof d.content === 'string' && d.content) think.push(d.content);
      if (Array.isArray(d.tool_calls)) {
        for (const tc of d.tool_calls as Json[]) {
          const fn = (tc.function ?? {}) as Json;
          const id = typeof tc.id === 'string' && tc.id ? tc.id : undefined;
          const name = typeof fn.name === 'string' && fn.name ? fn.name : undefined;
          let key = typeof tc.index === 'number' ? String(tc.index) : `#${order}`;
          let entry = pending.get(key);
          // Some servers reuse index 0 for every call: a new id with a name is a new call.
          if (entry && id && entry.id && id !== entry.id && name) {
            key = `${key}:${id}`;
            entry = pending.get(key);
          }
          if (!entry) {
            entry = { args: '' };
            pending.set(key, entry);
            order++;
          }
          if (id && !entry.id) entry.id = id;
          if (name && !entry.name) entry.name = name;
          const args = typeof fn.arguments === 'string' ? fn.arguments : '';
          if (entry.slot === undefined) {
            entry.args += args;
            if (entry.name) {
              entry.slot = acc.startTool(entry.id, entry.name);
              acc.toolArgs(entry.slot, entry.args);
            }
          } else acc.toolArgs(entry.slot, args);
        }
      }
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        sawFinish = true;
      }
    };
    const { APIError } = await loadOpenAI();
    try {
      await readApiEvents(res, APIError, (data) => {
        ctx.touch();
        onChunk(data as Json);
      });
    } catch (e) {
      // The SDK ends its stream quietly when the request is aborted; the caller decides why.
      if (!ctx.signal.aborted) throw e;
    }
    think.end();
    const orphan = acc.text.includes('</think>') ? settleOrphanThink(acc.text) : null;
    if (orphan) {
      acc.reasoning = acc.reasoning ? `${acc.reasoning}\n${orphan[0]}` : orphan[0];
      acc.text = orphan[1];
    }
    for (const entry of pending.values()) {
      if (entry.slot === undefined) {
        entry.slot = acc.startTool(entry.id, entry.name ?? '');
        acc.toolArgs(entry.slot, entry.args);
      }
    }
    if (ctx.signal.aborted) return 'aborted';
    if (!sawFinish) throw new StreamCutError();
    acc.finishReason = finish;
    return stopFor(finish, acc.tools.length > 0);
  }
}
