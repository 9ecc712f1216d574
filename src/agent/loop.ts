// The agent loop: call the model, run the tools it asks for, repeat until it answers.
// Pure: the stream function, tools, message sink, clock and request broker are injected.
import { addUsage, emptyUsage, type Message, type ProviderError, type StreamFn, type ToolCall, type Usage } from '../llm/types.ts';
import { IterationBudget } from './budget.ts';
import { DEFAULT_GUARDRAILS, ToolGuardrails, type GuardrailConfig } from './guardrails.ts';
import { planSegments, type PlannedCall } from './planner.ts';
import { fingerprint, messageText, parseToolArgs, repairToolName, sanitizeHistory, sanitizeMemo } from './repair.ts';
import type { RequestBroker } from './requests.ts';
import { extractTextCalls, formatsFor, textCallScanner, unreadableMessage, type TextCallScanner } from './textcalls/index.ts';
import type { AgentEvent, AgentTool, MessageSink, ToolOutcome, TurnResult } from './types.ts';


/**
 * The marker around what the person typed mid-turn, appended to the last tool result of a batch (the
 * system prompt tells the model it is the user's own word). Tool output never carries it: a lookalike
 * in a web page or file is defused (unmarked) so only Hermes can write it.
 */
export const STEER_OPEN = '[USER MESSAGE]';
export const STEER_CLOSE = '[/USER MESSAGE]';
const MARKER = /\[(\/?)\s*USER\s+MESSAGE\s*\]/gi;
const unmarked = (text: string): string => (/user\s+message/i.test(text) ? text.replace(MARKER, '[$1user-message]') : text);

export interface LoopRequestOptions {
  maxTokens?: number;
  temperature?: number;
  reasoningEffort?: string;
  cacheTtl?: '5m' | '1h';
  sessionId?: string;
  serviceTier?: string;
  /** Extra Chat Completions body fields for the primary endpoint (Ollama's options.num_ctx). */
  extraBody?: Record<string, unknown>;
  /** Per-request output budget when maxTokens is unset (read before each request; lean mode). */
  maxTokensFor?: () => number | undefined;
  /** Per-request output ceiling when neither is set (the provider's default; read before each request). */
  outputCapFor?: () => number | undefined;
}

export interface LoopOptions {
  /** The conversation so far, without the system prompt. Appended to in place. */
  history: Message[];
  /** The frozen system prompt of the session. */
  system: string;
  /**
   * The tools offered to the model. The array may grow during the turn (tool_search loads deferred
   * tools into it); the loop picks new tools up before its next request.
   */
  tools: AgentTool[];
  /** A deferred tool the model called by name (loaded for the session), or undefined. */
  loadTool?: (name: string) => AgentTool | undefined;
  stream: StreamFn;
  /** Current model name (the stream function may answer with a fallback). */
  model: () => string;
  broker: RequestBroker;
  budget: IterationBudget;
  signal?: AbortSignal;
  emit?: (e: AgentEvent) => void;
  sink?: MessageSink;
  /** Unix ms. */
  now?: () => number;
  /** Text the person typed mid-turn to steer; appended to the next tool result. */
  takeSteer?: () => string | undefined;
  maxParallel?: number;
  guardrails?: GuardrailConfig;
  request?: LoopRequestOptions;
  /** Appended to the system prompt at call time only; never persisted. */
  ephemeralSystem?: string;
  /** Inserted before the history at call time only; never persisted. */
  prefill?: Message[];
  /**
   * Recalled memory for this turn (a `<memory-context>` block): appended to the turn's user message
   * in every request of the turn, at call time only. Never persisted, never in the system prompt
   * (which stays byte-stable for the prompt cache).
   */
  turnContext?: string;
  /** Rewrites the final answer before it is stored and returned (plugins' transform_llm_output). */
  transformFinal?: (text: string) => Promise<string | undefined>;
  /** Called before each model request (context compression hooks in here). */
  beforeRequest?: (history: Message[], lastUsage: Usage | null) => Promise<void>;
  costOf?: (model: string, provider: string, usage: Usage) => number | null;
  /** Per-result size limit before spilling (default 100,000 chars). */
  maxResultChars?: number;
  /** Limit for all results of one assistant message (default 200,000 chars). */
  turnResultChars?: number;
  /** Stores an oversized result and returns where; without it results are truncated in place. */
  spill?: (callId: string, content: string) => Promise<string>;
  /**
   * `model.tool_call_parser`: calls the model writes as text (`<tool_call>…`, `[TOOL_CALLS]…`, a bare
   * JSON call) become tool calls. `auto` (default) | `none` | a format name (see textcalls/index.ts).
   */
  toolCallParser?: string;
}

export const BUDGET_EXHAUSTED_PROMPT =
  'You have used all the tool-calling iterations available for this turn. Do not call any more tools. ' +
  'Give the user a concise summary of what you did, what you found, and what remains to be done.';

const PREVIEW_CHARS = 1500;

function preview(content: string): string {
  let p = content.slice(0, PREVIEW_CHARS);
  const nl = p.lastIndexOf('\n');
  if (nl > PREVIEW_CHARS / 2) p = p.slice(0, nl);
  return p;
}

async function limitResult(content: string, callId: string, limit: number, spill?: LoopOptions['spill']): Promise<string> {
  if (content.length <= limit) return content;
  if (spill) {
    try {
      const where = await spill(callId, content);
      return (
        `<persisted-output>\nThis result was ${content.length.toLocaleString('en-US')} characters, too large for the context. ` +
        `The full output is saved at ${where} — read it with read_file using offset/limit.\n\nPreview:\n${preview(content)}\n</persisted-output>`
      );
    } catch {
      // fall through to truncation
    }
  }
  const head = Math.floor(limit * 0.7);
  const tail = Math.floor(limit * 0.2);
  return `${content.slice(0, head)}\n\n[… ${(content.length - head - tail).toLocaleString('en-US')} characters truncated …]\n\n${content.slice(-tail)}`;
}

function errorJson(message: string): string {
  return JSON.stringify({ error: message });
}

let textCallSeq = 0;

/** A copy of the user message with the recalled context after its text. */
function withContext(m: Message, context: string): Message {
  if (typeof m.content === 'string') return { ...m, content: `${m.content}\n\n${context}` };
  return { ...m, content: [...(m.content ?? []), { type: 'text', text: context }] };
}

interface PreparedCall {
  call: ToolCall;
  tool: AgentTool | null;
  args: Record<string, unknown>;
  /** Set when the call cannot run (unknown tool, bad JSON). */
  error?: string;
}

export async function runTurn(userMessage: Message | null, o: LoopOptions): Promise<TurnResult> {
  const emit = o.emit ?? (() => {});
  const now = o.now ?? Date.now;
  const signal = o.signal ?? new AbortController().signal;
  const appended: Message[] = [];
  let toolsByName = new Map<string, AgentTool>();
  let toolNames: string[] = [];
  let schemas: AgentTool['schema'][] = [];
  let toolCount = -1;
  /** Re-reads the tool list when tools were loaded into it (appended: the request prefix stays stable). */
  const syncTools = () => {
    if (o.tools.length === toolCount) return;
    toolCount = o.tools.length;
    toolsByName = new Map(o.tools.map((t) => [t.name, t]));
    toolNames = [...toolsByName.keys()];
    schemas = o.tools.map((t) => t.schema);
  };
  syncTools();
  const guard = new ToolGuardrails(o.guardrails ?? DEFAULT_GUARDRAILS);
  const maxResult = o.maxResultChars ?? 100_000;
  const turnChars = o.turnResultChars ?? 200_000;
  let usage = emptyUsage();
  let cost: number | null = null;
  let apiCalls = 0;
  let iterations = 0;
  let lastUsage: Usage | null = null;
  /** Text calls that could not be read, by call id: answered with the parse error instead of running. */
  const unreadable = new Map<string, string>();
  let noticedTextCalls = false;

  // Messages are created with their `timestamp` (nowSecs()), last as before: a property added after
  // creation moves to an out-of-object property array, ~30 B more per message kept in the history.
  const nowSecs = () => now() / 1000;
  /** Adds a message to the history (and the turn's messages) without recording it. */
  const keep = (m: Message) => {
    o.history.push(m);
    appended.push(m);
    emit({ type: 'message', message: m });
  };
  const append = (m: Message) => {
    m.timestamp ??= nowSecs();
    o.sink?.append(m);
    keep(m);
  };

  const finish = (r: Omit<TurnResult, 'apiCalls' | 'iterations' | 'usage' | 'costUsd' | 'messages'>): TurnResult => {
    const result: TurnResult = { ...r, apiCalls, iterations, usage, costUsd: cost, messages: appended };
    emit({ type: 'turn_end', result });
    return result;
  };
  const interrupted = () => finish({ finalText: '', completed: false, partial: false, failed: false, interrupted: true });

  if (userMessage) append({ ...userMessage, timestamp: userMessage.timestamp ?? nowSecs() });
  /** The message this turn's recalled context rides on. */
  const turnUser = userMessage ? o.history[o.history.length - 1] : [...o.history].reverse().find((m) => m.role === 'user');
  emit({ type: 'turn_start', userMessage });

  // The request's history, sanitised: the part already final is reused from request to request, and
  // the turn's user message with its recalled context is one object for the whole turn (request
  // builders cache by message).
  const sanitized = sanitizeMemo();
  let withCtx: Message | undefined;
  /** One model call. Returns the assistant message, or a finished TurnResult on failure. */
  const callModel = async (withTools: boolean, extraUser?: string): Promise<Message | TurnResult> => {
    if (o.beforeRequest) await o.beforeRequest(o.history, lastUsage);
    syncTools();
    const ctxText = o.turnContext;
    const history = ctxText && turnUser ? o.history.map((m) => (m === turnUser ? (withCtx ??= withContext(m, ctxText)) : m)) : o.history;
    const messages = sanitizeHistory(history, sanitized);
    if (o.prefill?.length) messages.unshift(...o.prefill.map((m) => ({ ...m })));
    if (extraUser) messages.push({ role: 'user', content: extraUser });
    const system = o.ephemeralSystem ? `${o.system}\n\n${o.ephemeralSystem}` : o.system;
    emit({ type: 'api_start', iteration: iterations, model: o.model() });
    const stream = o.stream({
      model: o.model(),
      system,
      messages,
      tools: withTools ? schemas : [],
      signal,
      maxTokens: o.request?.maxTokens ?? o.request?.maxTokensFor?.(),
      outputCap: o.request?.outputCapFor?.(),
      temperature: o.request?.temperature,
      reasoningEffort: o.request?.reasoningEffort,
      cacheTtl: o.request?.cacheTtl,
      sessionId: o.request?.sessionId,
      serviceTier: o.request?.serviceTier,
      extraBody: o.request?.extraBody,
    });
    // Text that may be a call written as text is held back until the answer is complete (scan.ts).
    // The scanner is made with the first text (an answer of tool calls only needs none).
    let scanner: TextCallScanner | null | undefined;
    const scan = () => (scanner === undefined ? (scanner = withTools ? textCallScanner(o.toolCallParser, schemas) : null) : scanner);
    // Whether this attempt's deltas reached the surfaces (a retraction of nothing shows nothing).
    let shownAny = false;
    for await (const ev of stream) {
      switch (ev.type) {
        case 'text_delta': {
          const sc = scan();
          const shown = sc ? sc.push(ev.text) : ev.text;
          if (shown) {
            shownAny = true;
            emit({ type: 'text_delta', text: shown });
          }
          break;
        }
        case 'reasoning_delta':
          shownAny = true;
          emit({ type: 'reasoning_delta', text: ev.text });
          break;
        case 'retract':
          // The stream is sent again: the next attempt's text gets a fresh scanner.
          scanner = undefined;
          emit({ type: 'retract', error: ev.error, shown: shownAny });
          shownAny = false;
          break;
        case 'retry':
        case 'fallback':
        case 'key_rotated':
          emit(ev);
          break;
        default:
          break;
      }
    }
    const res = await stream.result();
    apiCalls++;
    if (res.usage) {
      usage = addUsage(usage, res.usage);
      lastUsage = res.usage;
      const c = o.costOf?.(res.model, res.provider, res.usage) ?? null;
      if (c !== null) cost = (cost ?? 0) + c;
      emit({ type: 'usage', usage: res.usage, costUsd: c, model: res.model, provider: res.provider });
    }
    if (res.stopReason === 'aborted' || signal.aborted) return interrupted();
    if (res.stopReason === 'error') {
      const error: ProviderError = res.error ?? { kind: 'invalid_response', message: 'The model request failed.', provider: res.provider, retryable: false };
      emit({ type: 'error', error });
      return finish({ finalText: '', completed: false, partial: false, failed: true, interrupted: false, error });
    }
    const m = res.message;
    // One literal (same key order as before): the optional fields and the timestamp stay in-object.
    const msg: Message = {
      role: 'assistant',
      content: m.content ?? null,
      finish_reason: res.stopReason,
      ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ ...c, function: { ...c.function } })) } : null),
      ...(m.reasoning ? { reasoning: m.reasoning } : null),
      ...(m.reasoning_details?.length ? { reasoning_details: m.reasoning_details } : null),
      ...(m.codex_reasoning_items?.length ? { codex_reasoning_items: m.codex_reasoning_items } : null),
      timestamp: nowSecs(),
    };
    if (withTools) adoptTextCalls(msg, scanner, scan);
    return msg;
  };

  /** Calls the model wrote as text become the message's tool calls when the API's field has none. */
  const adoptTextCalls = (msg: Message, streamed: TextCallScanner | null | undefined, scan: () => TextCallScanner | null) => {
    const show = (text: string | undefined) => {
      if (text) emit({ type: 'text_delta', text });
    };
    const text = typeof msg.content === 'string' ? msg.content : messageText(msg.content);
    if (msg.tool_calls?.length || !text) return show(streamed?.finish(null));
    const scanner = streamed === undefined ? scan() : streamed;
    if (!scanner) {
      // Parsing is off: say once per turn that the answer was a call the default would have run.
      if (!noticedTextCalls && formatsFor(o.toolCallParser)?.length === 0 && extractTextCalls(text, 'auto', schemas)) {
        noticedTextCalls = true;
        emit({ type: 'notice', message: 'The model wrote a tool call as text; model.tool_call_parser is none, so it was not run (set it to auto to run such calls).' });
      }
      return;
    }
    const same = scanner.seen === text;
    const found = extractTextCalls(text, o.toolCallParser, schemas, same ? scanner : null);
    // (The streamed text always equals the message; should it not, only a non-call shows the rest.)
    if (same) show(scanner.finish(found ? { start: found.start, end: found.end } : null));
    else if (!found) show(scanner.finish(null));
    if (!found) return;
    const stamp = now().toString(36);
    msg.tool_calls = found.calls.map((c, i) => {
      const id = `call_${stamp}${(++textCallSeq).toString(36)}_${i}`;
      if (c.error) unreadable.set(id, unreadableMessage(found.format, c.error));
      return { id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } };
    });
    msg.content = found.prose || null;
    msg.finish_reason = 'tool_calls';
  };

  for (;;) {
    if (signal.aborted) return interrupted();

    if (!o.budget.consume()) {
      // Budget spent: one toolless call for a summary of the work done.
      const r = await callModel(false, BUDGET_EXHAUSTED_PROMPT);
      if (!('role' in r)) return r;
      delete r.tool_calls;
      append(r);
      emit({ type: 'warning', message: `Iteration budget of ${o.budget.max} reached; the answer is a summary of work so far.` });
      return finish({ finalText: messageText(r.content), completed: false, partial: true, failed: false, interrupted: false });
    }
    iterations++;

    const r = await callModel(true);
    if (!('role' in r)) return r;
    const assistant = r;

    if (!assistant.tool_calls?.length) {
      if (o.transformFinal) {
        const before = messageText(assistant.content);
        const after = await o.transformFinal(before);
        if (after !== undefined && after !== before) {
          assistant.content = after;
          emit({ type: 'notice', message: `(rewritten by a plugin after streaming)\n${after}` });
        }
      }
      append(assistant);
      return finish({ finalText: messageText(assistant.content), completed: true, partial: false, failed: false, interrupted: false });
    }

    // Repair names and arguments before the message enters the history.
    const prepared: PreparedCall[] = assistant.tool_calls.map((call) => {
      const unread = unreadable.get(call.id);
      if (unread) return { call, tool: null, args: {}, error: unread };
      if (!toolsByName.has(call.function.name)) {
        const loaded = o.loadTool?.(call.function.name);
        if (loaded && !o.tools.includes(loaded)) o.tools.push(loaded);
        syncTools();
      }
      const name = repairToolName(call.function.name, toolNames);
      if (!name) {
        return {
          call,
          tool: null,
          args: {},
          error: `Unknown tool "${call.function.name}". Available tools: ${toolNames.join(', ') || '(none)'}.`,
        };
      }
      call.function.name = name;
      const parsed = parseToolArgs(call.function.arguments);
      if ('error' in parsed) {
        call.function.arguments = '{}';
        return { call, tool: toolsByName.get(name)!, args: {}, error: `Invalid arguments for ${name}: ${parsed.error}. Send a JSON object matching the tool's schema.` };
      }
      return { call, tool: toolsByName.get(name)!, args: parsed.args };
    });
    append(assistant);

    const calls: PlannedCall[] = prepared.map((p, index) => {
      let scope = null;
      if (p.tool?.paths && !p.error) {
        try {
          scope = p.tool.paths(p.args);
        } catch {
          scope = null;
        }
      }
      return { index, parallelSafe: !!p.tool?.parallelSafe, scope, valid: !p.error && !!p.tool };
    });

    // Each result is final and recorded (the sink) the moment its tool finishes, so a process killed
    // mid-batch keeps every finished result; the history gets them in call order once all are in.
    // What is decided per result happens then, in the order the tools finish: the guardrails look at
    // it (a warning rides inside it), it may not push this message's results over the turn cap (it is
    // spilled, or truncated, to fit), and the last to finish carries text the person steered with.
    const results: Message[] = new Array(prepared.length);
    let finished = 0;
    let resultChars = 0;
    let stopReason: string | undefined;
    // (One at a time, in finishing order: a spill awaits, and the next result's budget depends on it.)
    let settling: Promise<void> = Promise.resolve();
    const settle = (i: number, out: ToolOutcome, content: string) => {
      const done = settling.then(() => settleOne(i, out, content));
      settling = done.catch(() => {});
      return done;
    };
    const settleOne = async (i: number, out: ToolOutcome, content: string) => {
      const p = prepared[i];
      const d = guard.observe(p.call.function.name, fingerprint(p.call.function.name, p.args), !!out.isError, content, !!p.tool?.parallelSafe);
      if (d.stop) stopReason ??= d.stop;
      if (resultChars + content.length > turnChars && !content.startsWith('<persisted-output>')) {
        content = await limitResult(content, p.call.id, Math.min(content.length - 1, Math.max(PREVIEW_CHARS * 2, turnChars - resultChars)), o.spill);
      }
      resultChars += content.length;
      content = unmarked(content);
      if (d.warning) content += `\n\n[Tool loop warning: ${d.warning}]`;
      if (++finished === prepared.length) {
        const steer = o.takeSteer?.();
        if (steer) content += `\n\n${STEER_OPEN}\n${unmarked(steer)}\n${STEER_CLOSE}`;
      }
      const m: Message = { role: 'tool', tool_call_id: p.call.id, tool_name: p.call.function.name, content, timestamp: nowSecs() };
      results[i] = m;
      o.sink?.append(m);
    };

    const runOne = async (i: number) => {
      const p = prepared[i];
      const started = now();
      let waited = 0;
      const name = p.call.function.name;
      emit({ type: 'tool_start', callId: p.call.id, name, args: p.args, emoji: p.tool?.emoji });
      let out: ToolOutcome;
      if (p.error || !p.tool) out = { content: errorJson(p.error ?? 'unknown tool'), isError: true };
      else if (signal.aborted) out = { content: errorJson('Interrupted by the user before this tool ran.'), isError: true };
      else {
        try {
          out = await p.tool.execute(p.args, {
            callId: p.call.id,
            signal,
            // Time spent waiting for a person (approval, clarify) is not the tool's running time.
            ask: async (req) => {
              const asked = now();
              try {
                return await o.broker.ask(req, signal);
              } finally {
                waited += now() - asked;
              }
            },
            progress: (text) => emit({ type: 'tool_progress', callId: p.call.id, name, text }),
          });
        } catch (e) {
          out = { content: errorJson(`Tool execution failed: ${(e as Error)?.message ?? String(e)}`), isError: true };
        }
      }
      const content = await limitResult(out.content, p.call.id, p.tool?.maxResultChars ?? maxResult, o.spill);
      const durationMs = Math.max(0, now() - started - waited);
      emit({ type: 'tool_end', callId: p.call.id, name, content, isError: !!out.isError, durationMs, display: out.display });
      await settle(i, out, content);
    };

    for (const seg of planSegments(calls, o.maxParallel ?? 8)) {
      if (seg.parallel) await Promise.all(seg.indices.map(runOne));
      else for (const i of seg.indices) await runOne(i);
    }
    for (const m of results) if (m) keep(m);

    if (signal.aborted) return interrupted();
    if (stopReason) {
      const error = { kind: 'tool_loop', message: `Stopped: ${stopReason}` };
      emit({ type: 'error', error });
      return finish({ finalText: '', completed: false, partial: false, failed: true, interrupted: false, error });
    }
  }
}
