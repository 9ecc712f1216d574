// The seam between a Session and whatever runs its turns. The Session keeps the conversation,
// the store, memory, skills and the surfaces; a TurnRunner takes one user message and produces the
// same AgentEvent stream (turn_start … turn_end) and TurnResult whichever engine ran it: Hermes's own
// agent loop (`loop`) or OpenAI's Codex agent over `codex app-server` (`codex_app_server`).
import type { RequestBroker } from '../agent/requests.ts';
import type { AgentEvent, MessageSink, TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { SessionStore } from '../state/store/types.ts';

/**
 * What a runner reads of its Session's options. The Session (src/session/session-types.ts
 * SessionOptions) sits above the runners and hands itself in; runners never import it.
 */
export interface RunnerOptions {
  home: string;
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: string;
  explicit?: { maxTurns?: number | null };
  /** Names that came from HERMES_HOME/.env (kept out of child processes). */
  dotenvNames?: string[];
  now?: () => number;
  /** The session's per-session settings row (codex keeps its thread id there). */
  store?: Pick<SessionStore, 'getModelConfig' | 'patchModelConfig'>;
}

export type RunnerKind = 'loop' | 'codex_app_server';

/** What a runner gets for one turn. */
export interface TurnContext {
  /** The conversation so far (without the system prompt); the runner appends this turn's messages in place. */
  history: Message[];
  /** The session's frozen system prompt. */
  system: string;
  /** Context plugins' pre_llm_call hooks gave this turn: rides on the user message at call time only. */
  hookContext?: string;
  /** transform_llm_output: a plugin's rewrite of the final answer (undefined keeps it). */
  transformFinal?: (text: string) => Promise<string | undefined>;
  signal: AbortSignal;
  emit(e: AgentEvent): void;
  /** Where each final message is written (state.db), in order. */
  sink?: MessageSink;
  /** Asks the person (approvals, clarify) through whatever surface is attached. */
  broker: RequestBroker;
  /** Recalled memory for this turn (a fenced block), sent with the user message and never stored. */
  recall?: string;
}

export interface TurnRunner {
  readonly kind: RunnerKind;
  /** One user turn, to completion. Never throws for a failed turn: the result says so. */
  run(user: Message, ctx: TurnContext): Promise<TurnResult>;
  /** Text the person typed mid-turn; true when the running turn took it. */
  steer?(text: string): boolean;
  /** Native compaction (`/compress`); absent when the Session compresses the history itself. */
  compact?(signal?: AbortSignal): Promise<string>;
  /** The Session moved to another conversation (/new, /resume): forget per-conversation state. */
  switchConversation?(): void;
  /** Releases what the runner holds (subprocesses). */
  close(): Promise<void>;
}
