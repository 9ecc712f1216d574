// The session runtime: everything a surface needs to hold a conversation. Every surface (one-shot
// CLI, REPL, gateway chat, ACP, API server, cron) builds one of these and drives the same loop.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IterationBudget, parseMaxTurns } from '../agent/budget.ts';
import { runTurn, type LoopOptions } from '../agent/loop.ts';
import { estimateMessagesTokens } from '../agent/tokens.ts';
import { buildSystemPrompt, type PromptParts } from '../agent/prompt.ts';
import { RequestBroker } from '../agent/requests.ts';
import type { AgentEvent, AgentTool, TurnResult } from '../agent/types.ts';
import { systemMessageFor } from './personality.ts';
import {
  createLlmClient,
  estimateCostUsd,
  resolveAuxiliaryRuntime,
  resolveFallbackRuntimes,
  resolveRuntime,
  type LlmClient,
  type ProviderRuntime,
  type ResolveInput,
} from '../llm/index.ts';
import { addUsage, emptyUsage, type Message, type StreamFn, type Usage } from '../llm/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { resolvableProviders } from '../state/endpoints.ts';
import { paths } from '../state/paths.ts';
import { SessionDB } from '../state/db.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { runSessionCleanup } from '../tools/cleanup.ts';
import { callToolFrom, type ToolRegistry } from '../tools/registry.ts';
import { resolveToolsetNames } from '../tools/toolsets.ts';
import type { AuxiliaryModel, ChildResult, ChildSpec, ToolServices } from '../tools/types.ts';
import { SessionState } from './session-state.ts';

/** Persistence for sessions (the SessionDB implements it). */
export interface SessionStore {
  createSession(meta: { id: string; source: string; model: string; systemPrompt: string; parentId?: string; cwd?: string }): void;
  appendMessage(sessionId: string, message: Message): void;
  recordUsage(sessionId: string, r: TurnResult, model: string, provider: string): void;
  endSession?(sessionId: string, reason: string): void;
}

export interface ExplicitChoices {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  apiMode?: string;
  toolsets?: string[];
  maxTurns?: number | null;
  yolo?: boolean;
}

export interface SessionOptions {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** cli | telegram | acp | cron | … (tool and prompt behaviour) */
  platform: string;
  /** Session source tag in state.db (default: platform). */
  source?: string;
  /** Someone can answer approval/clarify requests. */
  interactive: boolean;
  explicit?: ExplicitChoices;
  sessionId?: string;
  /** A restored conversation (without the system prompt). */
  history?: Message[];
  /** A restored session's frozen system prompt. */
  systemPrompt?: string;
  llm?: LlmClient;
  registry?: ToolRegistry;
  store?: SessionStore;
  /** Names that came from HERMES_HOME/.env (kept out of child processes). */
  dotenvNames?: string[];
  /** Extra prompt parts (memory, skills, project context) supplied by higher layers. */
  promptParts?: Partial<PromptParts>;
  now?: () => number;
  /** Leave out AGENTS.md / .hermes.md / CLAUDE.md / .cursorrules (--ignore-rules). */
  ignoreRules?: boolean;
  /** Put the session id in the system prompt (--pass-session-id). */
  passSessionId?: boolean;
  /** Auxiliary model per task (compression, title_generation, background_review); default from config. */
  auxStream?: (task: string) => StreamFn | null;
  /** Titles and the background self-review run after turns (default true; off for one-shot runs). */
  backgroundTasks?: boolean;
  /** The context window to compress against (default: model table / provider / model.context_length). */
  contextLength?: number;
  /** Copy the package's bundled skills into HERMES_HOME/skills (default true). */
  seedBundledSkills?: boolean;
  /** Subagent depth (0 = top level). */
  depth?: number;
  /** Exactly these tools (subagents), instead of toolsets from config/flags. */
  toolNames?: string[];
  /** The delegating session, for subagents (state.db parent_session_id). */
  parentSessionId?: string;
  /** Surface services for tools (the gateway's `origin` chat and delivery router). */
  services?: Pick<ToolServices, 'origin' | 'messaging'>;
}

export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}_${randomBytes(3).toString('hex')}`;
}

export function resolveInputFrom(config: HermesConfig, env: NodeJS.ProcessEnv, explicit: ExplicitChoices = {}): ResolveInput {
  return {
    model: config.model,
    providers: resolvableProviders(config),
    explicit: { provider: explicit.provider, model: explicit.model, baseUrl: explicit.baseUrl, apiKey: explicit.apiKey, apiMode: explicit.apiMode },
    env,
  };
}

/** Builds the resilient LLM client for a config: primary runtime + fallback chain. */
export function createClientFor(config: HermesConfig, env: NodeJS.ProcessEnv, explicit: ExplicitChoices = {}): { llm: LlmClient; warnings: string[] } {
  const input = resolveInputFrom(config, env, explicit);
  const primary = resolveRuntime(input);
  const fb = resolveFallbackRuntimes(config.fallback_providers ?? [], input);
  const timeoutS = Number(env.HERMES_API_TIMEOUT);
  const staleS = Number(env.HERMES_STREAM_STALE_TIMEOUT);
  const llm = createLlmClient({
    primary,
    fallbacks: fb.runtimes,
    maxRetries: config.agent.api_max_retries ?? 3,
    timeoutMs: Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS * 1000 : undefined,
    staleMs: Number.isFinite(staleS) && staleS > 0 ? staleS * 1000 : undefined,
  });
  const warnings = fb.skipped.map((s) => `Fallback provider "${s.entry.provider ?? "?"}" skipped: ${s.reason}`);
  return { llm, warnings };
}

type Listener = (e: AgentEvent) => void;

/** Per-session display and input preferences, initialised from config and changed by slash commands. */
export interface SessionPrefs {
  toolProgress: 'off' | 'new' | 'all' | 'verbose';
  showReasoning: boolean;
  busyInputMode: 'interrupt' | 'queue' | 'steer';
}

export interface SessionTotals {
  usage: Usage;
  costUsd: number | null;
  apiCalls: number;
  turns: number;
}

export class Session {
  private _id: string;
  readonly history: Message[];
  readonly options: SessionOptions;
  readonly broker: RequestBroker;
  readonly services: ToolServices;
  readonly registry: ToolRegistry;
  llm: LlmClient;
  tools: AgentTool[];
  system: string;
  /** Warnings from set-up (skipped fallbacks, …) for the surface to show. */
  readonly warnings: string[] = [];
  prefs: SessionPrefs;
  totals: SessionTotals = { usage: emptyUsage(), costUsd: null, apiCalls: 0, turns: 0 };
  /** The last turn's result. */
  lastResult: TurnResult | null = null;
  /** Memory, skills, compression, titles, self-review. */
  readonly state: SessionState;

  private listeners = new Set<Listener>();
  private running: AbortController | null = null;
  private steerText: string[] = [];
  private queued: string[] = [];
  private started = false;

  constructor(o: SessionOptions) {
    this.options = o;
    this._id = o.sessionId ?? newSessionId();
    const d = o.config.display ?? {};
    this.prefs = {
      toolProgress: (['off', 'new', 'all', 'verbose'].includes(d.tool_progress) ? d.tool_progress : 'all') as SessionPrefs['toolProgress'],
      showReasoning: d.show_reasoning !== false,
      busyInputMode: (['interrupt', 'queue', 'steer'].includes(d.busy_input_mode) ? d.busy_input_mode : 'interrupt') as SessionPrefs['busyInputMode'],
    };
    this.history = o.history ? [...o.history] : [];
    this.broker = new RequestBroker((e) => this.dispatch(e), {
      interactive: o.interactive,
      timeoutMs: (o.config.approvals?.timeout ?? 300) * 1000,
    });
    if (o.llm) this.llm = o.llm;
    else {
      const c = createClientFor(o.config, o.env, o.explicit);
      this.llm = c.llm;
      this.warnings.push(...c.warnings);
    }
    this.registry = o.registry ?? builtinRegistry();
    const state = new Map<string, unknown>();
    if (o.dotenvNames) state.set('dotenv_names', o.dotenvNames);
    this.services = {
      home: o.home,
      config: o.config,
      env: o.env,
      cwd: o.cwd,
      platform: o.platform,
      sessionId: this.id,
      taskId: this.id,
      state,
      yolo: !!o.explicit?.yolo || isTruthy(o.env.HERMES_YOLO_MODE) || o.config.approvals?.mode === 'off',
      depth: o.depth ?? 0,
      callTool: (name, args, ctx) => callToolFrom(this.tools, name, args, ctx),
      spawnChild: (spec) => this.spawnChild(spec),
      auxiliary: (task) => this.auxiliaryModel(task),
      ...o.services,
    };
    if (o.store instanceof SessionDB) this.services.sessionDb = o.store;
    this.state = new SessionState(this);
    if (this.state.memory) this.services.memory = this.state.memory;
    this.listeners.add((e) => this.state.onEvent(e));
    this.tools = this.buildTools();
    this.system = o.systemPrompt ?? this.buildSystem();
  }

  private buildTools(): AgentTool[] {
    const o = this.options;
    if (o.toolNames) return this.registry.build(o.toolNames, this.services, []);
    const requested = o.explicit?.toolsets?.length ? o.explicit.toolsets : (o.config.toolsets ?? ['hermes-cli']);
    return [...this.registry.build(requested, this.services, o.config.agent.disabled_toolsets ?? []), ...this.state.extraTools()];
  }

  private buildSystem(): string {
    const o = this.options;
    const soul = paths.soul(o.home);
    const identity = existsSync(soul) ? readFileSync(soul, 'utf8').slice(0, 20_000) : undefined;
    return buildSystemPrompt({
      identity,
      systemMessage: systemMessageFor(o.config),
      now: new Date(o.now?.() ?? Date.now()),
      timezone: o.config.timezone || o.env.HERMES_TIMEZONE || undefined,
      localZoneName: o.env.TZ || undefined,
      platform: o.platform,
      model: this.llm.active.model,
      provider: this.llm.active.provider,
      ...this.state.promptParts(this.tools),
      ...o.promptParts,
    });
  }

  /** Emits an event to the session's listeners (used by the state runtime). */
  emit(e: AgentEvent): void {
    this.dispatch(e);
  }

  /** Continues under another session id (compression rotation). The task id (terminals, processes) stays. */
  adoptId(id: string): void {
    this._id = id;
    this.services.sessionId = id;
  }

  newId(): string {
    return newSessionId();
  }

  /** Compresses the conversation now (/compress). Returns what happened, for the person. */
  async compress(focus?: string): Promise<string> {
    if (this.running) return 'Wait for the current turn to finish, or /stop it first.';
    if (this.history.length < 4) return 'The conversation is too short to compress.';
    return this.state.runCompression(this.history, { force: true, focus: focus || undefined, quiet: true });
  }

  /** Waits for background work (title generation, self-review) to finish. */
  idle(): Promise<void> {
    return this.state.idle();
  }

  get id(): string {
    return this._id;
  }

  /** Whether this session has started (its first turn ran, so it exists in the store). */
  get persisted(): boolean {
    return this.started;
  }

  /**
   * Starts a fresh session in place (/new): the old one is ended in the store, the history is
   * cleared, a new id is taken and the system prompt is rebuilt (memory snapshots refresh).
   */
  reset(reason = 'new_session'): void {
    if (this.running) this.interrupt();
    if (this.started) this.options.store?.endSession?.(this._id, reason);
    this.state.onReset([...this.history]);
    this._id = newSessionId();
    this.services.sessionId = this._id;
    this.services.taskId = this._id;
    this.services.state.delete('todo');
    this.history.splice(0);
    this.started = false;
    this.queued = [];
    this.steerText = [];
    this.totals = { usage: emptyUsage(), costUsd: null, apiCalls: 0, turns: 0 };
    this.lastResult = null;
    this.system = this.buildSystem();
  }

  /**
   * Continues a stored session in place (/resume): the current one ends, the stored conversation and
   * its frozen system prompt come back, and new messages are appended to that session.
   */
  restore(r: { id: string; history: Message[]; systemPrompt?: string | null }): void {
    if (this.running) this.interrupt();
    if (this.started && r.id !== this._id) this.options.store?.endSession?.(this._id, 'resumed_other');
    this.state.onReset([...this.history]);
    this._id = r.id;
    this.services.sessionId = r.id;
    this.services.taskId = r.id;
    this.services.state.delete('todo');
    this.history.splice(0, this.history.length, ...r.history);
    this.started = false;
    this.queued = [];
    this.steerText = [];
    this.totals = { usage: emptyUsage(), costUsd: null, apiCalls: 0, turns: 0 };
    this.lastResult = null;
    this.system = r.systemPrompt || this.buildSystem();
    this.state.markTitled(true);
  }

  /** Rebuilds the tool list (after enabling/disabling tools or toolsets). */
  rebuildTools(toolsets?: string[], disabled?: string[]): void {
    if (toolsets) this.options.explicit = { ...this.options.explicit, toolsets };
    if (disabled) this.options.config.agent.disabled_toolsets = disabled;
    this.tools = this.buildTools();
  }

  /** Rebuilds the system prompt from the current settings (after /personality). The prompt cache starts cold. */
  refreshSystemPrompt(): void {
    this.system = this.buildSystem();
  }

  get runtime(): ProviderRuntime {
    return this.llm.active;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private dispatch(e: AgentEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a broken listener must not break the loop */
      }
    }
  }

  /** Answers an open approval/clarify/secret request. */
  answer(requestId: string, value: unknown): boolean {
    return this.broker.answer(requestId, value);
  }

  /** Stops the running turn: the request is aborted and running tools are cancelled. */
  interrupt(): void {
    this.running?.abort();
  }

  /** Text for the model mid-turn, appended to the next tool result (no new user turn). */
  steer(text: string): void {
    this.steerText.push(text);
  }

  /** A prompt to run after the current turn. */
  queue(text: string): void {
    this.queued.push(text);
  }

  get queuedPrompts(): readonly string[] {
    return this.queued;
  }

  /** Replace the whole conversation (e.g. after /new or compression). */
  resetHistory(messages: Message[] = []): void {
    this.history.splice(0, this.history.length, ...messages);
  }

  /** Switches provider/model for the rest of the session. Rebuilds nothing else. */
  switchModel(explicit: ExplicitChoices): void {
    const c = createClientFor(this.options.config, this.options.env, { ...this.options.explicit, ...explicit });
    this.llm = c.llm;
    this.options.explicit = { ...this.options.explicit, ...explicit };
  }

  /** Runs one user turn to completion, then any prompts queued meanwhile. */
  async prompt(input: string | Message, opts: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    if (this.running) throw new Error('A turn is already running: interrupt it, steer it, or queue the prompt.');
    let result = await this.runOne(typeof input === 'string' ? { role: 'user', content: input } : input, opts.signal);
    while (this.queued.length && !result.interrupted) {
      const next = this.queued.shift()!;
      result = await this.runOne({ role: 'user', content: next }, opts.signal);
    }
    return result;
  }

  private async runOne(user: Message, outer?: AbortSignal): Promise<TurnResult> {
    const o = this.options;
    const ac = new AbortController();
    const onOuter = () => ac.abort();
    outer?.addEventListener('abort', onOuter, { once: true });
    this.running = ac;
    this.llm.beginTurn();
    if (!this.started) {
      this.started = true;
      this.persist(() =>
        o.store?.createSession({ id: this.id, source: o.source ?? o.platform, model: this.llm.active.model, systemPrompt: this.system, cwd: o.cwd, parentId: o.parentSessionId }),
      );
    }
    const maxTurns = o.explicit?.maxTurns !== undefined ? o.explicit.maxTurns : parseMaxTurns(o.env.HERMES_MAX_ITERATIONS ?? o.config.agent.max_turns, 90);
    try {
      const loopOptions = (): LoopOptions => ({
        history: this.history,
        system: this.system,
        tools: this.tools,
        stream: (req) => this.llm.stream(req),
        model: () => this.llm.active.model,
        broker: this.broker,
        budget: new IterationBudget(maxTurns),
        signal: ac.signal,
        emit: (e) => this.dispatch(e),
        sink: o.store ? { append: (m) => this.persist(() => o.store!.appendMessage(this.id, m)) } : undefined,
        beforeRequest: (history) => this.state.beforeRequest(history),
        now: o.now,
        takeSteer: () => {
          if (!this.steerText.length) return undefined;
          const t = this.steerText.join('\n');
          this.steerText = [];
          return t;
        },
        guardrails: o.config.tool_loop_guardrails,
        request: {
          reasoningEffort: o.config.agent.reasoning_effort || undefined,
          cacheTtl: cacheTtlFor(o.config.prompt_caching?.cache_ttl, o.platform),
          sessionId: this.id,
        },
        ephemeralSystem: o.env.HERMES_EPHEMERAL_SYSTEM_PROMPT || undefined,
        prefill: loadPrefill(o.env.HERMES_PREFILL_MESSAGES_FILE || o.config.prefill_messages_file, o.cwd),
        costOf: (model, provider, usage) => estimateCostUsd(model, provider, usage),
        spill: async (callId, content) => spillResult(callId, content),
      });
      let result = await runTurn(user, loopOptions());
      // The provider says the prompt is too long: compress (summary forced) and carry on, a bounded number of times.
      const maxAttempts = Number(o.config.compression?.max_attempts ?? 3);
      for (let i = 0; i < maxAttempts && result.failed && result.error?.kind === 'context_length' && o.config.compression?.enabled !== false; i++) {
        const before = estimateMessagesTokens(this.history);
        await this.state.runCompression(this.history, { force: true });
        if (estimateMessagesTokens(this.history) >= before) break;
        const next = await runTurn(null, loopOptions());
        result = {
          ...next,
          apiCalls: result.apiCalls + next.apiCalls,
          iterations: result.iterations + next.iterations,
          usage: addUsage(result.usage, next.usage),
          costUsd: result.costUsd === null && next.costUsd === null ? null : (result.costUsd ?? 0) + (next.costUsd ?? 0),
          messages: [...result.messages, ...next.messages],
        };
      }
      this.persist(() => o.store?.recordUsage(this.id, result, this.llm.active.model, this.llm.active.provider));
      this.lastResult = result;
      this.state.afterTurn(user, result);
      this.totals = {
        usage: addUsage(this.totals.usage, result.usage),
        costUsd: result.costUsd === null ? this.totals.costUsd : (this.totals.costUsd ?? 0) + result.costUsd,
        apiCalls: this.totals.apiCalls + result.apiCalls,
        turns: this.totals.turns + 1,
      };
      // Steering text that arrived after the last tool call becomes the next prompt.
      if (this.steerText.length && !result.interrupted) {
        this.queued.unshift(this.steerText.join('\n'));
        this.steerText = [];
      }
      return result;
    } finally {
      outer?.removeEventListener('abort', onOuter);
      this.running = null;
    }
  }

  private persistWarned = false;

  /** A store write that must not break the conversation: a failure is reported once, then the turn goes on. */
  private persist(write: () => void): void {
    try {
      write();
    } catch (e) {
      if (this.persistWarned) return;
      this.persistWarned = true;
      this.dispatch({ type: 'warning', message: `Could not save to the session store (${(e as Error).message}); the conversation goes on, but it may be incomplete in state.db.` });
    }
  }

  /** The model for an auxiliary task (`auxiliary.<task>` in config; default: the main model). */
  private auxiliaryModel(task: string): AuxiliaryModel | null {
    const o = this.options;
    const cfg = (o.config.auxiliary ?? {})[task];
    let rt: ProviderRuntime | null;
    try {
      rt = resolveAuxiliaryRuntime(task, cfg, this.llm.active, resolveInputFrom(o.config, o.env, o.explicit));
    } catch {
      return null;
    }
    if (!rt) return null;
    const client = createLlmClient({ primary: rt, maxRetries: 2, timeoutMs: (Number(cfg?.timeout) || 120) * 1000 });
    return { stream: (req) => client.stream(req), model: rt.model, provider: rt.provider };
  }

  /**
   * A subagent (delegate_task): a child session with its own budget, the given system prompt, and
   * the parent's tools narrowed to the requested toolsets minus the blocked ones.
   */
  private async spawnChild(spec: ChildSpec): Promise<ChildResult> {
    const o = this.options;
    const parentNames = new Set(this.tools.map((t) => t.name));
    let wanted: Set<string> = parentNames;
    if (spec.toolsets?.length) {
      try {
        wanted = resolveToolsetNames(spec.toolsets, [], this.registry.toolsets(), o.config.custom_toolsets ?? {});
      } catch (e) {
        return { status: 'failed', summary: '', apiCalls: 0, iterations: 0, error: (e as Error).message, toolTrace: [] };
      }
    }
    const names = [...wanted].filter((n) => parentNames.has(n) && !spec.blockedTools.includes(n));
    const d = (o.config.delegation ?? {}) as unknown as Record<string, string | undefined>;
    const override = !!(d.model || d.provider || d.base_url);
    const explicit: ExplicitChoices = { ...o.explicit, toolsets: undefined, maxTurns: spec.maxIterations, yolo: this.services.yolo };
    if (override) Object.assign(explicit, { provider: d.provider || undefined, model: d.model || undefined, baseUrl: d.base_url || undefined, apiKey: d.api_key || undefined });
    const child = new Session({
      home: o.home,
      config: o.config,
      env: o.env,
      cwd: o.cwd,
      platform: 'subagent',
      source: 'subagent',
      interactive: false,
      explicit,
      llm: o.llm && !override ? this.llm : undefined,
      registry: this.registry,
      store: o.store,
      dotenvNames: o.dotenvNames,
      systemPrompt: spec.systemPrompt,
      now: o.now,
      depth: (this.services.depth ?? 0) + 1,
      toolNames: names,
      parentSessionId: this.id,
    });
    const trace: string[] = [];
    const off = child.on((e) => {
      if (e.type === 'tool_start') trace.push(e.name);
      spec.onEvent?.(e);
    });
    try {
      const r = await child.prompt(spec.goal, { signal: spec.signal });
      const status = r.interrupted ? 'interrupted' : r.failed ? 'failed' : r.partial ? 'partial' : 'completed';
      return { status, summary: r.finalText, apiCalls: r.apiCalls, iterations: r.iterations, error: r.error?.message, toolTrace: trace };
    } finally {
      off();
      await child.close('subagent_done');
    }
  }

  /** Ends the session; background processes and execution backends of its tools are released. */
  close(reason = 'closed'): Promise<void> {
    this.interrupt();
    this.broker.cancelAll();
    if (this.started) this.options.store?.endSession?.(this.id, reason);
    this.state.onClose(this.services);
    return runSessionCleanup(this.services);
  }
}

function isTruthy(v: string | undefined): boolean {
  return !!v && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
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
