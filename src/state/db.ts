// The session store: HERMES_HOME/state.db in Python Hermes's schema v23 (sessions, messages, FTS5
// and trigram indexes, state_meta, gateway_routing, compression_locks, per-model usage, background
// delegations; see db-schema.ts and db-fts.ts), so a Hermes user keeps their history and can go back. WAL, `BEGIN IMMEDIATE` writes retried with random jitter
// when another process holds the lock, a passive WAL checkpoint every 50 writes. Every message is
// committed as it is appended, so a killed process loses nothing it already produced.
//
// Reads follow Hermes's flags: archived sessions (`archived = 1`) stay out of lists, search and
// --continue unless asked for; replay reads live rows only (`active = 1`), while rows a compression
// folded away (`compacted = 1`) still show in transcripts and search; `observed` group-chat rows come
// back flagged.
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Message } from '../llm/types.ts';
import {
  contentToText,
  json,
  likeEscape,
  messagePageSql,
  type MessagePage,
  listWhere,
  findSessionsSql,
  REWIND_SQL,
  ACTIVE_SINCE_SQL,
  usageSql,
  type FindFilter,
  type UsageData,
  type UsageRow,
  billingBaseUrl,
  MODEL_USAGE_SELECT,
  MODEL_USAGE_UPSERT,
  modelUsageArgs,
  type ModelUsageRow,
  toModelUsagePart,
  toModelUsageRow,
  usageCounts,
  sessionProfileName,
  MAX_TITLE_LENGTH,
  mergeModelConfig,
  nextInLineage,
  normalizeSessionRow,
  parseModelConfig,
  pickTitled,
  sessionModelConfig,
  TITLE_LOOKUP_SQL,
  rowToMessage,
  sanitizeTitle,
  splitLineageTitle,
  TitleConflictError,
  type CreateSessionMeta,
  type DbStats,
  type SearchHit,
  type SearchOptions,
  type SessionListItem,
  type SessionRow,
} from './db-rows.ts';
import { jitter, migrate, SCHEMA_VERSION, WRITE_MAX_RETRIES } from './db-schema.ts';
import * as compaction from './db-compaction.ts';
import { searchMessages, type SearchContext } from './db-search.ts';
import { listPlan, runPlanSync, type Row } from './recent-sessions.ts';
import { annotateDbError, guardConnection } from './db-errors.ts';
import { isBusyError, sleepSync, sqlite, type DatabaseSync, type StatementSync } from './sqlite.ts';
import type { ListOptions, UsageRecord } from './store/types.ts';

export * from './db-rows.ts';
export type { ListOptions, UsageRecord } from './store/types.ts';
export { SCHEMA_VERSION } from './db-schema.ts';
export { CJK_GLOB } from './db-fts.ts';
export { makeSnippet, queryTerms, RANK_WINDOW } from './db-search.ts';

const CHECKPOINT_EVERY = 50;
/** Inside a long turn, checkpoint anyway after this many writes (bounds the WAL). */
const CHECKPOINT_HARD_LIMIT = 1000;

const now = () => Date.now() / 1000;

/** state.db, synchronously (node:sqlite). Callers use it as the session store through `src/state/store/sqlite.ts`. */
export class SessionDB {
  readonly backend = 'sqlite' as const;
  readonly path: string;
  private readonly db: DatabaseSync;
  private writes = 0;
  private checkpointedAt = 0;
  private checkpointDue = false;
  /** Inside write()'s transaction: a nested write() joins it (batch()). */
  private inWrite = false;
  private closed = false;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly messageCols: Set<string>;
  private readonly sessionCols: Set<string>;
  private readonly hasSystemPrompts: boolean;
  private readonly hasModelUsage: boolean;
  private readonly search: SearchContext;
  private readonly compaction: compaction.CompactionContext;
  /** SQL on `messages` for the rows a conversation replays (live rows). */
  private readonly liveRows: string;
  /** SQL on `messages` for the rows a transcript shows (live and compacted, not rewound). */
  private readonly shownRows: string;
  /** The schema version found on disk before opening (0 for a new file). */
  readonly foundVersion: number;
  /**
   * Set when the file belongs to a newer Hermes (schema above ours): it is used as it is, without
   * any change to its tables. Surfaces show this once.
   */
  readonly compatNote: string | null;

  private constructor(path: string, db: DatabaseSync, foundVersion: number, newer: boolean) {
    this.path = path;
    this.db = db;
    this.foundVersion = foundVersion;
    this.compatNote = newer
      ? `${path} was written by a newer Hermes (schema v${foundVersion}; this version knows v${SCHEMA_VERSION}). It is used as it is: no table or column is changed, and what is saved stays readable by that Hermes.`
      : null;
    this.messageCols = this.columns('messages');
    this.sessionCols = this.columns('sessions');
    this.hasSystemPrompts = this.tableExists('system_prompts');
    this.hasModelUsage = this.tableExists('session_model_usage');
    const active = this.messageCols.has('active');
    const compacted = active && this.messageCols.has('compacted');
    this.liveRows = active ? '(active = 1 OR active IS NULL)' : '';
    this.shownRows = compacted ? '(active = 1 OR active IS NULL OR compacted = 1)' : this.liveRows;
    this.search = {
      db,
      stmt: (sql) => this.stmt(sql),
      hasTrigram: this.tableExists('messages_fts_trigram'),
      hasArchived: this.sessionCols.has('archived'),
      visibleMessages: this.shownRows.replace(/\b(active|compacted)\b/g, 'm.$1'),
    };
    this.compaction = {
      stmt: (sql) => this.stmt(sql),
      write: (fn) => this.write(fn),
      tableExists: (name) => this.tableExists(name),
      insertMessage: (sessionId, m) => this.insertMessage(sessionId, m),
      liveRows: this.liveRows,
      hasCooldown: this.sessionCols.has('compression_failure_cooldown_until'),
    };
  }

  /** Opens (creating or migrating) a state.db. Several processes may have it open at once. */
  static open(path: string): SessionDB {
    const { DatabaseSync } = sqlite();
    if (path !== ':memory:') {
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
      } catch (e) {
        throw annotateDbError(e, path, 'state');
      }
    }
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path, { timeout: 1000 });
    } catch (e) {
      throw annotateDbError(e, path, 'state');
    }
    // Every error of this connection names the file and what to do (db-errors.ts).
    if (path !== ':memory:') guardConnection(db, path, 'state');
    let m: ReturnType<typeof migrate>;
    try {
      db.exec('PRAGMA journal_mode=WAL');
      db.exec('PRAGMA synchronous=NORMAL');
      db.exec('PRAGMA foreign_keys=ON');
      m = migrate(db, path === ':memory:' ? null : dirname(path));
    } catch (e) {
      db.close();
      throw e;
    }
    if (path !== ':memory:') secureFiles(path);
    return new SessionDB(path, db, m.found, m.newer);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      /* another process may hold it; fine */
    }
    this.db.close();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  get location(): string {
    return this.path;
  }

  /** Every write is committed when its call returns. */
  flush(): void {}

  // -------------------------------------------------------------------------------------------
  // plumbing

  private stmt(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private columns(table: string): Set<string> {
    return new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
  }

  private tableExists(name: string): boolean {
    return !!this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table','view')").get(name);
  }

  /** Runs `fn` in a BEGIN IMMEDIATE transaction, retrying with jitter while another writer holds the lock. */
  write<T>(fn: () => T): T {
    if (this.inWrite) return fn();
    for (let attempt = 0; ; attempt++) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        if (isBusyError(e) && attempt < WRITE_MAX_RETRIES) {
          sleepSync(jitter(attempt));
          continue;
        }
        throw e;
      }
      this.inWrite = true;
      try {
        const r = fn();
        this.inWrite = false;
        this.db.exec('COMMIT');
        // A checkpoint costs an fsync: mark it due and run it at the end of the turn (recordUsage),
        // off the loop's hot path, unless a very long turn has piled up writes.
        this.writes++;
        if (this.writes - this.checkpointedAt >= CHECKPOINT_EVERY) this.checkpointDue = true;
        if (this.writes - this.checkpointedAt >= CHECKPOINT_HARD_LIMIT) this.checkpoint();
        return r;
      } catch (e) {
        this.inWrite = false;
        try {
          this.db.exec('ROLLBACK');
        } catch {
          /* already rolled back */
        }
        if (isBusyError(e) && attempt < WRITE_MAX_RETRIES) {
          sleepSync(jitter(attempt));
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * Several writes (appends, usage, of any sessions) in one transaction: one commit, and the FTS
   * indexes updated once, instead of one of each per write (the gateway's group commit). A due
   * checkpoint runs after it. If `fn` throws, none of its writes is kept.
   */
  batch<T>(fn: () => T): T {
    const r = this.write(fn);
    if (this.checkpointDue) this.checkpoint();
    return r;
  }

  /**
   * Runs the checkpoints instead of this connection, e.g. on another thread (a checkpoint copies
   * pages and fsyncs, which can take long on a busy disk): the gateway sets one.
   */
  checkpointer: (() => void) | null = null;

  /** PASSIVE WAL checkpoint: never blocks readers or writers. */
  checkpoint(): void {
    this.checkpointDue = false;
    this.checkpointedAt = this.writes;
    if (this.checkpointer) return this.checkpointer();
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      /* busy: the next one will do */
    }
  }

  getMeta(key: string): string | null {
    const r = this.stmt('SELECT value FROM state_meta WHERE key = ?').get(key) as { value: string | null } | undefined;
    return r?.value ?? null;
  }

  setMeta(key: string, value: string | null): void {
    this.write(() => {
      if (value === null) this.stmt('DELETE FROM state_meta WHERE key = ?').run(key);
      else this.stmt('INSERT INTO state_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
    });
  }

  // -------------------------------------------------------------------------------------------
  // sessions

  /**
   * Creates a session row. An existing id is reopened instead (resume): its end is cleared and the
   * model / prompt kept.
   */
  createSession(meta: CreateSessionMeta): void {
    const title = sanitizeTitle(meta.title);
    const modelConfig = sessionModelConfig(meta);
    this.write(() => {
      const existing = this.stmt('SELECT id FROM sessions WHERE id = ?').get(meta.id);
      const profile = this.sessionCols.has('profile_name') ? sessionProfileName(meta) : undefined;
      if (existing) {
        this.stmt('UPDATE sessions SET ended_at = NULL, end_reason = NULL, model = COALESCE(?, model) WHERE id = ?').run(meta.model ?? null, meta.id);
        if (profile) this.stmt('UPDATE sessions SET profile_name = COALESCE(profile_name, ?) WHERE id = ?').run(profile, meta.id);
        return;
      }
      this.stmt(
        `INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at, cwd, title${profile !== undefined ? ', profile_name' : ''})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?${profile !== undefined ? ', ?' : ''})`,
      ).run(
        meta.id,
        meta.source,
        meta.userId ?? null,
        meta.model ?? null,
        modelConfig ? JSON.stringify(modelConfig) : null,
        meta.systemPrompt ?? null,
        meta.parentId ?? null,
        meta.startedAt ?? now(),
        meta.cwd ?? null,
        title,
        ...(profile !== undefined ? [profile] : []),
      );
    });
  }

  /** Marks a session ended (kept, searchable, resumable). */
  endSession(sessionId: string, reason: string): void {
    this.write(() => {
      this.stmt('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL').run(now(), reason, sessionId);
    });
  }

  /** Clears a session's end, so it shows as active again. */
  reopenSession(sessionId: string): void {
    this.write(() => {
      this.stmt('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(sessionId);
    });
  }

  updateSystemPrompt(sessionId: string, prompt: string): void {
    this.write(() => {
      this.stmt('UPDATE sessions SET system_prompt = ? WHERE id = ?').run(prompt, sessionId);
    });
  }

  /** The session's model_config JSON (runtime settings such as `codex_thread_id`), {} when unset or unreadable. */
  getModelConfig(sessionId: string): Record<string, unknown> {
    const row = this.stmt('SELECT model_config FROM sessions WHERE id = ?').get(sessionId) as { model_config: string | null } | undefined;
    return parseModelConfig(row?.model_config);
  }

  /** Merges `patch` into model_config in one transaction, as Hermes does (a null value removes the key). */
  patchModelConfig(sessionId: string, patch: Record<string, unknown>): void {
    this.write(() => {
      this.stmt('UPDATE sessions SET model_config = ? WHERE id = ?').run(mergeModelConfig(this.getModelConfig(sessionId), patch), sessionId);
    });
  }

  getSession(id: string): SessionRow | null {
    const row = this.stmt('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    if (!row) return null;
    return this.normalizeSession(row);
  }

  private normalizeSession(row: Record<string, unknown>): SessionRow {
    return normalizeSessionRow(
      row,
      this.hasSystemPrompts ? (hash) => (this.stmt('SELECT prompt FROM system_prompts WHERE hash = ?').get(hash) as { prompt: string } | undefined)?.prompt : undefined,
    );
  }

  /** The WHERE terms for a session listing: source, tool sessions, archived ones, workspace, model, start time. */
  private listFilter(opts: ListOptions, alias = 's'): { where: string[]; args: (string | number)[] } {
    return listWhere(opts, this.sessionCols.has('archived'), alias);
  }

  /** Sessions, most recently active first, with a preview of the first user message. Archived ones are left out unless asked for. */
  listSessions(opts: ListOptions & { limit?: number; offset?: number } = {}): SessionListItem[] {
    const { where, args } = this.listFilter(opts);
    const rows = runPlanSync(listPlan(where, args, opts.limit ?? 20, opts.offset ?? 0), (q) => this.db.prepare(q.sql).all(...q.args) as Row[]);
    return rows.map((r) => ({ ...this.normalizeSession(r), preview: String(r.preview ?? ''), last_active: Number(r.last_active) }));
  }

  /** How many sessions a listing with these options has in all. */
  countSessions(opts: ListOptions | string = {}): number {
    const o = typeof opts === 'string' ? { source: opts, includeTool: true } : opts;
    const { where, args } = this.listFilter(o);
    const r = this.db.prepare(`SELECT COUNT(*) AS n FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`).get(...args) as { n: number };
    return Number(r.n);
  }

  /** The sources and models sessions have, most used first (filters of a session list). */
  facets(): { sources: { value: string; count: number }[]; models: { value: string; count: number }[] } {
    const q = (col: 'source' | 'model') =>
      (this.db.prepare(`SELECT ${col} AS value, COUNT(*) AS count FROM sessions WHERE ${col} IS NOT NULL AND ${col} <> '' GROUP BY ${col} ORDER BY count DESC LIMIT 200`).all() as { value: string; count: number }[]).map(
        (r) => ({ value: String(r.value), count: Number(r.count) }),
      );
    return { sources: q('source'), models: q('model') };
  }

  /** Hides a session from lists, search and --continue (or shows it again); nothing is deleted. */
  setArchived(id: string, archived: boolean): boolean {
    if (!this.sessionCols.has('archived')) return false;
    return this.write(() => this.stmt('UPDATE sessions SET archived = ? WHERE id = ?').run(archived ? 1 : 0, id).changes > 0);
  }

  /** The most recently active session that is not archived (optionally of one source), or null. */
  mostRecentSession(source?: string, cwdUnder?: string): SessionRow | null {
    const item = this.listSessions({ source, cwdUnder, limit: 1 })[0];
    return item ? this.getSession(item.id) : null;
  }

  /**
   * Finds a session by id, unique id prefix, or title. A title resolves to the newest session of its
   * lineage ("Title", "Title #2", … → the latest). Returns the id, or null.
   */
  resolveSession(idOrTitle: string): string | null {
    const key = idOrTitle.trim();
    if (!key) return null;
    if (this.stmt('SELECT 1 FROM sessions WHERE id = ?').get(key)) return key;
    const { base } = splitLineageTitle(key);
    for (const exact of [true, false]) {
      const rows = this.db.prepare(exact ? TITLE_LOOKUP_SQL.exact : TITLE_LOOKUP_SQL.folded).all(key, base, `${likeEscape(base)} #%`) as { id: string; title: string }[];
      const hit = pickTitled(rows, key, exact);
      if (hit) return hit;
    }
    if (key.length >= 4) {
      const rows = this.stmt(`SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2`).all(`${likeEscape(key)}%`) as { id: string }[];
      if (rows.length === 1) return rows[0].id;
    }
    return null;
  }

  /** Sets (or with null/'' clears) a title. Titles are unique; a clash throws TitleConflictError. */
  setTitle(id: string, title: string | null): void {
    const t = sanitizeTitle(title);
    this.write(() => {
      if (t) {
        const clash = this.stmt('SELECT id FROM sessions WHERE title = ? AND id <> ?').get(t, id) as { id: string } | undefined;
        if (clash) throw new TitleConflictError(`The title "${t}" is already used by session ${clash.id}. Pick another one.`);
      }
      const r = this.stmt('UPDATE sessions SET title = ? WHERE id = ?').run(t, id);
      if (!r.changes) throw new Error(`No session ${id}.`);
    });
  }

  /** A free title: `base` itself, or `base #n` with the next number along its lineage. */
  nextTitleInLineage(title: string): string {
    const { base } = splitLineageTitle(title);
    const rows = this.stmt(`SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'`).all(base, `${likeEscape(base)} #%`) as { title: string }[];
    return nextInLineage(base, rows.map((r) => r.title));
  }

  /** A unique title derived from `wanted` (adds " #n" when taken). */
  uniqueTitle(wanted: string): string | null {
    const t = sanitizeTitle(wanted.slice(0, MAX_TITLE_LENGTH));
    if (!t) return null;
    if (!this.stmt('SELECT 1 FROM sessions WHERE title = ?').get(t)) return t;
    return this.nextTitleInLineage(t);
  }

  /** Sessions descending from `id` (compression continuations, children), oldest first. */
  descendants(id: string): SessionRow[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE d(id) AS (SELECT id FROM sessions WHERE parent_session_id = ?
           UNION SELECT s.id FROM sessions s JOIN d ON s.parent_session_id = d.id)
         SELECT s.* FROM sessions s JOIN d ON s.id = d.id ORDER BY s.started_at`,
      )
      .all(id) as Record<string, unknown>[];
    return rows.map((r) => this.normalizeSession(r));
  }

  /** Ancestors of `id`, nearest first. */
  ancestors(id: string): SessionRow[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE a(id, depth) AS (SELECT parent_session_id, 1 FROM sessions WHERE id = ? AND parent_session_id IS NOT NULL
           UNION SELECT s.parent_session_id, a.depth + 1 FROM sessions s JOIN a ON s.id = a.id WHERE s.parent_session_id IS NOT NULL)
         SELECT s.* FROM sessions s JOIN a ON s.id = a.id ORDER BY a.depth`,
      )
      .all(id) as Record<string, unknown>[];
    return rows.map((r) => this.normalizeSession(r));
  }

  /** Deletes a session and its messages. Children keep existing, detached. */
  deleteSession(id: string): boolean {
    return this.write(() => {
      this.stmt('DELETE FROM messages WHERE session_id = ?').run(id);
      this.stmt('UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?').run(id);
      return this.stmt('DELETE FROM sessions WHERE id = ?').run(id).changes > 0;
    });
  }

  /** Deletes ended sessions that started more than `olderThanDays` days ago. Returns how many. */
  /**
   * Session ids matching a filter (prune / archive): started before/after a time (unix seconds), source,
   * a title substring, message counts; ended sessions only unless `anyState`; archived ones only with
   * `includeArchived`.
   */
  findSessions(f: FindFilter): string[] {
    const { sql, args } = findSessionsSql(f, this.sessionCols.has('archived'));
    return (this.db.prepare(sql).all(...args) as { id: string }[]).map((r) => r.id);
  }

  activeSince(since: number): number {
    return Number((this.db.prepare(ACTIVE_SINCE_SQL).get(since) as { n: number }).n);
  }

  usageSince(cutoff: number, source: string | null): UsageData {
    const q = usageSql(source);
    const args: (number | string)[] = source ? [cutoff, source] : [cutoff];
    return {
      sessions: this.db.prepare(q.sessions).all(...args) as unknown as UsageRow[],
      tools: (this.db.prepare(q.tools).all(...args) as { tool: string; count: number }[]).map((t) => ({ tool: t.tool, count: Number(t.count) })),
      userMessages: Number((this.db.prepare(q.userMessages).get(...args) as { n: number }).n),
      ...(this.hasModelUsage ? { models: (this.db.prepare(q.models).all(...args) as Record<string, unknown>[]).map(toModelUsagePart) } : {}),
    };
  }

  pruneSessions(olderThanDays: number, source?: string): number {
    const cutoff = now() - olderThanDays * 86_400;
    const ids = (
      source
        ? this.db.prepare('SELECT id FROM sessions WHERE ended_at IS NOT NULL AND started_at < ? AND source = ?').all(cutoff, source)
        : this.db.prepare('SELECT id FROM sessions WHERE ended_at IS NOT NULL AND started_at < ?').all(cutoff)
    ) as { id: string }[];
    if (!ids.length) return 0;
    this.write(() => {
      for (const { id } of ids) {
        this.stmt('DELETE FROM messages WHERE session_id = ?').run(id);
        this.stmt('UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?').run(id);
        this.stmt('DELETE FROM sessions WHERE id = ?').run(id);
      }
    });
    return ids.length;
  }

  // -------------------------------------------------------------------------------------------
  // messages

  /** Appends one message, committed at once. */
  appendMessage(sessionId: string, m: Message): number {
    return this.appendMessages(sessionId, [m])[0];
  }

  /** Appends messages in one transaction (one commit for the messages of a loop step), the session's counters updated once. */
  appendMessages(sessionId: string, ms: Message[]): number[] {
    return this.write(() => {
      const ids = ms.map((m) => this.insertMessage(sessionId, m));
      const calls = ms.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
      this.stmt('UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ? WHERE id = ?').run(ms.length, calls, sessionId);
      return ids;
    });
  }

  private insertMessage(sessionId: string, m: Message): number {
    const calls = m.tool_calls?.length ? m.tool_calls : undefined;
    // Hermes v19 files: the row is written live (active = 1) explicitly, with the gateway's flags.
    const v19 = this.messageCols.has('active') && this.messageCols.has('observed') && this.messageCols.has('platform_message_id');
    {
      const r = this.stmt(
        v19
          ? `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason,
               reasoning, reasoning_details, codex_reasoning_items, platform_message_id, observed, active)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`
          : `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason,
               reasoning, reasoning_details, codex_reasoning_items)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        ...([
        sessionId,
        m.role,
        contentToText(m.content),
        m.tool_call_id ?? null,
        json(calls),
        m.tool_name ?? null,
        m.timestamp ?? now(),
        m.finish_reason ?? null,
        m.reasoning ?? null,
        json(m.reasoning_details),
        json(m.codex_reasoning_items),
        ] as (string | number | null)[]),
        ...(v19 ? [m.platform_message_id ?? null, m.observed ? 1 : 0] : []),
      );
      return Number(r.lastInsertRowid);
    }
  }

  // -------------------------------------------------------------------------------------------
  // in-place compression (Hermes's compression_locks lease and archive_and_compact: db-compaction.ts)

  /** Whether this file can compress in place (the `compacted` column and the lock table exist). */
  get canCompactInPlace(): boolean {
    return this.messageCols.has('compacted') && this.tableExists('compression_locks');
  }

  tryAcquireCompressionLock(sessionId: string, holder: string, ttlSeconds = 300): boolean {
    return compaction.tryAcquireLock(this.compaction, sessionId, holder, ttlSeconds);
  }

  releaseCompressionLock(sessionId: string, holder: string): boolean {
    return compaction.releaseLock(this.compaction, sessionId, holder);
  }

  getCompressionLockHolder(sessionId: string): string | null {
    return compaction.lockHolder(this.compaction, sessionId);
  }

  archiveAndCompact(sessionId: string, messages: Message[], opts: { lockHolder?: string } = {}): number {
    return compaction.archiveAndCompact(this.compaction, sessionId, messages, opts);
  }

  setCompressionCooldown(sessionId: string, untilS: number | null, error: string | null): void {
    compaction.setCooldown(this.compaction, sessionId, untilS, error);
  }

  getCompressionCooldown(sessionId: string): { untilS: number; error: string | null } | null {
    return compaction.getCooldown(this.compaction, sessionId);
  }

  /**
   * Adds a turn's tokens, API calls and estimated cost to the session, and to its row for this model
   * and billing route in session_model_usage (as Hermes records each call's usage per model).
   */
  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): void {
    const u = r.usage;
    const url = baseUrl ? billingBaseUrl(baseUrl) : null;
    this.write(() => {
      this.stmt(
        `UPDATE sessions SET
           input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
           cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
           reasoning_tokens = reasoning_tokens + ?, api_call_count = api_call_count + ?,
           estimated_cost_usd = CASE WHEN ? IS NULL THEN estimated_cost_usd ELSE COALESCE(estimated_cost_usd, 0) + ? END,
           cost_status = CASE WHEN ? IS NULL THEN cost_status ELSE 'estimated' END,
           model = ?, billing_provider = ?, billing_base_url = COALESCE(?, billing_base_url)
         WHERE id = ?`,
      ).run(
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.reasoning_tokens,
        r.apiCalls,
        r.costUsd,
        r.costUsd,
        r.costUsd,
        model,
        provider,
        url,
        sessionId,
      );
      if (this.hasModelUsage && usageCounts(r)) {
        const route = this.stmt('SELECT billing_base_url, billing_mode FROM sessions WHERE id = ?').get(sessionId) as { billing_base_url: string | null; billing_mode: string | null } | undefined;
        if (route) this.stmt(MODEL_USAGE_UPSERT).run(...modelUsageArgs(sessionId, r, model, provider, route.billing_base_url ?? '', route.billing_mode ?? '', now()));
      }
    });
    // End of a turn: the time for a due checkpoint (after the batch, inside one).
    if (this.checkpointDue && !this.inWrite) this.checkpoint();
  }

  /** A session's usage per model and billing route (session_model_usage), biggest first. */
  modelUsage(sessionId: string): ModelUsageRow[] {
    if (!this.hasModelUsage) return [];
    return (this.stmt(MODEL_USAGE_SELECT).all(sessionId) as Record<string, unknown>[]).map(toModelUsageRow);
  }

  /**
   * Raw message rows of a session, in order: `live` (default) the rows a conversation replays,
   * `shown` also the rows a compression folded away, `all` every row (rewound ones too).
   */
  getMessageRows(sessionId: string, which: 'live' | 'shown' | 'all' = 'live'): Record<string, unknown>[] {
    const cond = which === 'all' ? '' : which === 'shown' ? this.shownRows : this.liveRows;
    return this.stmt(`SELECT * FROM messages WHERE session_id = ?${cond ? ` AND ${cond}` : ''} ORDER BY id`).all(sessionId) as Record<string, unknown>[];
  }

  /** A session's conversation in the internal (OpenAI) shape, ready to replay. */
  getMessages(sessionId: string): Message[] {
    return this.getMessageRows(sessionId).map(rowToMessage);
  }

  /** A session's whole visible transcript, compacted turns included (for showing, not replaying). */
  getTranscript(sessionId: string): Message[] {
    return this.getMessageRows(sessionId, 'shown').map(rowToMessage);
  }

  messagePage(sessionId: string, page: MessagePage): Record<string, unknown>[] {
    const q = messagePageSql(this.liveRows, page);
    const rows = this.stmt(q.sql).all(sessionId, ...q.args) as Record<string, unknown>[];
    return q.reverse ? rows.reverse() : rows;
  }

  liveMessageCount(sessionId: string): number {
    return Number((this.stmt(`SELECT COUNT(*) AS n FROM messages WHERE session_id = ?${this.liveRows ? ` AND ${this.liveRows}` : ''}`).get(sessionId) as { n: number }).n);
  }

  rewindLast(sessionId: string, count: number): number {
    if (!this.liveRows || count <= 0) return 0;
    return this.write(() => {
      const n = Number(this.stmt(REWIND_SQL.rows).run(sessionId, count).changes);
      if (n && this.sessionCols.has('rewind_count')) this.stmt(REWIND_SQL.session).run(sessionId);
      return n;
    });
  }

  /** Number of messages stored for a session. */
  messageCount(sessionId: string): number {
    return Number((this.stmt('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get(sessionId) as { n: number }).n);
  }

  // -------------------------------------------------------------------------------------------
  // search

  /**
   * Full-text search over every session's messages (FTS5 syntax, sanitized). CJK queries go through
   * the trigram index (or LIKE below 3 characters). Best matches first.
   */
  searchMessages(query: string, opts: SearchOptions = {}): SearchHit[] {
    return searchMessages(this.search, query, opts);
  }

  // -------------------------------------------------------------------------------------------
  // export, stats

  /** A session with its messages, as one JSON-able object (one line of a JSONL export). */
  exportSession(id: string): Record<string, unknown> | null {
    const s = this.getSession(id);
    if (!s) return null;
    return { ...s, messages: this.getMessageRows(id, 'all').map((r) => Object.fromEntries(Object.entries(r))) };
  }

  /** Session ids for an export, oldest first. */
  sessionIds(source?: string): string[] {
    const rows = (source ? this.db.prepare('SELECT id FROM sessions WHERE source = ? ORDER BY started_at').all(source) : this.db.prepare('SELECT id FROM sessions ORDER BY started_at').all()) as {
      id: string;
    }[];
    return rows.map((r) => r.id);
  }

  stats(): DbStats {
    const s = this.db
      .prepare(
        'SELECT COUNT(*) AS n, COALESCE(SUM(input_tokens),0) AS inp, COALESCE(SUM(output_tokens),0) AS outp, COALESCE(SUM(cache_read_tokens),0) AS cr, COALESCE(SUM(cache_write_tokens),0) AS cw, COALESCE(SUM(reasoning_tokens),0) AS rsn, COALESCE(SUM(estimated_cost_usd),0) AS cost, MIN(started_at) AS oldest, MAX(started_at) AS newest FROM sessions',
      )
      .get() as Record<string, number | null>;
    const m = this.db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number };
    const bySource: Record<string, number> = {};
    for (const r of this.db.prepare('SELECT source, COUNT(*) AS n FROM sessions GROUP BY source ORDER BY n DESC').all() as { source: string; n: number }[])
      bySource[r.source] = Number(r.n);
    const size = (p: string) => {
      try {
        return statSync(p).size;
      } catch {
        return 0;
      }
    };
    const v = this.db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined;
    const archived = this.sessionCols.has('archived') ? Number((this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE archived = 1').get() as { n: number }).n) : 0;
    return {
      sessions: Number(s.n),
      archived,
      messages: Number(m.n),
      bySource,
      inputTokens: Number(s.inp),
      outputTokens: Number(s.outp),
      cacheReadTokens: Number(s.cr),
      cacheWriteTokens: Number(s.cw),
      reasoningTokens: Number(s.rsn),
      costUsd: Number(s.cost),
      oldest: s.oldest ?? null,
      newest: s.newest ?? null,
      dbBytes: this.path === ':memory:' ? 0 : size(this.path),
      walBytes: this.path === ':memory:' ? 0 : size(`${this.path}-wal`),
      schemaVersion: Number(v?.version ?? 0),
    };
  }

  /** Direct access for tools that need a query not covered here (tests, benchmarks). */
  get raw(): DatabaseSync {
    return this.db;
  }
}

function secureFiles(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      const st = lstatSync(p);
      if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(p, 0o600);
    } catch {
      /* not there */
    }
  }
}
