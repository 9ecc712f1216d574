// state.db's layout and its migrations: Python Hermes's schema v19 (hermes_state.py, Hermes 0.18),
// reached from every older layout (Hermes v1–v18, and this project's own v11 files).
//
// As in Hermes, columns are reconciled declaratively (every column of the CREATE TABLE below that a
// file lacks is added); version-gated steps only transform data: v11 re-indexes FTS over tool names
// and calls, v16 tags subagent sessions, v18 copies gateway metadata from sessions/sessions.json.
// Two one-time repairs run once per file, latched in `state_meta` as Hermes's CLI does
// (`ghost_session_prune_v1`, `orphaned_compression_finalize_v1`).
//
// A file written by a newer Hermes (schema_version above ours) is left exactly as it is: no DDL, no
// version change, no repair. It is read normally and rows are written with the columns we know,
// which that Hermes's own triggers index.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isBusyError, sleepSync, type DatabaseSync } from './sqlite.ts';

export const SCHEMA_VERSION = 19;

export const WRITE_MAX_RETRIES = 15;
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 150;

export function jitter(attempt: number): number {
  // ~2 s of 20–150 ms waits, then longer ones: staggers competing writers instead of a convoy.
  if (attempt < 12) return RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS);
  return 250 + Math.random() * 750;
}

export type Columns = [name: string, decl: string][];

/** sessions, in Hermes 0.18's column order. */
export const SESSION_COLUMNS: Columns = [
  ['id', 'TEXT PRIMARY KEY'],
  ['source', 'TEXT NOT NULL'],
  ['user_id', 'TEXT'],
  ['session_key', 'TEXT'],
  ['chat_id', 'TEXT'],
  ['chat_type', 'TEXT'],
  ['thread_id', 'TEXT'],
  ['display_name', 'TEXT'],
  ['origin_json', 'TEXT'],
  ['expiry_finalized', 'INTEGER DEFAULT 0'],
  ['model', 'TEXT'],
  ['model_config', 'TEXT'],
  ['system_prompt', 'TEXT'],
  ['parent_session_id', 'TEXT'],
  ['started_at', 'REAL NOT NULL'],
  ['ended_at', 'REAL'],
  ['end_reason', 'TEXT'],
  ['message_count', 'INTEGER DEFAULT 0'],
  ['tool_call_count', 'INTEGER DEFAULT 0'],
  ['input_tokens', 'INTEGER DEFAULT 0'],
  ['output_tokens', 'INTEGER DEFAULT 0'],
  ['cache_read_tokens', 'INTEGER DEFAULT 0'],
  ['cache_write_tokens', 'INTEGER DEFAULT 0'],
  ['reasoning_tokens', 'INTEGER DEFAULT 0'],
  ['cwd', 'TEXT'],
  ['git_branch', 'TEXT'],
  ['git_repo_root', 'TEXT'],
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
  ['handoff_state', 'TEXT'],
  ['handoff_platform', 'TEXT'],
  ['handoff_error', 'TEXT'],
  ['compression_failure_cooldown_until', 'REAL'],
  ['compression_failure_error', 'TEXT'],
  ['rewind_count', 'INTEGER NOT NULL DEFAULT 0'],
  ['archived', 'INTEGER NOT NULL DEFAULT 0'],
];

export const MESSAGE_COLUMNS: Columns = [
  ['id', 'INTEGER PRIMARY KEY AUTOINCREMENT'],
  ['session_id', 'TEXT NOT NULL REFERENCES sessions(id)'],
  ['role', 'TEXT NOT NULL'],
  ['content', 'TEXT'],
  ['tool_call_id', 'TEXT'],
  ['tool_calls', 'TEXT'],
  ['tool_name', 'TEXT'],
  ['timestamp', 'REAL NOT NULL'],
  ['token_count', 'INTEGER'],
  ['finish_reason', 'TEXT'],
  ['reasoning', 'TEXT'],
  ['reasoning_content', 'TEXT'],
  ['reasoning_details', 'TEXT'],
  ['codex_reasoning_items', 'TEXT'],
  ['codex_message_items', 'TEXT'],
  ['platform_message_id', 'TEXT'],
  ['observed', 'INTEGER DEFAULT 0'],
  ['active', 'INTEGER NOT NULL DEFAULT 1'],
  ['compacted', 'INTEGER NOT NULL DEFAULT 0'],
];

const table = (name: string, cols: Columns, extra = '') =>
  `CREATE TABLE IF NOT EXISTS ${name} (\n${[...cols.map(([n, d]) => `    ${n} ${d}`), ...(extra ? [`    ${extra}`] : [])].join(',\n')}\n);`;

const TABLES_SQL = `
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);
${table('sessions', SESSION_COLUMNS, 'FOREIGN KEY (parent_session_id) REFERENCES sessions(id)')}
${table('messages', MESSAGE_COLUMNS)}
CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);
CREATE TABLE IF NOT EXISTS gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
);
CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at);
`;

// Indexes over columns the reconciliation may just have added (created after it, as Hermes does).
const DEFERRED_INDEX_SQL = `
CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_messages_session_active
    ON messages(session_id, active, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_active_null
    ON messages(active) WHERE active IS NULL;
CREATE INDEX IF NOT EXISTS idx_sessions_session_key
    ON sessions(session_key, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_handoff_state
    ON sessions(handoff_state, started_at);
CREATE INDEX IF NOT EXISTS idx_messages_timestamp ON messages(timestamp);
`;

const TITLE_INDEX_SQL = 'CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL';

// What the inline FTS tables (Hermes v11–v22) index for each message: its text, the tool's name and
// the calls.
export const FTS_ROW = (r: 'new' | 'old') =>
  `COALESCE(${r}.content, '') || ' ' || COALESCE(${r}.tool_name, '') || ' ' || COALESCE(${r}.tool_calls, '')`;
const FTS_ROW_PLAIN = FTS_ROW('new').replace(/new\./g, '');

const FTS_TRIGGERS = ['messages_fts_insert', 'messages_fts_delete', 'messages_fts_update'];
const TRIGRAM_TRIGGERS = ['messages_fts_trigram_insert', 'messages_fts_trigram_delete', 'messages_fts_trigram_update'];

const FTS_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content
);
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

// The trigram index serves CJK queries only (the word tokenizer cannot split CJK text; Hermes routes
// nothing else to it), so the triggers this project creates index only messages that contain CJK
// characters, and no tool output (as later Hermes): the most expensive index stays small. A file
// whose trigram triggers Python Hermes created keeps them.
export const CJK_GLOB = "*[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]*";
const TRIGRAM_WHEN = (r: 'new' | 'old') => `${r}.role <> 'tool' AND ${r}.content GLOB '${CJK_GLOB}'`;
const TRIGRAM_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tokenize='trigram'
);
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

/** One-time repairs Hermes's CLI runs at start-up, each latched by a `state_meta` key. */
const REPAIRS: [key: string, sql: string, args: () => number[]][] = [
  // Empty, untitled, ended TUI sessions older than a day.
  [
    'ghost_session_prune_v1',
    `DELETE FROM sessions WHERE source = 'tui' AND title IS NULL AND ended_at IS NOT NULL AND started_at < ?
       AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)
       AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_session_id = sessions.id)`,
    () => [Date.now() / 1000 - 86_400],
  ],
  // Compression continuations a crash left open for more than a week: ended, nothing deleted.
  [
    'orphaned_compression_finalize_v1',
    `UPDATE sessions SET ended_at = ?, end_reason = 'orphaned_compression'
     WHERE api_call_count = 0 AND end_reason IS NULL AND ended_at IS NULL AND started_at < ? AND parent_session_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id AND p.end_reason = 'compression')
       AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id)`,
    () => [Date.now() / 1000, Date.now() / 1000 - 7 * 86_400],
  ],
];

export function tableColumns(db: DatabaseSync, name: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((r) => r.name));
}

export function objectExists(db: DatabaseSync, name: string): boolean {
  return !!db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name);
}

function virtualTableSql(db: DatabaseSync, name: string): string {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { sql: string } | undefined;
  return r?.sql ?? '';
}

function addMissingColumns(db: DatabaseSync, name: string, cols: Columns): void {
  const have = tableColumns(db, name);
  for (const [col, decl] of cols) {
    if (have.has(col) || /PRIMARY KEY/.test(decl)) continue;
    // A NOT NULL column needs its default to be added; the others are added as declared.
    db.exec(`ALTER TABLE ${name} ADD COLUMN ${col} ${decl.replace(/ REFERENCES .*/, '')}`);
  }
}

/** gateway_routing from early builds keyed by session_key alone: rebuilt with the (scope, key) key. */
function healGatewayRoutingKey(db: DatabaseSync): void {
  const pk = (db.prepare('PRAGMA table_info(gateway_routing)').all() as { name: string; pk: number }[])
    .filter((c) => c.pk)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  if (!pk.length || pk.join(',') === 'scope,session_key') return;
  db.exec('ALTER TABLE gateway_routing RENAME TO gateway_routing_legacy_pk');
  db.exec(`CREATE TABLE gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
)`);
  db.exec(
    `INSERT OR REPLACE INTO gateway_routing (scope, session_key, entry_json, updated_at)
     SELECT COALESCE(scope, ''), session_key, entry_json, updated_at FROM gateway_routing_legacy_pk ORDER BY updated_at ASC`,
  );
  db.exec('DROP TABLE gateway_routing_legacy_pk');
}

/** The unique title index; duplicates from before it existed keep the title on the newest row. */
function ensureTitleIndex(db: DatabaseSync): void {
  try {
    db.exec(TITLE_INDEX_SQL);
  } catch {
    db.exec(
      `UPDATE sessions AS older SET title = NULL WHERE title IS NOT NULL
       AND EXISTS (SELECT 1 FROM sessions AS newer WHERE newer.title = older.title AND newer.rowid > older.rowid)`,
    );
    db.exec(TITLE_INDEX_SQL);
  }
}

function dropTriggers(db: DatabaseSync, names: string[]): void {
  for (const t of names) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
}

/** messages_fts (inline, over text + tool name + calls) and the CJK trigram index. */
function ensureFts(db: DatabaseSync, fresh: boolean, found: number): void {
  // Layouts before v11 (external content, or content only) are rebuilt; later ones are kept as they are.
  const ftsSql = virtualTableSql(db, 'messages_fts');
  if (ftsSql && (found < 11 || /content\s*=/i.test(ftsSql))) {
    dropTriggers(db, FTS_TRIGGERS);
    db.exec('DROP TABLE messages_fts');
  }
  const rebuildFts = !objectExists(db, 'messages_fts');
  db.exec(FTS_SQL);
  if (rebuildFts && !fresh) db.exec(`INSERT INTO messages_fts(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages`);

  if (objectExists(db, 'messages_fts_trigram') && found < 11 && !fresh) {
    dropTriggers(db, TRIGRAM_TRIGGERS);
    db.exec('DROP TABLE messages_fts_trigram');
  }
  const rebuildTrigram = !objectExists(db, 'messages_fts_trigram');
  try {
    db.exec(TRIGRAM_SQL);
    if (rebuildTrigram && !fresh)
      db.exec(`INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages WHERE ${TRIGRAM_WHEN('new').replace(/new\./g, '')}`);
  } catch {
    /* an SQLite without the trigram tokenizer: CJK search falls back to LIKE */
  }
}

/** Refills the search indexes from the messages (`hermes sessions repair`): rows lost or damaged come back. */
export function rebuildSearchIndex(db: DatabaseSync): number {
  let n = 0;
  if (objectExists(db, 'messages_fts')) {
    db.exec('DELETE FROM messages_fts');
    db.exec(`INSERT INTO messages_fts(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages`);
    n++;
  }
  if (objectExists(db, 'messages_fts_trigram')) {
    db.exec('DELETE FROM messages_fts_trigram');
    db.exec(`INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages WHERE ${TRIGRAM_WHEN('new').replace(/new\./g, '')}`);
    n++;
  }
  return n;
}

// The subagent predicate of Hermes v16: a child that is neither a /branch nor a compression continuation.
const BRANCH_CHILD = (a: string) =>
  `json_extract(COALESCE(${a}.model_config, '{}'), '$._branched_from') IS NOT NULL OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id AND p.end_reason = 'branched' AND ${a}.started_at >= p.ended_at)`;
const COMPRESSION_CHILD = (a: string) => `EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id AND p.end_reason = 'compression')`;

/** v16: subagent sessions carry `_delegate_from` in model_config, so pickers keep hiding them. */
function tagDelegateSessions(db: DatabaseSync): void {
  db.exec(
    `UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', parent_session_id)
     WHERE parent_session_id IS NOT NULL AND json_valid(COALESCE(model_config, '{}'))
       AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL
       AND NOT (${BRANCH_CHILD('sessions')}) AND NOT (${COMPRESSION_CHILD('sessions')})`,
  );
}

/** v18: gateway routing metadata from HERMES_HOME/sessions/sessions.json, filling only empty columns. */
function backfillGatewayMetadata(db: DatabaseSync, home: string): void {
  const file = join(home, 'sessions', 'sessions.json');
  if (!existsSync(file)) return;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return; // best effort, as in Hermes: consumers fall back to sessions.json
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return;
  const upd = db.prepare(
    `UPDATE sessions SET session_key = COALESCE(session_key, ?), chat_id = COALESCE(chat_id, ?), chat_type = COALESCE(chat_type, ?),
       thread_id = COALESCE(thread_id, ?), display_name = COALESCE(display_name, ?), origin_json = COALESCE(origin_json, ?),
       expiry_finalized = CASE WHEN COALESCE(expiry_finalized, 0) = 0 AND ? = 1 THEN 1 ELSE expiry_finalized END
     WHERE id = ?`,
  );
  const str = (v: unknown) => (v === undefined || v === null || v === '' ? null : String(v));
  for (const [key, entry] of Object.entries(data as Record<string, unknown>)) {
    if (key.startsWith('_') || !entry || typeof entry !== 'object') continue;
    const e = entry as Record<string, unknown>;
    if (!e.session_id) continue;
    const origin = e.origin && typeof e.origin === 'object' && !Array.isArray(e.origin) ? (e.origin as Record<string, unknown>) : null;
    upd.run(
      str(e.session_key) ?? key,
      origin ? str(origin.chat_id) : null,
      str(e.chat_type),
      origin ? str(origin.thread_id) : null,
      str(e.display_name),
      origin ? JSON.stringify(origin) : null,
      e.expiry_finalized || e.memory_flushed ? 1 : 0,
      String(e.session_id),
    );
  }
}

export interface MigrateResult {
  /** The schema version found before opening (0 for a new file). */
  found: number;
  /** The file belongs to a newer Hermes: nothing in its layout was touched. */
  newer: boolean;
}

function beginImmediate(db: DatabaseSync): void {
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (e) {
      if (isBusyError(e) && attempt < WRITE_MAX_RETRIES) {
        sleepSync(jitter(attempt));
        continue;
      }
      throw e;
    }
  }
}

/** Creates or upgrades the schema in one transaction. `home` holds sessions/sessions.json (v18). */
export function migrate(db: DatabaseSync, home: string | null): MigrateResult {
  beginImmediate(db);
  try {
    const row = objectExists(db, 'schema_version')
      ? (db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined)
      : undefined;
    const found = row ? Number(row.version) : 0;
    if (found > SCHEMA_VERSION) {
      db.exec('COMMIT');
      return { found, newer: true };
    }
    const fresh = !objectExists(db, 'sessions');
    // A file with sessions but no version row is from Hermes's first schema.
    const from = fresh ? SCHEMA_VERSION : Math.max(found, 1);

    db.exec(TABLES_SQL);
    addMissingColumns(db, 'sessions', SESSION_COLUMNS);
    addMissingColumns(db, 'messages', MESSAGE_COLUMNS);
    healGatewayRoutingKey(db);
    db.exec(DEFERRED_INDEX_SQL);
    // A reconciled `active` column without its default wrote NULLs; NULL means live.
    db.exec('UPDATE messages SET active = 1 WHERE active IS NULL');
    ensureTitleIndex(db);
    ensureFts(db, fresh, from);
    if (!fresh && from < 16) tagDelegateSessions(db);
    if (!fresh && from < 18 && home) backfillGatewayMetadata(db, home);

    if (!row) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
    else if (found < SCHEMA_VERSION) db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);

    const done = db.prepare('SELECT 1 FROM state_meta WHERE key = ?');
    const mark = db.prepare("INSERT INTO state_meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    for (const [key, sql, args] of REPAIRS) {
      if (done.get(key)) continue;
      db.prepare(sql).run(...args());
      mark.run(key);
    }
    db.exec('COMMIT');
    return { found, newer: false };
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      /* nothing to roll back */
    }
    throw e;
  }
}
