// The agent loop's vocabulary: tools as the loop sees them, requests to a person, events out.
import type { Message, ProviderError, ToolSchema, Usage } from '../llm/types.ts';

// ---------------------------------------------------------------------------------------------
// Requests: a layer below needs a person. The loop emits a `request` event and awaits the answer.

export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny';

export type AgentRequest =
  | {
      kind: 'approval';
      command: string;
      /** Why it needs approval, e.g. "recursive delete". */
      description: string;
      choices: ApprovalChoice[];
      /** File edits awaiting approval (editor surfaces show them as diffs). */
      edit?: { callId: string; files: { path: string; oldText: string | null; newText: string }[] };
    }
  | { kind: 'clarify'; question: string; choices?: string[] }
  /** A secret typed by the person (sudo password, a skill's env var). Never persisted or logged. */
  | { kind: 'secret'; name: string; prompt: string };

export type AnswerFor<R extends AgentRequest> = R extends { kind: 'approval' }
  ? ApprovalChoice
  : R extends { kind: 'clarify' }
    ? string
    : string | null;

/** Why a request got the answer it got. */
/** `shutdown`: the gateway stopped while the request waited (answered with the default: deny). */
export type AnswerSource = 'person' | 'timeout' | 'no_responder' | 'interrupted' | 'shutdown';

export interface Answered<R extends AgentRequest> {
  answer: AnswerFor<R>;
  source: AnswerSource;
}

// ---------------------------------------------------------------------------------------------
// Tools as the loop sees them. The registry (src/tools) builds these from tool definitions.

export interface ToolCallContext {
  callId: string;
  signal: AbortSignal;
  /** Ask the person through the surface. Resolves with a default (deny / empty) when nobody can answer. */
  ask<R extends AgentRequest>(request: R): Promise<Answered<R>>;
  /** A one-line progress note shown by surfaces that show tool progress. */
  progress(text: string): void;
  /** Set when the call comes from the background review fork (skills it creates are curator-managed). */
  caller?: 'background_review';
}

export interface ToolOutcome {
  /** What the model sees: a JSON string. */
  content: string;
  isError?: boolean;
  /** What a person sees, when it differs (e.g. a diff); never sent to the model. */
  display?: unknown;
}

export interface PathScope {
  read: string[];
  write: string[];
}

export interface AgentTool {
  name: string;
  toolset: string;
  schema: ToolSchema;
  emoji?: string;
  /** Safe to run concurrently with other parallel-safe calls (read-only, no side effects). */
  parallelSafe?: boolean;
  /** File tools: the absolute paths a call reads and writes, for the parallel planner. */
  paths?(args: Record<string, unknown>): PathScope | null;
  /** Results beyond this many characters are spilled to a file (default 100,000; Infinity = never). */
  maxResultChars?: number;
  execute(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutcome>;
}

// ---------------------------------------------------------------------------------------------
// Events out of the loop. Surfaces render them; nothing in the loop knows which surface runs it.

export type AgentEvent =
  | { type: 'turn_start'; userMessage: Message | null }
  | { type: 'api_start'; iteration: number; model: string }
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'message'; message: Message }
  | { type: 'tool_start'; callId: string; name: string; args: Record<string, unknown>; emoji?: string }
  | { type: 'tool_progress'; callId: string; name: string; text: string }
  | {
      type: 'tool_end';
      callId: string;
      name: string;
      content: string;
      isError: boolean;
      durationMs: number;
      display?: unknown;
    }
  | { type: 'usage'; usage: Usage; costUsd: number | null; model: string; provider: string }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: ProviderError }
  | { type: 'fallback'; from: string; to: string; reason: string; /** Back on the primary (it answered again), not a switch away from it. */ back?: boolean }
  | { type: 'key_rotated'; provider: string; reason: string }
  /**
   * The model call's stream broke after it had begun (cut, malformed event, stall) and is sent again:
   * the text and reasoning deltas of this call so far (since `api_start` or the last `retract`) are
   * void. Surfaces drop them from view; they are never stored. A `retry` or `fallback` follows.
   * `shown`: some of them reached the surfaces (text a text-call scanner held back did not).
   */
  | { type: 'retract'; error: ProviderError; shown: boolean }
  | { type: 'request'; id: string; request: AgentRequest }
  | { type: 'request_resolved'; id: string; answer: unknown; source: AnswerSource }
  | { type: 'warning'; message: string }
  /** Something the person may want to know that is not a problem (memory saved, context compressed). */
  | { type: 'notice'; message: string }
  | { type: 'error'; error: ProviderError | { kind: string; message: string } }
  | { type: 'turn_end'; result: TurnResult };

export interface TurnResult {
  /** The final answer text ('' when there is none). */
  finalText: string;
  /** The model finished with a text answer. */
  completed: boolean;
  /** The iteration budget ran out; finalText is a summary of work done. */
  partial: boolean;
  /** The turn ended on an error (see `error`). */
  failed: boolean;
  /** The turn was interrupted (AbortSignal). */
  interrupted: boolean;
  error?: ProviderError | { kind: string; message: string };
  apiCalls: number;
  iterations: number;
  usage: Usage;
  costUsd: number | null;
  /** Messages appended to the history during this turn, in order. */
  messages: Message[];
}

/** Where the loop writes each message as soon as it is final (the SessionDB in production). */
export interface MessageSink {
  append(message: Message): void;
}
