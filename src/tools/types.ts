// What a tool handler gets: one ToolContext — the call (signal, ask, progress) and the session it
// runs in (cwd, platform, config, file operations, execution backend, typed slots, ports).
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import type { AgentEvent, PathScope, ToolCallContext, ToolOutcome } from '../agent/types.ts';
import type { JsonSchema, StreamFn, Usage } from '../llm/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { InitSlot, Slots } from '../state/slots.ts';
import type { FileOps } from './env/files.ts';
import type { ExecutionBackend } from './env/types.ts';

/**
 * What a session lends its tools beyond files and commands, each absent where the session has none.
 * Surfaces give theirs through `SurfacePorts` (messaging, cron); tools never import a surface, cron,
 * MCP or the runtime.
 */
export interface ToolPorts {
  /** Whether a person can answer requests right now (false in one-shot and unattended runs). */
  canAsk?: () => boolean;
  /** Runs another tool of this session by name (execute_code's RPC). Absent: execute_code is unavailable. */
  callTool?: (name: string, args: Record<string, unknown>, ctx: ToolCallContext) => Promise<ToolOutcome>;
  /** The session's deferred tools, loaded on demand by tool_search. */
  toolCatalog?: import('./defs/tool-search.ts').ToolCatalog;
  /** Runs a subagent: a child loop with its own budget and restricted tools (delegate_task). */
  spawnChild?: (spec: ChildSpec) => Promise<ChildResult>;
  /** The model for an auxiliary task (vision, web_extract, …), or null when none is configured. */
  auxiliary?: (task: string) => AuxiliaryModel | null;
  /** Built-in memory plus any external memory provider (the memory tool writes through it). */
  memory?: import('../state/memory-provider.ts').MemoryManager;
  /** The session store (either backend); session_search opens the configured one itself when absent. */
  sessionDb?: import('../state/store/types.ts').SessionStore;
  /** The gateway's delivery router (send_message); absent outside the gateway. */
  messaging?: MessagingService;
  /** Scheduled jobs, lent by the surface (src/cron/service.ts); absent where no surface schedules jobs. */
  cron?: CronService;
  /** The session's inbox: background work (processes, subagents) reports back into the conversation. */
  notifier?: Notifier;
}

/**
 * The session half of a tool's context, built once by the Session (`session.services`) and seen
 * live by every call (a /worktree move changes `cwd` for the next call).
 */
export interface ToolSession extends ToolPorts {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  /** The session's working directory (CLI: launch dir; gateway: MESSAGING_CWD). */
  cwd: string;
  /** cli | telegram | discord | acp | cron | api_server | … */
  platform: string;
  sessionId: string;
  /** Isolation key for stateful tools (terminal sessions, processes). */
  taskId: string;
  /** Approvals skipped (--yolo / HERMES_YOLO_MODE). Hardline blocks still apply. */
  yolo: boolean;
  /** Subagent depth: 0 for a top-level session, 1 for its children, … */
  depth?: number;
  /** The chat a gateway session serves: cron jobs created there deliver back to it (`deliver: origin`). */
  origin?: DeliveryOrigin;
  /** What lives as long as the session (the todo list, the backend, approvals given), by typed slot. */
  readonly slots: Slots;
}

/** The former name of `ToolSession`, kept for src/session/session*.ts (`session.services`) until the Session's restructuring lands. */
export type ToolServices = ToolSession;

/**
 * What a tool handler gets: the call and, through the prototype, its session (read live). Helpers that
 * need only the session take a `ToolSession`, which a ToolContext is.
 */
export interface ToolContext extends ToolCallContext, ToolSession {
  /** The value of one of the session's slots, made on first use. */
  slot<T>(slot: InitSlot<T>): T;
  /** Where the file tools read and write (this machine, or the backend's); loads the backends on first use. */
  files(): Promise<FileOps>;
  /** The session's execution backend, created on first use and closed with the session. */
  exec(): Promise<ExecutionBackend>;
}

/** A report from background work for the conversation: it becomes the next user turn. */
export interface BackgroundNotice {
  kind: 'completion' | 'watch_match' | 'watch_disabled' | 'delegation' | 'plugin' | 'goal' | 'heartbeat';
  /** What the model reads (Hermes's `[IMPORTANT: …]` / `[ASYNC DELEGATION …]` form). */
  text: string;
  /** One line for people. */
  title: string;
  /** The process or delegation id. */
  id: string;
  /** Checked when the notice is taken: true drops it (the model already read the result itself). */
  superseded?: () => boolean;
  /** Called when a surface takes the notice into the conversation (a durable delegation marks itself delivered). */
  onTaken?: () => void;
}

export interface Notifier {
  notify(n: BackgroundNotice): void;
  /** Background work that will report when it ends; a one-shot run waits for it before exiting. */
  expect(work: Promise<unknown>): void;
  /** Aborted when the session closes. */
  readonly signal: AbortSignal;
  /** A surface answers notices (REPL, gateway chat, one-shot run); otherwise nobody would read them. */
  readonly listening: boolean;
  /** False once this channel's conversation is over (/new, /resume, the session closed): what it is told is dropped. */
  readonly active?: boolean;
}

/** Where the reply to a chat message or a cron job goes. */
export interface DeliveryOrigin {
  platform: string;
  chatId: string;
  threadId?: string;
  userId?: string;
}

/**
 * Sending to other chats, given by the surface: the gateway's own router there, a send-only router
 * over the platforms' APIs elsewhere (src/gateway/messaging.ts). Tools never import the gateway.
 */
export interface MessagingService {
  /** Some chat platform is configured (or this is the gateway): send_message is offered. */
  available(): boolean;
  /** `source` names the sender in the delivery record (default send_message; cron uses cron:<job>). */
  send(target: string, content: string, origin?: DeliveryOrigin, source?: string): Promise<{ ok: boolean; error?: string; platform?: string; chatId?: string }>;
  /** Closes what sending opened (the surface calls it when its session closes). */
  close?(): Promise<void>;
  list(): Promise<{ platforms: { name: string; connected: boolean; home: string | null }[]; chats: { target: string; platform: string; name?: string; type?: string }[] }>;
}

/**
 * The `cronjob` tool's actions on cron/jobs.json, lent by the surface (src/cron/service.ts loads the
 * implementation on the first call). Tools never import cron.
 */
export interface CronService {
  cronjob(args: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolOutcome>;
}

/**
 * What a surface lends the tools of the sessions it builds (and of their subagents): the Session is
 * core and imports no surface, so sending to chats and scheduling jobs come in through these ports.
 * Surfaces outside the gateway pass `standalonePorts` (src/gateway/messaging.ts).
 */
export interface SurfacePorts {
  /** Builds one session's messaging service (the session closes it when it closes). */
  messaging?: (env: NodeJS.ProcessEnv, config: object) => MessagingService;
  cron?: CronService;
}

export interface AuxiliaryModel {
  stream: StreamFn;
  model: string;
  provider: string;
}

export interface ChildSpec {
  goal: string;
  /** leaf (default) or orchestrator (may delegate further); recorded for display. */
  role?: 'leaf' | 'orchestrator';
  context?: string;
  /** Toolsets (or tool names) the child may use; intersected with the parent's tools. */
  toolsets?: string[];
  /** Tools the child never gets, whatever the toolsets say. */
  blockedTools: string[];
  maxIterations: number;
  /** The child's system prompt. */
  systemPrompt: string;
  /** The parent's interrupt reaches the child. */
  signal: AbortSignal;
  /** Events of the child's loop (for progress display). */
  onEvent?: (e: AgentEvent) => void;
  /** The child session exists: its id, and steering and stopping it while it runs. */
  onStart?: (c: import('./subagents.ts').ChildControl) => void;
}

export interface ChildResult {
  status: 'completed' | 'partial' | 'failed' | 'interrupted';
  summary: string;
  apiCalls: number;
  iterations: number;
  error?: string;
  /** Tool names the child called, in order. */
  toolTrace: string[];
  /** Tokens and cost of the child (its own subagents included); added to the parent's totals. */
  usage?: Usage;
  costUsd?: number | null;
  model?: string;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  toolset: string;
  /** What the model reads. */
  description: string;
  /**
   * The parameters, as a zod schema or — preferred, keeps zod off the start-up path — a function
   * of `z` returning one: `schema: (z) => z.object({...})`.
   */
  schema: S | ((zod: Zod) => S);
  /** The JSON Schema the model sees, when it does not come from `schema` (MCP tools carry their own). */
  jsonSchema?: JsonSchema;
  emoji?: string;
  parallelSafe?: boolean;
  maxResultChars?: number;
  /** Secrets in the result are redacted (default true; see HERMES_REDACT_SECRETS). */
  redact?: boolean;
  /** Env vars the tool needs (shown by setup/status); the tool is hidden when one is missing. */
  requiresEnv?: string[];
  /**
   * The tool joins the session whatever toolsets were asked for when this returns true (it still
   * passes `check`, and a disabled toolset still removes it): kanban worker tools under the dispatcher.
   */
  autoInclude?: (session: ToolSession) => boolean;
  /** Extra availability check; false (or a throw) hides the tool from the model. */
  check?: (session: ToolSession) => boolean;
  /**
   * What `check` wants, said to a person when it fails (`hermes status`, /tools): "needs …" and how
   * to get it. A function may look at the session; null falls back to "requirements not met".
   */
  requirement?: string | ((session: ToolSession) => string | null);
  /** File tools: absolute paths a call reads and writes (for the parallel planner). */
  paths?: (args: z.infer<S>, session: ToolSession) => PathScope | null;
  /** Returns a JSON string (or an outcome with display data). Throws become `{"error": …}`. */
  handler: (args: z.infer<S>, ctx: ToolContext) => Promise<string | ToolOutcome> | string | ToolOutcome;
}
