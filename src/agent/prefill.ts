// What each request carries beyond the history, at call time only (never persisted, never in the
// frozen system prompt, which stays byte-stable for the prompt cache): prefill messages, ephemeral
// system text, the turn's recalled context and the request's parameters.
import type { Message, StreamRequest } from '../llm/types.ts';
import type { LoopHook } from './hooks.ts';

/** Messages inserted before the history in every request (`prefill_messages_file`). */
export function prefill(messages: readonly Message[]): LoopHook {
  return {
    shapeRequest(req) {
      if (messages.length) req.messages.unshift(...messages.map((m) => ({ ...m })));
    },
  };
}

/** Text appended to the system prompt of every request (HERMES_EPHEMERAL_SYSTEM_PROMPT). */
export function ephemeralSystem(text: string): LoopHook {
  return {
    shapeRequest(req) {
      req.system = `${req.system}\n\n${text}`;
    },
  };
}

/** A copy of the user message with the recalled context after its text. */
function withContext(m: Message, context: string): Message {
  if (typeof m.content === 'string') return { ...m, content: `${m.content}\n\n${context}` };
  return { ...m, content: [...(m.content ?? []), { type: 'text', text: context }] };
}

/**
 * Recalled memory for this turn (a `<memory-context>` block, plugin hook context): appended to the
 * turn's user message in every request of the turn. The copy is one object for the whole turn
 * (request builders cache by message).
 */
export function turnContext(text: string): LoopHook {
  let turnUser: Message | undefined;
  let withCtx: Message | undefined;
  return {
    turnStart(turn) {
      withCtx = undefined;
      turnUser = turn.userMessage ? turn.history[turn.history.length - 1] : turn.history.findLast((m) => m.role === 'user');
    },
    viewHistory(history) {
      const user = turnUser;
      return user ? history.map((m) => (m === user ? (withCtx ??= withContext(m, text)) : m)) : history;
    },
  };
}

/** Request fields set for every request of a turn (the session's settings), plus per-request budgets. */
export interface RequestParams extends Pick<StreamRequest, 'maxTokens' | 'temperature' | 'reasoningEffort' | 'cacheTtl' | 'sessionId' | 'serviceTier' | 'extraBody'> {
  /** Per-request output budget when maxTokens is unset (read before each request; lean mode). */
  maxTokensFor?: () => number | undefined;
  /** Per-request output ceiling when neither is set (the provider's default; read before each request). */
  outputCapFor?: () => number | undefined;
}

/** The request's parameters (output budget, temperature, effort, cache TTL, session, tier, extra body). */
export function requestParams(p: RequestParams): LoopHook {
  return {
    shapeRequest(req: StreamRequest) {
      req.maxTokens = p.maxTokens ?? p.maxTokensFor?.();
      req.outputCap = p.outputCapFor?.();
      req.temperature = p.temperature;
      req.reasoningEffort = p.reasoningEffort;
      req.cacheTtl = p.cacheTtl;
      req.sessionId = p.sessionId;
      req.serviceTier = p.serviceTier;
      req.extraBody = p.extraBody;
    },
  };
}
