// The session runtime's types: what a surface passes to `new Session(...)`, the store it writes to,
// and the per-session preferences and totals it reads back. Types only (see session.ts).
import type { SpendScope } from './budgets.ts';
import type { PromptParts } from '../agent/prompt.ts';
import type { LlmClient } from '../llm/index.ts';
import type { Message, StreamFn, Usage } from '../llm/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { SessionStore } from '../state/store/types.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { SurfacePorts, ToolServices } from '../tools/types.ts';

export type { SessionStore };

/**
 * What a session writes through when there is no session store: the gateway's JSONL transcripts
 * when state.db cannot be opened (writes only: no titles, search, lineage or compression in place).
 * The session store is one; every writer call returns a promise, as the store's do.
 */
export type SessionWriter = Pick<SessionStore, 'createSession' | 'appendMessage' | 'appendMessages' | 'recordUsage' | 'endSession' | 'flush'>;

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
  /** The session store (state.db or PostgreSQL): the conversation, its title, search, lineage, compression in place. */
  store?: SessionStore;
  /** Without a store: where the conversation is written (the gateway's JSONL fallback). Ignored when `store` is given. */
  transcript?: SessionWriter;
  /** Names that came from HERMES_HOME/.env (kept out of child processes). */
  dotenvNames?: string[];
  /** Extra prompt parts (memory, skills, project context) supplied by higher layers. */
  promptParts?: Partial<PromptParts>;
  now?: () => number;
  /** Leave out SOUL.md, memory and the project's rules files (--ignore-rules, --safe-mode). */
  ignoreRules?: boolean;
  /** Leave out only the project's rules files (AGENTS.md, .hermes.md, CLAUDE.md, .cursorrules) and subdirectory hints: cron runs without a workdir. */
  ignoreProjectRules?: boolean;
  /** Put the session id in the system prompt (--pass-session-id). */
  passSessionId?: boolean;
  /** Auxiliary model per task (compression, title_generation, background_review); default from config. */
  auxStream?: (task: string) => StreamFn | null;
  /** Titles and the background self-review run after turns (default true; off for one-shot runs). */
  backgroundTasks?: boolean;
  /** The context window to compress against (default: model table / provider / model.context_length). */
  contextLength?: number;
  /** Take back the bundled-skill copies earlier versions seeded into HERMES_HOME/skills (default true; bundled skills are read in place). */
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
