// state.db rows ↔ the runtime's shapes: session and search result types, message encoding (content,
// tool calls, reasoning, the `observed` flag) and title rules. No database access here.
import type { ContentPart, Message, ToolCall } from '../llm/types.ts';
import { profileNameOf } from './profiles.ts';
import type { UsageRecord } from './store/types.ts';

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
  /** The Hermes profile the session ran under (NULL: the default profile). */
  profile_name: string | null;
}

export interface SessionListItem extends SessionRow {
  /** First user message, one line, up to 63 characters. */
  preview: string;
  /** Unix seconds of the last message (or the start). */
  last_active: number;
}

export type { SearchHit } from './view-types.ts';

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
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
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
  /** The profile recorded on the session (default: this process's; `default` and null store NULL). */
  profileName?: string | null;
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
  'profile_name',
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

/** A subagent run is tagged as Hermes tags delegate sessions, so its pickers keep hiding it. */
export function sessionModelConfig(meta: CreateSessionMeta): Record<string, unknown> | undefined {
  if (meta.source === 'subagent' && meta.parentId && meta.modelConfig?._delegate_from === undefined) return { ...meta.modelConfig, _delegate_from: meta.parentId };
  return meta.modelConfig;
}

/** model_config JSON → an object ({} when unset or unreadable). */
export function parseModelConfig(text: unknown): Record<string, unknown> {
  const v = typeof text === 'string' && text ? parseJson<unknown>(text) : {};
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Merges a model_config patch as Hermes does (a null value removes the key); the JSON to store. */
export function mergeModelConfig(config: Record<string, unknown>, patch: Record<string, unknown>): string | null {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || v === undefined) delete config[k];
    else config[k] = v;
  }
  return Object.keys(config).length ? JSON.stringify(config) : null;
}

/** Which sessions a listing shows (see ListOptions): SQL terms with `?` placeholders. */
export function listWhere(
  opts: { source?: string; includeTool?: boolean; archived?: 'hide' | 'include' | 'only'; cwdUnder?: string; model?: string; startedAfter?: number; startedBefore?: number },
  hasArchived: boolean,
  alias = 's',
): { where: string[]; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (opts.source) {
    where.push(`${alias}.source = ?`);
    args.push(opts.source);
  } else if (!opts.includeTool) where.push(`${alias}.source <> 'tool'`);
  if (hasArchived) {
    if (opts.archived === 'only') where.push(`${alias}.archived = 1`);
    else if (opts.archived !== 'include') where.push(`${alias}.archived = 0`);
  }
  if (opts.cwdUnder) {
    const root = opts.cwdUnder.replace(/\/+$/, '') || '/';
    where.push(`(${alias}.cwd = ? OR substr(${alias}.cwd, 1, ?) = ?)`);
    args.push(root, root.length + 1, `${root}/`);
  }
  if (opts.model) {
    where.push(`${alias}.model = ?`);
    args.push(opts.model);
  }
  if (opts.startedAfter !== undefined) {
    where.push(`${alias}.started_at >= ?`);
    args.push(opts.startedAfter);
  }
  if (opts.startedBefore !== undefined) {
    where.push(`${alias}.started_at < ?`);
    args.push(opts.startedBefore);
  }
  return { where, args };
}

// Literal line breaks inside the SQL string: the same text in SQLite and PostgreSQL (no char()/chr()).
const LF = '\n';
const CR = '\r';

/** The first user message of session `<alias>`, on one line, cut to 63 characters ('' when none). */
const previewSql = (alias: string) => `COALESCE((SELECT substr(replace(replace(m.content, '${LF}', ' '), '${CR}', ' '), 1, 63) FROM messages m
                  WHERE m.session_id = ${alias}.id AND m.role = 'user' AND m.content IS NOT NULL ORDER BY m.timestamp, m.id LIMIT 1), '')`;

/** The rows of a listing's page: `n` sessions by id (`?` each), with their previews (see recent-sessions.ts). */
export function sessionPageSql(n: number): string {
  return `SELECT s.*, ${previewSql('s')} AS preview FROM sessions s WHERE s.id IN (${Array.from({ length: n }, () => '?').join(', ')})`;
}

/**
 * A listing's page ranked by each session's newest message (one indexed MAX per session that passes
 * the filter), with previews (`?`: the filter's args, limit, offset). For a filter few sessions pass,
 * or a page that is most of the listing (see recent-sessions.ts).
 */
export function rankedPageSql(where: string[]): string {
  return `SELECT s.*,
        COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id), s.started_at) AS last_active,
        ${previewSql('s')} AS preview
      FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY last_active DESC, s.started_at DESC LIMIT ? OFFSET ?`;
}

/** Title lookups for resolveSession (`?`: key, base, `base #%` LIKE pattern). */
export const TITLE_LOOKUP_SQL = {
  exact: `SELECT id, title FROM sessions WHERE title = ? OR title = ? OR title LIKE ? ESCAPE '\\' ORDER BY started_at DESC`,
  folded: `SELECT id, title FROM sessions WHERE lower(title) = lower(?) OR lower(title) = lower(?) OR lower(title) LIKE lower(?) ESCAPE '\\' ORDER BY started_at DESC`,
};

/**
 * The session a title names among candidate rows (newest first): an explicit "Title #2" that one,
 * a bare title the newest of its lineage.
 */
export function pickTitled(rows: { id: string; title: string }[], key: string, exact: boolean): string | null {
  const { base } = splitLineageTitle(key);
  const fold = (s: string) => (exact ? s : s.toLowerCase());
  const hits = rows.filter((r) => fold(r.title) === fold(key) || splitLineageTitle(fold(r.title)).base === fold(base));
  const explicit = hits.find((r) => fold(r.title) === fold(key) && /#\d+$/.test(key));
  if (explicit) return explicit.id;
  return hits.length ? hits[0].id : null;
}

/** The next free title along a lineage, given the titles that share its base. */
export function nextInLineage(base: string, titles: string[]): string {
  if (!titles.length) return base;
  let max = 1;
  for (const t of titles) {
    const s = splitLineageTitle(t);
    if (s.base === base) max = Math.max(max, s.n);
  }
  return `${base} #${max + 1}`;
}

/** A window of a session's live messages (session_search's scroll and read). */
export type MessagePage = { at: number } | { before: number; limit: number } | { after: number; limit: number } | { head: number } | { tail: number };

/** The query for a page (`?`: the session id, then `args`); `reverse` puts a descending read back in order. */
export function messagePageSql(live: string, p: MessagePage): { sql: string; args: number[]; reverse: boolean } {
  const base = `SELECT * FROM messages WHERE session_id = ?${live ? ` AND ${live}` : ''}`;
  if ('at' in p) return { sql: `${base} AND id = ?`, args: [p.at], reverse: false };
  if ('before' in p) return { sql: `${base} AND id < ? ORDER BY id DESC LIMIT ?`, args: [p.before, p.limit], reverse: true };
  if ('after' in p) return { sql: `${base} AND id > ? ORDER BY id LIMIT ?`, args: [p.after, p.limit], reverse: false };
  if ('head' in p) return { sql: `${base} ORDER BY id LIMIT ?`, args: [p.head], reverse: false };
  return { sql: `${base} ORDER BY id DESC LIMIT ?`, args: [p.tail], reverse: true };
}

/** What `hermes sessions archive|prune` select by (see SessionStore.findSessions). */
export interface FindFilter {
  startedBefore?: number;
  startedAfter?: number;
  source?: string;
  /** A substring of the title, any case. */
  title?: string;
  minMessages?: number;
  maxMessages?: number;
  includeArchived?: boolean;
  /** Active sessions too (default: ended ones only). */
  anyState?: boolean;
}

/** findSessions' query (the same text on SQLite and PostgreSQL). */
export function findSessionsSql(f: FindFilter, hasArchived: boolean): { sql: string; args: (string | number)[] } {
  const { where, args } = listWhere({ source: f.source, includeTool: true, archived: f.includeArchived ? 'include' : 'hide', startedAfter: f.startedAfter, startedBefore: f.startedBefore }, hasArchived);
  if (!f.anyState) where.push('s.ended_at IS NOT NULL');
  if (f.title) (where.push(`lower(COALESCE(s.title, '')) LIKE ? ESCAPE '\\'`), args.push(`%${likeEscape(f.title.toLowerCase())}%`));
  const count = '(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)';
  if (f.minMessages !== undefined) (where.push(`${count} >= ?`), args.push(f.minMessages));
  if (f.maxMessages !== undefined) (where.push(`${count} <= ?`), args.push(f.maxMessages));
  return { sql: `SELECT s.id FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.started_at`, args };
}

/** The per-session usage columns insights add up. */
export type UsageRow = Pick<
  SessionRow,
  | 'id' | 'source' | 'model' | 'started_at' | 'ended_at' | 'message_count' | 'tool_call_count' | 'api_call_count' | 'input_tokens' | 'output_tokens'
  | 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens' | 'billing_provider' | 'estimated_cost_usd'
>;

/** A session's agent-loop usage on one model and route (session_model_usage), for insights. */
export type ModelUsagePart = { session_id: string } & Pick<
  ModelUsageRow,
  'model' | 'billing_provider' | 'api_call_count' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens' | 'estimated_cost_usd'
>;

export function toModelUsagePart(r: Record<string, unknown>): ModelUsagePart {
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    session_id: String(r.session_id),
    model: String(r.model),
    billing_provider: String(r.billing_provider ?? ''),
    api_call_count: n('api_call_count'),
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    cache_read_tokens: n('cache_read_tokens'),
    cache_write_tokens: n('cache_write_tokens'),
    reasoning_tokens: n('reasoning_tokens'),
    estimated_cost_usd: n('estimated_cost_usd'),
  };
}

/** What insights read: sessions started since a time (of a source, or all but `tool`), their tool calls and user messages. */
export interface UsageData {
  sessions: UsageRow[];
  tools: { tool: string; count: number }[];
  userMessages: number;
  /** Those sessions' usage per model (absent when the file has no session_model_usage). */
  models?: ModelUsagePart[];
}

/** usageSince's three queries (`?`: the cutoff, then the source when given). */
export function usageSql(source: string | null): { sessions: string; tools: string; userMessages: string; models: string } {
  const where = `s.started_at >= ?${source ? ' AND s.source = ?' : " AND s.source <> 'tool'"}`;
  return {
    sessions: `SELECT id, source, model, started_at, ended_at, message_count, tool_call_count, api_call_count, input_tokens, output_tokens,
              cache_read_tokens, cache_write_tokens, reasoning_tokens, billing_provider, estimated_cost_usd
       FROM sessions s WHERE ${where} ORDER BY s.started_at`,
    tools: `SELECT m.tool_name AS tool, COUNT(*) AS count FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE ${where} AND m.role = 'tool' AND m.tool_name IS NOT NULL GROUP BY m.tool_name ORDER BY count DESC, m.tool_name`,
    userMessages: `SELECT COUNT(*) AS n FROM messages m JOIN sessions s ON s.id = m.session_id WHERE ${where} AND m.role = 'user'`,
    models: `SELECT u.session_id, u.model, u.billing_provider, u.api_call_count, u.input_tokens, u.output_tokens, u.cache_read_tokens,
              u.cache_write_tokens, u.reasoning_tokens, u.estimated_cost_usd
       FROM session_model_usage u JOIN sessions s ON s.id = u.session_id WHERE ${where} AND u.task = '' ORDER BY u.session_id, u.first_seen, u.model`,
  };
}

/** activeSince's query (`?`: unix seconds). */
export const ACTIVE_SINCE_SQL = 'SELECT COUNT(DISTINCT session_id) AS n FROM messages WHERE timestamp >= ?';

/** rewindLast's statements (`?`: session id, count; then the session id). */
export const REWIND_SQL = {
  rows: `UPDATE messages SET active = 0 WHERE id IN (SELECT id FROM messages WHERE session_id = ? AND (active = 1 OR active IS NULL) ORDER BY id DESC LIMIT ?)`,
  session: 'UPDATE sessions SET rewind_count = rewind_count + 1 WHERE id = ?',
};

/** One row of session_model_usage: a session's usage on one model and billing route, for one task. */
export interface ModelUsageRow {
  model: string;
  billing_provider: string;
  billing_base_url: string;
  billing_mode: string;
  /** `''` for the agent loop; an auxiliary task's name (`vision`, `compression`, …) otherwise. */
  task: string;
  api_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  estimated_cost_usd: number;
  actual_cost_usd: number;
  cost_status: string | null;
  first_seen: number | null;
  last_seen: number | null;
}

/** Whether a turn used anything worth a usage row (Hermes skips empty deltas). */
export function usageCounts(r: UsageRecord): boolean {
  const u = r.usage;
  return !!(u.input_tokens || u.output_tokens || u.cache_read_tokens || u.cache_write_tokens || u.reasoning_tokens || r.apiCalls || r.costUsd);
}

/** The endpoint as billing records keep it: without credentials in the URL or its query. */
export function billingBaseUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  }
}

/** Adds a turn to its (session, model, route, task) row (`?`: see modelUsageArgs). The same text on SQLite and PostgreSQL. */
export const MODEL_USAGE_UPSERT = `INSERT INTO session_model_usage (session_id, model, billing_provider, billing_base_url, billing_mode, task,
     api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
     estimated_cost_usd, actual_cost_usd, cost_status, cost_source, first_seen, last_seen)
   VALUES (?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL, ?, ?)
   ON CONFLICT (session_id, model, billing_provider, billing_base_url, billing_mode, task) DO UPDATE SET
     api_call_count = session_model_usage.api_call_count + excluded.api_call_count,
     input_tokens = session_model_usage.input_tokens + excluded.input_tokens,
     output_tokens = session_model_usage.output_tokens + excluded.output_tokens,
     cache_read_tokens = session_model_usage.cache_read_tokens + excluded.cache_read_tokens,
     cache_write_tokens = session_model_usage.cache_write_tokens + excluded.cache_write_tokens,
     reasoning_tokens = session_model_usage.reasoning_tokens + excluded.reasoning_tokens,
     estimated_cost_usd = session_model_usage.estimated_cost_usd + excluded.estimated_cost_usd,
     cost_status = COALESCE(excluded.cost_status, session_model_usage.cost_status),
     last_seen = excluded.last_seen`;

/** MODEL_USAGE_UPSERT's arguments for a turn (the route's base URL and billing mode as the session row has them). */
export function modelUsageArgs(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl: string, mode: string, at: number): (string | number | null)[] {
  const u = r.usage;
  return [
    sessionId, model || 'unknown', provider || '', baseUrl, mode,
    r.apiCalls, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens,
    r.costUsd ?? 0, r.costUsd === null ? null : 'estimated', at, at,
  ];
}

/** A session's usage rows, biggest spend and most tokens first (`?`: the session id). */
export const MODEL_USAGE_SELECT = `SELECT model, billing_provider, billing_base_url, billing_mode, task, api_call_count, input_tokens, output_tokens,
     cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd, cost_status, first_seen, last_seen
   FROM session_model_usage WHERE session_id = ? ORDER BY estimated_cost_usd DESC, input_tokens + output_tokens DESC, model, task`;

export function toModelUsageRow(r: Record<string, unknown>): ModelUsageRow {
  const n = (k: string) => Number(r[k] ?? 0);
  const nn = (k: string) => (r[k] === null || r[k] === undefined ? null : Number(r[k]));
  return {
    model: String(r.model),
    billing_provider: String(r.billing_provider ?? ''),
    billing_base_url: String(r.billing_base_url ?? ''),
    billing_mode: String(r.billing_mode ?? ''),
    task: String(r.task ?? ''),
    api_call_count: n('api_call_count'),
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    cache_read_tokens: n('cache_read_tokens'),
    cache_write_tokens: n('cache_write_tokens'),
    reasoning_tokens: n('reasoning_tokens'),
    estimated_cost_usd: n('estimated_cost_usd'),
    actual_cost_usd: n('actual_cost_usd'),
    cost_status: (r.cost_status as string | null) ?? null,
    first_seen: nn('first_seen'),
    last_seen: nn('last_seen'),
  };
}

/**
 * The profile a new session records (sessions.profile_name): the one given, else the profile of
 * this process's HERMES_HOME, where the default profile is stored as NULL (as Hermes does).
 */
export function sessionProfileName(meta: CreateSessionMeta): string | null {
  const name = meta.profileName !== undefined ? meta.profileName : profileNameOf();
  return !name || name === 'default' ? null : name;
}
