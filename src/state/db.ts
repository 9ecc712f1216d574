// The session store: HERMES_HOME/state.db, in Hermes's schema (v11 layout: sessions, messages,
// messages_fts, messages_fts_trigram, state_meta, schema_version) so a Hermes user keeps their history
// and can go back. WAL, `BEGIN IMMEDIATE` writes retried with random jitter when another process holds
// the lock, a passive WAL checkpoint every 50 writes. Every message is committed as it is appended, so
// a killed process loses nothing it already produced.
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ContentPart, Message, ToolCall, Usage } from '../llm/types.ts';
import { hasCjk, queryWords, sanitizeFtsQuery } from './fts-query.ts';
import { isBusyError, sleepSync, sqlite, type DatabaseSync, type StatementSync } from './sqlite.ts';

export const SCHEMA_VERSION = 11;

const WRITE_MAX_RETRIES = 15;
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 150;
const CHECKPOINT_EVERY = 50;
/** Inside a long turn, checkpoint anyway after this many writes (bounds the WAL). */
const CHECKPOINT_HARD_LIMIT = 1000;
export const MAX_TITLE_LENGTH = 100;
/** Matches ranked per search: all of them for rarer words, the most recent this many for common ones. */
export const RANK_WINDOW = 1000;

const SESSION_COLUMNS: [string, string][] = [
  ['user_id', 'TEXT'],
  ['model', 'TEXT'],
  ['model_config', 'TEXT'],
  ['system_prompt', 'TEXT'],
  ['parent_session_id', 'TEXT'],
  ['ended_at', 'REAL'],
  ['end_reason', 'TEXT'],
  ['message_count', 'INTEGER DEFAULT 0'],
  ['tool_call_count', 'INTEGER DEFAULT 0'],
  ['input_tokens', 'INTEGER DEFAULT 0'],
  ['output_tokens', 'INTEGER DEFAULT 0'],
  ['cache_read_tokens', 'INTEGER DEFAULT 0'],
  ['cache_write_tokens', 'INTEGER DEFAULT 0'],
  ['reasoning_tokens', 'INTEGER DEFAULT 0'],
  ['billing_provider', 'TEXT'],
  ['billing_base_url', 'TEXT'],
  ['billing_mode', 'TEXT'],
  ['estimated_cost_usd', 'REAL'],
  ['actual_cost_usd', 'REAL'],
  ['cost_status', 'TEXT'],
  ['cost_source', 'TEXT'],
  ['pricing_version', 'TEXT'],
  ['title', 'TEXT'],
  ['api_call_count', 'INTEGER DEFAULT 0'],
  ['cwd', 'TEXT'],
];

const MESSAGE_COLUMNS: [string, string][] = [
  ['tool_call_id', 'TEXT'],
  ['tool_calls', 'TEXT'],
  ['tool_name', 'TEXT'],
  ['token_count', 'INTEGER'],
  ['finish_reason', 'TEXT'],
  ['reasoning', 'TEXT'],
  ['reasoning_content', 'TEXT'],
  ['reasoning_details', 'TEXT'],
  ['codex_reasoning_items', 'TEXT'],
  ['codex_message_items', 'TEXT'],
];

const BASE_SQL = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  started_at REAL NOT NULL,
  ${SESSION_COLUMNS.map(([n, t]) => `${n} ${t}`).join(',\n  ')},
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  timestamp REAL NOT NULL,
  ${MESSAGE_COLUMNS.map(([n, t]) => `${n} ${t}`).join(',\n  ')}
);
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages(session_id, id);
`;

// What the v11 inline FTS tables index for each message: its text, the tool's name and the calls.
const FTS_ROW = (r: 'new' | 'old') =>
  `COALESCE(${r}.content, '') || ' ' || COALESCE(${r}.tool_name, '') || ' ' || COALESCE(${r}.tool_calls, '')`;

const FTS_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content);
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${FTS_ROW('new')});
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${FTS_ROW('new')});
END;
`;

// The trigram index serves CJK queries (the word tokenizer cannot split CJK text), so it holds only
// messages that contain CJK characters: the most expensive index stays small. Tool output stays out of
// it, as in later Hermes; everything remains searchable through messages_fts.
export const CJK_GLOB = "*[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]*";
const TRIGRAM_WHEN = (r: 'new' | 'old') => `${r}.role <> 'tool' AND ${r}.content GLOB '${CJK_GLOB}'`;
const TRIGRAM_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages WHEN ${TRIGRAM_WHEN('new')} BEGIN
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${FTS_ROW('new')});
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages WHEN ${TRIGRAM_WHEN('old')} BEGIN
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update AFTER UPDATE OF content, tool_name, tool_calls ON messages BEGIN
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
  INSERT INTO messages_fts_trigram(rowid, content) SELECT new.id, ${FTS_ROW('new')} WHERE ${TRIGRAM_WHEN('new')};
END;
`;

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
}

export interface DbStats {
  sessions: number;
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

/** What recordUsage needs from a turn result. */
export interface UsageRecord {
  usage: Usage;
  costUsd: number | null;
  apiCalls: number;
}

export class TitleConflictError extends Error {}

const now = () => Date.now() / 1000;

function jitter(attempt: number): number {
  // ~2 s of 20–150 ms waits, then longer ones: staggers competing writers instead of a convoy.
  if (attempt < 12) return RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS);
  return 250 + Math.random() * 750;
}

function json(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v) && v.length === 0) return null;
  return JSON.stringify(v);
}

function parseJson<T>(text: unknown): T | undefined {
  if (typeof text !== 'string' || !text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function contentToText(content: Message['content']): string | null {
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

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class SessionDB {
  readonly path: string;
  private readonly db: DatabaseSync;
  private writes = 0;
  private checkpointedAt = 0;
  private checkpointDue = false;
  private closed = false;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly messageCols: Set<string>;
  private readonly sessionCols: Set<string>;
  private readonly hasTrigram: boolean;
  private readonly hasSystemPrompts: boolean;
  /** The schema version found on disk before opening (0 for a new file). */
  readonly foundVersion: number;

  private constructor(path: string, db: DatabaseSync, foundVersion: number) {
    this.path = path;
    this.db = db;
    this.foundVersion = foundVersion;
    this.messageCols = this.columns('messages');
    this.sessionCols = this.columns('sessions');
    this.hasTrigram = this.tableExists('messages_fts_trigram');
    this.hasSystemPrompts = this.tableExists('system_prompts');
  }

  /** Opens (creating or migrating) a state.db. Several processes may have it open at once. */
  static open(path: string): SessionDB {
    const { DatabaseSync } = sqlite();
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
    }
    const db = new DatabaseSync(path, { timeout: 1000 });
    let found = 0;
    try {
      db.exec('PRAGMA journal_mode=WAL');
      db.exec('PRAGMA synchronous=NORMAL');
      db.exec('PRAGMA foreign_keys=ON');
      found = migrate(db);
    } catch (e) {
      db.close();
      throw e;
    }
    if (path !== ':memory:') secureFiles(path);
    return new SessionDB(path, db, found);
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
      try {
        const r = fn();
        this.db.exec('COMMIT');
        // A checkpoint costs an fsync: mark it due and run it at the end of the turn (recordUsage),
        // off the loop's hot path, unless a very long turn has piled up writes.
        this.writes++;
        if (this.writes - this.checkpointedAt >= CHECKPOINT_EVERY) this.checkpointDue = true;
        if (this.writes - this.checkpointedAt >= CHECKPOINT_HARD_LIMIT) this.checkpoint();
        return r;
      } catch (e) {
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

  /** PASSIVE WAL checkpoint: never blocks readers or writers. */
  checkpoint(): void {
    this.checkpointDue = false;
    this.checkpointedAt = this.writes;
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
    this.write(() => {
      const existing = this.stmt('SELECT id FROM sessions WHERE id = ?').get(meta.id);
      if (existing) {
        this.stmt('UPDATE sessions SET ended_at = NULL, end_reason = NULL, model = COALESCE(?, model) WHERE id = ?').run(meta.model ?? null, meta.id);
        return;
      }
      this.stmt(
        `INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at, cwd, title)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        meta.id,
        meta.source,
        meta.userId ?? null,
        meta.model ?? null,
        meta.modelConfig ? JSON.stringify(meta.modelConfig) : null,
        meta.systemPrompt ?? null,
        meta.parentId ?? null,
        meta.startedAt ?? now(),
        meta.cwd ?? null,
        title,
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
    try {
      const v = row?.model_config ? (JSON.parse(row.model_config) as unknown) : {};
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  /** Merges `patch` into model_config in one transaction, as Hermes does (a null value removes the key). */
  patchModelConfig(sessionId: string, patch: Record<string, unknown>): void {
    this.write(() => {
      const config = this.getModelConfig(sessionId);
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === undefined) delete config[k];
        else config[k] = v;
      }
      this.stmt('UPDATE sessions SET model_config = ? WHERE id = ?').run(Object.keys(config).length ? JSON.stringify(config) : null, sessionId);
    });
  }

  getSession(id: string): SessionRow | null {
    const row = this.stmt('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    if (!row) return null;
    return this.normalizeSession(row);
  }

  private normalizeSession(row: Record<string, unknown>): SessionRow {
    const r = { ...row } as Record<string, unknown>;
    // Later Hermes stores prompts once in system_prompts, keyed by hash.
    if (r.system_prompt == null && this.hasSystemPrompts && typeof r.system_prompt_hash === 'string') {
      const p = this.stmt('SELECT prompt FROM system_prompts WHERE hash = ?').get(r.system_prompt_hash) as { prompt: string } | undefined;
      if (p) r.system_prompt = p.prompt;
    }
    for (const k of ['message_count', 'tool_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count'])
      r[k] = Number(r[k] ?? 0);
    for (const k of ['user_id', 'model', 'model_config', 'system_prompt', 'parent_session_id', 'ended_at', 'end_reason', 'billing_provider', 'billing_base_url', 'estimated_cost_usd', 'title', 'cwd'])
      r[k] ??= null;
    return r as unknown as SessionRow;
  }

  /** Sessions, most recently active first, with a preview of the first user message. */
  listSessions(opts: { source?: string; limit?: number; offset?: number; includeTool?: boolean } = {}): SessionListItem[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (opts.source) {
      where.push('s.source = ?');
      args.push(opts.source);
    } else if (!opts.includeTool) where.push("s.source <> 'tool'");
    const sql = `
      SELECT s.*,
        COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id), s.started_at) AS last_active,
        COALESCE((SELECT substr(replace(replace(m.content, char(10), ' '), char(13), ' '), 1, 63) FROM messages m
                  WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL ORDER BY m.id LIMIT 1), '') AS preview
      FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY last_active DESC, s.started_at DESC
      LIMIT ? OFFSET ?`;
    const rows = this.db.prepare(sql).all(...args, opts.limit ?? 20, opts.offset ?? 0) as Record<string, unknown>[];
    return rows.map((r) => ({ ...this.normalizeSession(r), preview: String(r.preview ?? ''), last_active: Number(r.last_active) }));
  }

  countSessions(source?: string): number {
    const r = (source ? this.stmt('SELECT COUNT(*) AS n FROM sessions WHERE source = ?').get(source) : this.stmt('SELECT COUNT(*) AS n FROM sessions').get()) as { n: number };
    return Number(r.n);
  }

  /** The most recently active session (optionally of one source), or null. */
  mostRecentSession(source?: string): SessionRow | null {
    const item = this.listSessions({ source, limit: 1 })[0];
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
    const byTitle = (exact: boolean) =>
      this.db
        .prepare(
          exact
            ? `SELECT id, title FROM sessions WHERE title = ? OR title = ? OR title LIKE ? ESCAPE '\\' ORDER BY started_at DESC`
            : `SELECT id, title FROM sessions WHERE lower(title) = lower(?) OR lower(title) = lower(?) OR lower(title) LIKE lower(?) ESCAPE '\\' ORDER BY started_at DESC`,
        )
        .all(key, base, `${likeEscape(base)} #%`) as { id: string; title: string }[];
    for (const exact of [true, false]) {
      const rows = byTitle(exact).filter((r) => {
        const t = exact ? r.title : r.title.toLowerCase();
        const k = exact ? key : key.toLowerCase();
        const b = exact ? base : base.toLowerCase();
        return t === k || splitLineageTitle(t).base === b;
      });
      // An explicit "Title #2" asks for that one; a bare title for the newest of the lineage.
      const explicit = rows.find((r) => (exact ? r.title === key : r.title.toLowerCase() === key.toLowerCase()) && /#\d+$/.test(key));
      if (explicit) return explicit.id;
      if (rows.length) return rows[0].id;
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
    if (!rows.length) return base;
    let max = 1;
    for (const r of rows) {
      const s = splitLineageTitle(r.title);
      if (s.base === base) max = Math.max(max, s.n);
    }
    return `${base} #${max + 1}`;
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
    const calls = m.tool_calls?.length ? m.tool_calls : undefined;
    return this.write(() => {
      const r = this.stmt(
        `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason,
           reasoning, reasoning_details, codex_reasoning_items)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
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
      );
      this.stmt('UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ? WHERE id = ?').run(calls?.length ?? 0, sessionId);
      return Number(r.lastInsertRowid);
    });
  }

  /** Adds a turn's tokens, API calls and estimated cost to the session. */
  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string): void {
    const u = r.usage;
    this.write(() => {
      this.stmt(
        `UPDATE sessions SET
           input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
           cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
           reasoning_tokens = reasoning_tokens + ?, api_call_count = api_call_count + ?,
           estimated_cost_usd = CASE WHEN ? IS NULL THEN estimated_cost_usd ELSE COALESCE(estimated_cost_usd, 0) + ? END,
           cost_status = CASE WHEN ? IS NULL THEN cost_status ELSE 'estimated' END,
           model = ?, billing_provider = ?
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
        sessionId,
      );
    });
    // End of a turn: the time for a due checkpoint.
    if (this.checkpointDue) this.checkpoint();
  }

  /** Raw message rows of a session, in order. */
  getMessageRows(sessionId: string): Record<string, unknown>[] {
    const active = this.messageCols.has('active') ? ' AND (active IS NULL OR active = 1)' : '';
    return this.db.prepare(`SELECT * FROM messages WHERE session_id = ?${active} ORDER BY id`).all(sessionId) as Record<string, unknown>[];
  }

  /** A session's conversation in the internal (OpenAI) shape, ready to replay. */
  getMessages(sessionId: string): Message[] {
    return this.getMessageRows(sessionId).map(rowToMessage);
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
    const limit = Math.max(1, Math.min(opts.limit ?? 20, 200));
    const filters: string[] = [];
    const args: (string | number)[] = [];
    const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : v.split(',')).map((x) => x.trim()).filter(Boolean);
    const sources = list(opts.source);
    const roles = list(opts.role);
    if (sources.length) {
      filters.push(`s.source IN (${sources.map(() => '?').join(',')})`);
      args.push(...sources);
    }
    if (opts.excludeSources?.length) {
      filters.push(`s.source NOT IN (${opts.excludeSources.map(() => '?').join(',')})`);
      args.push(...opts.excludeSources);
    }
    if (roles.length) {
      filters.push(`m.role IN (${roles.map(() => '?').join(',')})`);
      args.push(...roles);
    }
    if (opts.sessionId) {
      filters.push('m.session_id = ?');
      args.push(opts.sessionId);
    }
    const active = this.messageCols.has('active') ? ' AND (m.active IS NULL OR m.active = 1)' : '';
    const extra = (filters.length ? ` AND ${filters.join(' AND ')}` : '') + active;
    const cols = 'm.id, m.session_id, m.role, m.timestamp, s.source, s.model, s.title, s.started_at AS session_started';

    let rows: Record<string, unknown>[];
    const cjk = hasCjk(query);
    const plain = query.replace(/["*]/g, ' ').trim();
    if (cjk && (!this.hasTrigram || [...plain.replace(/\s+/g, '')].length < 3)) {
      // Too short for trigrams: substring scan, newest first.
      const words = queryWords(query);
      if (!words.length) return [];
      const likes = words.map(() => `m.content LIKE ? ESCAPE '\\'`).join(' AND ');
      rows = this.db
        .prepare(
          `SELECT ${cols}, substr(m.content, max(1, instr(m.content, ?) - 40), 160) AS snippet
           FROM messages m JOIN sessions s ON s.id = m.session_id
           WHERE ${likes}${extra} ORDER BY m.id DESC LIMIT ?`,
        )
        .all(words[0], ...words.map((w) => `%${likeEscape(w)}%`), ...args, limit) as Record<string, unknown>[];
      rows = rows.map((r) => ({ ...r, snippet: markWords(String(r.snippet ?? ''), words) }));
    } else {
      const table = cjk ? 'messages_fts_trigram' : 'messages_fts';
      const match = cjk ? trigramQuery(query) : sanitizeFtsQuery(query);
      if (!match) return [];
      try {
        // One pass over the most recent RANK_WINDOW matches (after filters), ranked here with BM25
        // (term frequency, length, and IDF from the matches seen). FTS5's own bm25 ordering first walks
        // every match of each term, which costs tens of milliseconds for a word in most messages.
        const window = this.stmt(
          `SELECT ${cols}, m.content AS content
           FROM ${table} f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id
           WHERE ${table} MATCH ?${extra} ORDER BY f.rowid DESC LIMIT ${RANK_WINDOW}`,
        ).all(match, ...args) as Record<string, unknown>[];
        const total = Number((this.stmt('SELECT MAX(id) AS n FROM messages').get() as { n: number | null }).n ?? 0);
        rows = rankWindow(window, queryTerms(query), limit, total);
      } catch (e) {
        if (/fts5|syntax/i.test((e as Error).message)) return [];
        throw e;
      }
    }
    const prev = this.stmt('SELECT role, substr(content, 1, 200) AS content FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT 1');
    const next = this.stmt('SELECT role, substr(content, 1, 200) AS content FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT 1');
    return rows.map((r) => {
      const id = Number(r.id);
      const sid = String(r.session_id);
      const ctx = [prev.get(sid, id), next.get(sid, id)]
        .filter((c): c is { role: string; content: string | null } => !!c)
        .map((c) => ({ role: String(c.role), content: String(c.content ?? '') }));
      return {
        id,
        session_id: sid,
        role: String(r.role),
        timestamp: Number(r.timestamp),
        snippet: String(r.snippet ?? ''),
        context: ctx,
        source: String(r.source),
        model: (r.model as string | null) ?? null,
        title: (r.title as string | null) ?? null,
        session_started: Number(r.session_started),
      };
    });
  }

  // -------------------------------------------------------------------------------------------
  // export, stats

  /** A session with its messages, as one JSON-able object (one line of a JSONL export). */
  exportSession(id: string): Record<string, unknown> | null {
    const s = this.getSession(id);
    if (!s) return null;
    return { ...s, messages: this.getMessageRows(id).map((r) => Object.fromEntries(Object.entries(r))) };
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
        'SELECT COUNT(*) AS n, COALESCE(SUM(input_tokens),0) AS inp, COALESCE(SUM(output_tokens),0) AS outp, COALESCE(SUM(estimated_cost_usd),0) AS cost, MIN(started_at) AS oldest, MAX(started_at) AS newest FROM sessions',
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
    return {
      sessions: Number(s.n),
      messages: Number(m.n),
      bySource,
      inputTokens: Number(s.inp),
      outputTokens: Number(s.outp),
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
  if (r.timestamp !== null && r.timestamp !== undefined) m.timestamp = Number(r.timestamp);
  return m;
}

interface QueryTerm {
  /** A word, or the words of a quoted phrase separated by single spaces. */
  word: string;
  prefix: boolean;
}

/** The words and phrases of a query, for scoring and highlighting (operators and NOT-terms left out). */
export function queryTerms(query: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  const re = /"([^"]*)"(\*?)|(\S+)/g;
  let skipNext = false;
  for (const m of query.replace(/[()]/g, ' ').matchAll(re)) {
    if (m[3] === 'AND' || m[3] === 'OR') continue;
    if (m[3] === 'NOT') {
      skipNext = true;
      continue;
    }
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const raw = m[1] ?? m[3];
    const prefix = (m[2] ?? '') === '*' || raw.endsWith('*');
    const words = raw.split(/[^\p{L}\p{N}_]+/u).filter(Boolean).map((w) => w.toLowerCase());
    if (!words.length) continue;
    if (m[1] !== undefined || words.length > 1) out.push({ word: words.join(' '), prefix });
    else out.push({ word: words[0], prefix });
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

function termPattern(t: QueryTerm): string {
  const body = t.word.split(' ').map(escapeRe).join('[^\\p{L}\\p{N}_]+') + (t.prefix ? '[\\p{L}\\p{N}_]*' : '');
  // CJK text has no spaces between words: match it as a substring.
  return CJK_CHAR.test(t.word) ? body : `(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`;
}

function termRegex(terms: QueryTerm[]): RegExp | null {
  if (!terms.length) return null;
  return new RegExp(terms.map(termPattern).join('|'), 'giu');
}

/** A ~200-character excerpt around the first match, matches marked >>>like this<<<. */
export function makeSnippet(text: string, terms: QueryTerm[]): string {
  const re = termRegex(terms);
  if (!re) return text.slice(0, 200);
  re.lastIndex = 0;
  const first = re.exec(text);
  let start = 0;
  let end = Math.min(text.length, 200);
  if (first) {
    start = Math.max(0, first.index - 60);
    if (start > 0) {
      const sp = text.indexOf(' ', start);
      if (sp >= 0 && sp < first.index) start = sp + 1;
    }
    end = Math.min(text.length, Math.max(start + 200, first.index + first[0].length));
  }
  const body = text.slice(start, end).replace(re, (m) => `>>>${m}<<<`);
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/** BM25 over a window of matching rows: term frequency, length (in characters) and IDF. */
function rankWindow(window: Record<string, unknown>[], terms: QueryTerm[], limit: number, totalDocs: number): Record<string, unknown>[] {
  const k1 = 1.2;
  const b = 0.75;
  const lens = window.map((r) => String(r.content ?? '').length || 1);
  const avg = lens.reduce((a, x) => a + x, 0) / (lens.length || 1);
  const regs = terms.map((t) => new RegExp(termPattern(t), 'giu'));
  const tfs = window.map((r) => {
    const text = String(r.content ?? '');
    return regs.map((re) => {
      re.lastIndex = 0;
      let f = 0;
      while (re.exec(text)) f++;
      return f;
    });
  });
  const n = Math.max(totalDocs, window.length);
  const idf = terms.map((_, j) => {
    const df = tfs.reduce((c, tf) => c + (tf[j] > 0 ? 1 : 0), 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  const scored = window.map((r, i) => {
    let score = 0;
    tfs[i].forEach((f, j) => {
      if (f) score += (idf[j] * (f * (k1 + 1))) / (f + k1 * (1 - b + (b * lens[i]) / avg));
    });
    return { r, score, id: Number(r.id) };
  });
  scored.sort((x, y) => y.score - x.score || y.id - x.id);
  return scored.slice(0, limit).map(({ r }) => ({ ...r, snippet: makeSnippet(String(r.content ?? ''), terms) }));
}

function markWords(text: string, words: string[]): string {
  let out = text;
  for (const w of words) out = out.split(w).join(`>>>${w}<<<`);
  return out;
}

/** Trigram MATCH: each whitespace-separated piece as a quoted substring, ANDed. */
function trigramQuery(q: string): string {
  return queryWords(q)
    .filter((w) => [...w].length >= 3)
    .map((w) => `"${w.replace(/"/g, '""')}"`)
    .join(' ');
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

// ---------------------------------------------------------------------------------------------
// schema creation and migrations

function tableColumns(db: DatabaseSync, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
}

function addMissingColumns(db: DatabaseSync, table: string, cols: [string, string][]): void {
  const have = tableColumns(db, table);
  for (const [name, type] of cols) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
}

function objectExists(db: DatabaseSync, name: string): boolean {
  return !!db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name);
}

function virtualTableSql(db: DatabaseSync, name: string): string {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { sql: string } | undefined;
  return r?.sql ?? '';
}

/** Creates or upgrades the schema; returns the version found before. Runs in one transaction. */
function migrate(db: DatabaseSync): number {
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('BEGIN IMMEDIATE');
      break;
    } catch (e) {
      if (isBusyError(e) && attempt < WRITE_MAX_RETRIES) {
        sleepSync(jitter(attempt));
        continue;
      }
      throw e;
    }
  }
  try {
    const hadVersionTable = objectExists(db, 'schema_version');
    const row = hadVersionTable ? (db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined) : undefined;
    const found = row ? Number(row.version) : 0;
    const fresh = !objectExists(db, 'sessions');
    db.exec(BASE_SQL);
    if (!row) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(fresh ? SCHEMA_VERSION : Math.max(found, 1));

    if (fresh || found < SCHEMA_VERSION) {
      // v2–v9: columns added over time; v4 unique titles.
      addMissingColumns(db, 'sessions', SESSION_COLUMNS);
      addMissingColumns(db, 'messages', MESSAGE_COLUMNS);
      db.exec('CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL');
      // v11: inline FTS over content + tool name + tool calls. Older layouts are rebuilt.
      const ftsSql = virtualTableSql(db, 'messages_fts');
      if (ftsSql && /content\s*=/i.test(ftsSql)) {
        for (const t of ['messages_fts_insert', 'messages_fts_delete', 'messages_fts_update']) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
        db.exec('DROP TABLE messages_fts');
      } else if (ftsSql && !fresh && found < SCHEMA_VERSION) {
        for (const t of ['messages_fts_insert', 'messages_fts_delete', 'messages_fts_update']) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
        db.exec('DROP TABLE messages_fts');
      }
      const rebuildFts = !objectExists(db, 'messages_fts');
      db.exec(FTS_SQL);
      if (rebuildFts && !fresh)
        db.exec(`INSERT INTO messages_fts(rowid, content) SELECT id, ${FTS_ROW('new').replace(/new\./g, '')} FROM messages`);
      // v10: trigram index (backfilled).
      const rebuildTrigram = !objectExists(db, 'messages_fts_trigram');
      if (!rebuildTrigram && !fresh && found < SCHEMA_VERSION) {
        for (const t of ['messages_fts_trigram_insert', 'messages_fts_trigram_delete', 'messages_fts_trigram_update']) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
        db.exec('DROP TABLE messages_fts_trigram');
      }
      try {
        db.exec(TRIGRAM_SQL);
        if (!fresh)
          db.exec(
            `INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${FTS_ROW('new').replace(/new\./g, '')} FROM messages WHERE ${TRIGRAM_WHEN('new').replace(/new\./g, '')}`,
          );
      } catch {
        /* an SQLite without the trigram tokenizer: CJK search falls back to LIKE */
      }
      if (!fresh) db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);
    } else {
      // A newer Hermes wrote this file: keep its layout, only make sure what we write exists.
      addMissingColumns(db, 'sessions', SESSION_COLUMNS);
      addMissingColumns(db, 'messages', MESSAGE_COLUMNS);
      if (!objectExists(db, 'messages_fts')) db.exec(FTS_SQL);
    }
    db.exec('COMMIT');
    return found;
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      /* nothing to roll back */
    }
    throw e;
  }
}
