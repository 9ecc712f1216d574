// state.db's search indexes in the two layouts Python Hermes knows:
//
// - v23 (fts_storage_version 1, what a new file gets, as Hermes 0.19 writes it): `messages_fts` is an
//   external-content FTS5 table over three real columns (content, tool_name, tool_calls) that reads
//   its text from `messages`; `messages_fts_trigram` reads through the view
//   `messages_fts_trigram_src`, which leaves tool output out. Every trigger is gated on the deferred
//   rebuild markers `fts_rebuild_high_water` / `fts_rebuild_progress` in state_meta (absent: always
//   fires), so a file Hermes is re-indexing in chunks stays consistent while we write to it.
// - legacy inline (Hermes v11–v22, and this project's files before v23): each table keeps its own
//   copy of `content || tool_name || tool_calls`. As in Hermes, an existing file keeps this layout
//   when its schema is upgraded (`fts_optimize_available` = 1 says it can be converted), until
//   `hermes sessions optimize-storage` converts it.
//
// The search queries (db-search.ts) read either layout: both are matched through the FTS table's
// rowid, which is the message id.
import type { DatabaseSync } from './sqlite.ts';

// ---------------------------------------------------------------------------------------------
// v23 layout

/** True when the id of `r`'s row is in the index: outside a pending rebuild's not-yet-indexed range. */
const indexed = (r: 'new' | 'old', shift: 0 | 2) => {
  const pad = (n: number) => ' '.repeat(n + shift);
  return `(${r}.id > COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
${pad(25)}WHERE key = 'fts_rebuild_high_water'), -1)
${pad(3)}OR ${r}.id <= COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
${pad(26)}WHERE key = 'fts_rebuild_progress'), -1))`;
};

const COLS = 'content, tool_name, tool_calls';
const vals = (r: 'new' | 'old') => `${r}.id, ${r}.content, ${r}.tool_name, ${r}.tool_calls`;

const V23_FTS_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content,
    tool_name,
    tool_calls,
    content='messages',
    content_rowid='id'
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages
WHEN ${indexed('new', 0)}
BEGIN
    INSERT INTO messages_fts(rowid, ${COLS})
    VALUES (${vals('new')});
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages
WHEN ${indexed('old', 0)}
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, ${COLS})
    VALUES ('delete', ${vals('old')});
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages
WHEN (old.content IS NOT new.content
    OR old.tool_name IS NOT new.tool_name
    OR old.tool_calls IS NOT new.tool_calls)
   AND ${indexed('old', 2)}
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, ${COLS})
    VALUES ('delete', ${vals('old')});
    INSERT INTO messages_fts(rowid, ${COLS})
    VALUES (${vals('new')});
END;
`;

const V23_TRIGRAM_SQL = `
CREATE VIEW IF NOT EXISTS messages_fts_trigram_src AS
    SELECT id, role, ${COLS}
    FROM messages
    WHERE role <> 'tool';

CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tool_name,
    tool_calls,
    content='messages_fts_trigram_src',
    content_rowid='id',
    tokenize='trigram'
);

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages
WHEN new.role <> 'tool'
   AND ${indexed('new', 2)}
BEGIN
    INSERT INTO messages_fts_trigram(rowid, ${COLS})
    VALUES (${vals('new')});
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages
WHEN old.role <> 'tool'
   AND ${indexed('old', 2)}
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, ${COLS})
    VALUES ('delete', ${vals('old')});
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update AFTER UPDATE ON messages
WHEN (old.content IS NOT new.content
    OR old.tool_name IS NOT new.tool_name
    OR old.tool_calls IS NOT new.tool_calls
    OR old.role IS NOT new.role)
   AND ${indexed('old', 2)}
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, ${COLS})
    SELECT 'delete', ${vals('old')}
    WHERE old.role <> 'tool';
    INSERT INTO messages_fts_trigram(rowid, ${COLS})
    SELECT ${vals('new')}
    WHERE new.role <> 'tool';
END;
`;

/** The FTS layout version a converted or new file records in state_meta (`fts_storage_version`). */
export const FTS_STORAGE_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// legacy inline layout

// What the inline FTS tables index for each message: its text, the tool's name and the calls.
export const FTS_ROW = (r: 'new' | 'old') =>
  `COALESCE(${r}.content, '') || ' ' || COALESCE(${r}.tool_name, '') || ' ' || COALESCE(${r}.tool_calls, '')`;
const FTS_ROW_PLAIN = FTS_ROW('new').replace(/new\./g, '');

const LEGACY_FTS_SQL = `
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

// This project's legacy trigram triggers indexed only messages with CJK characters (the only
// queries routed there), never tool output. A file whose trigram triggers Python created keeps them.
export const CJK_GLOB = "*[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]*";
const TRIGRAM_WHEN = (r: 'new' | 'old') => `${r}.role <> 'tool' AND ${r}.content GLOB '${CJK_GLOB}'`;
const LEGACY_TRIGRAM_SQL = `
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

const FTS_TRIGGERS = ['messages_fts_insert', 'messages_fts_delete', 'messages_fts_update'];
const TRIGRAM_TRIGGERS = ['messages_fts_trigram_insert', 'messages_fts_trigram_delete', 'messages_fts_trigram_update'];

// ---------------------------------------------------------------------------------------------

function tableSql(db: DatabaseSync, name: string): string | null {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { sql: string } | undefined;
  return r ? r.sql : null;
}

const exists = (db: DatabaseSync, name: string) => !!db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name);
const meta = (db: DatabaseSync, key: string) => !!db.prepare('SELECT 1 FROM state_meta WHERE key = ?').get(key);
const setMeta = (db: DatabaseSync, key: string, value: string) =>
  db.prepare('INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);

/** `messages_fts` exists in a layout before v23 (it has no tool_name column): Hermes's test. */
export function hasLegacyFts(db: DatabaseSync): boolean {
  const sql = tableSql(db, 'messages_fts');
  return sql !== null && !sql.includes('tool_name');
}

function triggerCount(db: DatabaseSync, names: string[]): number {
  return Number((db.prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN (${names.map(() => '?').join(', ')})`).get(...names) as { n: number }).n);
}

function dropLegacy(db: DatabaseSync): void {
  for (const t of [...FTS_TRIGGERS, ...TRIGRAM_TRIGGERS]) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  db.exec('DROP VIEW IF EXISTS messages_fts_trigram_src');
  db.exec('DROP TABLE IF EXISTS messages_fts');
  db.exec('DROP TABLE IF EXISTS messages_fts_trigram');
}

/** Refills the v23 indexes from the messages (their content is read from there). */
function rebuildV23(db: DatabaseSync): void {
  db.exec("INSERT INTO messages_fts(messages_fts) VALUES('rebuild')");
  if (exists(db, 'messages_fts_trigram')) db.exec("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild')");
  // A full rebuild satisfies any pending chunked one.
  db.exec("DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress')");
}

/** The v23 tables, view and triggers; with `rebuild`, filled from the messages. */
function createV23(db: DatabaseSync, rebuild: boolean): void {
  db.exec(V23_FTS_SQL);
  try {
    db.exec(V23_TRIGRAM_SQL);
  } catch {
    /* an SQLite without the trigram tokenizer: CJK search falls back to LIKE */
    db.exec('DROP VIEW IF EXISTS messages_fts_trigram_src');
  }
  if (rebuild) rebuildV23(db);
}

/**
 * The search indexes of a file being opened (inside migrate's transaction). A new file, or one
 * without usable indexes, gets the v23 layout; a legacy layout from v11 on is kept (its missing
 * triggers restored), as Hermes keeps it, and marked convertible when the file is upgraded past it;
 * the layouts before v11 (content only) are rebuilt in the v23 layout.
 */
export function ensureFts(db: DatabaseSync, fresh: boolean, from: number): void {
  if (hasLegacyFts(db) && from < 11) dropLegacy(db);
  if (hasLegacyFts(db)) {
    const repairFts = triggerCount(db, FTS_TRIGGERS) < FTS_TRIGGERS.length;
    db.exec(LEGACY_FTS_SQL);
    if (repairFts) {
      db.exec('DELETE FROM messages_fts');
      db.exec(`INSERT INTO messages_fts(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages`);
    }
    const repairTrigram = !exists(db, 'messages_fts_trigram') || triggerCount(db, TRIGRAM_TRIGGERS) < TRIGRAM_TRIGGERS.length;
    try {
      db.exec(LEGACY_TRIGRAM_SQL);
      if (repairTrigram) {
        db.exec('DELETE FROM messages_fts_trigram');
        db.exec(`INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages WHERE ${TRIGRAM_WHEN('new').replace(/new\./g, '')}`);
      }
    } catch {
      /* no trigram tokenizer */
    }
    if (from < 23) setMeta(db, 'fts_optimize_available', '1');
    return;
  }
  const repair = !fresh && triggerCount(db, [...FTS_TRIGGERS, ...TRIGRAM_TRIGGERS]) < FTS_TRIGGERS.length + TRIGRAM_TRIGGERS.length;
  createV23(db, repair);
  if (!meta(db, 'fts_rebuild_high_water') && !hasFtsTrash(db)) setMeta(db, 'fts_storage_version', String(FTS_STORAGE_VERSION));
}

/** Old index tables a Hermes conversion left to be emptied in chunks (`fts_v22_trash_*`). */
function hasFtsTrash(db: DatabaseSync): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE 'fts\\_v22\\_trash\\_%' ESCAPE '\\' LIMIT 1").get();
}

/** Refills the search indexes from the messages (`hermes sessions repair`): rows lost or damaged come back. */
export function rebuildSearchIndex(db: DatabaseSync): number {
  if (exists(db, 'messages_fts') && !hasLegacyFts(db)) {
    rebuildV23(db);
    return exists(db, 'messages_fts_trigram') ? 2 : 1;
  }
  let n = 0;
  if (exists(db, 'messages_fts')) {
    db.exec('DELETE FROM messages_fts');
    db.exec(`INSERT INTO messages_fts(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages`);
    n++;
  }
  if (exists(db, 'messages_fts_trigram')) {
    db.exec('DELETE FROM messages_fts_trigram');
    db.exec(`INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${FTS_ROW_PLAIN} FROM messages WHERE ${TRIGRAM_WHEN('new').replace(/new\./g, '')}`);
    n++;
  }
  return n;
}

/** Whether `hermes sessions optimize-storage` has work: a legacy layout, an unfinished conversion or its leftovers. */
export function ftsOptimizeAvailable(db: DatabaseSync): boolean {
  return hasLegacyFts(db) || meta(db, 'fts_rebuild_high_water') || hasFtsTrash(db);
}

/**
 * Converts the search indexes to the v23 layout in one transaction (the caller's): the legacy
 * tables and any leftovers of an interrupted Hermes conversion are dropped, the v23 ones built from
 * the messages, and `fts_storage_version` stamped. Returns how many messages were indexed.
 */
export function convertToV23(db: DatabaseSync): number {
  dropLegacy(db);
  for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'fts\\_v22\\_trash\\_%' ESCAPE '\\'").all() as { name: string }[])
    db.exec(`DROP TABLE IF EXISTS "${name.replace(/"/g, '""')}"`);
  createV23(db, true);
  setMeta(db, 'fts_storage_version', String(FTS_STORAGE_VERSION));
  db.exec("DELETE FROM state_meta WHERE key = 'fts_optimize_available'");
  db.prepare('UPDATE schema_version SET version = ? WHERE version < ?').run(23, 23);
  return Number((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n);
}
