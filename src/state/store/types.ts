// The session store: sessions, messages, search, titles and lineage (Hermes's state.db), one
// interface for both backends. SQLite (HERMES_HOME/state.db in Hermes's exact schema) stays the
// default; PostgreSQL (`state.backend: postgres`) lets several machines share one state.
//
// Every method returns a promise, on both backends, and every caller awaits (or hands the promise to
// something that does: the Session's StoreWrites). node:sqlite answers synchronously, so the SQLite
// store (`sqlite.ts`) is a thin adapter over SessionDB (`src/state/db.ts`): each call runs its
// statement at once, when it is made, and only its answer arrives a microtask later. Writes issued
// without awaiting are applied in the order they were issued by both backends; `flush()` resolves
// once every write issued so far is committed (SQLite: at once). Nothing outside `src/state/store/`
// tells the backends apart: `backend` is for display (stats, logs), never for branching.
import type { Message } from '../../llm/types.ts';
import type { DelegationRows } from './delegations.ts';
import type { CreateSessionMeta, DbStats, ModelUsageRow, FindFilter, MessagePage, SearchHit, SearchOptions, SessionListItem, SessionRow, UsageData } from '../db-rows.ts';

/** A value or a promise of it: what ports that also take a synchronous fake return (not the session store). */
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
export interface SessionStore {
  /** Which backend keeps it, for display (stats, logs); nothing branches on it. */
  readonly backend: StoreBackend;
  /** Where it is: the state.db path, or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * The SQLite file the store keeps its data in (null: not a file, i.e. PostgreSQL or `:memory:`):
   * what a failed write's message names, and where the gateway keeps its delivery ledger beside it.
   */
  readonly file: string | null;
  readonly isOpen: boolean;
  /** Set when the data belongs to a newer Hermes (used as it is); surfaces show it once. */
  readonly compatNote: string | null;

  close(): Promise<void>;
  /** Resolves when every write issued so far is committed. */
  flush(): Promise<void>;

  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string | null): Promise<void>;

  createSession(meta: CreateSessionMeta): Promise<void>;
  endSession(sessionId: string, reason: string): Promise<void>;
  reopenSession(sessionId: string): Promise<void>;
  updateSystemPrompt(sessionId: string, prompt: string): Promise<void>;
  getModelConfig(sessionId: string): Promise<Record<string, unknown>>;
  patchModelConfig(sessionId: string, patch: Record<string, unknown>): Promise<void>;
  getSession(id: string): Promise<SessionRow | null>;
  listSessions(opts?: ListOptions & { limit?: number; offset?: number }): Promise<SessionListItem[]>;
  countSessions(opts?: ListOptions | string): Promise<number>;
  facets(): Promise<{ sources: { value: string; count: number }[]; models: { value: string; count: number }[] }>;
  setArchived(id: string, archived: boolean): Promise<boolean>;
  /** The newest session (of a source; with `cwdUnder`, of that workspace). */
  mostRecentSession(source?: string, cwdUnder?: string): Promise<SessionRow | null>;
  /** By id, unique id prefix (4+ characters) or title (the newest of a title's lineage). */
  resolveSession(idOrTitle: string): Promise<string | null>;
  /** Titles are unique; a clash throws TitleConflictError. */
  setTitle(id: string, title: string | null): Promise<void>;
  nextTitleInLineage(title: string): Promise<string>;
  uniqueTitle(wanted: string): Promise<string | null>;
  descendants(id: string): Promise<SessionRow[]>;
  ancestors(id: string): Promise<SessionRow[]>;
  deleteSession(id: string): Promise<boolean>;
  pruneSessions(olderThanDays: number, source?: string): Promise<number>;
  /** Session ids a filter selects (`hermes sessions archive|prune`), oldest first; ended ones only unless `anyState`. */
  findSessions(f: FindFilter): Promise<string[]>;
  /** The usage rows insights add up: sessions started at or after `cutoff` (of `source`, or all but `tool`). */
  usageSince(cutoff: number, source: string | null): Promise<UsageData>;
  /** How many sessions had a message at or after `since` (unix seconds). */
  activeSince(since: number): Promise<number>;

  appendMessage(sessionId: string, m: Message): Promise<number>;
  /** Several messages of one session in one transaction (the loop's appends of one step), in order. */
  appendMessages(sessionId: string, ms: Message[]): Promise<number[]>;
  /** Adds a turn's usage to the session and to its per-model row (`baseUrl`: the endpoint billed). */
  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Promise<void>;
  /** A session's usage per model and billing route (session_model_usage). */
  modelUsage(sessionId: string): Promise<ModelUsageRow[]>;
  getMessageRows(sessionId: string, which?: 'live' | 'shown' | 'all'): Promise<Record<string, unknown>[]>;
  getMessages(sessionId: string): Promise<Message[]>;
  getTranscript(sessionId: string): Promise<Message[]>;
  messageCount(sessionId: string): Promise<number>;
  /** A window of a session's live rows (the ones a conversation replays), in order. */
  messagePage(sessionId: string, page: MessagePage): Promise<Record<string, unknown>[]>;
  liveMessageCount(sessionId: string): Promise<number>;
  /** Takes the last `count` live rows out of the conversation (kept, as rewound rows; not replayed). Returns how many. */
  rewindLast(sessionId: string, count: number): Promise<number>;

  /** Compression in place (Hermes's compression_locks lease + archive_and_compact): false on an old state.db without them. */
  readonly canCompactInPlace: boolean;
  /** Takes the session's lease (unix-second expiry); false while another live holder has it. */
  tryAcquireCompressionLock(sessionId: string, holder: string, ttlSeconds?: number): Promise<boolean>;
  releaseCompressionLock(sessionId: string, holder: string): Promise<boolean>;
  /** Who holds the session's compression lease now (null: nobody, or it expired). */
  getCompressionLockHolder(sessionId: string): Promise<string | null>;
  /** Live rows → active=0, compacted=1; `messages` become the live rows; refused if `lockHolder` lost the lease. */
  archiveAndCompact(sessionId: string, messages: Message[], opts?: { lockHolder?: string }): Promise<number>;
  setCompressionCooldown(sessionId: string, untilS: number | null, error: string | null): Promise<void>;
  getCompressionCooldown(sessionId: string): Promise<{ untilS: number; error: string | null } | null>;

  /** Full-text search in FTS5 query syntax (words, "phrases", prefix*, AND/OR/NOT); CJK by substring. */
  searchMessages(query: string, opts?: SearchOptions): Promise<SearchHit[]>;

  exportSession(id: string): Promise<Record<string, unknown> | null>;
  sessionIds(source?: string): Promise<string[]>;
  stats(): Promise<DbStats>;

  /**
   * SQL both backends run as written (statements SQLite and PostgreSQL parse alike, `?` placeholders),
   * for the few features written once for both (handoff.ts): the rows changed, and the rows read.
   */
  sqlRun(sql: string, params: (string | number | null)[]): Promise<number>;
  sqlAll(sql: string, params: (string | number | null)[]): Promise<Record<string, unknown>[]>;

  /** Background delegations (`async_delegations`, Hermes's rows and state machine): `delegations.ts`. */
  readonly delegations: DelegationRows;
}
