// What the Session's parts (prompt, compaction, titles, background review, memory hooks,
// trajectories: the session-*.ts files) need from the Session that owns them. Types only.
import type { AgentEvent, AgentTool } from '../agent/types.ts';
import type { LlmClient } from '../llm/index.ts';
import type { Message, StreamFn } from '../llm/types.ts';
import type { ToolServices } from '../tools/types.ts';
import type { SessionOptions } from './session-types.ts';

/** What SessionState needs from the Session that owns it. */
export interface StateHost {
  readonly options: SessionOptions;
  /** Set-up warnings the surface shows at start. */
  readonly warnings: string[];
  readonly services: ToolServices;
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

/** The model for an auxiliary task, as the Session's parts use it. */
export type AuxModel = { stream: StreamFn; model: string };

/** Background work of a Session's parts (titles, reviews, lookups): awaited by `Session.idle()`. */
export type Spawn = (task: () => Promise<unknown>) => void;
