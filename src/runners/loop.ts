// The default runner: Hermes's own agent loop (src/agent/loop.ts) driven with the session's LLM
// client and tools, its hooks built from the session's settings (compression, request parameters,
// call-time additions, text calls, guardrails, spilling, steering), plus the bounded
// compress-and-retry when the provider says the prompt is too long.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IterationBudget, parseMaxTurns } from '../agent/budget.ts';
import { citationsHook, SourceBook } from '../agent/citations.ts';
import { guardrails } from '../agent/guardrails.ts';
import { transformFinal, type LoopHook } from '../agent/hooks.ts';
import { runTurn } from '../agent/loop.ts';
import { ephemeralSystem, prefill, requestParams, turnContext } from '../agent/prefill.ts';
import { spilling } from '../agent/spill.ts';
import { steering } from '../agent/steer.ts';
import { textCalls } from '../agent/textcalls/hook.ts';
import { estimateMessagesTokens } from '../agent/tokens.ts';
import type { AgentTool, TurnResult } from '../agent/types.ts';
import { configuredOutputCap, defaultOutputCap, estimateCostUsd, type LlmClient } from '../llm/index.ts';
import { addUsage, type Message } from '../llm/types.ts';
import type { RunnerOptions, TurnContext, TurnRunner } from './types.ts';
import { configSetting } from '../state/config-env.ts';

const capTo = (n: number | undefined, max: number | undefined): number | undefined => (n !== undefined && max !== undefined ? Math.min(n, max) : n);

/** The parts of a Session the loop runner drives. */
export interface LoopHost {
  readonly options: RunnerOptions;
  readonly id: string;
  readonly llm: LlmClient;
  readonly tools: AgentTool[];
  /** A deferred tool by name, loaded for the session (tool_search's catalog), or undefined. */
  loadTool?(name: string): AgentTool | undefined;
  /** The Session's compression (src/session/session-state.ts). */
  readonly state: {
    beforeRequest(history: Message[]): Promise<void>;
    runCompression(history: Message[], opts?: { force?: boolean }): Promise<string>;
    /** What a local model's requests carry (Ollama's num_ctx, lean mode's limits; docs/local-models.md). */
    localRequest(): { extraBody?: Record<string, unknown>; maxTokens?: number; maxResultChars?: number; window?: number };
  };
  /** Steering text typed since the last tool call, or undefined. */
  takeSteer(): string | undefined;
  /** The person's processing tier (/fast). */
  readonly prefs?: { fast?: 'normal' | 'fast' | 'auto' | 'cold' };
}

/** /fast → the request's service tier: fast = priority, auto = auto, cold = flex (cheaper, slower). */
export function serviceTierFor(fast: string | undefined): string | undefined {
  return fast === 'fast' ? 'priority' : fast === 'auto' ? 'auto' : fast === 'cold' ? 'flex' : undefined;
}

/** Where answers are read as plain text: citations are footnotes there, links elsewhere (chat apps). */
const PLAIN_TEXT_SURFACES = new Set(['cli', 'tui', 'acp', 'api_server', 'cron', 'batch', 'mcp', 'a2a']);

export class LoopRunner implements TurnRunner {
  readonly kind = 'loop' as const;
  private readonly host: LoopHost;
  /** The session's numbered sources (citations keep their numbers across turns). */
  private readonly sources = new SourceBook();

  constructor(host: LoopHost) {
    this.host = host;
  }

  async run(user: Message, ctx: TurnContext): Promise<TurnResult> {
    const h = this.host;
    const o = h.options;
    const maxTurns = o.explicit?.maxTurns !== undefined ? o.explicit.maxTurns : parseMaxTurns(configSetting(o.config, 'agent.max_turns', o.env), 90);
    const local = h.state.localRequest();
    const prefillMessages = loadPrefill(String(configSetting(o.config, 'prefill_messages_file', o.env) ?? ''), o.cwd);
    const ephemeral = o.env.HERMES_EPHEMERAL_SYSTEM_PROMPT;
    const context = [ctx.recall, ctx.hookContext].filter(Boolean).join('\n\n');
    // The features, in the order they run at each point (src/agent/hooks.ts).
    const hooks: LoopHook[] = [
      {
        // The step's messages are committed once this request is on the wire, grouped with the next
        // steps' for up to StoreWrites' GROUP_MS: the commit overlaps the round trip instead of
        // delaying it. Compression flushes first.
        beforeRequest: (turn) => h.state.beforeRequest(turn.history),
        resolveTool: (name) => h.loadTool?.(name),
        costOf: (model, provider, usage) => estimateCostUsd(model, provider, usage),
      },
      requestParams({
        reasoningEffort: o.config.agent.reasoning_effort || undefined,
        cacheTtl: cacheTtlFor(o.config.prompt_caching?.cache_ttl, o.platform),
        sessionId: h.id,
        serviceTier: serviceTierFor(h.prefs?.fast),
        extraBody: local.extraBody,
        // model.max_tokens, else lean mode's budget; without either, the provider's or model's default
        // ceiling (as Hermes sends it), never more than half a local window the server reported.
        maxTokensFor: () => configuredOutputCap(o.config.model?.max_tokens) ?? local.maxTokens,
        outputCapFor: () => capTo(defaultOutputCap(h.llm.active), local.window ? Math.floor(local.window / 2) : undefined),
      }),
      ...(ephemeral ? [ephemeralSystem(ephemeral)] : []),
      ...(context ? [turnContext(context)] : []),
      ...(prefillMessages?.length ? [prefill(prefillMessages)] : []),
      textCalls(o.config.model?.tool_call_parser),
      // Before spilling and the guardrails: it reads each result whole.
      citationsHook(this.sources, { links: !PLAIN_TEXT_SURFACES.has(o.platform) }),
      ...(ctx.transformFinal ? [transformFinal(ctx.transformFinal)] : []),
      // Guardrails see each result before the batch cap cuts it; steering goes last.
      guardrails(o.config.tool_loop_guardrails),
      spilling({
        store: async (callId, content) => spillResult(callId, content),
        ...(local.maxResultChars ? { maxResultChars: local.maxResultChars, turnResultChars: local.maxResultChars * 2 } : {}),
      }),
      steering(() => h.takeSteer()),
    ];
    const turn = (message: Message | null) =>
      runTurn(message, {
        history: ctx.history,
        system: ctx.system,
        tools: h.tools,
        stream: (req) => h.llm.stream(req),
        model: () => h.llm.active.model,
        broker: ctx.broker,
        budget: new IterationBudget(maxTurns),
        signal: ctx.signal,
        emit: ctx.emit,
        sink: ctx.sink,
        now: o.now,
        hooks,
      });
    let result = await turn(user);
    // The provider says the prompt is too long: compress (summary forced) and carry on, a bounded number of times.
    const maxAttempts = Number(o.config.compression?.max_attempts ?? 3);
    for (let i = 0; i < maxAttempts && result.failed && result.error?.kind === 'context_length' && o.config.compression?.enabled !== false; i++) {
      const before = estimateMessagesTokens(ctx.history);
      await h.state.runCompression(ctx.history, { force: true });
      if (estimateMessagesTokens(ctx.history) >= before) break;
      const next = await turn(null);
      result = {
        ...next,
        apiCalls: result.apiCalls + next.apiCalls,
        iterations: result.iterations + next.iterations,
        usage: addUsage(result.usage, next.usage),
        costUsd: result.costUsd === null && next.costUsd === null ? null : (result.costUsd ?? 0) + (next.costUsd ?? 0),
        messages: [...result.messages, ...next.messages],
      };
    }
    return result;
  }

  async close(): Promise<void> {}
}

/** `auto` = 1h for sessions a person paces, 5m for machine-paced ones. */
function cacheTtlFor(setting: string | undefined, platform: string): '5m' | '1h' {
  if (setting === '1h') return '1h';
  if (setting === 'auto') return ['cron', 'webhook', 'api_server', 'batch', 'subagent'].includes(platform) ? '5m' : '1h';
  return '5m';
}

function loadPrefill(file: string | undefined, cwd: string): Message[] | undefined {
  if (!file) return undefined;
  const path = file.startsWith('/') ? file : join(cwd, file);
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (!Array.isArray(v)) return undefined;
    return v.filter(
      (m): m is Message => !!m && typeof m === 'object' && ['user', 'assistant', 'system'].includes((m as Message).role) && typeof (m as Message).content === 'string',
    );
  } catch {
    return undefined;
  }
}

function spillResult(callId: string, content: string): string {
  const dir = join(tmpdir(), 'hermes-results');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${callId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}
