// What a session keeps and learns, on top of the loop: the prompt parts (memory snapshot, skills
// index, project context, tool guidance), context compression with session rotation in state.db,
// titles from the auxiliary model, the background self-review that saves memories and skills, memory
// provider hooks, and trajectories. Session creates one of these and calls it at a few points.
import { appendFileSync, readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { writeFileAtomic } from '../state/fsutil.ts';
import { join } from 'node:path';
import { IterationBudget } from '../agent/budget.ts';
import { ContextCompressor, DEFAULT_COMPRESSION, type CompressionSettings, type SummaryRequest } from '../agent/compress.ts';
import { guardrails } from '../agent/guardrails.ts';
import { runTurn } from '../agent/loop.ts';
import { spilling } from '../agent/spill.ts';
import { steering } from '../agent/steer.ts';
import { textCalls } from '../agent/textcalls/hook.ts';
import type { PromptParts } from '../agent/prompt.ts';
import type { LocalModelInfo } from './local-model.ts';
import { messageText, sanitizeHistory } from '../agent/repair.ts';
import { RequestBroker } from '../agent/requests.ts';
import { estimateMessagesTokens, estimateTextTokens, estimateToolsTokens } from '../agent/tokens.ts';
import { toShareGpt, type TrajectoryEntry } from '../agent/trajectory.ts';
import type { AgentEvent, AgentTool, ToolCallContext, TurnResult } from '../agent/types.ts';
import { contextLengthFor, DEFAULT_CONTEXT_LENGTH, describeError, listModels, type LlmClient } from '../llm/index.ts';
import { sdkFetch } from '../llm/http.ts';
import { promptTokens, samePrefix, type Message, type StreamFn, type Usage } from '../llm/types.ts';
import { buildProjectContext, findProjectContext, loadSoul, ruleFileNames } from '../state/context-files.ts';
import { sessionDbSlot } from '../tools/session-search.ts';
import { dropLease, inPlaceWanted, rotateSession, takeLease } from './compaction-store.ts';
import { MemoryStore } from '../state/memory.ts';
import { BuiltinMemoryProvider, MemoryManager } from '../state/memory-provider.ts';
import { packageRoot, paths } from '../state/paths.ts';
import { behaviourGuidance, environmentLines, profileLine } from './prompt-guidance.ts';
import { buildSkillsIndex, disabledSkillNames, discoverSkills, skillApplies, retireSeededCopies, type Skill } from '../state/skills.ts';

/** What SessionState needs from the Session that owns it. */
export interface StateHost {
  readonly options: import('./session.ts').SessionOptions;
  /** Set-up warnings the surface shows at start. */
  readonly warnings: string[];
  readonly services: import('../tools/types.ts').ToolServices;
  readonly history: Message[];
  readonly id: string;
  readonly system: string;
  readonly tools: AgentTool[];
  readonly llm: LlmClient;
  readonly persisted: boolean;
  /** Where the conversation is written (the session store, or a surface's transcript writer). */
  readonly writer: import('./session-types.ts').SessionWriter | undefined;
  emit(e: AgentEvent): void;
  /** Commit the store writes queued so far (before a compression archives the live rows). */
  flushAppends(): void;
  flushStore(): Promise<void>;
  /** A store write that must not break the conversation. */
  persist(write: () => Promise<unknown> | undefined): void;
  /** Continue under a new session id (compression rotation); the task id stays. */
  adoptId(id: string): void;
  newId(): string;
}

export const MEMORY_GUIDANCE = 'Memory is loaded every session: keep it to short lasting facts; no task progress or secrets.';

export const SESSION_SEARCH_GUIDANCE = 'For earlier work, try session_search before saying you do not know.';

// The last sentence is Hermes's skill safety rule: compaction clears old tool output, skill_view's too.
export const SKILLS_GUIDANCE =
  'After a complex task or tricky fix, save the procedure as a skill (skill_manage); patch skills you find wrong; reload ' +
  'one whose skill_view output was cleared.';

export const KANBAN_WORKER_GUIDANCE =
  '# Kanban task\n' +
  'You were started by the kanban dispatcher to do ONE task from the shared board; its id is in $HERMES_KANBAN_TASK and your ' +
  'workspace (also your working directory) is $HERMES_KANBAN_WORKSPACE. Work headless: nobody is watching this session.\n' +
  '1. Call kanban_show first (no arguments): it returns the task, the results your parent tasks handed over, earlier attempts ' +
  'on this task and the comment thread.\n' +
  '2. Do the work inside the workspace. During a long operation call kanban_heartbeat every few minutes.\n' +
  '3. Finish with exactly one of: kanban_complete (summary: what you did, in 1-3 sentences; metadata: facts the next task ' +
  'needs) — kanban_block (reason: the question a person must answer; do not guess and do not call clarify) — or ' +
  'kanban_request_review when the work needs a reviewer. If you were handed the task to review it (a review_requested ' +
  'event), approve with kanban_complete or send it back with kanban_request_changes(reason).\n' +
  'Leave durable notes for other tasks with kanban_comment. Never mark done work you did not do; block instead.';

/** Hermes's pre-compression flush: one request with only the memory tool, before turns are summarised. */
export const FLUSH_PROMPT =
  '[System: The middle of this conversation is about to be compacted into a summary. Before that happens, save anything worth keeping ' +
  'with the memory tool: user preferences, corrections and recurring patterns first, task details last. Only call the memory tool; ' +
  'do not reply to the user.]';

const REVIEW_MEMORY =
  'Look back over the conversation above and decide whether anything belongs in long-term memory: lasting facts about the user ' +
  '(preferences, role, habits, corrections they made) go to the "user" store; useful facts about their environment, projects and tools ' +
  'go to the "memory" store. Save only what will matter in future sessions and is not already in memory (update an entry rather than ' +
  'adding a near-duplicate).';

const REVIEW_SKILLS =
  'Also consider whether the conversation contained a reusable, non-trivial procedure: a task that took several steps or attempts, an ' +
  'error that was overcome, or an approach the user corrected. If so, create a skill with skill_manage, or patch an existing skill that ' +
  'proved wrong. Check skills_list first to avoid duplicates.';

const REVIEW_END = 'Do not address the user. Make the changes (or none), then reply with one short line saying what you changed, or "Nothing to save."';

const TITLE_SYSTEM =
  'You name conversations. Reply with a short, specific title of 3 to 7 words for the conversation below: no quotes, no trailing punctuation, nothing else.';

const BUNDLED_SYNCED = new Set<string>();
const MACHINE_PLATFORMS = new Set(['cron', 'batch', 'subagent', 'webhook', 'api_server']);

function isTruthy(v: string | undefined): boolean {
  return !!v && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

const messageTokens = new WeakMap<Message, number>();

/** Token estimate of messages, each message estimated once (histories grow by appending). */
function historyTokens(ms: Message[]): number {
  let n = 0;
  for (const m of ms) {
    let t = messageTokens.get(m);
    if (t === undefined) {
      t = estimateMessagesTokens([m]);
      messageTokens.set(m, t);
    }
    n += t;
  }
  return n;
}

const CONTEXT_CACHE = 'context_length_cache.yaml';

function readContextCache(home: string): Record<string, number> {
  try {
    const v = parseYaml(readFileSync(join(home, CONTEXT_CACHE), 'utf8')) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function writeContextCache(home: string, key: string, value: number): void {
  try {
    writeFileAtomic(join(home, CONTEXT_CACHE), stringifyYaml({ ...readContextCache(home), [key]: value }), 0o600);
  } catch {
    /* read-only home: keep it in memory only */
  }
}

/** Runs a stream to its end and returns the text, or throws with the provider's error. */
export async function collectText(stream: StreamFn, req: Parameters<StreamFn>[0]): Promise<string> {
  const s = stream(req);
  for await (const _ of s) {
    /* drain */
  }
  const r = await s.result();
  if (r.stopReason === 'error' || r.stopReason === 'aborted') throw new Error(r.error ? describeError(r.error) : `the request ${r.stopReason === 'aborted' ? 'was aborted' : 'failed'}`);
  return messageText(r.message.content);
}

export class SessionState {
  private readonly host: StateHost;
  readonly memory: MemoryManager | null;
  skills: Skill[] = [];
  readonly compressor: ContextCompressor;
  private lastUsage: Usage | null = null;
  private lenAtLastRequest = 0;
  private turnsSinceMemory = 0;
  private itersSinceSkill = 0;
  private titled = false;
  private readonly background = new Set<Promise<unknown>>();
  private readonly auxClients = new Map<string, { stream: StreamFn; model: string } | null>();
  private readonly discovered = new Map<string, number>();
  private readonly discovering = new Set<string>();
  /** What the local endpoint serves and what follows (src/runtime/local-model.ts), once probed. */
  local: (LocalModelInfo & { deferred(tools: AgentTool[], platform?: string): Set<string> }) | null = null;
  private leanModule: typeof import('./local-model.ts') | null = null;
  private compressing = false;
  /** Compressions that summarized turns in this session (Hermes's compression_count). */
  compressions = 0;
  /** The session id whose stored compression cooldown was read. */
  private cooldownFor = '';

  constructor(host: StateHost) {
    this.host = host;
    const o = host.options;
    const m = o.config.memory ?? {};
    if (m.memory_enabled !== false || m.user_profile_enabled !== false) {
      const store = new MemoryStore(paths.memories(o.home), { memory: m.memory_char_limit, user: m.user_char_limit });
      this.memory = new MemoryManager(new BuiltinMemoryProvider(store, { memory: m.memory_enabled !== false, user: m.user_profile_enabled !== false }), (w) =>
        host.emit({ type: 'warning', message: w }),
      );
    } else this.memory = null;
    if (!BUNDLED_SYNCED.has(o.home) && o.seedBundledSkills !== false) {
      BUNDLED_SYNCED.add(o.home);
      try {
        retireSeededCopies(o.home, join(packageRoot(), 'skills'));
      } catch {
        /* a read-only home: the old copies stay (the home's copy of a skill takes precedence) */
      }
    }
    this.compressor = new ContextCompressor({ settings: this.compressionSettings(), summarize: (req) => this.summarize(req) });
    // A stored session that already has a title is looked up (through the store interface, so on
    // either backend) before a title is generated: see afterTurn.
    this.titled = !!o.history?.length;
  }

  // -------------------------------------------------------------------------------------------
  // prompt

  private get externalDirs(): string[] {
    const d = this.host.options.config.skills?.external_dirs;
    return Array.isArray(d) ? d : [];
  }

  get ignoreRules(): boolean {
    return !!this.host.options.ignoreRules || isTruthy(this.host.options.env.HERMES_IGNORE_RULES);
  }

  private built = false;

  /** A warning: listed for the surface while the session is being set up, emitted afterwards. */
  private warn(message: string): void {
    if (this.built) this.host.emit({ type: 'warning', message });
    else this.host.warnings.push(message);
  }

  /** The parts of the system prompt that come from HERMES_HOME and the project. */
  promptParts(tools: AgentTool[]): Partial<PromptParts> {
    const o = this.host.options;
    const names = new Set(tools.map((t) => t.name));
    const toolsets = new Set(tools.map((t) => t.toolset));
    const parts: Partial<PromptParts> = {};
    const rules = ruleFileNames(o.env);
    // --ignore-rules (and --safe-mode): no SOUL.md, memory or project rules, as in Hermes.
    const soul = rules.includes('SOUL.md') && !this.ignoreRules ? loadSoul(paths.soul(o.home)) : {};
    parts.identity = soul.identity;
    if (soul.blocked) this.warn(`SOUL.md was not loaded: it matched ${soul.blocked}. Using the default identity.`);
    const guidance: string[] = names.size ? behaviourGuidance(o.config.agent) : [];
    if (names.has('memory')) guidance.push(MEMORY_GUIDANCE);
    if (names.has('session_search')) guidance.push(SESSION_SEARCH_GUIDANCE);
    if (names.has('skill_manage')) guidance.push(SKILLS_GUIDANCE);
    if (names.has('kanban_complete')) guidance.push(KANBAN_WORKER_GUIDANCE);
    if (guidance.length) parts.toolGuidance = guidance;
    if (this.memory && !this.ignoreRules) {
      this.memory.builtin.freeze();
      parts.providerBlock = this.memory.systemPromptBlock();
      parts.memory = this.memory.builtin.snapshot.memory;
      parts.userProfile = this.memory.builtin.snapshot.user;
    }
    const off = disabledSkillNames(o.config, o.platform);
    this.skills = discoverSkills(o.home, this.externalDirs).filter((s) => !off.has(s.name));
    if (names.has('skill_view')) parts.skillsIndex = buildSkillsIndex(this.skills.filter((s) => skillApplies(s, { os: process.platform, toolsets, tools: names })));
    if (!this.ignoreRules) {
      const files = findProjectContext(o.cwd, rules);
      for (const f of files) if (f.blocked) this.warn(`${f.name} was not loaded: it looks like a prompt injection (${f.blocked}).`);
      parts.projectContext = buildProjectContext(files);
    }
    if (o.passSessionId) parts.sessionId = this.host.id;
    parts.environment = environmentLines({ cwd: o.cwd, env: o.env, backend: o.config.terminal?.backend });
    parts.profile = profileLine(o.home, o.env);
    this.built = true;
    return parts;
  }

  private providerLoaded = false;

  /**
   * Activates `memory.provider` (once, before the first turn): loads its module, checks it is
   * configured, initializes it. True when a provider joined (tools and prompt need a rebuild). A
   * provider that is missing, unconfigured or down is reported and the session goes on without it.
   */
  async loadMemoryProvider(): Promise<boolean> {
    if (this.providerLoaded) return false;
    this.providerLoaded = true;
    const o = this.host.options;
    const name = String(o.config.memory?.provider ?? '').trim();
    if (!name || !this.memory || (o.depth ?? 0) > 0 || o.platform === 'subagent') return false;
    try {
      const { loadProviderFactory } = await import('../memory/providers/index.ts');
      const factory = await loadProviderFactory(name);
      const provider = factory.create({ home: o.home, env: o.env, config: o.config });
      if (!provider.isAvailable()) {
        this.warn(`Memory provider ${name} is not configured (run hermes memory setup); continuing with built-in memory only.`);
        return false;
      }
      this.memory.addProvider(provider);
      await this.memory.initialize({ sessionId: this.host.id, home: o.home, platform: o.platform, cwd: o.cwd, env: o.env });
      return true;
    } catch (e) {
      this.warn(`Memory provider ${name} could not start (${(e as Error).message}); continuing with built-in memory only.`);
      return false;
    }
  }

  /** Recalled memory for this turn (fenced), or undefined. Never throws, never waits past the prefetch timeout. */
  async recall(user: Message): Promise<string | undefined> {
    if (!this.memory?.active) return undefined;
    return this.memory.recall(messageText(user.content), this.host.id);
  }

  /**
   * The model's one chance to save what matters before compression summarises the middle of the
   * conversation: the same system prompt (cache-friendly) and conversation, a flush instruction, only
   * the memory tool; the memory calls it makes are run, nothing of the exchange is kept.
   */
  async flushMemories(history: Message[]): Promise<number> {
    const tool = this.host.tools.find((t) => t.name === 'memory');
    if (!tool || !this.memory || history.filter((m) => m.role === 'user').length < 1 || history.length < 3) return 0;
    let saved = 0;
    try {
      const s = this.host.llm.stream({
        model: this.host.llm.active.model,
        system: this.host.system,
        messages: [...sanitizeHistory(history), { role: 'user', content: FLUSH_PROMPT }],
        tools: [tool.schema],
        maxTokens: 2048,
      });
      for await (const _ of s) {
        /* drain */
      }
      const r = await s.result();
      if (r.stopReason === 'error' || r.stopReason === 'aborted') return 0;
      for (const call of r.message.tool_calls ?? []) {
        if (call.function.name !== 'memory') continue;
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          continue;
        }
        const out = await tool.execute(args, { callId: call.id, signal: new AbortController().signal, ask: async () => ({ answer: null as never, source: 'no_responder' as const }), progress: () => {} } as never);
        if (!out.isError) saved++;
      }
    } catch {
      /* a failed flush never blocks compression */
    }
    return saved;
  }

  /** Tools an external memory provider adds. */
  extraTools(): AgentTool[] {
    if (!this.memory) return [];
    return this.memory.toolSchemas().map(({ schema }) => ({
      name: schema.name,
      toolset: 'memory',
      schema,
      execute: async (args) => ({ content: await this.memory!.handleToolCall(schema.name, args) }),
    }));
  }

  // -------------------------------------------------------------------------------------------
  // auxiliary model

  /**
   * The model for an auxiliary task (`auxiliary.<task>`: provider, model, base_url, api_key; `auto` or
   * `main` = the main model), from the session's resolver; cached per task and main model.
   */
  aux(task: string): { stream: StreamFn; model: string } | null {
    const o = this.host.options;
    if (o.auxStream) {
      const stream = o.auxStream(task);
      return stream ? { stream, model: o.config.auxiliary?.[task]?.model || this.host.llm.active.model } : null;
    }
    const key = `${task}|${this.host.llm.active.provider}|${this.host.llm.active.model}`;
    if (!this.auxClients.has(key)) {
      const a = this.host.services.auxiliary?.(task) ?? null;
      this.auxClients.set(key, a ? { stream: a.stream, model: a.model } : null);
    }
    return this.auxClients.get(key)!;
  }

  private async summarize(req: SummaryRequest): Promise<string> {
    const aux = this.aux('compression');
    if (!aux) throw new Error('no auxiliary model is available for compression (check auxiliary.compression in config.yaml)');
    return collectText(aux.stream, {
      model: aux.model,
      system: req.system,
      messages: [{ role: 'user', content: req.prompt }],
      tools: [],
      maxTokens: req.maxTokens,
    });
  }

  // -------------------------------------------------------------------------------------------
  // compression

  /**
   * The model's context window: an explicit setting (model.context_length, the provider entry), the
   * known-model table, or — for a model the table does not know — what the provider's /models list
   * says (looked up once in the background and cached in HERMES_HOME/context_length_cache.yaml).
   */
  contextLength(): number {
    const o = this.host.options;
    const rt = this.host.llm.active;
    if (o.contextLength) return o.contextLength;
    if (this.local) return this.local.window;
    const explicit = rt.contextLength ?? o.config.model.context_length ?? undefined;
    if (explicit) return contextLengthFor(rt.model, explicit);
    const known = contextLengthFor(rt.model);
    if (known !== DEFAULT_CONTEXT_LENGTH) return known;
    const key = `${rt.baseUrl}|${rt.model}`;
    if (!this.discovered.has(key)) this.discovered.set(key, readContextCache(o.home)[key] ?? 0);
    const cached = this.discovered.get(key);
    if (cached) return cached;
    if (!this.discovering.has(key) && this.backgroundAllowed && !o.auxStream) {
      this.discovering.add(key);
      this.spawn(async () => {
        // Through the SDKs' node:http fetch: the global fetch would load undici's agents (HTTP/2, TLS)
        // synchronously here, while the REPL or TUI is still drawing its first frame.
        const models = await listModels(rt, sdkFetch());
        const hit = models.find((m) => m.id === rt.model || m.id.endsWith(`/${rt.model}`));
        if (hit?.contextLength) {
          this.discovered.set(key, hit.contextLength);
          writeContextCache(o.home, key, hit.contextLength);
        }
      });
    }
    return known;
  }

  compressionSettings(): CompressionSettings {
    const o = this.host.options;
    const c = o.config.compression ?? {};
    const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : d);
    const local = this.local;
    // A local window: compress before prompt + output budget pass it (earlier still in lean mode).
    const fit = local ? Math.max(0.2, (local.window - local.reserve) / local.window) : 0.95;
    return {
      contextLength: this.contextLength(),
      threshold: Math.min(0.95, fit, local?.lean ? 0.45 : 1, num(c.threshold, DEFAULT_COMPRESSION.threshold)),
      targetRatio: Math.min(0.8, num(c.target_ratio, DEFAULT_COMPRESSION.targetRatio)),
      // A small window cannot keep 20 messages whole: lean mode protects the first message and the last two.
      protectFirstN: Math.min(local?.lean ? 1 : Infinity, Math.floor(num(c.protect_first_n, DEFAULT_COMPRESSION.protectFirstN))),
      protectLastN: Math.min(local?.lean ? 2 : Infinity, Math.floor(num(c.protect_last_n, DEFAULT_COMPRESSION.protectLastN))),
      ...(local ? { fitWindow: true } : {}),
    };
  }

  /** Probes the session's local endpoint (loaded lazily; never throws). */
  async prepareLocal(): Promise<LocalModelInfo | null> {
    const o = this.host.options;
    try {
      const mod = await import('./local-model.ts');
      const info = await mod.prepareLocalModel({ home: o.home, config: o.config, env: o.env, rt: this.host.llm.active });
      this.leanModule = mod;
      this.local = { ...info, deferred: mod.leanDeferred };
      return this.local;
    } catch {
      return null;
    }
  }

  /** Lean mode's short system prompt parts (the parts as they are otherwise). */
  leanParts(parts: Partial<PromptParts>): Partial<PromptParts> {
    return this.local?.lean && this.leanModule ? this.leanModule.leanPromptParts(parts, this.local.window) : parts;
  }

  /** The loop's request settings a local endpoint adds: Ollama's num_ctx, lean mode's output budget and result limits. */
  localRequest(): { extraBody?: Record<string, unknown>; maxTokens?: number; maxResultChars?: number; window?: number } {
    const l = this.local;
    if (!l) return {};
    return {
      window: l.window,
      ...(l.numCtx ? { extraBody: { options: { num_ctx: l.numCtx } } } : {}),
      // The output budget is sent for small windows only (a large one has room for any answer).
      ...(l.lean ? { maxTokens: l.window <= 65_536 ? l.reserve : undefined, maxResultChars: this.leanModule?.leanResultChars(l.window) } : {}),
    };
  }

  /** Tokens the next request will carry: the last real usage plus what was added since, or an estimate. */
  private overheadKey: { system: string; tools: AgentTool[] } | null = null;
  private overheadTokens = 0;

  /** System prompt + tool schemas, estimated once per prompt/tool set. */
  promptOverhead(): number {
    return this.overhead();
  }

  private overhead(): number {
    const k = this.overheadKey;
    if (!k || k.system !== this.host.system || k.tools !== this.host.tools) {
      this.overheadKey = { system: this.host.system, tools: this.host.tools };
      this.overheadTokens = estimateTextTokens(this.host.system) + estimateToolsTokens(this.host.tools.map((t) => t.schema));
    }
    return this.overheadTokens;
  }

  /** The history's token estimate so far (the loop appends: only new messages are added up). */
  private historyRun: { seen: Message[]; tokens: number } | null = null;

  private historyEstimate(history: Message[]): number {
    const r = this.historyRun;
    // (Compression, /new and /undo rewrite the array in place: then it no longer starts with the messages seen.)
    if (r && samePrefix(r.seen, history) === r.seen.length) {
      if (r.seen.length < history.length) {
        const added = history.slice(r.seen.length);
        r.tokens += historyTokens(added);
        for (const m of added) r.seen.push(m);
      }
      return r.tokens;
    }
    const tokens = historyTokens(history);
    this.historyRun = history.length ? { seen: history.slice(), tokens } : null;
    return tokens;
  }

  estimatePromptTokens(history: Message[]): number {
    const overhead = this.overhead();
    const rough = overhead + this.historyEstimate(history);
    if (this.lastUsage && this.lenAtLastRequest <= history.length) {
      const real = promptTokens(this.lastUsage) + this.lastUsage.output_tokens + historyTokens(history.slice(this.lenAtLastRequest + 1));
      return Math.max(real, Math.floor(rough * 0.5));
    }
    return rough;
  }

  /** Record real usage as it arrives (Session forwards its usage events). */
  onEvent(e: AgentEvent): void {
    if (e.type === 'usage') this.lastUsage = e.usage;
  }

  /**
   * A stored session's summary-failure cooldown (another run, or Python Hermes, failed to summarize
   * it recently) holds here too: read once per session id.
   */
  private async loadCooldown(): Promise<void> {
    const store = this.host.options.store;
    if (this.cooldownFor === this.host.id || !store) return;
    this.cooldownFor = this.host.id;
    try {
      const c = await store.getCompressionCooldown(this.host.id);
      if (c && c.untilS * 1000 > this.compressor.cooldownUntil) this.compressor.cooldownUntil = c.untilS * 1000;
    } catch {
      /* the cooldown is an optimisation; never fatal */
    }
  }

  /** The loop's hook before every model request. */
  async beforeRequest(history: Message[]): Promise<void> {
    const c = this.host.options.config.compression;
    if (c?.enabled !== false && !this.compressing) {
      await this.loadCooldown();
      this.compressor.settings = this.compressionSettings();
      const tokens = this.estimatePromptTokens(history);
      if (this.compressor.shouldCompress(tokens)) await this.runCompression(history, { promptTokens: tokens });
    }
    this.lenAtLastRequest = history.length;
  }

  /**
   * One compression pass over the live history. On success the history is replaced in place and, when
   * the session is stored, saved the way compaction-store.ts describes (in place under the session's
   * compression lease, or the old way in a child session).
   */
  async runCompression(
    history: Message[],
    opts: { force?: boolean; focus?: string; promptTokens?: number; quiet?: boolean; settings?: Partial<CompressionSettings> } = {},
  ): Promise<string> {
    if (this.compressing) return 'A compression is already running.';
    this.compressing = true;
    // Every queued message is committed first (the loop's commits are grouped): a rotation or an
    // in-place archive must cover every row of `history`.
    this.host.flushAppends();
    const store = this.host.persisted ? this.host.options.store : undefined;
    const writer = this.host.persisted ? this.host.writer : undefined;
    const inPlace = inPlaceWanted(store, this.host.options.config);
    const leaseId = this.host.id;
    let lease: string | null = null;
    try {
      if (store && inPlace) {
        await this.host.flushStore(); // (an async store's queued writes too)
        lease = await takeLease(store, leaseId);
        if (!lease) return 'Another process is compressing this session right now; the conversation is kept as it is.';
      }
      this.compressor.settings = { ...this.compressionSettings(), ...opts.settings };
      if (this.memory) {
        const saved = await this.flushMemories(history);
        if (saved && !opts.quiet) this.host.emit({ type: 'notice', message: `💾 Saved ${saved} memor${saved === 1 ? 'y' : 'ies'} before compacting the conversation.` });
        await this.memory.onPreCompress(history);
      }
      const out = await this.compressor.compress(history, opts);
      if (out.status === 'skipped') return `Nothing to compress: ${out.reason}.`;
      if (out.status === 'failed') {
        const msg = `Context compression failed (${out.error}). The conversation is kept whole; compression will be retried in ${Math.round(out.retryInMs / 60_000)} min.`;
        if (store) this.host.persist(() => store.setCompressionCooldown(leaseId, (Date.now() + out.retryInMs) / 1000, out.error));
        this.host.emit({ type: 'warning', message: msg });
        return msg;
      }
      let where = '';
      if (out.summarized > 0 && store && inPlace) {
        try {
          await store.archiveAndCompact(leaseId, out.messages, { lockHolder: lease ?? undefined });
        } catch (e) {
          const msg = `Context compression was not saved (${(e as Error).message}); the conversation is kept whole.`;
          this.host.emit({ type: 'warning', message: msg });
          return msg;
        }
      }
      history.splice(0, history.length, ...out.messages);
      this.lastUsage = null;
      if (out.summarized > 0 && writer && !inPlace) {
        const oldId = this.host.id;
        const o = this.host.options;
        try {
          const meta = { source: o.source ?? o.platform, model: this.host.llm.active.model, systemPrompt: this.host.system, cwd: o.cwd };
          const newId = await rotateSession(writer, store, { id: oldId, newId: () => this.host.newId(), adoptId: (id) => this.host.adoptId(id), createMeta: meta }, history);
          where = ` The full transcript stays in session ${oldId}; continuing as ${newId}.`;
        } catch (e) {
          // The old session keeps everything and new messages keep going to it.
          this.host.emit({ type: 'warning', message: `Could not start the continuation session in state.db (${(e as Error).message}); continuing in ${oldId}.` });
        }
      }
      if (out.summarized > 0) {
        this.compressions++;
        if (store) this.host.persist(() => store.setCompressionCooldown(this.host.id, null, null));
      }
      const msg =
        out.summarized > 0
          ? `🗜 Context compressed: ~${out.beforeTokens.toLocaleString('en-US')} → ~${out.afterTokens.toLocaleString('en-US')} tokens (${out.summarized} messages summarized).${where}`
          : `🗜 Cleared ${out.prunedToolResults} old tool output${out.prunedToolResults === 1 ? '' : 's'} (~${out.beforeTokens.toLocaleString('en-US')} → ~${out.afterTokens.toLocaleString('en-US')} tokens).`;
      if (!opts.quiet) this.host.emit({ type: 'notice', message: msg });
      return msg;
    } finally {
      if (store && lease) await dropLease(store, leaseId, lease);
      this.compressing = false;
    }
  }

  // -------------------------------------------------------------------------------------------
  // after each turn

  private get backgroundAllowed(): boolean {
    const o = this.host.options;
    return o.backgroundTasks !== false && !MACHINE_PLATFORMS.has(o.platform);
  }

  private spawn(task: () => Promise<unknown>): void {
    const p = task()
      .catch(() => {})
      .finally(() => this.background.delete(p));
    this.background.add(p);
  }

  /** Waits for background work (title, review) to finish. */
  async idle(): Promise<void> {
    while (this.background.size) await Promise.allSettled([...this.background]);
  }

  afterTurn(user: Message, result: TurnResult): void {
    const o = this.host.options;
    if (o.config.save_trajectories) this.saveTrajectory(result);
    if (this.memory && result.completed) this.memory.syncTurn(messageText(user.content), result.finalText, this.host.id, this.host.history);
    if (!this.backgroundAllowed || result.interrupted) return;
    if (!this.titled && result.completed && o.store) {
      this.titled = true;
      const db = o.store;
      const id = this.host.id;
      const first = messageText(user.content).slice(0, 2000);
      const answer = result.finalText.slice(0, 2000);
      this.spawn(async () => {
        if ((await db.getSession(id))?.title) return;
        const aux = this.aux('title_generation');
        if (!aux) return;
        const raw = await collectText(aux.stream, {
          model: aux.model,
          system: TITLE_SYSTEM,
          messages: [{ role: 'user', content: `User: ${first}\n\nAssistant: ${answer}` }],
          tools: [],
          maxTokens: 40,
        });
        const t = raw.split('\n')[0].replace(/^["'#*\s]+|["'.*\s]+$/g, '').slice(0, 80);
        if (!t || (await db.getSession(id))?.title) return;
        const title = await db.uniqueTitle(t);
        if (title) await db.setTitle(id, title);
      });
    }
    // Background self-review: memory every N user turns, skills every ~N tool-calling iterations.
    const names = new Set(this.host.tools.map((t) => t.name));
    const memEvery = Number(o.config.memory?.nudge_interval ?? 10);
    const skillEvery = Number(o.config.skills?.creation_nudge_interval ?? 10);
    if (names.has('memory') && memEvery > 0) this.turnsSinceMemory++;
    if (names.has('skill_manage') && skillEvery > 0) this.itersSinceSkill += result.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    const reviewMemory = names.has('memory') && memEvery > 0 && this.turnsSinceMemory >= memEvery;
    const reviewSkills = names.has('skill_manage') && skillEvery > 0 && this.itersSinceSkill >= skillEvery;
    if (result.completed && (reviewMemory || reviewSkills)) {
      if (reviewMemory) this.turnsSinceMemory = 0;
      if (reviewSkills) this.itersSinceSkill = 0;
      // The review works on the history as it is now: a copy of the list (the session goes on
      // appending to, compressing or rewinding its own). History messages are not edited in place
      // once appended, so they are shared, not deep-cloned: a clone of every message every N turns
      // of every chat, kept by the review's request cache until the next review, was garbage the
      // gateway promoted to its old generation (more major GCs).
      const snapshot = this.host.history.slice();
      this.spawn(() => this.review(snapshot, reviewMemory, reviewSkills));
    }
  }

  /** A forked loop over a snapshot of the conversation, limited to memory and skill tools. */
  async review(snapshot: Message[], memory: boolean, skills: boolean): Promise<string[]> {
    const allowed = new Set([...(memory ? ['memory'] : []), ...(skills ? ['skills_list', 'skill_view', 'skill_manage'] : [])]);
    const tools = this.host.tools.filter((t) => allowed.has(t.name)).map((t) => ({ ...t, execute: (args: Record<string, unknown>, ctx: ToolCallContext) => t.execute(args, { ...ctx, caller: 'background_review' as const }) }));
    if (!tools.length) return [];
    const aux = this.aux('background_review');
    const stream = aux?.stream ?? this.host.llm.stream;
    const reviewModel = aux?.model ?? this.host.llm.active.model;
    const changes: string[] = [];
    const prompt = [memory ? REVIEW_MEMORY : '', skills ? REVIEW_SKILLS : '', REVIEW_END].filter(Boolean).join('\n\n');
    await runTurn(
      { role: 'user', content: prompt },
      {
        history: snapshot,
        system: this.host.system,
        tools,
        stream,
        model: () => reviewModel,
        broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
        budget: new IterationBudget(8),
        hooks: [textCalls(), guardrails(), spilling(), steering()],
        emit: (e) => {
          if (e.type !== 'tool_end' || e.isError) return;
          const d = e.display as { kind?: string; action?: string; target?: string; name?: string; message?: string } | undefined;
          if (d?.kind === 'memory') changes.push(`${d.target === 'user' ? 'user profile' : 'memory'} ${d.action === 'add' ? '+1 entry' : d.action === 'remove' ? '−1 entry' : d.action === 'batch' ? String(d.message ?? 'updated').replace(/\.$/, '').toLowerCase() : 'entry updated'}`);
          else if (d?.kind === 'skill') changes.push(`skill ${d.name} ${d.action === 'create' ? 'created' : d.action === 'delete' ? 'deleted' : 'updated'}`);
        },
      },
    );
    const mode = this.host.options.config.display?.memory_notifications ?? 'on';
    if (changes.length && mode !== 'off') this.host.emit({ type: 'notice', message: `${changes.some((c) => c.startsWith('skill')) && !changes.some((c) => !c.startsWith('skill')) ? '🛠️' : '💾'} Learned from this session: ${changes.join('; ')}` });
    return changes;
  }

  private saveTrajectory(result: TurnResult): void {
    const o = this.host.options;
    const entry: TrajectoryEntry = {
      conversations: toShareGpt(this.host.history, this.host.tools.map((t) => t.schema)),
      timestamp: new Date().toISOString(),
      model: this.host.llm.active.model,
      completed: result.completed,
    };
    try {
      appendFileSync(join(o.cwd, result.completed ? 'trajectory_samples.jsonl' : 'failed_trajectories.jsonl'), `${JSON.stringify(entry)}\n`);
    } catch (e) {
      this.host.emit({ type: 'warning', message: `Could not save the trajectory: ${(e as Error).message}` });
    }
  }

  // -------------------------------------------------------------------------------------------
  // lifecycle

  /** A resumed session keeps its title (no new one is generated). */
  markTitled(v: boolean): void {
    this.titled = v;
  }

  /** /new: the old conversation ends for the providers; memory refreshes in the next prompt. */
  onReset(oldHistory: Message[]): void {
    if (this.memory && oldHistory.length) void this.memory.onSessionEnd(oldHistory);
    this.compressor.previousSummary = undefined;
    this.compressor.failures = 0;
    this.compressor.cooldownUntil = 0;
    this.lastUsage = null;
    this.lenAtLastRequest = 0;
    this.turnsSinceMemory = 0;
    this.itersSinceSkill = 0;
    this.titled = false;
  }

  async onClose(services: import('../tools/types.ts').ToolServices): Promise<void> {
    const memory = this.memory;
    const ending = memory
      ? (async () => {
          if (this.host.history.length) await memory.onSessionEnd(this.host.history);
          await memory.shutdown();
        })()
      : Promise.resolve();
    const db = services.slots.peek(sessionDbSlot);
    if (db?.isOpen && db !== this.host.options.store) void db.close();
    await ending;
  }
}
