// Wire adapter: OpenAI Responses API (`codex_responses`: ChatGPT Codex backend, api.openai.com
// Responses), one streaming attempt through the `openai` SDK (loaded on first use).
//
// Stateless: `store: false` with `include: ['reasoning.encrypted_content']`, so reasoning items come
// back encrypted and are replayed (from `codex_reasoning_items`) right before the assistant message
// they belong to.

import type OpenAI from 'openai';
import { type Accumulator, type AdapterOptions, type AttemptContext, contentText } from './attempt.ts';
import { cachedBodyStream, COMMA, ownUtf8 } from './body-run.ts';
import { StreamCutError } from './errors.ts';
import { loadOpenAI, openaiClient } from './openai-chat.ts';
import { readApiEvents } from './sse.ts';
import type { ProviderRuntime } from './resolve.ts';
import type { ContentPart, Message, StopReason, StreamFn, StreamRequest, ToolSchema, Usage } from './types.ts';

type Json = Record<string, unknown>;

function userContent(content: Message['content']): string | Json[] {
  if (typeof content === 'string') return content;
  const out: Json[] = [];
  for (const p of (content ?? []) as ContentPart[]) {
    if (p.type === 'text') out.push({ type: 'input_text', text: p.text });
    else if (p.type === 'image_url') out.push({ type: 'input_image', image_url: p.image_url.url, detail: p.image_url.detail ?? 'auto' });
  }
  return out;
}

const isReasoningItem = (x: unknown): boolean => typeof x === 'object' && x !== null && (x as Json).type === 'reasoning';

/** One history message → its Responses `input` items (none for an empty assistant turn). */
function messageItems(m: Message): Json[] {
  switch (m.role) {
    case 'assistant': {
      const items: Json[] = [];
      for (const item of m.codex_reasoning_items ?? []) if (isReasoningItem(item)) items.push(item as Json);
      const text = contentText(m.content);
      if (text) items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
      for (const tc of m.tool_calls ?? []) {
        items.push({ type: 'function_call', call_id: tc.id, name: tc.function.name, arguments: tc.function.arguments || '{}' });
      }
      return items;
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: m.tool_call_id ?? '', output: contentText(m.content) }];
    case 'system':
      return [{ role: 'developer', content: contentText(m.content) }];
    default:
      return [{ role: 'user', content: userContent(m.content) }];
  }
}

/** Internal history → Responses `input` items. */
export function toResponsesInput(messages: Message[]): Json[] {
  const input: Json[] = [];
  for (const m of messages) input.push(...messageItems(m));
  return input;
}

/** A message's items as UTF-8 JSON, with the fields they were made from (to notice a reassignment). */
interface ItemsBytes {
  role: Message['role'];
  content: Message['content'];
  tool_call_id: Message['tool_call_id'];
  tool_calls: Message['tool_calls'];
  codex_reasoning_items: Message['codex_reasoning_items'];
  bytes: Buffer;
}

// Every request of a turn re-sends the whole history, and serialising it again — then measuring and
// UTF-8-encoding the whole body (slow for the two-byte string one "—" makes of it) — was most of the
// adapter's CPU per step. So each message's items and each tool schema are serialised and encoded
// once, kept as long as the message (schema) itself, and a body is the concatenation of those bytes.
// History messages are not edited in place once sent; should a top-level field be reassigned anyway,
// the message is serialised again.
const itemsMemo = new WeakMap<Message, ItemsBytes>();
const toolMemo = new WeakMap<ToolSchema, { name: string; description: string; parameters: unknown; bytes: Buffer }>();

function itemsBytes(m: Message, memo: boolean): Buffer {
  const e = memo ? itemsMemo.get(m) : undefined;
  if (e && e.role === m.role && e.content === m.content && e.tool_call_id === m.tool_call_id && e.tool_calls === m.tool_calls && e.codex_reasoning_items === m.codex_reasoning_items) {
    return e.bytes;
  }
  const json = messageItems(m)
    .map((x) => JSON.stringify(x))
    .join(',');
  if (!memo) return Buffer.from(json);
  const bytes = ownUtf8(json);
  const { role, content, tool_call_id, tool_calls, codex_reasoning_items } = m;
  itemsMemo.set(m, { role, content, tool_call_id, tool_calls, codex_reasoning_items, bytes });
  return bytes;
}

const responsesTool = (t: ToolSchema): Json => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false });

function toolBytes(t: ToolSchema, memo: boolean): Buffer {
  const e = memo ? toolMemo.get(t) : undefined;
  if (e && e.name === t.name && e.description === t.description && e.parameters === t.parameters) return e.bytes;
  const json = JSON.stringify(responsesTool(t));
  if (!memo) return Buffer.from(json);
  const bytes = ownUtf8(json);
  toolMemo.set(t, { name: t.name, description: t.description, parameters: t.parameters, bytes });
  return bytes;
}

/** What one stream function keeps from request to request: the instructions (system prompt) as sent last. */
export interface ResponsesWireMemo {
  instructions?: { text: string; bytes: Buffer };
}

/**
 * The request body as UTF-8 JSON, byte for byte `JSON.stringify(buildResponsesBody(…))`, with each
 * history message's items, each tool schema and the instructions serialised once (see itemsMemo);
 * without `memo` nothing is kept.
 */
export function responsesBodyBytes(runtime: ProviderRuntime, req: StreamRequest, memo?: ResponsesWireMemo): Buffer {
  const body = buildResponsesBody(runtime, { ...req, messages: [] });
  const on = !!memo;
  const pieces: Buffer[] = [];
  let json = '';
  const flush = () => {
    if (json) pieces.push(Buffer.from(json));
    json = '';
  };
  const list = (bufs: Buffer[]) => {
    json += '[';
    flush();
    for (const [i, b] of bufs.entries()) {
      if (i) pieces.push(COMMA);
      pieces.push(b);
    }
    json += ']';
  };
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    json += `${pieces.length || json ? ',' : '{'}${JSON.stringify(k)}:`;
    if (k === 'input') list(req.messages.map((m) => itemsBytes(m, on)).filter((b) => b.length));
    else if (k === 'tools') list(req.tools.map((t) => toolBytes(t, on)));
    else if (k === 'instructions' && typeof v === 'string' && memo) {
      flush();
      if (memo.instructions?.text !== v) memo.instructions = { text: v, bytes: ownUtf8(JSON.stringify(v)) };
      pieces.push(memo.instructions.bytes);
    } else json += JSON.stringify(v);
  }
  json += '}';
  flush();
  return Buffer.concat(pieces);
}

export function buildResponsesBody(runtime: ProviderRuntime, req: StreamRequest): Json {
  const body: Json = {
    model: req.model || runtime.model,
    instructions: req.system,
    input: toResponsesInput(req.messages),
    stream: true,
    store: false,
    include: ['reasoning.encrypted_content'],
  };
  if (req.tools.length) {
    body.tools = req.tools.map(responsesTool);
    body.tool_choice = 'auto';
    body.parallel_tool_calls = true;
  }
  const effort = req.reasoningEffort?.toLowerCase();
  if (effort && !runtime.quirks.stripReasoning) {
    body.reasoning = { effort: effort === 'max' || effort === 'ultra' ? 'xhigh' : effort, summary: 'auto' };
  }
  if (!runtime.quirks.noSamplingParams) {
    if (req.maxTokens) body.max_output_tokens = req.maxTokens;
    if (req.temperature !== undefined) body.temperature = req.temperature;
  }
  if (req.sessionId) body.prompt_cache_key = req.sessionId;
  if (req.serviceTier) body.service_tier = req.serviceTier;
  return body;
}

export function responsesUsage(u: Json | null | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cached = n((u?.input_tokens_details as Json | undefined)?.cached_tokens);
  return {
    input_tokens: Math.max(0, n(u?.input_tokens) - cached),
    output_tokens: n(u?.output_tokens),
    cache_read_tokens: cached,
    cache_write_tokens: 0,
    reasoning_tokens: n((u?.output_tokens_details as Json | undefined)?.reasoning_tokens),
  };
}

/** A StreamFn speaking the Responses API to `runtime` (one attempt per call; never throws). */
export function createResponsesStream(runtime: ProviderRuntime, opts: AdapterOptions = {}): StreamFn {
  // With cacheBodies false nothing is memoised (not even in the per-message WeakMaps).
  const memoised = opts.cacheBodies !== false;
  return cachedBodyStream(runtime, opts, () => openaiClient(runtime, opts), (): ResponsesWireMemo => ({}), attempt);
  async function attempt(req: StreamRequest, ctx: AttemptContext, c: OpenAI, memo: ResponsesWireMemo): Promise<StopReason> {
    // The body goes as UTF-8 JSON built from memoised pieces (responsesBodyBytes); the SDK sends a
    // byte `body` option as is and reads only `stream` from the params.
    const params: OpenAI.Responses.ResponseCreateParamsStreaming = { model: req.model || runtime.model, input: [], stream: true };
    const body = responsesBodyBytes(runtime, req, memoised ? memo : undefined);
    // The SDK sends the request and turns error statuses into its APIError; the event stream is
    // read here (readApiEvents), the way the SDK's Stream reads it, with one await per network chunk.
    const res = await c.responses.create(params, { signal: ctx.signal, body, headers: { 'content-type': 'application/json' } }).asResponse();
    ctx.responded();
    const events = responsesEventHandler(ctx.acc);
    const { APIError } = await loadOpenAI();
    try {
      await readApiEvents(res, APIError, (ev) => {
        ctx.touch();
        events.onEvent(ev);
      });
    } catch (e) {
      // The SDK ends its stream quietly when the request is aborted; the caller decides why.
      if (!ctx.signal.aborted) throw e;
    }
    if (ctx.signal.aborted) return 'aborted';
    const stop = events.stop();
    if (!stop) throw new StreamCutError();
    return stop;
  }
}

/** Folds Responses stream events into `acc`; `stop()` is the stop reason once the response ended. */
function responsesEventHandler(acc: Accumulator): { onEvent: (ev: Json) => void; stop: () => StopReason | undefined } {
  const slots = new Map<string, number>(); // item id / output index → tool slot
  const textSeen = new Set<string>();
  const reasoningSeen = new Set<string>();
  let stop: StopReason | undefined;
  const keyOf = (ev: Json) => (typeof ev.item_id === 'string' ? ev.item_id : `#${String(ev.output_index)}`);
  const slotOf = (ev: Json) => slots.get(keyOf(ev)) ?? slots.get(`#${String(ev.output_index)}`);
  const openTool = (item: Json, outputIndex: unknown) => {
    const slot = acc.startTool((item.call_id as string) || (item.id as string), (item.name as string) ?? '');
    if (typeof item.id === 'string') slots.set(item.id, slot);
    slots.set(`#${String(outputIndex)}`, slot);
    return slot;
  };
  const onEvent = (ev: Json): void => {
    switch (ev.type) {
      case 'response.output_item.added': {
        const item = (ev.item ?? {}) as Json;
        if (item.type === 'function_call') {
          const slot = openTool(item, ev.output_index);
          if (typeof item.arguments === 'string') acc.toolArgs(slot, item.arguments);
        }
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        textSeen.add(keyOf(ev));
        acc.addText(ev.delta as string);
        break;
      case 'response.function_call_arguments.delta': {
        const slot = slotOf(ev);
        if (slot !== undefined) acc.toolArgs(slot, ev.delta as string);
        break;
      }
      case 'response.function_call_arguments.done': {
        const slot = slotOf(ev);
        if (slot !== undefined) acc.completeToolArgs(slot, ev.arguments as string);
        break;
      }
      case 'response.reasoning_summary_part.added':
        if (typeof ev.summary_index === 'number' && ev.summary_index > 0) acc.addReasoning('\n\n');
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        reasoningSeen.add(keyOf(ev));
        acc.addReasoning(ev.delta as string);
        break;
      case 'response.output_item.done': {
        const item = (ev.item ?? {}) as Json;
        const id = typeof item.id === 'string' ? item.id : `#${String(ev.output_index)}`;
        if (item.type === 'reasoning') {
          acc.codexItems.push(item);
          if (!reasoningSeen.has(id) && Array.isArray(item.summary)) {
            acc.addReasoning((item.summary as Json[]).map((s) => (typeof s.text === 'string' ? s.text : '')).join('\n\n'));
          }
        } else if (item.type === 'function_call') {
          const slot = slots.get(id) ?? slots.get(`#${String(ev.output_index)}`) ?? openTool(item, ev.output_index);
          acc.completeToolArgs(slot, item.arguments as string);
        } else if (item.type === 'message' && !textSeen.has(id) && Array.isArray(item.content)) {
          acc.addText((item.content as Json[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join(''));
        }
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        const resp = (ev.response ?? {}) as Json;
        acc.usage = responsesUsage(resp.usage as Json | undefined);
        if (ev.type === 'response.incomplete') {
          const reason = (resp.incomplete_details as Json | undefined)?.reason;
          stop = reason === 'content_filter' ? 'content_filter' : 'length';
        } else stop = acc.tools.length ? 'tool_calls' : 'stop';
        acc.finishReason = String(resp.status ?? ev.type.slice('response.'.length));
        break;
      }
      case 'response.failed': {
        const resp = (ev.response ?? {}) as Json;
        const err = (resp.error ?? {}) as Json;
        const message = typeof err.message === 'string' ? err.message : 'the response failed';
        throw Object.assign(new Error(message), { error: { message, type: err.code ?? err.type, code: err.code } });
      }
    }
  };
  return { onEvent, stop: () => stop };
}
