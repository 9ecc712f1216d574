// The HERMES_HOMEs that real Python Hermes 0.18.2 and 0.19.0 wrote (test/fixtures/hermes-*-home, see
// their READMEs): tests work on a private, writable copy, never on the fixture itself.
import { chmodSync, cpSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlite } from '../../src/state/sqlite.ts';
import { ROOT } from './cli.ts';

export const PY_HOME = join(ROOT, 'test', 'fixtures', 'hermes-0.18.2-home');
export const PY19_HOME = join(ROOT, 'test', 'fixtures', 'hermes-0.19.0-home');
/** state.db as this project wrote it at schema v19 (test/fixtures/ts-v19/README.md). */
export const TS_V19_DB = join(ROOT, 'test', 'fixtures', 'ts-v19', 'state.db');

/** The sessions of the 0.19.0 home (README), by what they are. */
export const PY19_SESSIONS = {
  hello: '20261202_005331_59b434',
  terminal: '20261202_005410_6eeaaa',
  memory: '20261202_005434_fbe099',
  skill: '20261202_005456_364510',
} as const;

/** The sessions the fixture holds (README), by what they are. */
export const PY_SESSIONS = {
  oneShot: '20261125_051535_c0e50d',
  twoTurns: '20261125_051618_228658',
  memory: '20261125_051729_08e434',
  titled: '20261125_051813_cd8d12',
  archived: '20261125_051923_fc9413',
  compressed: '20261125_052618_a69064',
  cronTool: '20261125_052801_ee0c10',
} as const;

function makeWritable(dir: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    chmodSync(p, st.isDirectory() ? 0o700 : 0o600);
    if (st.isDirectory()) makeWritable(p);
  }
}

/** A fresh writable copy of a Python-made home (0.18.2 unless told); returns its path. */
export function copyPythonHome(prefix = 'hermes-pyhome-', from: string = PY_HOME): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from, dir, { recursive: true });
  makeWritable(dir);
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * Indexes we add to Hermes's layout (state.db stays Python's: no column changes; an extra index is
 * invisible to it). `idx_messages_timestamp`: the session listing ranks by the newest messages.
 */
export const ADDED_INDEXES = ['idx_messages_timestamp'];

/** A layout with our added indexes left out, to compare with Python's. */
export function withoutAddedIndexes<T extends { indexes: string[] }>(l: T): T {
  return { ...l, indexes: l.indexes.filter((i) => !ADDED_INDEXES.includes(i)) };
}

/**
 * Every schema object of a state.db (tables, FTS shadow tables, indexes, views, triggers) as
 * `type name: sql`, whitespace collapsed, sorted: two files with the same list have the same shape.
 */
export function schemaSql(path: string): string[] {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare('SELECT type, name, sql FROM sqlite_master').all() as { type: string; name: string; sql: string | null }[];
    return rows.map((r) => `${r.type} ${r.name}: ${(r.sql ?? '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')')}`).sort();
  } finally {
    db.close();
  }
}

type Col = { name: string; type: string; notnull: number; dflt_value: string | null; pk: number };

/** The layout of a state.db as plain data: columns per table, index and trigger definitions, meta. */
export function dbLayout(path: string) {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const master = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; sql: string | null }[];
    const cols = (t: string) => (db.prepare(`PRAGMA table_info(${t})`).all() as Col[]).map((c) => ({ name: c.name, type: c.type, notnull: c.notnull, dflt: c.dflt_value, pk: c.pk }));
    return {
      tables: master.filter((m) => m.type === 'table' && !m.name.startsWith('messages_fts')).map((m) => m.name),
      indexes: master.filter((m) => m.type === 'index').map((m) => m.name),
      triggers: Object.fromEntries(master.filter((m) => m.type === 'trigger').map((m) => [m.name, m.sql])),
      sessions: cols('sessions'),
      messages: cols('messages'),
      gateway_routing: cols('gateway_routing'),
      compression_locks: cols('compression_locks'),
      session_model_usage: cols('session_model_usage'),
      async_delegations: cols('async_delegations'),
      version: (db.prepare('SELECT version FROM schema_version').all() as { version: number }[]).map((r) => r.version),
      meta: Object.fromEntries((db.prepare('SELECT key, value FROM state_meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value])),
    };
  } finally {
    db.close();
  }
}

