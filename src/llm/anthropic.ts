// Wire adapter: Anthropic Messages API (native Anthropic, MiniMax and other Anthropic-compatible
// endpoints), one streaming attempt through `@anthropic-ai/sdk` (loaded on first use).
//
// Internal messages are OpenAI-shaped; this converts at the edge: the system prompt becomes the
// `system` param, tool_calls become `tool_use` blocks, consecutive `tool` messages become one user
// message of `tool_result` blocks, roles strictly alternate, and thinking blocks (with signatures)
// kept in `reasoning_details` are replayed ahead of their assistant turn.
//
// Auth: API keys go through the SDK's `apiKey`; for hosts other than api.anthropic.com the key is
// also sent as `x-api-key`, which Anthropic-compatible gateways expect. OAuth tokens (`sk-ant-oat…`)
// go as a Bearer token with the OAuth beta headers and the Claude Code identity system block.

import { sdkFetch } from './http.ts';
import type Anthropic from '@anthropic-ai/sdk';
import { type AdapterOptions, type AttemptContext, contentText, defaultTimeoutMs, isClaudeModel, parseDataUrl } from './attempt.ts';
import { appendUnit, type BodyRun, COMMA, cutUnits, cachedBodyStream, finishBody, keepUnits, needsComma, openRun, ownBytes, utf8 } from './body-run.ts';
import { StreamCutError } from './errors.ts';
import { hostOf } from './catalog.ts';
import { readSse, type SseBody } from './sse.ts';
import { sharedClient } from './shared-clients.ts';
import type { ProviderRuntime } from './resolve.ts';
import type { ContentPart, Message, StopReason, StreamFn, StreamRequest, ToolSchema, Usage } from './types.ts';

let sdk: Promise<typeof import('@anthropic-ai/sdk')> | undefined;
/** The `@anthropic-ai/sdk` module, imported once on first use. */
export const loadAnthropic = (): Promise<typeof import('@anthropic-ai/sdk')> => (sdk ??= import('@anthropic-ai/sdk'));

type Json = Record<string, unknown>;
type Block = Json & { type: string };
interface AMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export const isOAuthToken = (key: string): boolean => key.startsWith('sk-ant-oat');
// A Claude subscription token (sk-ant-oat…) needs the OAuth beta. Hermes sends nothing that claims to
// be Claude Code (no `claude-code-…` beta, no Claude Code identity prompt): it never impersonates
// another client. The sign-in is opt-in behind a warning (src/auth/oauth/anthropic.ts, docs/security.md).
const OAUTH_BETAS = ['oauth-2025-04-20'];

/** Thinking budget per reasoning effort (extended thinking `budget_tokens`). */
export const THINKING_BUDGET: Record<string, number> = {
  minimal: 4000,
  low: 4000,
  medium: 8000,
  high: 16000,
  xhigh: 32000,
  max: 32000,
  ultra: 32000,
};

const OUTPUT_LIMITS: [string, number][] = [
  ['claude-3-5-sonnet', 8192],
  ['claude-3-5-haiku', 8192],
  ['claude-3-opus', 4096],
  ['claude-3-haiku', 4096],
  ['claude-3-7-sonnet', 64000],
  ['claude-opus-4-1', 32000],
  ['claude-opus-4-0', 32000],
  ['claude-opus-4-2025', 32000],
  ['claude-opus-4', 64000],
  ['claude-sonnet-4', 64000],
  ['claude-haiku-4', 64000],
];

/** Anthropic requires max_tokens: the model's output ceiling when the caller gave none. */
export function defaultMaxTokens(model: string): number {
  const m = model.toLowerCase().replace(/\./g, '-');
  for (const [k, v] of OUTPUT_LIMITS) if (m.includes(k)) return v;
  return isClaudeModel(m) ? 64000 : 32000;
}

export async function anthropicClient(runtime: ProviderRuntime, opts: AdapterOptions): Promise<Anthropic> {
  const { default: AnthropicClass } = await loadAnthropic();
  const key = runtime.apiKey;
  const headers: Record<string, string> = { ...runtime.extraHeaders };
  const oauth = isOAuthToken(key);
  if (oauth) {
    const existing = (headers['anthropic-beta'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    headers['anthropic-beta'] = [...new Set([...existing, ...OAUTH_BETAS])].join(',');
  } else if (hostOf(runtime.baseUrl) !== 'api.anthropic.com') {
    headers['x-api-key'] = key;
  }
  const fetch = opts.fetch ?? sdkFetch();
  const config = { ...(oauth ? { authToken: key } : { apiKey: key }), baseURL: runtime.baseUrl, timeout: opts.timeoutMs ?? defaultTimeoutMs(), defaultHeaders: headers };
  // Shared with every runtime of the process that has the same credentials, URL, headers and timeout.
  return sharedClient('anthropic', config, fetch, () => new AnthropicClass({ ...config, maxRetries: 0, fetch }));
}

function parseArgs(raw: string): Json {
  try {
    const v = JSON.parse(raw || '{}') as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : { value: v };
  } catch {
    return {};
  }
}

function partsToBlocks(content: Message['content']): Block[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const out: Block[] = [];
  for (const p of (content ?? []) as ContentPart[]) {
    if (p.type === 'text') {
      if (p.text) out.push({ type: 'text', text: p.text });
    } else if (p.type === 'image_url') {
      const data = parseDataUrl(p.image_url.url);
      out.push(
        data
          ? { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } }
          : { type: 'image', source: { type: 'url', url: p.image_url.url } },
      );
    }
  }
  return out;
}

/** Stored thinking blocks that Anthropic will accept back (signed thinking, redacted thinking). */
function replayableThinking(details: unknown[] | null | undefined): Block[] {
  const out: Block[] = [];
  for (const d of details ?? []) {
    if (typeof d !== 'object' || d === null) continue;
    const b = d as Json;
    if (b.type === 'thinking' && typeof b.thinking === 'string' && typeof b.signature === 'string' && b.signature) {
      out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    } else if (b.type === 'redacted_thinking' && typeof b.data === 'string' && b.data) {
      out.push({ type: 'redacted_thinking', data: b.data });
    }
  }
  return out;
}

/** One history message → its Messages API message (null: nothing to send). */
function wireMessage(m: Message): AMessage | null {
  if (m.role === 'assistant') {
    const blocks: Block[] = [...replayableThinking(m.reasoning_details)];
    const text = contentText(m.content);
    if (text) blocks.push({ type: 'text', text });
    for (const tc of m.tool_calls ?? []) blocks.push({ type: 'tool_use', id: tc.id, name: tc.function.name, input: parseArgs(tc.function.arguments) });
    return blocks.length ? { role: 'assistant', content: blocks } : null;
  }
  if (m.role === 'tool') {
    const inner = typeof m.content === 'string' ? m.content : partsToBlocks(m.content);
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: (Array.isArray(inner) ? inner.length : inner) ? inner : '(no output)' }] };
  }
  if (m.role === 'system') {
    const text = contentText(m.content);
    return text ? { role: 'user', content: [{ type: 'text', text: `[System note] ${text}` }] } : null;
  }
  const blocks = partsToBlocks(m.content);
  return blocks.length ? { role: 'user', content: blocks } : null;
}

/**
 * `messages[from…]` as wire messages with consecutive same-role ones merged, and for each the index
 * of the history message it starts with.
 */
function mergedFrom(messages: Message[], from: number): { merged: AMessage[]; starts: number[] } {
  const merged: AMessage[] = [];
  const starts: number[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = wireMessage(messages[i]);
    if (!m) continue;
    const last = merged.at(-1);
    if (last && last.role === m.role) last.content = [...last.content, ...m.content];
    else {
      merged.push({ role: m.role, content: [...m.content] });
      starts.push(i);
    }
  }
  return { merged, starts };
}

/**
 * Pairs tool_use with tool_result in place: results first in the following user turn; missing
 * results are filled in as errors (a user turn is added after a last assistant turn with calls),
 * results with no matching call become text. A user turn depends only on its own blocks and the
 * tool calls of the assistant turn before it.
 */
function pairToolResults(merged: AMessage[]): void {
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i];
    if (m.role === 'assistant') {
      const ids = toolUseIds(m);
      if (!ids.length) continue;
      let next = merged[i + 1];
      if (!next || next.role !== 'user') {
        next = { role: 'user', content: [] };
        merged.splice(i + 1, 0, next);
      }
      const have = new Set(next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string));
      const missing: Block[] = ids
        .filter((id) => !have.has(id))
        .map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'The tool call was not completed (interrupted).', is_error: true }));
      const results = next.content.filter((b) => b.type === 'tool_result' && ids.includes(b.tool_use_id as string));
      const others = next.content
        .filter((b) => !(b.type === 'tool_result' && ids.includes(b.tool_use_id as string)))
        .map((b) => (b.type === 'tool_result' ? orphanResult(b) : b));
      next.content = [...results, ...missing, ...others];
    } else {
      const prev = merged[i - 1];
      const prevIds = new Set(prev?.role === 'assistant' ? toolUseIds(prev) : []);
      m.content = m.content.map((b) => (b.type === 'tool_result' && !prevIds.has(b.tool_use_id as string) ? orphanResult(b) : b));
    }
  }
}

const toolUseIds = (m: AMessage): string[] => m.content.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
const continues = (): AMessage => ({ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] });

/** Internal history → Messages API `messages` (strictly alternating, tool results paired with their calls). */
export function toAnthropicMessages(messages: Message[]): AMessage[] {
  const { merged } = mergedFrom(messages, 0);
  pairToolResults(merged);
  if (merged[0]?.role === 'assistant') merged.unshift(continues());
  return merged;
}

function orphanResult(b: Block): Block {
  const c = b.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) ? (c as Block[]).map((x) => (x.type === 'text' ? x.text : '')).join('') : '';
  return { type: 'text', text: `[Tool result for ${String(b.tool_use_id)}]\n${text}` };
}

const marker = (ttl?: '5m' | '1h'): Json => (ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' });

/** Marks the last block that may carry a cache breakpoint (not thinking). */
function markLast(blocks: Block[], mark: Json): void {
  for (let j = blocks.length - 1; j >= 0; j--) {
    if (blocks[j].type === 'thinking' || blocks[j].type === 'redacted_thinking') continue;
    blocks[j] = { ...blocks[j], cache_control: mark };
    return;
  }
}

/** Cache breakpoints "system_and_3": the system prompt and the last three messages. */
export function applyAnthropicCacheControl(system: Block[], messages: AMessage[], ttl?: '5m' | '1h'): void {
  const mark = marker(ttl);
  if (system.length) markLast(system, mark);
  for (const m of messages.slice(-3)) markLast(m.content, mark);
}

const anthropicTool = (t: ToolSchema): Json => ({ name: t.name, description: t.description, input_schema: t.parameters ?? { type: 'object', properties: {} } });

/** The extended-thinking budget for the request's reasoning effort (undefined: no thinking). */
function thinkingBudget(req: StreamRequest): number | undefined {
  const effort = req.reasoningEffort?.toLowerCase();
  return effort && effort !== 'none' ? (THINKING_BUDGET[effort] ?? THINKING_BUDGET.medium) : undefined;
}

/** Everything after `messages`, in wire order (the system prompt cache-marked for Claude models). */
function bodyTail(runtime: ProviderRuntime, req: StreamRequest, model: string): Json {
  const system: Block[] = [];
  if (req.system) system.push({ type: 'text', text: req.system });
  if (isClaudeModel(model)) applyAnthropicCacheControl(system, [], req.cacheTtl);
  let maxTokens = req.maxTokens ?? defaultMaxTokens(model);
  const body: Json = { stream: true };
  if (system.length) body.system = system;
  if (req.tools.length) body.tools = req.tools.map(anthropicTool);
  const budget = thinkingBudget(req);
  if (budget !== undefined) {
    body.thinking = { type: 'enabled', budget_tokens: budget };
    if (maxTokens <= budget) maxTokens = budget + 4096;
  } else if (req.temperature !== undefined) body.temperature = req.temperature;
  body.max_tokens = maxTokens;
  // Anthropic's tiers: `auto` uses priority capacity when there is some; `standard_only` never does.
  if (req.serviceTier) body.service_tier = req.serviceTier === 'priority' || req.serviceTier === 'auto' ? 'auto' : 'standard_only';
  return body;
}

export function buildAnthropicBody(runtime: ProviderRuntime, req: StreamRequest): Json {
  const model = req.model || runtime.model;
  const messages = toAnthropicMessages(req.messages);
  if (isClaudeModel(model)) applyAnthropicCacheControl([], messages, req.cacheTtl);
  return { model, messages, ...bodyTail(runtime, req, model) };
}

/**
 * What one stream function reuses from request to request, as UTF-8 bytes (see body-run.ts): the
 * history run, one unit per wire message, and the part after the messages array.
 */
export interface AnthropicWireCache {
  /** Per unit: the tool_use ids of an assistant message (what the next user message is paired with), null for a user one. */
  history?: BodyRun<string[] | null>;
  /** `]` and everything after it, for the system prompt, tool list and settings it was made from. */
  tail?: { key: string; system: string; tools: ToolSchema[]; bytes: Buffer };
}

export const anthropicWireCache = (): AnthropicWireCache => ({});

/**
 * The history's wire messages after the cached run: the run is extended with every one that is
 * final — a later history message can no longer merge into it (the next one has begun) — and, for
 * Claude models, not among the last three (those carry cache markers and are serialised each time).
 * Conversion restarts at the history message that began the first wire message after the run, with
 * the run's last tool calls for pairing, so its result is what toAnthropicMessages gives for them.
 */
function freshMessages(req: StreamRequest, model: string, cache: AnthropicWireCache): { run: BodyRun<string[] | null>; fresh: AMessage[] } {
  const { messages } = req;
  const run = (cache.history = openRun(cache.history, `{"model":${JSON.stringify(model)},"messages":[`, null));
  const marked = isClaudeModel(model);
  let k = keepUnits(run, messages);
  for (;;) {
    const ids = k ? run.data[k - 1] : null;
    const { merged, starts } = mergedFrom(messages, k ? run.needs[k - 1] - 1 : 0);
    let items = merged;
    if (ids) {
      // The run's last message (an assistant turn) as far as pairing reads it: its tool calls.
      items = [{ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id })) }, ...merged];
      pairToolResults(items);
      items.shift();
    } else pairToolResults(items);
    if (!k && items[0]?.role === 'assistant') {
      items.unshift(continues());
      starts.unshift(0);
    }
    const total = k + items.length;
    const cacheable = marked ? Math.max(0, total - 3) : total;
    if (k > cacheable) {
      // A shorter history whose marked messages are in the run: serialise them again.
      cutUnits(run, (k = cacheable));
      continue;
    }
    let j = 0;
    // starts[j + 1]: where the next wire message begins (none for a tool-result turn added by pairing).
    for (; k + j < cacheable && j + 1 < starts.length; j++) {
      const m = items[j];
      appendUnit(run, messages, utf8(m), starts[j + 1] + 1, m.role === 'assistant' ? toolUseIds(m) : null);
    }
    const fresh = items.slice(j);
    if (marked) applyAnthropicCacheControl([], fresh, req.cacheTtl);
    return { run, fresh };
  }
}

/** `]` and everything after the messages array, cached while the system prompt, tool list and settings stay. */
function tailBytes(runtime: ProviderRuntime, req: StreamRequest, model: string, cache: AnthropicWireCache): Buffer {
  const key = JSON.stringify([model, req.cacheTtl ?? null, bodyTail(runtime, { ...req, system: '', tools: [] }, model)]);
  const t = cache.tail;
  if (t && t.key === key && t.system === req.system && t.tools.length === req.tools.length && t.tools.every((x, i) => x === req.tools[i])) return t.bytes;
  // `],` then the tail object's members and its closing brace.
  const bytes = ownBytes([Buffer.from(`],${JSON.stringify(bodyTail(runtime, req, model)).slice(1)}`)]);
  cache.tail = { key, system: req.system, tools: [...req.tools], bytes };
  return bytes;
}

/**
 * The request body as UTF-8 JSON, byte for byte `JSON.stringify(buildAnthropicBody(…))`, assembled
 * from cached pieces; a view of the cache's buffer, valid until the cache is used again.
 */
export function anthropicBodyBytes(runtime: ProviderRuntime, req: StreamRequest, cache: AnthropicWireCache): Buffer {
  const model = req.model || runtime.model;
  const { run, fresh } = freshMessages(req, model, cache);
  const rest: Buffer[] = [];
  let comma = needsComma(run);
  for (const m of fresh) {
    if (comma) rest.push(COMMA);
    rest.push(utf8(m));
    comma = true;
  }
  rest.push(tailBytes(runtime, req, model, cache));
  return finishBody(run, rest);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function applyUsage(u: Usage, raw: Json | undefined): void {
  if (!raw) return;
  u.input_tokens = num(raw.input_tokens) ?? u.input_tokens;
  u.output_tokens = num(raw.output_tokens) ?? u.output_tokens;
  u.cache_read_tokens = num(raw.cache_read_input_tokens) ?? u.cache_read_tokens;
  u.cache_write_tokens = num(raw.cache_creation_input_tokens) ?? u.cache_write_tokens;
}

function stopFor(reason: string | null, hasTools: boolean): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return hasTools ? 'tool_calls' : 'stop';
  }
}

interface OpenBlock {
  kind: string;
  slot?: number;
  thinking: string;
  signature: string;
  data?: string;
}

/** Warnings the SDK printed already (see warnOnce). */
const sdkWarnings = new Set<string>();

/**
 * Runs `call` (the SDK's synchronous part of messages.create) letting each console warning it prints
 * through once per process: the SDK warns on every request about a deprecated model or thinking
 * `enabled` on a model that wants `adaptive`, which in a tool loop wrote the same lines over the
 * REPL's and the TUI's screen at every step.
 */
function warnOnce<T>(call: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    const key = args.map(String).join(' ');
    if (sdkWarnings.has(key)) return;
    sdkWarnings.add(key);
    warn.apply(console, args);
  };
  try {
    return call();
  } finally {
    console.warn = warn;
  }
}

/** A StreamFn speaking the Anthropic Messages API to `runtime` (one attempt per call; never throws). */
export function createAnthropicStream(runtime: ProviderRuntime, opts: AdapterOptions = {}): StreamFn {
  // The cache's buffer holds the body being sent: a request made while another is on its way builds its own.
  return cachedBodyStream(runtime, opts, () => anthropicClient(runtime, opts), anthropicWireCache, attempt);
  async function attempt(req: StreamRequest, ctx: AttemptContext, c: Anthropic, wire: AnthropicWireCache): Promise<StopReason> {
    // The body goes as UTF-8 JSON built from cached pieces (anthropicBodyBytes); the SDK sends a byte
    // `body` option as is, and reads from the params only what its warnings and headers need.
    const model = req.model || runtime.model;
    const params = { model, max_tokens: 0, messages: [], stream: true, ...(thinkingBudget(req) !== undefined ? { thinking: { type: 'enabled' } } : {}) };
    const body = anthropicBodyBytes(runtime, req, wire);
    // The SDK sends the request and turns error statuses into its APIError; the event stream is read
    // here (sse.ts) as the SDK's Stream reads it, with one await per network chunk.
    const res = await warnOnce(() =>
      c.messages.create(params as unknown as Anthropic.MessageCreateParamsStreaming, { signal: ctx.signal, body, headers: { 'content-type': 'application/json' } }),
    ).asResponse();
    ctx.responded();
    if (!res.body) throw new Error('The response has no body to stream.');
    const { APIError } = await loadAnthropic();
    const { acc } = ctx;
    const blocks = new Map<number, OpenBlock>();
    let stopReason: string | null = null;
    let sawStop = false;
    const onEvent = (ev: Json): void => {
      switch (ev.type) {
        case 'message_start':
          applyUsage(acc.usage, (ev.message as Json | undefined)?.usage as Json | undefined);
          break;
        case 'content_block_start': {
          const index = ev.index as number;
          const cb = (ev.content_block ?? {}) as Json;
          const entry: OpenBlock = { kind: String(cb.type), thinking: '', signature: '' };
          if (cb.type === 'text') acc.addText(cb.text as string);
          else if (cb.type === 'thinking') {
            entry.thinking = typeof cb.thinking === 'string' ? cb.thinking : '';
            entry.signature = typeof cb.signature === 'string' ? cb.signature : '';
            acc.addReasoning(entry.thinking);
          } else if (cb.type === 'redacted_thinking') entry.data = cb.data as string;
          else if (cb.type === 'tool_use') {
            entry.slot = acc.startTool(cb.id as string, cb.name as string);
            const input = cb.input as Json | undefined;
            if (input && Object.keys(input).length) acc.toolArgs(entry.slot, JSON.stringify(input));
          }
          blocks.set(index, entry);
          break;
        }
        case 'content_block_delta': {
          const b = blocks.get(ev.index as number);
          const d = (ev.delta ?? {}) as Json;
          if (d.type === 'text_delta') acc.addText(d.text as string);
          else if (d.type === 'thinking_delta') {
            acc.addReasoning(d.thinking as string);
            if (b) b.thinking += (d.thinking as string) ?? '';
          } else if (d.type === 'signature_delta') {
            if (b) b.signature = (d.signature as string) ?? '';
          } else if (d.type === 'input_json_delta' && b?.slot !== undefined) acc.toolArgs(b.slot, d.partial_json as string);
          break;
        }
        case 'content_block_stop': {
          const b = blocks.get(ev.index as number);
          if (b?.kind === 'thinking') acc.reasoningDetails.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
          else if (b?.kind === 'redacted_thinking' && b.data) acc.reasoningDetails.push({ type: 'redacted_thinking', data: b.data });
          break;
        }
        case 'message_delta': {
          const d = (ev.delta ?? {}) as Json;
          if (typeof d.stop_reason === 'string') stopReason = d.stop_reason;
          applyUsage(acc.usage, ev.usage as Json | undefined);
          break;
        }
        case 'message_stop':
          sawStop = true;
          break;
      }
    };
    try {
      await readSse(res.body as unknown as SseBody, (sse) => {
        // As the SDK's stream: pings and unnamed events are skipped (and do not count as activity),
        // an `error` event is the provider's error, an event's JSON is parsed strictly.
        if (sse.event === 'ping' || sse.event === null) return;
        if (sse.event === 'error') {
          const data = safeJson(sse.data) ?? sse.data;
          const type = (data as { error?: { type?: string } } | null)?.error?.type;
          throw new APIError(undefined, data as object, undefined, res.headers, type as Anthropic.ErrorType | undefined);
        }
        if (!sse.data) return;
        ctx.touch();
        let ev: Json;
        try {
          ev = JSON.parse(sse.data) as Json;
        } catch {
          throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
        }
        onEvent(ev);
      });
    } catch (e) {
      // The SDK ends its stream quietly when the request is aborted; the caller decides why.
      if (!ctx.signal.aborted) throw e;
    }
    if (ctx.signal.aborted) return 'aborted';
    if (!sawStop) throw new StreamCutError();
    acc.finishReason = stopReason;
    return stopFor(stopReason, acc.tools.length > 0);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
