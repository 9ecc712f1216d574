// What the agent loop's features plug into. The loop (loop.ts) is a few named steps; everything
// beyond calling the model and running the tools it asks for is a hook: compression, call-time
// additions to the request (prefill.ts), text-call parsing (textcalls/hook.ts), deferred tools,
// result spilling (spill.ts), guardrails (guardrails.ts), steering (steer.ts), the plugins' final
// rewrite and pricing. Hooks run in the order they are listed; each point is optional.
import type { Message, StreamRequest, ToolCall, ToolSchema, Usage } from '../llm/types.ts';
import { messageText } from './repair.ts';
import type { AgentEvent, AgentTool, ToolOutcome } from './types.ts';

/** The turn as hooks see it. */
export interface Turn {
  /** The message that started the turn (null when the turn continues the history). */
  readonly userMessage: Message | null;
  /** The conversation, appended to in place (the turn's user message is in it by `turnStart`). */
  readonly history: Message[];
  /** The tool schemas offered to the model (the list may grow during the turn). */
  readonly schemas: readonly ToolSchema[];
  /** Whether the current model call offers tools (false for the budget's closing summary). */
  readonly withTools: boolean;
  emit(e: AgentEvent): void;
  /** Unix ms. */
  now(): number;
}

/** One tool call of an assistant message, from its preparation to its result message. */
export interface ToolRun {
  readonly call: ToolCall;
  /** The tool that runs it (null when the call cannot run). */
  readonly tool: AgentTool | null;
  readonly args: Record<string, unknown>;
  /** Set when the call cannot run (unknown tool, bad JSON, an unreadable text call). */
  readonly error: string | undefined;
  /** What the tool returned (set once it finished). */
  outcome: ToolOutcome;
  /** What the model will see; `afterToolCall` and `finaliseResult` hooks may rewrite it. */
  content: string;
  /** Notes appended after the content once every hook has seen it (warnings, steering), each starting "\n\n". */
  suffix: string;
  /** This is the last result of its batch to finish (set before `finaliseResult`). */
  last: boolean;
}

export interface LoopHook {
  /** The turn begins; its user message, if any, is in the history. Per-turn state resets here. */
  turnStart?(turn: Turn): void;
  /** Before each model request, awaited (context compression). */
  beforeRequest?(turn: Turn, lastUsage: Usage | null): Promise<void> | void;
  /** The history as this request sends it, at call time only (the turn's recalled context). */
  viewHistory?(history: Message[], turn: Turn): Message[];
  /** The request about to go out, at call time only: prefill, ephemeral system text, parameters. */
  shapeRequest?(req: StreamRequest, turn: Turn): void;
  /** The answer's text as it streams: returns what to show now (held text is settled in `onAnswer`). */
  streamText?(text: string, turn: Turn): string;
  /** The model call's stream is sent again: what streamed of it so far is void. */
  retract?(turn: Turn): void;
  /** The price of a model call's usage in USD (the first hook that knows wins). */
  costOf?(model: string, provider: string, usage: Usage): number | null;
  /** The complete answer, before it enters the history: may rewrite it (text calls become tool calls). */
  onAnswer?(msg: Message, turn: Turn): void;
  /** The final answer (no tool calls), before it is stored: may rewrite its content. */
  finalAnswer?(msg: Message, turn: Turn): Promise<void> | void;
  /** A call that must not run: returns the error the model gets instead (checked first). */
  checkToolCall?(call: ToolCall): string | undefined;
  /** A tool the list lacks, by the name the model called (deferred tools): it is added to the list. */
  resolveTool?(name: string): AgentTool | undefined;
  /** A tool finished (calls of a batch may finish concurrently): before `tool_end` shows the content. */
  afterToolCall?(run: ToolRun, turn: Turn): Promise<void> | void;
  /** A result becomes final, one at a time in finishing order: then it is recorded. */
  finaliseResult?(run: ToolRun, turn: Turn): Promise<void> | void;
  /** Every result of the batch is in the history: returns a reason to end the turn, or undefined. */
  afterToolBatch?(turn: Turn): string | undefined;
}

/** A hook that rewrites the final answer's text (plugins' transform_llm_output), saying so when it changed. */
export function transformFinal(transform: (text: string) => Promise<string | undefined>): LoopHook {
  return {
    async finalAnswer(msg, turn) {
      const before = messageText(msg.content);
      const after = await transform(before);
      if (after !== undefined && after !== before) {
        msg.content = after;
        turn.emit({ type: 'notice', message: `(rewritten by a plugin after streaming)\n${after}` });
      }
    },
  };
}
