// What a session keeps and learns, on top of the loop. SessionState owns the Session's parts, each
// in its own file, and is what the Session calls at a few points (set-up, before each request, after
// each turn, /new, close): prompt building (session-prompt.ts), compaction (session-compaction.ts),
// titles (session-titles.ts), the background self-review (session-review.ts), memory hooks
// (session-memory.ts), trajectories (session-trajectory.ts), the auxiliary models
// (session-aux.ts) and the local endpoint's settings (local-model.ts, loaded lazily).
import { join } from 'node:path';
import type { CompressionSettings } from '../agent/compress.ts';
import type { PromptParts } from '../agent/prompt.ts';
import type { AgentEvent, AgentTool, TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import type { MemoryManager } from '../state/memory-provider.ts';
import { packageRoot } from '../state/paths.ts';
import { retireSeededCopies, type Skill } from '../state/skills.ts';
import type { ToolServices } from '../tools/types.ts';
import type { LocalModelInfo } from './local-model.ts';
import { AuxModels } from './session-aux.ts';
import { Compaction } from './session-compaction.ts';
import { MemoryHooks } from './session-memory.ts';
import { PromptBuilder } from './session-prompt.ts';
import { BackgroundReview } from './session-review.ts';
import { Titles } from './session-titles.ts';
import { saveTrajectory } from './session-trajectory.ts';
import type { AuxModel, StateHost } from './state-host.ts';

export type { StateHost } from './state-host.ts';

const BUNDLED_SYNCED = new Set<string>();
const MACHINE_PLATFORMS = new Set(['cron', 'batch', 'subagent', 'webhook', 'api_server']);

export class SessionState {
  private readonly host: StateHost;
  private readonly background = new Set<Promise<unknown>>();
  private readonly auxModels: AuxModels;
  /** Memory hooks: the built-in memory, memory.provider, recall, sync, flush, session end. */
  readonly memoryHooks: MemoryHooks;
  /** Prompt building (SOUL.md, guidance, memory snapshot, skills index, project context). */
  readonly prompt: PromptBuilder;
  /** Compaction: token estimates, the context window, compression passes. */
  readonly compaction: Compaction;
  readonly titles: Titles;
  readonly reviewer: BackgroundReview;
  /** What the local endpoint serves and what follows (src/session/local-model.ts), once probed. */
  local: (LocalModelInfo & { deferred(tools: AgentTool[], platform?: string): Set<string> }) | null = null;
  private leanModule: typeof import('./local-model.ts') | null = null;

  constructor(host: StateHost) {
    this.host = host;
    const o = host.options;
    this.auxModels = new AuxModels(host);
    const aux = (task: string) => this.auxModels.get(task);
    this.memoryHooks = new MemoryHooks(host, (m) => this.prompt.warn(m));
    this.prompt = new PromptBuilder(host, this.memoryHooks.memory);
    if (!BUNDLED_SYNCED.has(o.home) && o.seedBundledSkills !== false) {
      BUNDLED_SYNCED.add(o.home);
      try {
        retireSeededCopies(o.home, join(packageRoot(), 'skills'));
      } catch {
        /* a read-only home: the old copies stay (the home's copy of a skill takes precedence) */
      }
    }
    this.compaction = new Compaction(host, {
      aux,
      local: () => this.local,
      memory: this.memoryHooks,
      backgroundAllowed: () => this.backgroundAllowed,
      spawn: (task) => this.spawn(task),
    });
    this.titles = new Titles(host, aux);
    this.reviewer = new BackgroundReview(host, aux);
  }

  // -------------------------------------------------------------------------------------------
  // prompt

  get memory(): MemoryManager | null {
    return this.memoryHooks.memory;
  }

  get skills(): Skill[] {
    return this.prompt.skills;
  }

  get ignoreRules(): boolean {
    return this.prompt.ignoreRules;
  }

  /** The parts of the system prompt that come from HERMES_HOME and the project. */
  promptParts(tools: AgentTool[]): Partial<PromptParts> {
    return this.prompt.promptParts(tools);
  }

  loadMemoryProvider(): Promise<boolean> {
    return this.memoryHooks.loadMemoryProvider();
  }

  recall(user: Message): Promise<string | undefined> {
    return this.memoryHooks.recall(user);
  }

  flushMemories(history: Message[]): Promise<number> {
    return this.memoryHooks.flushMemories(history);
  }

  /** Tools an external memory provider adds. */
  extraTools(): AgentTool[] {
    return this.memoryHooks.extraTools();
  }

  // -------------------------------------------------------------------------------------------
  // auxiliary model

  aux(task: string): AuxModel | null {
    return this.auxModels.get(task);
  }

  // -------------------------------------------------------------------------------------------
  // compression

  get compressor() {
    return this.compaction.compressor;
  }

  get compressions(): number {
    return this.compaction.compressions;
  }

  contextLength(): number {
    return this.compaction.contextLength();
  }

  compressionSettings(): CompressionSettings {
    return this.compaction.compressionSettings();
  }

  promptOverhead(): number {
    return this.compaction.promptOverhead();
  }

  estimatePromptTokens(history: Message[]): number {
    return this.compaction.estimatePromptTokens(history);
  }

  /** Record real usage as it arrives (Session forwards its usage events). */
  onEvent(e: AgentEvent): void {
    this.compaction.onEvent(e);
  }

  /** The loop's hook before every model request. */
  beforeRequest(history: Message[]): Promise<void> {
    return this.compaction.beforeRequest(history);
  }

  runCompression(history: Message[], opts: { force?: boolean; focus?: string; promptTokens?: number; quiet?: boolean; settings?: Partial<CompressionSettings> } = {}): Promise<string> {
    return this.compaction.runCompression(history, opts);
  }

  // -------------------------------------------------------------------------------------------
  // local model

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
    if (o.config.save_trajectories) saveTrajectory(this.host, result);
    this.memoryHooks.afterTurn(user, result);
    if (!this.backgroundAllowed || result.interrupted) return;
    this.titles.afterTurn(user, result, (t) => this.spawn(t));
    this.reviewer.afterTurn(result, (t) => this.spawn(t));
  }

  /** A forked loop over a snapshot of the conversation, limited to memory and skill tools. */
  review(snapshot: Message[], memory: boolean, skills: boolean): Promise<string[]> {
    return this.reviewer.review(snapshot, memory, skills);
  }

  // -------------------------------------------------------------------------------------------
  // lifecycle

  /** A resumed session keeps its title (no new one is generated). */
  markTitled(v: boolean): void {
    this.titles.mark(v);
  }

  /** /new: the old conversation ends for the providers; memory refreshes in the next prompt. */
  onReset(oldHistory: Message[]): void {
    this.memoryHooks.onReset(oldHistory);
    this.compaction.reset();
    this.reviewer.reset();
    this.titles.mark(false);
  }

  onClose(services: ToolServices): Promise<void> {
    return this.memoryHooks.onClose(services);
  }
}
