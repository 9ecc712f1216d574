// The agent loop: call the model, run the tools it asks for, repeat until it answers.
// Pure: the stream function, tools, message sink, clock and request broker are injected.
//
// A turn is a few named steps — streamResponse (one model call), prepareToolCalls (repair names and
// arguments), executeToolCalls (run them, in parallel where safe) and finaliseResult (each result
// made final and recorded as its tool finishes) — and every feature beyond them is a hook
// (hooks.ts): compression, call-time request additions, text-call parsing, deferred tools,
// spilling, guardrails, steering, the final rewrite, pricing.
import { addUsage, emptyUsage, type Message, type ProviderError, type StreamFn, type StreamRequest, type ToolCall, type ToolSchema, type Usage } from '../llm/types.ts';
import type { IterationBudget } from './budget.ts';
import type { LoopHook, ToolRun, Turn } from './hooks.ts';
import { planSegments, type PlannedCall } from './planner.ts';
import { messageText, parseToolArgs, repairToolName, sanitizeHistory, sanitizeMemo } from './repair.ts';
import type { RequestBroker } from './requests.ts';
import type { AgentEvent, AgentTool, MessageSink, ToolOutcome, TurnResult } from './types.ts';

export interface TurnInput {
  /** The conversation so far, without the system prompt. Appended to in place. */
  history: Message[];
  /** The frozen system prompt of the session. */
  system: string;
  /**
   * The tools offered to the model. The array may grow during the turn (tool_search loads deferred
   * tools into it); the loop picks new tools up before its next request.
   */
  tools: AgentTool[];
  stream: StreamFn;
  /** Current model name (the stream function may answer with a fallback). */
  model: () => string;
  broker: RequestBroker;
  budget: IterationBudget;
  signal?: AbortSignal;
  emit?: (e: AgentEvent) => void;
  /** Where each message goes the moment it is final (the SessionDB in production). */
  sink?: MessageSink;
  /** Unix ms. */
  now?: () => number;
  /** The features, in the order they run at each point (hooks.ts). */
  hooks?: readonly LoopHook[];
}

export const BUDGET_EXHAUSTED_PROMPT =
  'You have used all the tool-calling iterations available for this turn. Do not call any more tools. ' +
  'Give the user a concise summary of what you did, what you found, and what remains to be done.';

/** Calls of one parallel segment at most. */
const MAX_PARALLEL = 8;

const errorJson = (message: string): string => JSON.stringify({ error: message });

const NO_OUTCOME: ToolOutcome = { content: '' };

type Ended = Omit<TurnResult, 'apiCalls' | 'iterations' | 'usage' | 'costUsd' | 'messages'>;

/** The hooks that implement one point, in order (most points have none or one). */
function at<K extends keyof LoopHook>(hooks: readonly LoopHook[], k: K): Required<LoopHook>[K][] {
  const out: Required<LoopHook>[K][] = [];
  for (const h of hooks) {
    const f = h[k];
    if (f) out.push(f.bind(h) as Required<LoopHook>[K]);
  }
  return out;
}

function points(hooks: readonly LoopHook[]) {
  return {
    turnStart: at(hooks, 'turnStart'),
    beforeRequest: at(hooks, 'beforeRequest'),
    viewHistory: at(hooks, 'viewHistory'),
    shapeRequest: at(hooks, 'shapeRequest'),
    streamText: at(hooks, 'streamText'),
    retract: at(hooks, 'retract'),
    costOf: at(hooks, 'costOf'),
    onAnswer: at(hooks, 'onAnswer'),
    finalAnswer: at(hooks, 'finalAnswer'),
    checkToolCall: at(hooks, 'checkToolCall'),
    resolveTool: at(hooks, 'resolveTool'),
    afterToolCall: at(hooks, 'afterToolCall'),
    finaliseResult: at(hooks, 'finaliseResult'),
    afterToolBatch: at(hooks, 'afterToolBatch'),
  };
}
type HookPoints = ReturnType<typeof points>;

/** One turn's state: what hooks see (Turn) plus the loop's own counters. */
class TurnState implements Turn {
  readonly userMessage: Message | null;
  readonly history: Message[];
  readonly input: TurnInput;
  readonly emit: (e: AgentEvent) => void;
  readonly now: () => number;
  readonly signal: AbortSignal;
  readonly appended: Message[] = [];
  withTools = true;
  usage = emptyUsage();
  cost: number | null = null;
  apiCalls = 0;
  iterations = 0;
  lastUsage: Usage | null = null;
  /** The request's history, sanitised: the part already final is reused from request to request. */
  readonly sanitized = sanitizeMemo();
  toolsByName = new Map<string, AgentTool>();
  toolNames: string[] = [];
  schemas: ToolSchema[] = [];
  private toolCount = -1;

  /** The hooks of each point. */
  readonly on: HookPoints;

  constructor(userMessage: Message | null, input: TurnInput) {
    this.userMessage = userMessage;
    this.input = input;
    this.history = input.history;
    this.emit = input.emit ?? (() => {});
    this.now = input.now ?? Date.now;
    this.signal = input.signal ?? new AbortController().signal;
    this.on = points(input.hooks ?? []);
    this.syncTools();
  }

  /** Re-reads the tool list when tools were loaded into it (appended: the request prefix stays stable). */
  syncTools(): void {
    const tools = this.input.tools;
    if (tools.length === this.toolCount) return;
    this.toolCount = tools.length;
    this.toolsByName = new Map(tools.map((t) => [t.name, t]));
    this.toolNames = [...this.toolsByName.keys()];
    this.schemas = tools.map((t) => t.schema);
  }

  // Messages are created with their `timestamp` (nowSecs()), last as before: a property added after
  // creation moves to an out-of-object property array, ~30 B more per message kept in the history.
  nowSecs(): number {
    return this.now() / 1000;
  }

  /** Adds a message to the history (and the turn's messages) without recording it. */
  keep(m: Message): void {
    this.history.push(m);
    this.appended.push(m);
    this.emit({ type: 'message', message: m });
  }

  /** Records a message (the sink) and keeps it. */
  append(m: Message): void {
    m.timestamp ??= this.nowSecs();
    this.input.sink?.append(m);
    this.keep(m);
  }

  finish(r: Ended): TurnResult {
    const result: TurnResult = { ...r, apiCalls: this.apiCalls, iterations: this.iterations, usage: this.usage, costUsd: this.cost, messages: this.appended };
    this.emit({ type: 'turn_end', result });
    return result;
  }

  interrupted(): TurnResult {
    return this.finish({ finalText: '', completed: false, partial: false, failed: false, interrupted: true });
  }

  failed(error: ProviderError | { kind: string; message: string }): TurnResult {
    this.emit({ type: 'error', error });
    return this.finish({ finalText: '', completed: false, partial: false, failed: true, interrupted: false, error });
  }
}

export async function runTurn(userMessage: Message | null, input: TurnInput): Promise<TurnResult> {
  const t = new TurnState(userMessage, input);
  if (userMessage) t.append({ ...userMessage, timestamp: userMessage.timestamp ?? t.nowSecs() });
  for (const f of t.on.turnStart) f(t);
  t.emit({ type: 'turn_start', userMessage });

  for (;;) {
    if (t.signal.aborted) return t.interrupted();

    if (!input.budget.consume()) {
      // Budget spent: one toolless call for a summary of the work done.
      const r = await streamResponse(t, false, BUDGET_EXHAUSTED_PROMPT);
      if (!('role' in r)) return r;
      delete r.tool_calls;
      t.append(r);
      t.emit({ type: 'warning', message: `Iteration budget of ${input.budget.max} reached; the answer is a summary of work so far.` });
      return t.finish({ finalText: messageText(r.content), completed: false, partial: true, failed: false, interrupted: false });
    }
    t.iterations++;

    const assistant = await streamResponse(t, true);
    if (!('role' in assistant)) return assistant;

    if (!assistant.tool_calls?.length) {
      for (const f of t.on.finalAnswer) await f(assistant, t);
      t.append(assistant);
      return t.finish({ finalText: messageText(assistant.content), completed: true, partial: false, failed: false, interrupted: false });
    }

    // Names and arguments are repaired before the message enters the history.
    const runs = prepareToolCalls(t, assistant);
    t.append(assistant);
    const results = await executeToolCalls(t, runs);
    for (const m of results) if (m) t.keep(m);

    let stop: string | undefined;
    for (const f of t.on.afterToolBatch) {
      const s = f(t);
      stop ??= s;
    }
    if (t.signal.aborted) return t.interrupted();
    if (stop) return t.failed({ kind: 'tool_loop', message: `Stopped: ${stop}` });
  }
}

/**
 * Step: one model call, its deltas streamed out as events. Returns the assistant message (not yet in
 * the history), or the finished TurnResult when the call failed or the turn was interrupted.
 */
async function streamResponse(t: TurnState, withTools: boolean, extraUser?: string): Promise<Message | TurnResult> {
  const o = t.input;
  for (const f of t.on.beforeRequest) await f(t, t.lastUsage);
  t.syncTools();
  t.withTools = withTools;
  let history = t.history;
  for (const f of t.on.viewHistory) history = f(history, t);
  const messages = sanitizeHistory(history, t.sanitized);
  if (extraUser) messages.push({ role: 'user', content: extraUser });
  const model = o.model();
  // Every field in one literal (hooks fill in the parameters): one object shape for every request.
  const req: StreamRequest = {
    model,
    system: o.system,
    messages,
    tools: withTools ? t.schemas : [],
    signal: t.signal,
    maxTokens: undefined,
    outputCap: undefined,
    temperature: undefined,
    reasoningEffort: undefined,
    cacheTtl: undefined,
    sessionId: undefined,
    serviceTier: undefined,
    extraBody: undefined,
  };
  for (const f of t.on.shapeRequest) f(req, t);
  t.emit({ type: 'api_start', iteration: t.iterations, model });
  const stream = o.stream(req);
  const filters = t.on.streamText;
  // Whether this attempt's deltas reached the surfaces (a retraction of nothing shows nothing).
  let shownAny = false;
  for await (const ev of stream) {
    switch (ev.type) {
      case 'text_delta': {
        let shown = ev.text;
        for (let i = 0; i < filters.length && shown; i++) shown = filters[i](shown, t);
        if (shown) {
          shownAny = true;
          t.emit({ type: 'text_delta', text: shown });
        }
        break;
      }
      case 'reasoning_delta':
        shownAny = true;
        t.emit({ type: 'reasoning_delta', text: ev.text });
        break;
      case 'retract':
        for (const f of t.on.retract) f(t);
        t.emit({ type: 'retract', error: ev.error, shown: shownAny });
        shownAny = false;
        break;
      case 'retry':
      case 'fallback':
      case 'key_rotated':
        t.emit(ev);
        break;
      default:
        break;
    }
  }
  const res = await stream.result();
  t.apiCalls++;
  if (res.usage) {
    t.usage = addUsage(t.usage, res.usage);
    t.lastUsage = res.usage;
    let c: number | null = null;
    for (let i = 0; i < t.on.costOf.length && c === null; i++) c = t.on.costOf[i](res.model, res.provider, res.usage);
    if (c !== null) t.cost = (t.cost ?? 0) + c;
    t.emit({ type: 'usage', usage: res.usage, costUsd: c, model: res.model, provider: res.provider });
  }
  if (res.stopReason === 'aborted' || t.signal.aborted) return t.interrupted();
  if (res.stopReason === 'error') {
    return t.failed(res.error ?? { kind: 'invalid_response', message: 'The model request failed.', provider: res.provider, retryable: false });
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
    timestamp: t.nowSecs(),
  };
  for (const f of t.on.onAnswer) f(msg, t);
  return msg;
}

/** One literal for every run (one object shape). */
const toolRun = (call: ToolCall, tool: AgentTool | null, args: Record<string, unknown>, error: string | undefined): ToolRun => ({
  call,
  tool,
  args,
  error,
  outcome: NO_OUTCOME,
  content: '',
  suffix: '',
  last: false,
});

/** Step: each call of the answer matched to its tool (loaded when deferred), name and arguments repaired. */
function prepareToolCalls(t: TurnState, assistant: Message): ToolRun[] {
  return assistant.tool_calls!.map((call): ToolRun => {
    for (const f of t.on.checkToolCall) {
      const blocked = f(call);
      if (blocked) return toolRun(call, null, {}, blocked);
    }
    if (!t.toolsByName.has(call.function.name)) {
      for (const f of t.on.resolveTool) {
        const loaded = f(call.function.name);
        if (loaded) {
          if (!t.input.tools.includes(loaded)) t.input.tools.push(loaded);
          break;
        }
      }
      t.syncTools();
    }
    const name = repairToolName(call.function.name, t.toolNames);
    if (!name) return toolRun(call, null, {}, `Unknown tool "${call.function.name}". Available tools: ${t.toolNames.join(', ') || '(none)'}.`);
    call.function.name = name;
    const tool = t.toolsByName.get(name)!;
    const parsed = parseToolArgs(call.function.arguments);
    if ('error' in parsed) {
      call.function.arguments = '{}';
      return toolRun(call, tool, {}, `Invalid arguments for ${name}: ${parsed.error}. Send a JSON object matching the tool's schema.`);
    }
    return toolRun(call, tool, parsed.args, undefined);
  });
}

/**
 * Step: runs the calls (parallel-safe ones and file calls on separate paths together, the rest in
 * order). Each result is final and recorded (the sink) the moment its tool finishes, so a process
 * killed mid-batch keeps every finished result; returns the result messages in call order.
 */
async function executeToolCalls(t: TurnState, runs: ToolRun[]): Promise<Message[]> {
  const calls: PlannedCall[] = runs.map((r, index) => {
    let scope = null;
    if (r.tool?.paths && !r.error) {
      try {
        scope = r.tool.paths(r.args);
      } catch {
        scope = null;
      }
    }
    return { index, parallelSafe: !!r.tool?.parallelSafe, scope, valid: !r.error && !!r.tool };
  });
  const results: Message[] = new Array(runs.length);
  let finished = 0;
  // Results become final one at a time, in finishing order (a hook may await, and the next result's
  // share of the batch depends on it).
  let settling: Promise<void> = Promise.resolve();
  const settle = (i: number) => {
    const done = settling.then(async () => {
      const r = runs[i];
      r.last = ++finished === runs.length;
      results[i] = await finaliseResult(t, r);
    });
    settling = done.catch(() => {});
    return done;
  };
  const runOne = async (i: number) => {
    await executeToolCall(t, runs[i]);
    await settle(i);
  };
  for (const seg of planSegments(calls, MAX_PARALLEL)) {
    if (seg.parallel) await Promise.all(seg.indices.map(runOne));
    else for (const i of seg.indices) await runOne(i);
  }
  return results;
}

/** Step: one call, from `tool_start` to `tool_end` (its content as the `afterToolCall` hooks left it). */
async function executeToolCall(t: TurnState, r: ToolRun): Promise<void> {
  const started = t.now();
  let waited = 0;
  const { call, tool } = r;
  const name = call.function.name;
  const signal = t.signal;
  t.emit({ type: 'tool_start', callId: call.id, name, args: r.args, emoji: tool?.emoji });
  let out: ToolOutcome;
  if (r.error || !tool) out = { content: errorJson(r.error ?? 'unknown tool'), isError: true };
  else if (signal.aborted) out = { content: errorJson('Interrupted by the user before this tool ran.'), isError: true };
  else {
    try {
      out = await tool.execute(r.args, {
        callId: call.id,
        signal,
        // Time spent waiting for a person (approval, clarify) is not the tool's running time.
        ask: async (req) => {
          const asked = t.now();
          try {
            return await t.input.broker.ask(req, signal);
          } finally {
            waited += t.now() - asked;
          }
        },
        progress: (text) => t.emit({ type: 'tool_progress', callId: call.id, name, text }),
      });
    } catch (e) {
      out = { content: errorJson(`Tool execution failed: ${(e as Error)?.message ?? String(e)}`), isError: true };
    }
  }
  r.outcome = out;
  r.content = out.content;
  for (const f of t.on.afterToolCall) {
    const p = f(r, t);
    if (p) await p;
  }
  const durationMs = Math.max(0, t.now() - started - waited);
  t.emit({ type: 'tool_end', callId: call.id, name, content: r.content, isError: !!out.isError, durationMs, display: out.display });
}

/** Step: a finished call's result made final by the hooks (guardrails, the batch cap, steering) and recorded. */
async function finaliseResult(t: TurnState, r: ToolRun): Promise<Message> {
  for (const f of t.on.finaliseResult) {
    const p = f(r, t);
    if (p) await p;
  }
  const m: Message = { role: 'tool', tool_call_id: r.call.id, tool_name: r.call.function.name, content: r.content + r.suffix, timestamp: t.nowSecs() };
  t.input.sink?.append(m);
  return m;
}
