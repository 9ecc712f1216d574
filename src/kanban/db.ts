// kanban.db: Hermes's schema (tables, columns, indexes), opened in WAL with a long busy timeout,
// migrated additively the way Hermes does it (a column is added when missing, old names copied
// over), so a board written by Python Hermes opens here and a board written here opens there.
// Writes go through `writeTxn`: BEGIN IMMEDIATE (SQLite serialises writers, so a compare-and-set
// inside is atomic across processes), with jittered retries of the boundary statements on BUSY.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { annotateDbError, guardConnection } from '../state/db-errors.ts';
import { isBusyError, sleepSync, sqlite, type DatabaseSync } from '../state/sqlite.ts';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS tasks (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT,
    assignee             TEXT,
    status               TEXT NOT NULL,
    priority             INTEGER DEFAULT 0,
    created_by           TEXT,
    created_at           INTEGER NOT NULL,
    started_at           INTEGER,
    completed_at         INTEGER,
    workspace_kind       TEXT NOT NULL DEFAULT 'scratch',
    workspace_path       TEXT,
    branch_name          TEXT,
    project_id           TEXT,
    claim_lock           TEXT,
    claim_expires        INTEGER,
    tenant               TEXT,
    result               TEXT,
    idempotency_key      TEXT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    worker_pid           INTEGER,
    last_failure_error   TEXT,
    max_runtime_seconds  INTEGER,
    last_heartbeat_at    INTEGER,
    current_run_id       INTEGER,
    workflow_template_id TEXT,
    current_step_key     TEXT,
    skills               TEXT,
    model_override       TEXT,
    provider_override    TEXT,
    reasoning_effort     TEXT,
    max_retries          INTEGER,
    goal_mode            INTEGER NOT NULL DEFAULT 0,
    goal_max_turns       INTEGER,
    session_id           TEXT,
    block_kind           TEXT,
    block_recurrences    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS task_links (
    parent_id  TEXT NOT NULL,
    child_id   TEXT NOT NULL,
    PRIMARY KEY (parent_id, child_id)
);
CREATE TABLE IF NOT EXISTS task_comments (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL,
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL,
    run_id     INTEGER,
    kind       TEXT NOT NULL,
    payload    TEXT,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_runs (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id             TEXT NOT NULL,
    profile             TEXT,
    step_key            TEXT,
    status              TEXT NOT NULL,
    claim_lock          TEXT,
    claim_expires       INTEGER,
    worker_pid          INTEGER,
    max_runtime_seconds INTEGER,
    last_heartbeat_at   INTEGER,
    started_at          INTEGER NOT NULL,
    ended_at            INTEGER,
    outcome             TEXT,
    summary             TEXT,
    metadata            TEXT,
    error               TEXT
);
CREATE TABLE IF NOT EXISTS task_attachments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      TEXT NOT NULL,
    filename     TEXT NOT NULL,
    stored_path  TEXT NOT NULL,
    content_type TEXT,
    size         INTEGER NOT NULL DEFAULT 0,
    uploaded_by  TEXT,
    created_at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS kanban_notify_subs (
    task_id       TEXT NOT NULL,
    platform      TEXT NOT NULL,
    chat_id       TEXT NOT NULL,
    thread_id     TEXT NOT NULL DEFAULT '',
    user_id       TEXT,
    user_id_alt   TEXT,
    chat_type     TEXT,
    notifier_profile TEXT,
    delivery_mode TEXT NOT NULL DEFAULT 'notify',
    delivery_metadata TEXT,
    created_at    INTEGER NOT NULL,
    last_event_id INTEGER NOT NULL DEFAULT 0,
    last_ping_event_id INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, platform, chat_id, thread_id)
);
CREATE INDEX IF NOT EXISTS idx_tasks_assignee_status ON tasks(assignee, status);
CREATE INDEX IF NOT EXISTS idx_tasks_status          ON tasks(status);
CREATE INDEX IF NOT EXISTS idx_links_child           ON task_links(child_id);
CREATE INDEX IF NOT EXISTS idx_links_parent          ON task_links(parent_id);
CREATE INDEX IF NOT EXISTS idx_comments_task         ON task_comments(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_events_task           ON task_events(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_runs_task             ON task_runs(task_id, started_at);
CREATE INDEX IF NOT EXISTS idx_runs_status           ON task_runs(status);
CREATE INDEX IF NOT EXISTS idx_attachments_task      ON task_attachments(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_notify_task           ON kanban_notify_subs(task_id);
`;

// Columns later Hermes versions added, in the order legacy boards receive them (Hermes's own list).
export const EARLY_TASK_COLUMNS: [string, string][] = [
  ['tenant', 'tenant TEXT'],
  ['result', 'result TEXT'],
  ['branch_name', 'branch_name TEXT'],
  ['project_id', 'project_id TEXT'],
  ['idempotency_key', 'idempotency_key TEXT'],
];
/** [column, ddl, legacy column, copy statement]: renames done as add-then-copy. */
export const RENAMED_TASK_COLUMNS: [string, string, string | null, string | null][] = [
  ['consecutive_failures', 'consecutive_failures INTEGER NOT NULL DEFAULT 0', 'spawn_failures', 'UPDATE tasks SET consecutive_failures = COALESCE(spawn_failures, 0)'],
  ['worker_pid', 'worker_pid INTEGER', null, null],
  ['last_failure_error', 'last_failure_error TEXT', 'last_spawn_error', 'UPDATE tasks SET last_failure_error = last_spawn_error'],
];
export const LATER_TASK_COLUMNS: [string, string][] = [
  ['max_runtime_seconds', 'max_runtime_seconds INTEGER'],
  ['last_heartbeat_at', 'last_heartbeat_at INTEGER'],
  ['current_run_id', 'current_run_id INTEGER'],
  ['workflow_template_id', 'workflow_template_id TEXT'],
  ['current_step_key', 'current_step_key TEXT'],
  ['skills', 'skills TEXT'],
  ['max_retries', 'max_retries INTEGER'],
  ['model_override', 'model_override TEXT'],
  ['provider_override', 'provider_override TEXT'],
  ['reasoning_effort', 'reasoning_effort TEXT'],
  ['goal_mode', 'goal_mode INTEGER NOT NULL DEFAULT 0'],
  ['goal_max_turns', 'goal_max_turns INTEGER'],
  ['completion_contract', 'completion_contract TEXT'],
  ['session_id', 'session_id TEXT'],
  ['block_kind', 'block_kind TEXT'],
  ['block_recurrences', 'block_recurrences INTEGER NOT NULL DEFAULT 0'],
];
export const NOTIFY_SUB_COLUMNS: [string, string][] = [
  ['last_ping_event_id', 'last_ping_event_id INTEGER NOT NULL DEFAULT 0'],
  ['notifier_profile', 'notifier_profile TEXT'],
  ['delivery_mode', "delivery_mode TEXT NOT NULL DEFAULT 'notify'"],
  ['chat_type', 'chat_type TEXT'],
  ['user_id_alt', 'user_id_alt TEXT'],
  ['delivery_metadata', 'delivery_metadata TEXT'],
];

export const BUSY_TIMEOUT_MS = 120_000;

/** Indexes added after the first schema (SQLite and PostgreSQL boards both get them). */
export const LATER_INDEXES = [
  'CREATE INDEX IF NOT EXISTS idx_tasks_tenant ON tasks(tenant)',
  'CREATE INDEX IF NOT EXISTS idx_tasks_idempotency ON tasks(idempotency_key)',
  'CREATE INDEX IF NOT EXISTS idx_tasks_session_id ON tasks(session_id)',
  'CREATE INDEX IF NOT EXISTS idx_events_run ON task_events(run_id, id)',
];

export type KanbanParam = string | number | bigint | null;

/** A prepared statement of either backend (node:sqlite's StatementSync has this shape). */
export interface KanbanStatement {
  run(...params: KanbanParam[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: KanbanParam[]): unknown;
  all(...params: KanbanParam[]): unknown[];
}

/**
 * A board's connection: node:sqlite's DatabaseSync (kanban.db) or the PostgreSQL one
 * (src/kanban/pg/db.ts). The store speaks SQLite's SQL; the PostgreSQL side translates it.
 */
export interface KanbanDb {
  prepare(sql: string): KanbanStatement;
  exec(sql: string): void;
  close(): void;
  location(): string | null;
  readonly isTransaction: boolean;
  /** PostgreSQL only: a session advisory lock, null when another connection holds it. */
  tryAdvisoryLock?(key: string): { release(): void } | null;
}

function columns(db: DatabaseSync, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
}

function addColumns(db: DatabaseSync, table: string, specs: [string, string][]): void {
  const have = columns(db, table);
  for (const [name, ddl] of specs) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${ddl}`);
}

/** Creates the schema and brings an older board up to date (idempotent). */
export function migrate(db: DatabaseSync): void {
  db.exec(SCHEMA_SQL);
  addColumns(db, 'tasks', EARLY_TASK_COLUMNS);
  const have = columns(db, 'tasks');
  for (const [name, ddl, legacy, copy] of RENAMED_TASK_COLUMNS) {
    if (have.has(name)) continue;
    db.exec(`ALTER TABLE tasks ADD COLUMN ${ddl}`);
    if (legacy && copy && have.has(legacy)) db.exec(copy);
  }
  addColumns(db, 'tasks', LATER_TASK_COLUMNS);
  addColumns(db, 'task_events', [['run_id', 'run_id INTEGER']]);
  for (const sql of LATER_INDEXES) db.exec(sql);
  const notifyHad = columns(db, 'kanban_notify_subs');
  addColumns(db, 'kanban_notify_subs', NOTIFY_SUB_COLUMNS);
  // Subscriptions from before delivery modes existed were woken actively (Hermes's backfill).
  if (!notifyHad.has('delivery_mode')) db.exec("UPDATE kanban_notify_subs SET delivery_mode = 'notify+wake' WHERE platform != 'tui'");
  // In-flight tasks from before runs existed get a run row (claim state moved onto runs).
  const inflight = db
    .prepare("SELECT id, assignee, claim_lock, claim_expires, worker_pid, max_runtime_seconds, last_heartbeat_at, started_at FROM tasks WHERE status = 'running' AND current_run_id IS NULL")
    .all() as Record<string, number | string | null>[];
  for (const r of inflight) {
    const run = db
      .prepare(
        "INSERT INTO task_runs (task_id, profile, status, claim_lock, claim_expires, worker_pid, max_runtime_seconds, last_heartbeat_at, started_at) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)",
      )
      .run(r.id, r.assignee, r.claim_lock, r.claim_expires, r.worker_pid, r.max_runtime_seconds, r.last_heartbeat_at, r.started_at ?? Math.floor(Date.now() / 1000));
    db.prepare('UPDATE tasks SET current_run_id = ? WHERE id = ? AND current_run_id IS NULL').run(run.lastInsertRowid, r.id);
  }
  for (const [from, to] of [
    ['ready', 'promoted'],
    ['priority', 'reprioritized'],
    ['spawn_auto_blocked', 'gave_up'],
  ])
    db.prepare('UPDATE task_events SET kind = ? WHERE kind = ?').run(to, from);
}

/** Every table and column this version knows is there (the read-only fast path of opening). */
function upToDate(db: DatabaseSync): boolean {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map((r) => r.name));
  for (const t of ['tasks', 'task_links', 'task_comments', 'task_events', 'task_runs', 'task_attachments', 'kanban_notify_subs']) if (!tables.has(t)) return false;
  const task = columns(db, 'tasks');
  const wanted = [...EARLY_TASK_COLUMNS, ...LATER_TASK_COLUMNS].map(([n]) => n).concat(RENAMED_TASK_COLUMNS.map(([n]) => n));
  return wanted.every((c) => task.has(c)) && columns(db, 'task_events').has('run_id') && NOTIFY_SUB_COLUMNS.every(([n]) => columns(db, 'kanban_notify_subs').has(n));
}

const initialized = new Set<string>();
const statements = new WeakMap<KanbanDb, Map<string, KanbanStatement>>();

export interface OpenOptions {
  busyTimeoutMs?: number;
}

/** Opens (creating and migrating on first use in this process) a board's kanban.db. */
export function openKanbanDb(path: string, o: OpenOptions = {}): DatabaseSync {
  const full = resolve(path);
  const { DatabaseSync } = sqlite();
  const timeout = o.busyTimeoutMs ?? (Number(process.env.HERMES_KANBAN_BUSY_TIMEOUT_MS) || BUSY_TIMEOUT_MS);
  let db: DatabaseSync;
  try {
    mkdirSync(dirname(full), { recursive: true });
    db = new DatabaseSync(full, { timeout });
  } catch (e) {
    throw annotateDbError(e, full, 'kanban');
  }
  // Every error of this connection names the board's file and what to do (state/db-errors.ts).
  guardConnection(db, full, 'kanban');
  try {
    db.exec(`PRAGMA busy_timeout=${timeout}`);
    const mode = (db.prepare('PRAGMA journal_mode=WAL').get() as { journal_mode?: string } | undefined)?.journal_mode;
    if (mode && mode.toLowerCase() !== 'wal') db.exec('PRAGMA journal_mode=DELETE');
    db.exec('PRAGMA synchronous=FULL');
    db.exec('PRAGMA wal_autocheckpoint=100');
    db.exec('PRAGMA journal_size_limit=8388608');
    db.exec('PRAGMA foreign_keys=ON');
    const present = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='tasks'").get();
    if (!present || !initialized.has(full)) {
      if (!present || !upToDate(db))
        retryBusy(() => {
          db.exec('BEGIN IMMEDIATE');
          try {
            migrate(db);
            db.exec('COMMIT');
          } catch (e) {
            try {
              db.exec('ROLLBACK');
            } catch {
              /* already rolled back */
            }
            throw e;
          }
        });
      initialized.add(full);
    }
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** A cached prepared statement of this connection. */
export function stmt(db: KanbanDb, sql: string): KanbanStatement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

function retryBusy<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      if (!isBusyError(e) || attempt >= 5) throw e;
      sleepSync(20 + Math.random() * 130);
    }
  }
}

let savepoints = 0;

/**
 * Runs `fn` in an IMMEDIATE write transaction (a compare-and-set inside is atomic across processes).
 * Nested use must opt in (`allowNested`: a savepoint that commits with the outer transaction).
 */
export function writeTxn<T>(db: KanbanDb, fn: () => T, o: { allowNested?: boolean } = {}): T {
  if (db.isTransaction) {
    if (!o.allowNested) throw new Error('kanban: already inside a write transaction');
    const sp = `hermes_nested_${++savepoints}`;
    db.exec(`SAVEPOINT ${sp}`);
    try {
      const r = fn();
      db.exec(`RELEASE ${sp}`);
      return r;
    } catch (e) {
      db.exec(`ROLLBACK TO ${sp}`);
      db.exec(`RELEASE ${sp}`);
      throw e;
    }
  }
  retryBusy(() => db.exec('BEGIN IMMEDIATE'));
  let r: T;
  try {
    r = fn();
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      /* SQLite already rolled back */
    }
    throw e;
  }
  try {
    retryBusy(() => db.exec('COMMIT'));
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      /* nothing open */
    }
    throw e;
  }
  return r;
}
