// state.db's layout and its migrations: Python Hermes's schema v23 (hermes_state.py, Hermes 0.19),
// reached from every older layout (Hermes v1–v22, and this project's own v11 and v19 files).
//
// As in Hermes, columns are reconciled declaratively (every column of the CREATE TABLE below that a
// file lacks is added); version-gated steps only transform data: v16 tags subagent sessions, v18
// copies gateway metadata from sessions/sessions.json, v20 seeds the per-model usage table from the
// sessions' totals. The search indexes and their layouts (v23 external content, legacy inline) are
// in db-fts.ts.
// Two one-time repairs run once per file, latched in `state_meta` as Hermes's CLI does
// (`ghost_session_prune_v1`, `orphaned_compression_finalize_v1`).
//
// A file written by a newer Hermes (schema_version above ours) is left exactly as it is: no DDL, no
// version change, no repair. It is read normally and rows are written with the columns we know,
// which that Hermes's own triggers index.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureFts } from './db-fts.ts';
import { isBusyError, sleepSync, type DatabaseSync } from './sqlite.ts';

export const SCHEMA_VERSION = 23;

export const WRITE_MAX_RETRIES = 15;
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 150;

export function jitter(attempt: number): number {
  // ~2 s of 20–150 ms waits, then longer ones: staggers competing writers instead of a convoy.
  if (attempt < 12) return RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS);
  return 250 + Math.random() * 750;
}

export type Columns = [name: string, decl: string][];

/** sessions, in Hermes 0.19's column order. */
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
  ['compression_fallback_streak', 'INTEGER NOT NULL DEFAULT 0'],
  ['compression_ineffective_count', 'INTEGER NOT NULL DEFAULT 0'],
  ['profile_name', 'TEXT'],
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
  ['effect_disposition', 'TEXT'],
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
  ['api_content', 'TEXT'],
  ['display_kind', 'TEXT'],
  ['display_metadata', 'TEXT'],
];

/** Per session, model, billing route and task (`''`: the agent loop): what the API calls used and cost (v20, v22). */
export const MODEL_USAGE_COLUMNS: Columns = [
  ['session_id', 'TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE'],
  ['model', 'TEXT NOT NULL'],
  ['billing_provider', "TEXT NOT NULL DEFAULT ''"],
  ['billing_base_url', "TEXT NOT NULL DEFAULT ''"],
  ['billing_mode', "TEXT NOT NULL DEFAULT ''"],
  ['task', "TEXT NOT NULL DEFAULT ''"],
  ['api_call_count', 'INTEGER NOT NULL DEFAULT 0'],
  ['input_tokens', 'INTEGER NOT NULL DEFAULT 0'],
  ['output_tokens', 'INTEGER NOT NULL DEFAULT 0'],
  ['cache_read_tokens', 'INTEGER NOT NULL DEFAULT 0'],
  ['cache_write_tokens', 'INTEGER NOT NULL DEFAULT 0'],
  ['reasoning_tokens', 'INTEGER NOT NULL DEFAULT 0'],
  ['estimated_cost_usd', 'REAL NOT NULL DEFAULT 0'],
  ['actual_cost_usd', 'REAL NOT NULL DEFAULT 0'],
  ['cost_status', 'TEXT'],
  ['cost_source', 'TEXT'],
  ['first_seen', 'REAL'],
  ['last_seen', 'REAL'],
];
export const MODEL_USAGE_KEY = ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task'];

/** Background delegations and the delivery of their results (Hermes's tools/async_delegation.py). */
export const ASYNC_DELEGATION_COLUMNS: Columns = [
  ['delegation_id', 'TEXT PRIMARY KEY'],
  ['origin_session', 'TEXT NOT NULL'],
  ['origin_ui_session_id', "TEXT NOT NULL DEFAULT ''"],
  ['parent_session_id', 'TEXT'],
  ['state', 'TEXT NOT NULL'],
  ['dispatched_at', 'REAL NOT NULL'],
  ['completed_at', 'REAL'],
  ['updated_at', 'REAL NOT NULL'],
  ['event_json', 'TEXT'],
  ['result_json', 'TEXT'],
  ['delivery_state', "TEXT NOT NULL DEFAULT 'pending'"],
  ['delivery_attempts', 'INTEGER NOT NULL DEFAULT 0'],
  ['delivered_at', 'REAL'],
  ['owner_pid', 'INTEGER'],
  ['owner_started_at', 'INTEGER'],
  ['task_json', 'TEXT'],
  ['delivery_claim', 'TEXT'],
  ['delivery_claimed_at', 'REAL'],
  ['origin_session_id', "TEXT NOT NULL DEFAULT ''"],
];
// Hermes's delegation module creates the table with every column when it runs first (a new home);
// Hermes's SessionDB creates it without origin_session_id, which the module adds when it next runs.
// The module adds its column to a table made before it, as a plain nullable one.
const asyncDelegationsSql = (fresh: boolean) =>
  table('async_delegations', fresh ? ASYNC_DELEGATION_COLUMNS : ASYNC_DELEGATION_COLUMNS.filter(([n]) => n !== 'origin_session_id'));
const ASYNC_DELEGATION_LATE = new Set(['origin_session_id']);

const table = (name: string, cols: Columns, extra = '') =>
  `CREATE TABLE IF NOT EXISTS ${name} (\n${[...cols.map(([n, d]) => `    ${n} ${d}`), ...(extra ? [`    ${extra}`] : [])].join(',\n')}\n);`;

const TABLES_SQL = `
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);
${table('sessions', SESSION_COLUMNS, 'FOREIGN KEY (parent_session_id) REFERENCES sessions(id)')}
${table('messages', MESSAGE_COLUMNS)}
${table('session_model_usage', MODEL_USAGE_COLUMNS, `PRIMARY KEY (${MODEL_USAGE_KEY.join(', ')})`)}
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
CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX IF NOT EXISTS idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at);
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

function addMissingColumns(db: DatabaseSync, name: string, cols: Columns, plain: Set<string> = new Set()): void {
  const have = tableColumns(db, name);
  for (const [col, decl] of cols) {
    if (have.has(col) || /PRIMARY KEY/.test(decl)) continue;
    // A NOT NULL column needs its default to be added; the others are added as declared.
    // Hermes's reconciliation quotes the name; the delegation module's own additions do not.
    if (plain.has(col)) db.exec(`ALTER TABLE ${name} ADD COLUMN ${col} ${decl.split(' ')[0]}`);
    else db.exec(`ALTER TABLE "${name}" ADD COLUMN "${col}" ${decl.replace(/ REFERENCES .*/, '')}`);
  }
}

/** v22: a usage table from v20–v21 (keyed without `task`) is rebuilt with it in its key; its rows are the agent loop's. */
function rekeyModelUsage(db: DatabaseSync): void {
  const inKey = db.prepare("SELECT 1 FROM pragma_table_info('session_model_usage') WHERE name = 'task' AND pk > 0").get();
  if (inKey) return;
  const cols = MODEL_USAGE_COLUMNS.map(([n]) => n);
  const have = tableColumns(db, 'session_model_usage');
  db.exec('ALTER TABLE session_model_usage RENAME TO session_model_usage_v21');
  db.exec(TABLES_SQL.slice(TABLES_SQL.indexOf('CREATE TABLE IF NOT EXISTS session_model_usage'), TABLES_SQL.indexOf('CREATE TABLE IF NOT EXISTS state_meta')));
  const src = cols.map((c) => (c === 'task' ? "''" : have.has(c) ? c : 'NULL'));
  db.exec(`INSERT OR IGNORE INTO session_model_usage (${cols.join(', ')}) SELECT ${src.join(', ')} FROM session_model_usage_v21`);
  db.exec('DROP TABLE session_model_usage_v21');
  db.exec('CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id)');
  db.exec('CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model)');
}

/** v20: one usage row per older session from its totals, so per-model reports read one table (existing rows win). */
function seedModelUsage(db: DatabaseSync): void {
  db.exec(
    `INSERT OR IGNORE INTO session_model_usage (session_id, model, billing_provider, billing_base_url, billing_mode, api_call_count,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd,
       cost_status, cost_source, first_seen, last_seen)
     SELECT id, COALESCE(model, 'unknown'), COALESCE(billing_provider, ''), COALESCE(billing_base_url, ''), COALESCE(billing_mode, ''),
       COALESCE(api_call_count, 0), COALESCE(input_tokens, 0), COALESCE(output_tokens, 0), COALESCE(cache_read_tokens, 0),
       COALESCE(cache_write_tokens, 0), COALESCE(reasoning_tokens, 0), COALESCE(estimated_cost_usd, 0), COALESCE(actual_cost_usd, 0),
       cost_status, cost_source, started_at, COALESCE(ended_at, started_at)
     FROM sessions
     WHERE COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) + COALESCE(cache_read_tokens, 0)
           + COALESCE(cache_write_tokens, 0) + COALESCE(reasoning_tokens, 0) > 0`,
  );
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
  // Small untitled tool sessions whose parent a delete detached: hidden as orphans, as Hermes 0.19 does.
  db.exec(
    `UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', '__orphaned__')
     WHERE parent_session_id IS NULL AND json_valid(COALESCE(model_config, '{}'))
       AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL
       AND json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NULL
       AND title IS NULL AND message_count <= 25
       AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id AND m.role = 'tool')
       AND NOT EXISTS (SELECT 1 FROM sessions ch WHERE ch.parent_session_id = sessions.id)`,
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

    db.exec(asyncDelegationsSql(fresh));
    db.exec(TABLES_SQL);
    addMissingColumns(db, 'sessions', SESSION_COLUMNS);
    addMissingColumns(db, 'messages', MESSAGE_COLUMNS);
    addMissingColumns(db, 'async_delegations', ASYNC_DELEGATION_COLUMNS, ASYNC_DELEGATION_LATE);
    healGatewayRoutingKey(db);
    db.exec(DEFERRED_INDEX_SQL);
    // A reconciled `active` column without its default wrote NULLs; NULL means live.
    db.exec('UPDATE messages SET active = 1 WHERE active IS NULL');
    ensureTitleIndex(db);
    ensureFts(db, fresh, from);
    if (!fresh && from < 16) tagDelegateSessions(db);
    if (!fresh && from < 18 && home) backfillGatewayMetadata(db, home);
    if (!fresh && from < 20) seedModelUsage(db);
    if (!fresh && from < 22) rekeyModelUsage(db);

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
