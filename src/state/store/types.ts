// The state store behind SessionDB, the gateway's routing and dedupe, and cron/kanban claims: one
// interface, two backends. SQLite (`src/state/db.ts`, HERMES_HOME/state.db in Hermes's exact schema)
// stays the default; PostgreSQL (`state.backend: postgres`) lets several machines share one state.
//
// Sync and async: node:sqlite answers synchronously and PostgreSQL cannot, so every method returns
// `Awaitable<T>`. SessionDB implements this interface with plain return values (nothing is wrapped,
// so SQLite callers that hold a SessionDB stay synchronous and pay nothing), while code written for
// either backend `await`s. Writes issued without awaiting (the agent loop's message sink) are applied
// in the order they were issued by both backends; `flush()` resolves once every write issued so far
// is committed (SQLite: at once).
import type { Message } from '../../llm/types.ts';
import type { CreateSessionMeta, DbStats, ModelUsageRow, FindFilter, MessagePage, SearchHit, SearchOptions, SessionListItem, SessionRow, UsageData } from '../db-rows.ts';

export type Awaitable<T> = T | Promise<T>;

/** Which sessions a listing shows: source, tool-integration sessions, archived ones. */
export interface ListOptions {
  source?: string;
  includeTool?: boolean;
  /** Archived sessions: left out (default), listed too, or listed alone. */
  archived?: 'hide' | 'include' | 'only';
  /** Only sessions whose working directory is this folder or inside it (a workspace). */
  cwdUnder?: string;
  /** Only sessions of this model. */
  model?: string;
  /** Unix seconds: only sessions started at or after / before this. */
  startedAfter?: number;
  startedBefore?: number;
}

/** What recordUsage needs from a turn result. */
export interface UsageRecord {
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; reasoning_tokens: number };
  costUsd: number | null;
  apiCalls: number;
}

export type StoreBackend = 'sqlite' | 'postgres';

/** Sessions, messages, search, titles and lineage (Hermes's state.db, whichever backend keeps it). */
export interface SessionStoreApi {
  readonly backend: StoreBackend;
  /** Where it is: the state.db path, or the PostgreSQL URL without its password. */
  readonly location: string;
  readonly isOpen: boolean;
  /** Set when the data belongs to a newer Hermes (used as it is); surfaces show it once. */
  readonly compatNote: string | null;

  close(): Awaitable<void>;
  /** Resolves when every write issued so far is committed. */
  flush(): Awaitable<void>;

  getMeta(key: string): Awaitable<string | null>;
  setMeta(key: string, value: string | null): Awaitable<void>;

  createSession(meta: CreateSessionMeta): Awaitable<void>;
  endSession(sessionId: string, reason: string): Awaitable<void>;
  reopenSession(sessionId: string): Awaitable<void>;
  updateSystemPrompt(sessionId: string, prompt: string): Awaitable<void>;
  getModelConfig(sessionId: string): Awaitable<Record<string, unknown>>;
  patchModelConfig(sessionId: string, patch: Record<string, unknown>): Awaitable<void>;
  getSession(id: string): Awaitable<SessionRow | null>;
  listSessions(opts?: ListOptions & { limit?: number; offset?: number }): Awaitable<SessionListItem[]>;
  countSessions(opts?: ListOptions | string): Awaitable<number>;
  facets(): Awaitable<{ sources: { value: string; count: number }[]; models: { value: string; count: number }[] }>;
  setArchived(id: string, archived: boolean): Awaitable<boolean>;
  /** The newest session (of a source; with `cwdUnder`, of that workspace). */
  mostRecentSession(source?: string, cwdUnder?: string): Awaitable<SessionRow | null>;
  /** By id, unique id prefix (4+ characters) or title (the newest of a title's lineage). */
  resolveSession(idOrTitle: string): Awaitable<string | null>;
  /** Titles are unique; a clash throws TitleConflictError. */
  setTitle(id: string, title: string | null): Awaitable<void>;
  nextTitleInLineage(title: string): Awaitable<string>;
  uniqueTitle(wanted: string): Awaitable<string | null>;
  descendants(id: string): Awaitable<SessionRow[]>;
  ancestors(id: string): Awaitable<SessionRow[]>;
  deleteSession(id: string): Awaitable<boolean>;
  pruneSessions(olderThanDays: number, source?: string): Awaitable<number>;
  /** Session ids a filter selects (`hermes sessions archive|prune`), oldest first; ended ones only unless `anyState`. */
  findSessions(f: FindFilter): Awaitable<string[]>;
  /** The usage rows insights add up: sessions started at or after `cutoff` (of `source`, or all but `tool`). */
  usageSince(cutoff: number, source: string | null): Awaitable<UsageData>;
  /** How many sessions had a message at or after `since` (unix seconds). */
  activeSince(since: number): Awaitable<number>;

  appendMessage(sessionId: string, m: Message): Awaitable<number>;
  /** Adds a turn's usage to the session and to its per-model row (`baseUrl`: the endpoint billed). */
  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Awaitable<void>;
  /** A session's usage per model and billing route (session_model_usage). */
  modelUsage(sessionId: string): Awaitable<ModelUsageRow[]>;
  getMessageRows(sessionId: string, which?: 'live' | 'shown' | 'all'): Awaitable<Record<string, unknown>[]>;
  getMessages(sessionId: string): Awaitable<Message[]>;
  getTranscript(sessionId: string): Awaitable<Message[]>;
  messageCount(sessionId: string): Awaitable<number>;
  /** A window of a session's live rows (the ones a conversation replays), in order. */
  messagePage(sessionId: string, page: MessagePage): Awaitable<Record<string, unknown>[]>;
  liveMessageCount(sessionId: string): Awaitable<number>;
  /** Takes the last `count` live rows out of the conversation (kept, as rewound rows; not replayed). Returns how many. */
  rewindLast(sessionId: string, count: number): Awaitable<number>;

  /** Compression in place (Hermes's compression_locks lease + archive_and_compact): false on an old state.db without them. */
  readonly canCompactInPlace: boolean;
  /** Takes the session's lease (unix-second expiry); false while another live holder has it. */
  tryAcquireCompressionLock(sessionId: string, holder: string, ttlSeconds?: number): Awaitable<boolean>;
  releaseCompressionLock(sessionId: string, holder: string): Awaitable<boolean>;
  /** Who holds the session's compression lease now (null: nobody, or it expired). */
  getCompressionLockHolder?(sessionId: string): Awaitable<string | null>;
  /** Live rows → active=0, compacted=1; `messages` become the live rows; refused if `lockHolder` lost the lease. */
  archiveAndCompact(sessionId: string, messages: Message[], opts?: { lockHolder?: string }): Awaitable<number>;
  setCompressionCooldown(sessionId: string, untilS: number | null, error: string | null): Awaitable<void>;
  getCompressionCooldown(sessionId: string): Awaitable<{ untilS: number; error: string | null } | null>;

  /** Full-text search in FTS5 query syntax (words, "phrases", prefix*, AND/OR/NOT); CJK by substring. */
  searchMessages(query: string, opts?: SearchOptions): Awaitable<SearchHit[]>;

  exportSession(id: string): Awaitable<Record<string, unknown> | null>;
  sessionIds(source?: string): Awaitable<string[]>;
  stats(): Awaitable<DbStats>;
}
