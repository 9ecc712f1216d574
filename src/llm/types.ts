// The LLM vocabulary shared by every wire adapter, the agent loop and the surfaces.
// Messages are kept internally in the OpenAI chat shape; each adapter converts at its edge.

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export interface Message {
  role: Role;
  content: string | ContentPart[] | null;
  tool_calls?: ToolCall[];
  /** On `tool` messages: the call this result answers. */
  tool_call_id?: string;
  /** On `tool` messages: the tool's name (the `tool_name` column of state.db). */
  tool_name?: string;
  /** Visible reasoning text, for display, trajectories and echo providers. */
  reasoning?: string | null;
  /**
   * Provider-structured reasoning kept for replay: OpenRouter `reasoning_details` items, or Anthropic
   * `thinking` / `redacted_thinking` blocks (with signatures).
   */
  reasoning_details?: unknown[] | null;
  /** OpenAI Responses API reasoning items (`rs_…`, encrypted content) replayed with their message. */
  codex_reasoning_items?: unknown[] | null;
  finish_reason?: string | null;
  /** Unix seconds. Set when the message is appended to a history. */
  timestamp?: number;
  /** Gateway: a group-chat message the agent saw without being addressed (state.db `observed`). */
  observed?: boolean;
  /** Gateway: the platform's id for this message (state.db `platform_message_id`). */
  platform_message_id?: string;
}

export type JsonSchema = { [key: string]: unknown };

export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** Token usage of one API call. `input_tokens` excludes cache reads and writes (Anthropic convention). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

/**
 * The one check behind the caches kept across the requests of a growing history (the sanitized
 * history's memo in agent/repair.ts, the chat body's serialised run in openai-chat.ts, the session's
 * token estimate): how many leading entries of `now` are the very objects `seen` holds at the same
 * places (`seen` being the caller's own copy of what it saw last), and for which `same(i)`, if given,
 * holds.
 *
 * It walks them, one identity comparison each: there is no sound shortcut such as "the same array,
 * only longer", because the history is rewritten in place (compression, /new, /undo and resuming
 * splice new messages into the same array, keeping some of the old ones).
 */
export function samePrefix<T>(seen: readonly T[], now: readonly T[], same?: (i: number) => boolean): number {
  const n = Math.min(seen.length, now.length);
  let i = 0;
  if (same) while (i < n && seen[i] === now[i] && same(i)) i++;
  else while (i < n && seen[i] === now[i]) i++;
  return i;
}

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
});

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
  };
}

/** Everything the model read for this call: the size of the prompt. */
export const promptTokens = (u: Usage): number => u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;

export type ApiMode = 'chat_completions' | 'anthropic_messages' | 'codex_responses';
export const API_MODES: readonly ApiMode[] = ['chat_completions', 'anthropic_messages', 'codex_responses'];

export type StopReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'aborted';

export type ProviderErrorKind =
  | 'auth' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'billing' // 402
  | 'rate_limit' // 429
  | 'server' // 5xx
  | 'bad_request' // other 4xx
  | 'context_length'
  | 'connection'
  | 'timeout'
  | 'invalid_response'
  | 'aborted'
  /** A spend cap (config.yaml `budgets:`) stopped the call before it was sent. */
  | 'budget';

export interface ProviderError {
  kind: ProviderErrorKind;
  /** HTTP status when the provider answered. */
  status?: number;
  /** The provider's own message (never a bare status line when the body said more). */
  message: string;
  provider: string;
  model?: string;
  baseUrl?: string;
  retryable: boolean;
  /** From a Retry-After header, when present. */
  retryAfterMs?: number;
  /** A plugin's `transform_api_error_classification` override: hand the call to the fallback chain (true) or not. */
  fallback?: boolean;
  /** A plugin's override: bench this credential and rotate to the next key (true) or keep it (false). */
  rotate?: boolean;
  /**
   * What went wrong with the stream itself, when that is the failure: no response before the
   * first-byte deadline, no data for the stale timeout after it began, the connection cut
   * mid-response, or an event that is not valid JSON.
   */
  fault?: StreamFault;
}

export type StreamFault = 'first_byte' | 'stall' | 'cut' | 'malformed';

export interface StreamRequest {
  model: string;
  system: string;
  /** History without the system prompt, in the internal (OpenAI) shape. */
  messages: Message[];
  tools: ToolSchema[];
  signal?: AbortSignal;
  /** The output budget asked for (spend meters count it as the answer's likely size). */
  maxTokens?: number;
  /** A ceiling sent as max_tokens when maxTokens is unset (a provider's default, src/llm/output-cap.ts): not an estimate. */
  outputCap?: number;
  temperature?: number;
  /** none | minimal | low | medium | high | xhigh */
  reasoningEffort?: string;
  /** Anthropic prompt-cache TTL for the 4 breakpoints. */
  cacheTtl?: '5m' | '1h';
  /** Lets a provider key its prompt cache to the session. */
  sessionId?: string;
  /** Processing tier (/fast): `priority`, `auto`, `flex` (OpenAI); `auto` / `standard_only` (Anthropic). */
  serviceTier?: string;
  /**
   * Extra top-level fields for the primary endpoint's Chat Completions body (e.g. Ollama's
   * `options.num_ctx`); never sent to a fallback.
   */
  extraBody?: Record<string, unknown>;
}

export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: ProviderError }
  | { type: 'fallback'; from: string; to: string; reason: string; /** Back on the primary (it answered again), not a switch away from it. */ back?: boolean }
  | { type: 'key_rotated'; provider: string; reason: string }
  /**
   * The attempt whose deltas went out failed and the request is being sent again (a retry, the next
   * key or a fallback): everything streamed since the request began is void and must not be shown
   * or kept as the answer. Deltas of the new attempt follow.
   */
  | { type: 'retract'; error: ProviderError }
  | { type: 'done'; result: StreamResult };

export interface StreamResult {
  /** The assistant message as assembled from the stream (content, tool_calls, reasoning). */
  message: Message;
  stopReason: StopReason;
  usage: Usage;
  model: string;
  provider: string;
  /** Set when stopReason is 'error' (or 'aborted'). */
  error?: ProviderError;
  /** Milliseconds from sending the request to the response's first byte (its status line), when it came. */
  firstByteMs?: number;
}

/**
 * A stream of events ending in exactly one `done`. A stream never throws: failures arrive as a
 * `done` whose result has stopReason 'error' or 'aborted'.
 */
export interface LlmStream extends AsyncIterable<StreamEvent> {
  result(): Promise<StreamResult>;
}

export type StreamFn = (req: StreamRequest) => LlmStream;
