// The session runtime's types: what a surface passes to `new Session(...)`, the store it writes to,
// and the per-session preferences and totals it reads back. Types only (see session.ts).
import type { SpendScope } from './budgets.ts';
import type { PromptParts } from '../agent/prompt.ts';
import type { TurnResult } from '../agent/types.ts';
import type { LlmClient } from '../llm/index.ts';
import type { Message, StreamFn, Usage } from '../llm/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { Awaitable } from '../state/store/index.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { SurfacePorts, ToolServices } from '../tools/types.ts';

/**
 * Persistence for sessions (both state stores implement it: SessionDB answers at once, PostgreSQL
 * with promises). Writes are issued without awaiting, in order; the turn ends after `flush()`.
 */
export interface SessionStore {
  createSession(meta: { id: string; source: string; model: string; systemPrompt: string; parentId?: string; cwd?: string; title?: string }): Awaitable<void>;
  appendMessage(sessionId: string, message: Message): Awaitable<unknown>;
  /** Several messages in one transaction (the loop's appends of one event-loop tick). */
  appendMessages?(sessionId: string, messages: Message[]): Awaitable<unknown>;
  recordUsage(sessionId: string, r: TurnResult, model: string, provider: string, baseUrl?: string): Awaitable<void>;
  endSession?(sessionId: string, reason: string): Awaitable<void>;
  /** Per-session runtime settings (state.db sessions.model_config), e.g. the codex thread id. */
  getModelConfig?(sessionId: string): Awaitable<Record<string, unknown>>;
  patchModelConfig?(sessionId: string, patch: Record<string, unknown>): Awaitable<void>;
  /** Resolves when every write issued so far is committed. */
  flush?(): Awaitable<void>;
  /** Compression in place (Hermes's compression_locks lease + archive_and_compact); without it compression continues in a child session. */
  readonly canCompactInPlace?: boolean;
  tryAcquireCompressionLock?(sessionId: string, holder: string, ttlSeconds?: number): Awaitable<boolean>;
  releaseCompressionLock?(sessionId: string, holder: string): Awaitable<boolean>;
  /** Who holds the session's compression lease now (null: nobody, or it expired). */
  getCompressionLockHolder?(sessionId: string): Awaitable<string | null>;
  archiveAndCompact?(sessionId: string, messages: Message[], opts?: { lockHolder?: string }): Awaitable<number>;
  /** The summary-failure cooldown kept in state.db (compression_failure_cooldown_until / _error). */
  setCompressionCooldown?(sessionId: string, untilS: number | null, error: string | null): Awaitable<void>;
  getCompressionCooldown?(sessionId: string): Awaitable<{ untilS: number; error: string | null } | null>;
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
  /** With toolNames: toolsets kept behind tool_search, as the delegating session keeps them. */
  deferredToolsets?: string[];
  /** The delegating session, for subagents (state.db parent_session_id). */
  parentSessionId?: string;
  /** Surface services for tools (the gateway's `origin` chat and delivery router). */
  services?: Pick<ToolServices, 'origin' | 'messaging'>;
  /** An unattended job this session runs (budgets.job_usd applies; its calls are tagged in the spend ledger). */
  job?: { kind: 'cron' | 'kanban'; id: string };
  /** A subagent's share of its parent's spend (budgets hold for the whole conversation). */
  spend?: { scope: SpendScope; sessionId: () => string; job?: string };
  /** Messaging and cron lent by the surface (src/tools/types.ts SurfacePorts); subagents get the same. */
  ports?: SurfacePorts;
}

/** Per-session display and input preferences, initialised from config and changed by slash commands. */
export interface SessionPrefs {
  toolProgress: 'off' | 'new' | 'all' | 'verbose';
  showReasoning: boolean;
  busyInputMode: 'interrupt' | 'queue' | 'steer';
  /** [HH:MM] before messages (/timestamps; display.timestamps). */
  timestamps?: boolean;
  /** The model/context/cost line under the input (/statusbar; display.statusbar). */
  statusBar?: boolean;
  /** Only the prompt and the final answer: no tool lines or reasoning (/focus). */
  focus?: boolean;
  /** A runtime footer (model · tokens · cost) under final replies (/footer; display.runtime_footer). */
  footer?: boolean;
  /** Priority processing (/fast): normal | fast | auto | cold. */
  fast?: 'normal' | 'fast' | 'auto' | 'cold';
}

export interface SessionTotals {
  /** Everything this session spent, its subagents included. */
  usage: Usage;
  costUsd: number | null;
  apiCalls: number;
  turns: number;
  /** The part of the above its subagents (delegate_task) spent. */
  subagents: { runs: number; usage: Usage; costUsd: number | null; apiCalls: number };
}

/** Who and where a session is, read-only (`session.info`): what surfaces read instead of the options they passed. */
export interface SessionInfo {
  /** The current session id (it changes on /new, /resume and compression rotation). */
  readonly id: string;
  readonly home: string;
  /** The directory the session started in. */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly platform: string;
  /** The source tag in state.db (undefined: the platform). */
  readonly source: string | undefined;
  readonly store: SessionStore | undefined;
  /** Choices made on the command line or by /model (provider, model, toolsets …). */
  readonly explicit: Readonly<ExplicitChoices> | undefined;
  readonly interactive: boolean;
  /** Subagent depth (0 = top level). */
  readonly depth: number;
  readonly parentSessionId: string | undefined;
}
