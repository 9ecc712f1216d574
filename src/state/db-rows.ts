// state.db rows ↔ the runtime's shapes: session and search result types, message encoding (content,
// tool calls, reasoning, the `observed` flag) and title rules. No database access here.
import type { ContentPart, Message, ToolCall } from '../llm/types.ts';

export const MAX_TITLE_LENGTH = 100;

export interface SessionRow {
  id: string;
  source: string;
  user_id: string | null;
  model: string | null;
  model_config: string | null;
  system_prompt: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  billing_provider: string | null;
  billing_base_url: string | null;
  estimated_cost_usd: number | null;
  title: string | null;
  api_call_count: number;
  cwd: string | null;
  /** Hidden from lists, search and --continue (`hermes sessions archive` in Python Hermes). */
  archived: number;
  rewind_count: number;
  /** Gateway routing identity (schema v18+). */
  session_key: string | null;
  chat_id: string | null;
  chat_type: string | null;
  thread_id: string | null;
  display_name: string | null;
  git_branch: string | null;
  git_repo_root: string | null;
}

export interface SessionListItem extends SessionRow {
  /** First user message, one line, up to 63 characters. */
  preview: string;
  /** Unix seconds of the last message (or the start). */
  last_active: number;
}

export interface SearchHit {
  id: number;
  session_id: string;
  role: string;
  timestamp: number;
  /** The matching text with >>>match<<< markers. */
  snippet: string;
  /** The message before and after, 200 characters each. */
  context: { role: string; content: string }[];
  source: string;
  model: string | null;
  title: string | null;
  session_started: number;
}

export interface SearchOptions {
  source?: string | string[];
  excludeSources?: string[];
  role?: string | string[];
  sessionId?: string;
  limit?: number;
  /** Include messages of archived sessions (default: hidden, like the session list). */
  includeArchived?: boolean;
}

export interface DbStats {
  sessions: number;
  archived: number;
  messages: number;
  bySource: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  oldest: number | null;
  newest: number | null;
  dbBytes: number;
  walBytes: number;
  schemaVersion: number;
}

export interface CreateSessionMeta {
  id: string;
  source: string;
  model?: string;
  systemPrompt?: string;
  parentId?: string;
  cwd?: string;
  userId?: string;
  modelConfig?: Record<string, unknown>;
  title?: string;
  /** Unix seconds (default now). */
  startedAt?: number;
}

export class TitleConflictError extends Error {}

export function json(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v) && v.length === 0) return null;
  return JSON.stringify(v);
}

export function parseJson<T>(text: unknown): T | undefined {
  if (typeof text !== 'string' || !text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export function contentToText(content: Message['content']): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  return JSON.stringify(content);
}

const PART_TYPES = new Set(['text', 'image_url']);

function contentFromText(text: unknown, role: string): Message['content'] {
  if (text === null || text === undefined) return null;
  const s = String(text);
  if (role === 'user' && s.startsWith('[{') && s.endsWith('}]')) {
    const v = parseJson<unknown[]>(s);
    if (Array.isArray(v) && v.length && v.every((p) => !!p && typeof p === 'object' && PART_TYPES.has((p as { type?: string }).type ?? '')))
      return v as ContentPart[];
  }
  return s;
}

/** A stored row → an internal message. */
export function rowToMessage(r: Record<string, unknown>): Message {
  const role = String(r.role) as Message['role'];
  const m: Message = { role, content: contentFromText(r.content, role) };
  if (r.tool_calls) {
    const calls = parseJson<ToolCall[]>(r.tool_calls);
    if (Array.isArray(calls) && calls.length)
      m.tool_calls = calls.map((c) => ({
        id: String(c.id ?? ''),
        type: 'function',
        function: {
          name: String(c.function?.name ?? ''),
          arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function?.arguments ?? {}),
        },
      }));
  }
  if (r.tool_call_id) m.tool_call_id = String(r.tool_call_id);
  if (r.tool_name) m.tool_name = String(r.tool_name);
  const reasoning = (r.reasoning ?? r.reasoning_content) as string | null | undefined;
  if (reasoning) m.reasoning = reasoning;
  const details = parseJson<unknown[]>(r.reasoning_details);
  if (Array.isArray(details) && details.length) m.reasoning_details = details;
  const codex = parseJson<unknown[]>(r.codex_reasoning_items);
  if (Array.isArray(codex) && codex.length) m.codex_reasoning_items = codex;
  if (r.finish_reason) m.finish_reason = String(r.finish_reason);
  // A group-chat message the agent saw but was not addressed by (gateway, schema v14+).
  if (r.observed) m.observed = true;
  if (r.platform_message_id) m.platform_message_id = String(r.platform_message_id);
  if (r.timestamp !== null && r.timestamp !== undefined) m.timestamp = Number(r.timestamp);
  return m;
}

/** Cleans a title: one line, no control characters, at most 100 characters. '' → null. */
export function sanitizeTitle(title: string | null | undefined): string | null {
  if (title === null || title === undefined) return null;
  const t = title
    .replace(/[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) return null;
  if (t.length > MAX_TITLE_LENGTH) throw new Error(`Title is too long (${t.length} characters; at most ${MAX_TITLE_LENGTH}).`);
  return t;
}

/** "Title #3" → { base: "Title", n: 3 }; "Title" → { base: "Title", n: 1 }. */
export function splitLineageTitle(title: string): { base: string; n: number } {
  const m = /^(.*?) #(\d+)$/.exec(title);
  return m ? { base: m[1], n: Number(m[2]) } : { base: title, n: 1 };
}

export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const COUNTERS = ['message_count', 'tool_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count', 'archived', 'rewind_count'];
const NULLABLE = [
  'user_id', 'model', 'model_config', 'system_prompt', 'parent_session_id', 'ended_at', 'end_reason', 'billing_provider', 'billing_base_url',
  'estimated_cost_usd', 'title', 'cwd', 'session_key', 'chat_id', 'chat_type', 'thread_id', 'display_name', 'git_branch', 'git_repo_root',
];

/** A sessions row with every field the type promises (older layouts lack some columns). */
export function normalizeSessionRow(row: Record<string, unknown>, promptByHash?: (hash: string) => string | undefined): SessionRow {
  const r = { ...row } as Record<string, unknown>;
  // Later Hermes (schema v25) stores prompts once in system_prompts, keyed by hash.
  if (r.system_prompt == null && promptByHash && typeof r.system_prompt_hash === 'string') {
    const p = promptByHash(r.system_prompt_hash);
    if (p !== undefined) r.system_prompt = p;
  }
  for (const k of COUNTERS) r[k] = Number(r[k] ?? 0);
  for (const k of NULLABLE) r[k] ??= null;
  return r as unknown as SessionRow;
}
