// The session runtime: everything a surface needs to hold a conversation. Every surface (one-shot
// CLI, REPL, gateway chat, ACP, API server, cron) builds one of these and drives the same loop.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { buildSystemPrompt, type PromptParts } from '../agent/prompt.ts';
import type { CompressionSettings } from '../agent/compress.ts';
import type { MemoryManager } from '../state/memory-provider.ts';
import type { AuxModel } from './state-host.ts';
import { RequestBroker } from '../agent/requests.ts';
import { formatsFor, PARSER_SETTINGS } from '../agent/textcalls/index.ts';
import type { AgentEvent, AgentTool, TurnResult } from '../agent/types.ts';
import { systemMessageFor } from './personality.ts';
import { checkpointConfig, Checkpointer, storeFor, withCheckpoints } from './checkpointing.ts';
import { isLocalUrl, type LlmClient, type ProviderRuntime } from '../llm/index.ts';
import { budgetStatusLines, dayTotalsFor, readBudgets, SpendScope, spendMeter, type MeterHost } from './budgets.ts';
import { addUsage, emptyUsage, type Message } from '../llm/types.ts';
import { StoreWrites } from './store-writes.ts';
import { paths } from '../state/paths.ts';
import { Slots } from '../state/slots.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { runSessionCleanup } from '../tools/cleanup.ts';
import { dotenvNamesSlot } from '../tools/env/settings.ts';
import { callToolFrom, type ToolRegistry } from '../tools/registry.ts';
import { toolSearchTool } from '../tools/defs/tool-search.ts';
import { todoSlot } from '../tools/defs/todo.ts';
import { deferredToolsets } from '../tools/toolsets.ts';
import { ToolLoader } from './tool-loader.ts';
import type { ToolServices } from '../tools/types.ts';
import { Inbox } from './inbox.ts';
import { hintNames, SubdirHints, withHints } from './subdir-hints.ts';
import { ruleFileNames } from '../state/context-files.ts';
import { SessionState } from './session-state.ts';
import { sessionEventLogger } from './event-log.ts';
import { LoopRunner } from '../runners/loop.ts';
import { runnerKindFor } from '../runners/select.ts';
import type { RunnerKind, TurnRunner } from '../runners/types.ts';
import { sessionPlugins, type SessionPlugins } from './session-plugins.ts';
import { runSubagent } from './session-subagent.ts';
import { watchDelegations } from './delegations.ts';
import { auxiliaryModelFor, clientForSession, createClientFor } from './session-client.ts';
import { prefsFrom, SessionSettings } from './session-settings.ts';
import type { ExplicitChoices, SessionInfo, SessionOptions, SessionPrefs, SessionTotals, SessionWriter } from './session-types.ts';
import { configSetting } from '../state/config-env.ts';
import { partsHostFor, sessionInfo, type PartsHost } from './session-host.ts';

export type { ExplicitChoices, SessionInfo, SessionOptions, SessionPrefs, SessionStore, SessionTotals, SessionWriter } from './session-types.ts';
export { createClientFor, resolveInputFrom } from './session-client.ts';

export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}_${randomBytes(3).toString('hex')}`;
}

type Listener = (e: AgentEvent) => void;

function emptyTotals(): SessionTotals {
  return { usage: emptyUsage(), costUsd: null, apiCalls: 0, turns: 0, subagents: { runs: 0, usage: emptyUsage(), costUsd: null, apiCalls: 0 } };
}

const addCost = (a: number | null, b: number | null | undefined): number | null => (b === null || b === undefined ? a : (a ?? 0) + b);

export class Session {
  private _id: string;
  readonly history: Message[];
  /** What the surface passed, with this session's own config (settings.config). Internal: surfaces read `info` and `settings`. */
  private readonly options: SessionOptions;
  /** Who and where this session is (id, home, cwd, platform, env, store …), read-only. */
  readonly info: SessionInfo;
  readonly broker: RequestBroker;
  readonly services: ToolServices;
  readonly registry: ToolRegistry;
  llm: LlmClient;
  tools: AgentTool[];
  system: string;
  /** Warnings from set-up (skipped fallbacks, …) for the surface to show. */
  readonly warnings: string[] = [];
  /** This session's own settings: its copy of the config and its display/input preferences (the surface's config is never written). */
  readonly settings: SessionSettings;
  totals: SessionTotals = emptyTotals();
  /** Background work reporting back (processes, subagents): each notice becomes a user turn. */
  readonly inbox = new Inbox();
  /** The last turn's result. */
  lastResult: TurnResult | null = null;
  /** Memory, skills, compression, titles, self-review (the parts in session-*.ts). Internal: surfaces use the ports. */
  private readonly state: SessionState;
  /** Plugin tools, hooks and prompt sections (null when no plugin host was loaded for this home). */
  readonly plugins: SessionPlugins | null;

  /** Spend caps (config.yaml budgets:) and what this conversation spent against them. */
  readonly spend: MeterHost;

  /** Snapshots before destructive edits (checkpoints.enabled / --checkpoints), for /rollback. */
  checkpointer: Checkpointer | null = null;

  private listeners = new Set<Listener>();
  /** Sub-directory rule files found while the conversation works (null with --ignore-rules). */
  private hints: SubdirHints | null = null;
  /** Deferred toolsets, loaded on demand by tool_search. */
  private readonly loader = new ToolLoader(() => this.tools);
  /** The toolsets this session keeps behind tool_search (its subagents inherit them). */
  private lazy = new Set<string>();
  private running: AbortController | null = null;
  private runner: TurnRunner | null = null;
  private steerText: string[] = [];
  private queued: string[] = [];
  private started = false;
  private localPrepared = false;

  constructor(o: SessionOptions) {
    this._id = o.sessionId ?? newSessionId();
    this.settings = new SessionSettings(o.config, prefsFrom(o.config));
    this.options = { ...o, config: this.settings.config };
    o = this.options;
    this.info = sessionInfo(this, o);
    this.history = o.history ? [...o.history] : [];
    this.broker = new RequestBroker((e) => this.dispatch(e), {
      interactive: o.interactive,
      timeoutMs: (o.config.approvals?.timeout ?? 300) * 1000,
    });
    if (o.llm) this.llm = o.llm;
    else {
      const c = clientForSession(o.config, o.env, o.explicit, o.home);
      this.llm = c.llm;
      this.warnings.push(...c.warnings);
    }
    const budgets = readBudgets(o.config);
    if (!o.depth) this.warnings.push(...budgets.warnings);
    const kanbanTask = o.env.HERMES_KANBAN_TASK?.trim();
    this.spend = {
      home: o.home,
      budgets: budgets.budgets,
      scope: o.spend?.scope ?? new SpendScope(),
      sessionId: o.spend?.sessionId ?? (() => this.id),
      job: o.spend ? o.spend.job : o.job ? `${o.job.kind}:${o.job.id}` : kanbanTask ? `kanban:${kanbanTask}` : undefined,
      ask: (req) => this.broker.ask(req, this.running?.signal),
      emit: (e) => this.dispatch(e),
      day: dayTotalsFor(o.home),
      now: o.now,
    };
    this.llm.meter ??= spendMeter(this.spend, o.depth ? 'subagent' : 'main');
    const parser = o.config.model?.tool_call_parser;
    if (parser !== undefined && formatsFor(String(parser)) === null) {
      this.warnings.push(`model.tool_call_parser: unknown parser "${String(parser)}" (use ${PARSER_SETTINGS.join(', ')}); using auto.`);
    }
    this.registry = o.registry ?? builtinRegistry();
    const slots = new Slots();
    if (o.dotenvNames) slots.set(dotenvNamesSlot, o.dotenvNames);
    this.services = {
      home: o.home,
      config: o.config,
      env: o.env,
      cwd: o.cwd,
      platform: o.platform,
      sessionId: this.id,
      taskId: this.id,
      slots,
      yolo: !!o.explicit?.yolo || isTruthy(o.env.HERMES_YOLO_MODE) || o.config.approvals?.mode === 'off',
      depth: o.depth ?? 0,
      callTool: (name, args, ctx) => callToolFrom([...this.tools, ...this.loader.deferred], name, args, ctx),
      toolCatalog: this.loader,
      spawnChild: (spec) =>
        runSubagent(
          { id: this.id, options: this.options, tools: [...this.tools, ...this.loader.deferred], registry: this.registry, services: this.services, llm: this.llm, lazy: this.lazy, spend: this.spend, plugins: this.plugins, memory: this.state.memory },
          { addUsage: (t) => this.addSubagentUsage(t), newSession: (so) => new Session(so) },
          spec,
        ),
      auxiliary: (task) => auxiliaryModelFor(this.options, this.llm, this.spend, this.plugins, task),
      canAsk: () => this.broker.interactive,
      notifier: this.inbox.channel(),
      messaging: o.ports?.messaging?.(o.env, o.config),
      cron: o.ports?.cron,
      ...o.services,
    };
    if (o.store) this.services.sessionDb = o.store;
    // Finished background delegations owed to this conversation come in when a surface listens.
    if (!o.depth) watchDelegations(this.inbox, this.services);
    this.state = new SessionState(this.partsHost());
    if (this.state.memory) this.services.memory = this.state.memory;
    this.listeners.add((e) => this.state.onEvent(e));
    const logger = (o.depth ?? 0) === 0 ? sessionEventLogger(o.home, o.config, () => this.id) : null;
    if (logger) this.listeners.add(logger);
    this.hints = this.newHints();
    this.plugins = sessionPlugins(this.partsHost());
    if (this.plugins) {
      this.plugins.registerTools(this.registry);
      if (this.plugins.observes) this.listeners.add((e) => this.plugins!.onEvent(e));
    }
    if (checkpointConfig(o.config).enabled) this.checkpointer = new Checkpointer(storeFor(o.home, o.config));
    this.tools = this.buildTools();
    this.system = o.systemPrompt ?? this.buildSystem();
  }

  /** What the session's own parts (SessionState, plugins, the loop runner) see of it: more than the façade shows. */
  private partsHost(): PartsHost {
    return partsHostFor(this, {
      options: () => this.options,
      state: () => this.state,
      emit: (e) => this.dispatch(e),
    });
  }

  private newHints(): SubdirHints | null {
    if (this.state.ignoreRules || this.options.ignoreProjectRules) return null;
    const own = (this.options.config.agent as { subdirectory_hermes_md?: boolean }).subdirectory_hermes_md;
    return new SubdirHints(this.options.cwd, hintNames(ruleFileNames(this.options.env), own !== false));
  }

  private buildTools(): AgentTool[] {
    const o = this.options;
    const hinted = (tools: AgentTool[]) => tools.map((t) => withCheckpoints(withHints(this.plugins ? this.plugins.wrapTool(t) : t, () => this.hints), () => this.checkpointer, () => this.services.cwd));
    const requested = o.explicit?.toolsets?.length ? o.explicit.toolsets : (o.config.toolsets ?? ['hermes-cli']);
    const built = o.toolNames ? hinted(this.registry.build(o.toolNames, this.services, [])) : hinted([...this.registry.build(requested, this.services, o.config.agent.disabled_toolsets ?? []), ...this.state.extraTools()]);
    const search = (o.config as { tool_search?: { enabled?: boolean } }).tool_search;
    const custom = o.config.custom_toolsets ?? {};
    this.lazy = search?.enabled === false ? new Set() : o.toolNames ? new Set(o.deferredToolsets) : deferredToolsets(requested, this.registry.toolsets(), custom, o.platform);
    // Lean mode (a small window): only the smallest useful toolset is sent; the rest waits behind tool_search.
    if (this.state.local?.lean && search?.enabled !== false && !o.toolNames) this.lazy = this.state.local.deferred(built, o.platform);
    return this.loader.arrange(built, this.lazy, (entries) => this.registry.bind(toolSearchTool(entries), this.services));
  }

  /** A deferred tool the model called by name, loaded (the loop asks before reporting an unknown tool). */
  loadTool(name: string): AgentTool | undefined {
    return this.loader.get(name);
  }

  private buildSystem(): string {
    const o = this.options;
    const soul = paths.soul(o.home);
    // HERMES_MD_NAMES without SOUL.md: the default identity.
    const identity = ruleFileNames(o.env).includes('SOUL.md') && existsSync(soul) ? readFileSync(soul, 'utf8').slice(0, 20_000) : undefined;
    return buildSystemPrompt({
      identity,
      systemMessage: systemMessageFor(o.config),
      now: new Date(o.now?.() ?? Date.now()),
      timezone: (configSetting(o.config, 'timezone', o.env) as string) || undefined,
      localZoneName: o.env.TZ || undefined,
      platform: o.platform,
      model: this.llm.active.model,
      provider: this.llm.active.provider,
      ...this.state.leanParts(this.state.promptParts([...this.tools, ...this.loader.deferred])),
      ...o.promptParts,
      pluginSections: this.plugins?.sections({ session_id: this.id, model: this.llm.active.model, provider: this.llm.active.provider, platform: o.platform, cwd: o.cwd }),
    });
  }

  /** Emits an event to the session's listeners (used by the state runtime). */
  emit(e: AgentEvent): void {
    this.dispatch(e);
  }

  /** The budgets and what was spent against them (this conversation, this job, today), one line each; [] without budgets. */
  budgetStatus(): string[] {
    return budgetStatusLines(this.spend);
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
  async compress(focus?: string, opts: { keepLastMessages?: number } = {}): Promise<string> {
    if (this.running) return 'Wait for the current turn to finish, or /stop it first.';
    if (this.runnerKind === 'codex_app_server') {
      const runner = await this.turnRunner();
      if (runner.compact) return runner.compact();
    }
    if (this.history.length < 4) return 'The conversation is too short to compress.';
    const settings = opts.keepLastMessages !== undefined ? { protectLastN: opts.keepLastMessages, targetRatio: 0 } : undefined;
    return this.state.runCompression(this.history, { force: true, focus: focus || undefined, quiet: true, settings });
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
    if (this.started) this.persist(() => this.writer?.endSession(this._id, reason));
    this.state.onReset([...this.history]);
    const oldId = this._id;
    this._id = newSessionId();
    this.plugins?.reset(reason, oldId, this._id);
    this.services.notifier = this.inbox.newConversation();
    this.services.sessionId = this._id;
    this.services.taskId = this._id;
    this.services.slots.delete(todoSlot);
    this.history.splice(0);
    this.hints = this.newHints();
    this.started = false;
    this.queued = [];
    this.steerText = [];
    this.totals = emptyTotals();
    this.lastResult = null;
    this.system = this.buildSystem();
    this.runner?.switchConversation?.();
  }

  /**
   * Continues a stored session in place (/resume): the current one ends, the stored conversation and
   * its frozen system prompt come back, and new messages are appended to that session.
   */
  restore(r: { id: string; history: Message[]; systemPrompt?: string | null }): void {
    if (this.running) this.interrupt();
    if (this.started && r.id !== this._id) this.persist(() => this.writer?.endSession(this._id, 'resumed_other'));
    this.state.onReset([...this.history]);
    this._id = r.id;
    this.services.notifier = this.inbox.newConversation();
    this.services.sessionId = r.id;
    this.services.taskId = r.id;
    this.services.slots.delete(todoSlot);
    this.history.splice(0, this.history.length, ...r.history);
    this.hints = this.newHints();
    this.started = false;
    this.queued = [];
    this.steerText = [];
    this.totals = emptyTotals();
    this.lastResult = null;
    this.system = r.systemPrompt || this.buildSystem();
    this.state.markTitled(true);
    this.runner?.switchConversation?.();
  }

  /** Rebuilds the tool list (after enabling/disabling tools or toolsets). */
  rebuildTools(toolsets?: string[], disabled?: string[]): void {
    if (toolsets) this.options.explicit = { ...this.options.explicit, toolsets };
    if (disabled) this.settings.set('agent.disabled_toolsets', disabled);
    this.tools = this.buildTools();
  }

  /** Rebuilds the system prompt from the current settings (after /personality). The prompt cache starts cold. */
  refreshSystemPrompt(): void {
    this.system = this.buildSystem();
  }

  // -------------------------------------------------------------------------------------------
  // ports: what surfaces and slash commands use of the session's parts (never session.state)

  /** The session's memory (MEMORY.md / USER.md and memory.provider), or null with memory off. */
  get memory(): MemoryManager | null {
    return this.state.memory;
  }

  /** Compaction as surfaces see it: passes that summarized turns (Hermes's compression_count) and the settings in force. */
  get compaction(): { readonly count: number; settings(): CompressionSettings; contextLength(): number } {
    const state = this.state;
    return {
      get count() {
        return state.compressions;
      },
      settings: () => state.compressionSettings(),
      contextLength: () => state.contextLength(),
    };
  }

  /** Drops the conversation from message `index` on (/retry, /undo, /rollback, a turn run again); the store is the caller's. */
  rewind(index: number): void {
    this.history.splice(index);
  }

  /** A message added between turns (a delivery mirrored into the chat); false, and nothing added, while a turn runs. */
  addNote(m: Message): boolean {
    if (this.running) return false;
    this.history.push(m);
    return true;
  }

  /** The working directory from the next turn on (a worktree, the CLI's directory): tools run there. */
  workIn(cwd: string): void {
    this.services.cwd = cwd;
    this.options.cwd = cwd;
  }

  /** A separate session with this one's options (its own settings included), the given ones over them (/background). */
  sibling(over: Partial<SessionOptions>): Session {
    return new Session({ ...this.options, ...over });
  }

  /** The model for an auxiliary task (`auxiliary.<task>` in config; default: the main model), or null. */
  auxiliary(task: string): AuxModel | null {
    return this.state.aux(task);
  }

  /** The background self-review, run now over a snapshot of the conversation (/learn); what it saved. */
  review(snapshot: Message[], opts: { memory: boolean; skills: boolean }): Promise<string[]> {
    return this.state.review(snapshot, opts.memory, opts.skills);
  }

  /** The person set the title (/title): none is generated. */
  keepTitle(): void {
    this.state.markTitled(true);
  }

  /** The parts of the system prompt from HERMES_HOME and the project, for this session's tools (hermes prompt-size). */
  promptParts(): Partial<PromptParts> {
    return this.state.promptParts(this.tools);
  }

  /** Display and input preferences (the settings' prefs). */
  get prefs(): SessionPrefs {
    return this.settings.prefs;
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
    if (this.running && !this.running.signal.aborted) this.plugins?.interrupted('user_stop');
    this.running?.abort();
  }

  /** Runs one of this session's tools outside a turn (a plugin's dispatch_tool). */
  callTool(name: string, args: Record<string, unknown>): Promise<import('../agent/types.ts').ToolOutcome> {
    const signal = this.running?.signal ?? new AbortController().signal;
    return callToolFrom(this.tools, name, args, { callId: `plugin_${randomBytes(4).toString('hex')}`, signal, ask: (req) => this.broker.ask(req, signal), progress: () => {} });
  }

  /** Text from outside the conversation (a plugin's inject_message): the next user turn. */
  inject(text: string): boolean {
    if (!this.inbox.listening) return false;
    this.inbox.notify({ kind: 'plugin', text, title: 'message from a plugin', id: `inject_${randomBytes(3).toString('hex')}` });
    return true;
  }

  /** Text for the model mid-turn, appended to the next tool result (no new user turn). */
  steer(text: string): void {
    if (this.running && this.runner?.steer?.(text)) return;
    this.steerText.push(text);
  }

  /** A title for the session when it is first saved (/new <name>). */
  pendingTitle: string | undefined;

  /** Images (data: URLs or http(s) URLs) sent with the next prompt (/image, /paste, --image). */
  readonly pendingImages: string[] = [];

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
    const c = createClientFor(this.options.config, this.options.env, { ...this.options.explicit, ...explicit }, this.options.home);
    this.llm = c.llm;
    this.llm.meter = spendMeter(this.spend, this.options.depth ? 'subagent' : 'main');
    this.options.explicit = { ...this.options.explicit, ...explicit };
    // The next turn asks the new endpoint what it serves (window, num_ctx, lean tools).
    this.localPrepared = false;
    if (this.state.local) {
      this.state.local = null;
      this.tools = this.buildTools();
    }
  }

  /** Runs one user turn to completion, then any prompts queued meanwhile. */
  async prompt(input: string | Message, opts: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    if (this.running) throw new Error('A turn is already running: interrupt it, steer it, or queue the prompt.');
    let first: Message = typeof input === 'string' ? { role: 'user', content: input } : input;
    if (typeof input === 'string' && this.pendingImages.length) {
      const images = this.pendingImages.splice(0);
      first = { role: 'user', content: [{ type: 'text', text: input }, ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))] };
    }
    let result = await this.runOne(first, opts.signal);
    // A pre_verify hook's nudge (after a turn that edited files) comes first, then queued prompts.
    for (let next: string | undefined; !result.interrupted && (next = (await this.plugins?.verifyNudge(result)) ?? this.queued.shift()) !== undefined; ) {
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
    if (!o.depth) this.spend.scope.beginTurn();
    const firstTurn = !this.started;
    // A resumed conversation's caps count what it spent before (the store's totals), once.
    if (firstTurn && !o.depth && !o.spend && this.spend.budgets && this.history.length && !this.spend.scope.baseline && this.services.sessionDb) {
      const id = this.id;
      const scope = this.spend.scope;
      scope.baseline = (async () => {
        try {
          const row = (await this.services.sessionDb?.getSession(id)) as { estimated_cost_usd?: number | null; input_tokens?: number; output_tokens?: number; cache_read_tokens?: number; cache_write_tokens?: number } | null | undefined;
          if (!row) return;
          scope.usd += row.estimated_cost_usd ?? 0;
          scope.tokens += (row.input_tokens ?? 0) + (row.output_tokens ?? 0) + (row.cache_read_tokens ?? 0) + (row.cache_write_tokens ?? 0);
        } catch {
          /* no baseline: the caps count from here */
        }
      })();
    }
    this.checkpointer?.newTurn();
    // memory.provider joins before the first turn: its tools and prompt block enter the session
    // before the system prompt is stored (a restored session keeps its frozen prompt).
    if (await this.state.loadMemoryProvider()) {
      this.tools = this.buildTools();
      if (!this.started && !o.systemPrompt) this.system = this.buildSystem();
    }
    // A local endpoint is asked what it serves before the first request (window, num_ctx, lean mode).
    if (!this.localPrepared) await this.prepareLocal();
    if (!this.started) {
      this.started = true;
      this.persist(() =>
        this.writer?.createSession({ id: this.id, source: o.source ?? o.platform, model: this.llm.active.model, systemPrompt: this.system, cwd: o.cwd, parentId: o.parentSessionId, title: this.pendingTitle }),
      );
      if (this.pendingTitle) this.state.markTitled(true);
      this.pendingTitle = undefined;
    }
    try {
      const runner = await this.turnRunner();
      const plugins = this.plugins;
      plugins?.activate();
      const hookContext = plugins ? await plugins.beforeTurn(user, firstTurn) : undefined;
      const recall = await this.state.recall(user);
      const result = await runner.run(user, {
        history: this.history,
        system: this.system,
        recall,
        hookContext,
        transformFinal: plugins ? (text) => plugins.transformFinal(text) : undefined,
        signal: ac.signal,
        emit: (e) => this.dispatch(e),
        sink: this.writer ? { append: (m) => this.queueAppend(m) } : undefined,
        broker: this.broker,
      });
      this.flushAppends();
      this.persist(() => this.writer?.recordUsage(this.id, result, this.llm.active.model, this.llm.active.provider, this.llm.active.baseUrl));
      this.lastResult = result;
      this.state.afterTurn(user, result);
      await plugins?.afterTurn(user, result);
      this.totals = {
        ...this.totals,
        usage: addUsage(this.totals.usage, result.usage),
        costUsd: addCost(this.totals.costUsd, result.costUsd),
        apiCalls: this.totals.apiCalls + result.apiCalls,
        turns: this.totals.turns + 1,
      };
      // Steering text that arrived after the last tool call becomes the next prompt.
      if (this.steerText.length && !result.interrupted) {
        this.queued.unshift(this.steerText.join('\n'));
        this.steerText = [];
      }
      // A turn is over when what it wrote is committed (a reply is sent only after that).
      await this.flushStore();
      return result;
    } finally {
      this.flushAppends();
      outer?.removeEventListener('abort', onOuter);
      this.running = null;
    }
  }

  /**
   * Local models (src/session/local-model.ts): probes the endpoint once per session when it looks
   * local (or `model.lean` is set); a small window switches the session to lean mode before its
   * system prompt is stored. Nothing is loaded for a remote provider.
   */
  private async prepareLocal(): Promise<void> {
    this.localPrepared = true;
    const o = this.options;
    const rt = this.llm.active;
    const m = (o.config.model ?? {}) as { lean?: unknown; local?: unknown };
    if (o.contextLength || this.runnerKind !== 'loop') return;
    if (!(m.lean === true || m.lean === 'true' || ((isLocalUrl(rt.baseUrl) || m.local === true) && m.local !== false))) return;
    const info = await this.state.prepareLocal();
    if (!info) return;
    for (const n of info.notes) this.dispatch({ type: 'warning', message: n });
    if (info.lean) {
      this.tools = this.buildTools();
      if (!this.started && !o.systemPrompt) this.system = this.buildSystem();
    }
    const need = this.state.promptOverhead() + info.reserve;
    if (need > info.window) {
      this.dispatch({
        type: 'warning',
        message: `${rt.model} is served with a ${info.window.toLocaleString('en-US')}-token window, smaller than the system prompt and tools (about ${this.state.promptOverhead().toLocaleString('en-US')} tokens) plus room for an answer: answers may be cut. Give the model a bigger window${info.served?.kind === 'ollama' ? ' (OLLAMA_CONTEXT_LENGTH, or model.num_ctx)' : ''}, or set model.lean: true.`,
      });
    }
  }

  /** Which runner the next turn uses: the configured runtime, for the provider in use. */
  get runnerKind(): RunnerKind {
    return runnerKindFor(this.options.config, this.llm.active.provider);
  }

  /** The runner for the next turn; switching runtimes (/codex-runtime) takes effect here. */
  private async turnRunner(): Promise<TurnRunner> {
    const kind = this.runnerKind;
    if (this.runner?.kind === kind) return this.runner;
    const old = this.runner;
    this.runner = null;
    await old?.close();
    if (kind === 'codex_app_server') {
      const { CodexRunner } = await import('../runners/codex/runner.ts');
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      const self = this;
      this.runner = new CodexRunner({
        get id() {
          return self.id;
        },
        options: this.options,
        services: this.services,
        get runtimeInfo() {
          const a = self.llm.active;
          return { model: a.model, provider: a.provider, baseUrl: a.baseUrl, apiKey: a.apiKey, source: a.source, extraHeaders: a.extraHeaders };
        },
        persist: (w) => this.persist(w),
        get meter() {
          return self.llm.meter;
        },
        get runtime() {
          return self.llm.active;
        },
      });
    } else this.runner = new LoopRunner(this.partsHost());
    return this.runner;
  }

  /** Steering text for the loop runner (appended to the next tool result). */
  takeSteer(): string | undefined {
    if (!this.steerText.length) return undefined;
    const t = this.steerText.join('\n');
    this.steerText = [];
    return t;
  }

  /** The session's store writes: never fatal to the conversation, batched per tick, awaited at turn end. */
  private readonly writes = new StoreWrites(
    () => this.writer,
    (message) => this.dispatch({ type: 'warning', message }),
  );

  /** Where the conversation is written: the session store, or (without one) the surface's transcript writer. */
  get writer(): SessionWriter | undefined {
    return this.options.store ?? this.options.transcript;
  }

  private queueAppend(m: Message): void {
    this.writes.queueAppend(this.id, m);
  }

  flushAppends(): void {
    this.writes.flushAppends();
  }

  /** A store write that must not break the conversation (see StoreWrites.persist). */
  persist(write: () => Promise<unknown> | undefined): void {
    this.writes.persist(write);
  }

  /** The first store write of this session that failed (its warning was emitted), or null. */
  get saveFailure(): { error: unknown; message: string; warning: string } | null {
    return this.writes.failure;
  }

  /** Waits until every store write issued so far is committed (nothing to wait for on SQLite). */
  flushStore(): Promise<void> {
    return this.writes.flushStore();
  }

  /** Adds what a subagent spent (tokens, cost, API calls) to this session's totals. */
  private addSubagentUsage(t: SessionTotals): void {
    const sub = this.totals.subagents;
    this.totals = {
      ...this.totals,
      usage: addUsage(this.totals.usage, t.usage),
      costUsd: addCost(this.totals.costUsd, t.costUsd),
      apiCalls: this.totals.apiCalls + t.apiCalls,
      subagents: { runs: sub.runs + 1 + t.subagents.runs, usage: addUsage(sub.usage, t.usage), costUsd: addCost(sub.costUsd, t.costUsd), apiCalls: sub.apiCalls + t.apiCalls },
    };
  }

  /** Answers every open request (approvals, clarify) with its safe default, saying why. Returns how many. */
  cancelRequests(source: 'interrupted' | 'shutdown' = 'interrupted'): number {
    return this.broker.cancelAll(source);
  }

  /** Ends the session; background processes and execution backends of its tools are released. */
  async close(reason = 'closed'): Promise<void> {
    this.flushAppends();
    this.inbox.close();
    this.interrupt();
    this.broker.cancelAll();
    if (this.started) this.persist(() => this.writer?.endSession(this.id, reason));
    const memoryDone = this.state.onClose(this.services);
    await this.plugins?.finalize(reason);
    const runner = this.runner;
    this.runner = null;
    await Promise.all([runner?.close(), runSessionCleanup(this.services), memoryDone, this.flushStore(), this.services.messaging?.close?.()]);
  }
}

function isTruthy(v: string | undefined): boolean {
  return !!v && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}
