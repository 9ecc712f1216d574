// state.db compatibility with Python Hermes: the file real Hermes 0.19.0 wrote (schema v23) is the
// shape of a new file of ours and is used in place; the file Hermes 0.18.2 wrote (v19), our own v19
// and v11 files and older layouts migrate to v23 as Hermes 0.19 migrates them; files from a newer
// Hermes are used without being changed.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SCHEMA_VERSION, SessionDB } from '../../src/state/db.ts';
import { convertToV23, ftsOptimizeAvailable } from '../../src/state/db-fts.ts';
import { sqlite } from '../../src/state/sqlite.ts';
import {
  ADDED_INDEXES,
  copyPythonHome,
  dbLayout as layout,
  PY19_HOME,
  PY19_SESSIONS,
  PY_SESSIONS,
  schemaSql,
  TS_V19_DB,
  withoutAddedIndexes,
} from '../helpers/hermes-home.ts';
import { buildV11Fixture, buildV6Fixture } from './hermes-fixture.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'hermes-dbc-'));

// Read from a copy: even a read-only open leaves -wal/-shm files beside the database.
const PY_LAYOUT = layout(join(copyPythonHome(), 'state.db'));
const PY19_DB = join(copyPythonHome('hermes-py19-', PY19_HOME), 'state.db');
const PY19_LAYOUT = layout(PY19_DB);
const PY19_SCHEMA = schemaSql(PY19_DB);
const ours = (sql: string[]) => sql.filter((x) => !ADDED_INDEXES.some((i) => x.startsWith(`index ${i}:`)));
/** The sessions/messages columns Hermes 0.19 has, by name (a migrated file has the new ones at the end). */
const py19Columns = (l: ReturnType<typeof layout>) => ({
  sessions: byName(l.sessions),
  messages: byName(l.messages),
  session_model_usage: l.session_model_usage,
  // Hermes's SessionDB makes this table without origin_session_id; its delegation module adds it as a plain column.
  async_delegations: l.async_delegations.map((c) => c.name),
});
const byName = (cols: { name: string }[]) => [...cols].sort((a, b) => a.name.localeCompare(b.name));

test('the Python 0.18.2 state.db: read as Hermes reads it, archived and compacted rows included', () => {
  const home = copyPythonHome();
  const db = SessionDB.open(join(home, 'state.db'));
  assert.equal(db.foundVersion, 19);
  assert.equal(db.compatNote, null);
  // The archived session is left out of the list, --continue and search; shown when asked for.
  const listed = db.listSessions().map((s) => s.id);
  assert.equal(listed.length, 6);
  assert.ok(!listed.includes(PY_SESSIONS.archived));
  assert.deepEqual(db.listSessions({ archived: 'only' }).map((s) => s.id), [PY_SESSIONS.archived]);
  assert.equal(db.listSessions({ archived: 'include' }).length, 7);
  assert.equal(db.countSessions(), 6);
  assert.equal(db.countSessions({ archived: 'only' }), 1);
  assert.equal(db.mostRecentSession('cli')!.id, PY_SESSIONS.cronTool);
  assert.equal(db.getSession(PY_SESSIONS.archived)!.archived, 1);
  assert.equal(db.getSession(PY_SESSIONS.archived)!.title, 'Archived interactive scratch');
  assert.equal(db.resolveSession('Two-turn fixture chat'), PY_SESSIONS.twoTurns);
  // In-place compression: the replay has the 5 live rows, the transcript all 13, search finds both.
  const live = db.getMessages(PY_SESSIONS.compressed);
  assert.equal(live.length, 5);
  assert.match(String(live[0].content), /PRIOR CONTEXT/);
  assert.equal(live.at(-1)!.content, 'ECHO: After compression, one more turn.');
  assert.equal(db.getTranscript(PY_SESSIONS.compressed).length, 13);
  assert.equal(db.searchMessages('lockfile')[0]?.session_id, PY_SESSIONS.compressed, 'a compacted row is still found');
  // Tool calls as Python stored them.
  const one = db.getMessages(PY_SESSIONS.oneShot);
  assert.equal(one[1].tool_calls![0].function.name, 'terminal');
  assert.equal(one[2].role, 'tool');
  assert.match(String(one[2].content), /fixture/);
  const archivedHit = () => db.searchMessages('Scratch').map((h) => h.session_id);
  assert.ok(!archivedHit().includes(PY_SESSIONS.archived));
  assert.ok(db.searchMessages('Scratch', { includeArchived: true }).some((h) => h.session_id === PY_SESSIONS.archived));
  // Archive and unarchive: hidden from --continue too.
  assert.equal(db.setArchived(PY_SESSIONS.cronTool, true), true);
  assert.equal(db.mostRecentSession('cli')!.id, PY_SESSIONS.compressed);
  db.setArchived(PY_SESSIONS.cronTool, false);
  const stats = db.stats();
  assert.equal(stats.sessions, 7);
  assert.equal(stats.archived, 1);
  assert.equal(stats.schemaVersion, 23);
  db.close();
});

test('a Python 0.18.2 file migrates to v23 as Hermes 0.19 migrates it; its inline search index is kept, and stays in use', () => {
  const home = copyPythonHome();
  const path = join(home, 'state.db');
  const before = layout(path);
  const db = SessionDB.open(path);
  // Continue a Python session, start a new one, title and archive it, record usage.
  db.createSession({ id: PY_SESSIONS.twoTurns, source: 'cli', model: 'mock-model' });
  db.appendMessage(PY_SESSIONS.twoTurns, { role: 'user', content: 'A third turn from TypeScript about quokkas.' });
  db.appendMessage(PY_SESSIONS.twoTurns, { role: 'assistant', content: 'Quokkas noted.', finish_reason: 'stop' });
  db.createSession({ id: '20261126_090000_abcdef', source: 'telegram', model: 'm', systemPrompt: 'S' });
  db.appendMessage('20261126_090000_abcdef', { role: 'user', content: 'group chatter', observed: true, platform_message_id: '4711' });
  db.setTitle('20261126_090000_abcdef', 'Written by TypeScript');
  db.setArchived('20261126_090000_abcdef', true);
  const seeded = db.modelUsage(PY_SESSIONS.twoTurns);
  assert.equal(seeded.length, 1, 'v20: each older session with tokens gets one usage row from its totals');
  assert.equal(seeded[0].input_tokens, db.getSession(PY_SESSIONS.twoTurns)!.input_tokens);
  db.recordUsage(PY_SESSIONS.twoTurns, { usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: null, apiCalls: 1 }, 'mock-model', 'custom');
  assert.equal(db.modelUsage(PY_SESSIONS.twoTurns)[0].input_tokens, seeded[0].input_tokens + 10);
  db.endSession(PY_SESSIONS.twoTurns, 'cli_close');
  assert.equal(db.searchMessages('quokkas')[0].session_id, PY_SESSIONS.twoTurns, 'Python’s own triggers index our rows');
  assert.equal(db.searchMessages('terminal')[0]?.session_id, PY_SESSIONS.oneShot, 'the inline index covers tool names');
  const tg = db.getMessages('20261126_090000_abcdef')[0];
  assert.equal(tg.observed, true);
  assert.equal(tg.platform_message_id, '4711');
  db.close();

  const after = layout(path);
  assert.deepEqual(py19Columns(after), py19Columns(PY19_LAYOUT), 'every v23 column and table, with Hermes 0.19’s types and defaults');
  assert.deepEqual(after.tables, PY19_LAYOUT.tables);
  assert.deepEqual(withoutAddedIndexes(after).indexes, PY19_LAYOUT.indexes);
  assert.deepEqual(after.triggers, before.triggers, 'the inline FTS layout and its triggers are kept (Hermes converts it only on request)');
  assert.deepEqual(after.version, [23]);
  assert.deepEqual(after.meta, { ...before.meta, fts_optimize_available: '1' }, 'marked convertible, as Hermes marks it');
  const { DatabaseSync } = sqlite();
  const raw = new DatabaseSync(path, { readOnly: true });
  const row = raw.prepare('SELECT active, compacted, observed FROM messages WHERE session_id = ?').get('20261126_090000_abcdef') as Record<string, number>;
  assert.deepEqual({ ...row }, { active: 1, compacted: 0, observed: 1 });
  assert.equal((raw.prepare('SELECT archived FROM sessions WHERE id = ?').get('20261126_090000_abcdef') as { archived: number }).archived, 1);
  raw.close();
  // Reopening changes nothing.
  SessionDB.open(path).close();
  assert.deepEqual(layout(path), after);
});

test('a new state.db has exactly the shape Hermes 0.19 writes: tables, columns, indexes, FTS tables, view, triggers, state_meta', () => {
  const path = join(tmp(), 'state.db');
  const db = SessionDB.open(path);
  db.createSession({ id: 'x', source: 'cli' });
  db.appendMessage('x', { role: 'user', content: 'hello' });
  db.close();
  assert.deepEqual(ours(schemaSql(path)), PY19_SCHEMA, 'the same schema objects with the same SQL (whitespace aside)');
  for (const ix of ADDED_INDEXES) assert.ok(schemaSql(path).some((x) => x.startsWith(`index ${ix}:`)), `our index ${ix}`);
  const mine = layout(path);
  assert.deepEqual(mine.sessions, PY19_LAYOUT.sessions, 'sessions columns, in order');
  assert.deepEqual(mine.messages, PY19_LAYOUT.messages, 'messages columns, in order');
  assert.deepEqual(mine.session_model_usage, PY19_LAYOUT.session_model_usage);
  assert.deepEqual(mine.async_delegations, PY19_LAYOUT.async_delegations);
  assert.deepEqual(mine.version, [SCHEMA_VERSION]);
  assert.equal(SCHEMA_VERSION, 23);
  assert.deepEqual(mine.meta, PY19_LAYOUT.meta, 'ghost_session_prune_v1, orphaned_compression_finalize_v1, fts_storage_version');
});

test('the Python 0.19 state.db is used in place: read, searched (tool names too), written, its shape and meta unchanged', () => {
  const home = copyPythonHome('hermes-py19-', PY19_HOME);
  const path = join(home, 'state.db');
  const schemaBefore = schemaSql(path);
  const metaBefore = layout(path).meta;
  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 23);
  assert.equal(db.compatNote, null);
  assert.equal(db.listSessions().length, 4);
  assert.equal(db.resolveSession('Py terminal chat'), PY19_SESSIONS.terminal);
  assert.equal(db.getMessages(PY19_SESSIONS.terminal).find((m) => m.role === 'tool')?.tool_name, 'terminal');
  assert.ok(db.searchMessages('skill_manage').some((h) => h.session_id === PY19_SESSIONS.skill), 'a tool name is found through the v23 FTS columns');
  assert.ok(db.searchMessages('Zephyr').some((h) => h.session_id === PY19_SESSIONS.memory));
  // Python's per-model rows are read; ours add to them.
  const usage = db.modelUsage(PY19_SESSIONS.hello);
  assert.deepEqual(usage.map((u) => [u.model, u.billing_provider, u.api_call_count]), [['mock-model', 'custom', 1]]);
  db.createSession({ id: PY19_SESSIONS.hello, source: 'cli', model: 'mock-model' });
  db.appendMessage(PY19_SESSIONS.hello, { role: 'user', content: 'a turn from TypeScript about wombats' });
  db.appendMessage(PY19_SESSIONS.hello, {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c9', type: 'function', function: { name: 'kanban_create', arguments: '{"title":"wombat census"}' } }],
  });
  db.recordUsage(PY19_SESSIONS.hello, { usage: { input_tokens: 5, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: null, apiCalls: 1 }, 'mock-model', 'custom', 'http://127.0.0.1:45717/v1');
  assert.equal(db.modelUsage(PY19_SESSIONS.hello)[0].api_call_count, 2, 'the same (model, provider, base URL) row Python wrote');
  assert.equal(db.searchMessages('wombats')[0].session_id, PY19_SESSIONS.hello);
  assert.equal(db.searchMessages('kanban_create')[0].session_id, PY19_SESSIONS.hello);
  db.close();
  assert.deepEqual(ours(schemaSql(path)), schemaBefore, 'no schema change but our added index');
  assert.deepEqual(layout(path).meta, metaBefore);
  assert.deepEqual(layout(path).version, [23]);
});

test('our own v19 files migrate to v23: new columns and tables, usage seeded, the inline index kept and still searchable', () => {
  const path = join(tmp(), 'state.db');
  copyFileSync(TS_V19_DB, path);
  const before = layout(path);
  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 19);
  assert.equal(db.searchMessages('terminal')[0]?.session_id, '20261120_100000_aaaaaa');
  assert.equal(db.searchMessages('数据库迁移')[0]?.session_id, '20261121_090000_bbbbbb');
  assert.deepEqual(
    db.modelUsage('20261120_100000_aaaaaa').map((u) => [u.model, u.billing_provider, u.api_call_count, u.input_tokens, u.output_tokens, u.estimated_cost_usd]),
    [['vendor/model-a', 'openrouter', 2, 900, 60, 0.002]],
  );
  db.close();
  const after = layout(path);
  assert.deepEqual(py19Columns(after), py19Columns(PY19_LAYOUT));
  assert.deepEqual(after.tables, PY19_LAYOUT.tables);
  assert.deepEqual(withoutAddedIndexes(after).indexes, PY19_LAYOUT.indexes);
  assert.deepEqual(after.triggers, before.triggers);
  assert.deepEqual(after.version, [23]);
  assert.deepEqual(after.meta, { ...before.meta, fts_optimize_available: '1' });
  SessionDB.open(path).close();
  assert.deepEqual(layout(path), after, 'reopening changes nothing');
});

test('optimize-storage converts a migrated file’s inline index to the v23 layout Hermes 0.19 writes, in one transaction', async () => {
  const home = copyPythonHome();
  const path = join(home, 'state.db');
  SessionDB.open(path).close();
  const { sqliteCheck } = await import('../../src/cli/doctor.ts');
  const doctor = async () => String((await sqliteCheck.run({ home, env: {}, config: null, timeoutMs: 1000 })).detail);
  assert.match(await doctor(), /layout from before v23: `hermes sessions optimize-storage`/, 'hermes doctor points at the conversion');
  const db = SessionDB.open(path);
  assert.equal(ftsOptimizeAvailable(db.raw), true);
  db.raw.exec('BEGIN IMMEDIATE');
  assert.equal(convertToV23(db.raw), 34, 'every message indexed');
  db.raw.exec('COMMIT');
  assert.equal(ftsOptimizeAvailable(db.raw), false);
  assert.equal(db.searchMessages('lockfile')[0]?.session_id, PY_SESSIONS.compressed);
  assert.ok(db.searchMessages('terminal').some((h) => h.session_id === PY_SESSIONS.oneShot));
  db.appendMessage(PY_SESSIONS.titled, { role: 'user', content: 'after the conversion: numbat' });
  assert.equal(db.searchMessages('numbat')[0]?.session_id, PY_SESSIONS.titled);
  db.close();
  const search = (sql: string[]) => sql.filter((x) => /^(table messages_fts|trigger|view)/.test(x));
  assert.deepEqual(search(schemaSql(path)), search(PY19_SCHEMA));
  const meta = layout(path).meta;
  assert.equal(meta.fts_storage_version, '1');
  assert.equal(meta.fts_optimize_available, undefined);
  assert.doesNotMatch(await doctor(), /optimize-storage/);
});

test('an early layout (v6, external content over text only) is rebuilt in the v23 search layout', () => {
  const path = join(tmp(), 'state.db');
  buildV6Fixture(path);
  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 6);
  assert.equal(db.searchMessages('logrotate')[0]?.session_id, '20260301_080000_000001');
  assert.deepEqual(db.searchMessages('terminal').map((h) => h.role).sort(), ['assistant', 'tool'], 'tool names and calls are indexed now');
  db.close();
  const fts = schemaSql(path).filter((x) => /^(table messages_fts|trigger|view)/.test(x));
  assert.deepEqual(fts, PY19_SCHEMA.filter((x) => /^(table messages_fts|trigger|view)/.test(x)));
  assert.equal(layout(path).meta.fts_storage_version, '1');
});

test('v11 files (Hermes 0.14, and ours before v19) migrate to the v23 columns; their FTS is kept, not rebuilt', () => {
  const home = tmp();
  const path = join(home, 'state.db');
  buildV11Fixture(path);
  // Before v18 the gateway's routing metadata lived only in sessions/sessions.json.
  mkdirSync(join(home, 'sessions'));
  writeFileSync(
    join(home, 'sessions', 'sessions.json'),
    JSON.stringify({
      'agent:main:telegram:dm:42': { session_key: 'agent:main:telegram:dm:42', session_id: '20260511_090000_d4e5f6', display_name: 'Ana', chat_type: 'dm', origin: { platform: 'telegram', chat_id: '42', thread_id: null }, memory_flushed: true },
      _meta: { version: 1 },
    }),
  );
  const { DatabaseSync } = sqlite();
  const pre = new DatabaseSync(path);
  // A subagent child (v16 tags it) and a compression continuation (left alone).
  pre.exec(`INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES ('sub1', 'subagent', '20260510_101500_a1b2c3', 1)`);
  const ftsBefore = (pre.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages_fts_insert'").get() as { sql: string }).sql;
  pre.close();

  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 11);
  assert.equal(db.stats().schemaVersion, 23);
  assert.equal(db.getMessages('20260510_101500_a1b2c3').length, 4);
  assert.equal(db.searchMessages('logrotate')[0].session_id, '20260510_101500_a1b2c3');
  assert.equal(db.searchMessages('数据库迁移')[0].session_id, '20260511_090000_d4e5f6');
  const tg = db.getSession('20260511_090000_d4e5f6')!;
  assert.equal(tg.session_key, 'agent:main:telegram:dm:42');
  assert.equal(tg.chat_id, '42');
  assert.equal(tg.display_name, 'Ana');
  assert.equal(JSON.parse(db.getSession('sub1')!.model_config!)._delegate_from, '20260510_101500_a1b2c3');
  db.close();

  const after = layout(path);
  assert.deepEqual(py19Columns(after), py19Columns(PY19_LAYOUT), 'every v23 column, with Hermes’s type and default');
  assert.deepEqual(after.tables, PY19_LAYOUT.tables);
  for (const ix of PY19_LAYOUT.indexes) assert.ok(after.indexes.includes(ix), `index ${ix}`);
  assert.equal(after.triggers.messages_fts_insert, ftsBefore, 'the v11 FTS triggers are kept');
  assert.deepEqual(after.meta, { ...PY_LAYOUT.meta, fts_optimize_available: '1' });
  // Reopening changes nothing.
  SessionDB.open(path).close();
  assert.deepEqual(layout(path), after);
});

test('a file from a newer Hermes is used as it is, with a note, and never altered', () => {
  const home = copyPythonHome();
  const path = join(home, 'state.db');
  const { DatabaseSync } = sqlite();
  const raw = new DatabaseSync(path);
  raw.exec('UPDATE schema_version SET version = 27');
  raw.exec('ALTER TABLE messages ADD COLUMN display_kind TEXT');
  raw.exec('CREATE TABLE session_model_usage (session_id TEXT NOT NULL, model TEXT NOT NULL, PRIMARY KEY (session_id, model))');
  raw.exec('DROP INDEX idx_sessions_handoff_state');
  raw.close();
  const before = layout(path);

  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 27);
  assert.match(db.compatNote ?? '', /newer Hermes \(schema v27; this version knows v23\).*no table or column is changed/);
  assert.equal(db.listSessions().length, 6);
  assert.equal(db.getMessages(PY_SESSIONS.compressed).length, 5);
  db.createSession({ id: PY_SESSIONS.titled, source: 'cli' });
  db.appendMessage(PY_SESSIONS.titled, { role: 'user', content: 'still writable: wombat' });
  assert.equal(db.searchMessages('wombat')[0].session_id, PY_SESSIONS.titled);
  db.close();
  assert.deepEqual(layout(path), before, 'no DDL, no version change, no repair');
});

test('one-time repairs run once, latched in state_meta as Hermes does', () => {
  const path = join(tmp(), 'state.db');
  buildV11Fixture(path);
  const { DatabaseSync } = sqlite();
  const raw = new DatabaseSync(path);
  const old = Date.now() / 1000 - 10 * 86_400;
  raw.prepare("INSERT INTO sessions (id, source, started_at, ended_at) VALUES ('ghost', 'tui', ?, ?)").run(old, old + 5);
  raw.prepare("INSERT INTO sessions (id, source, started_at, ended_at, end_reason) VALUES ('parent', 'cli', ?, ?, 'compression')").run(old, old + 5);
  raw.prepare("INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES ('orphan', 'cli', ?, 'parent')").run(old + 6);
  raw.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('orphan', 'user', 'left open', ?)").run(old + 7);
  raw.close();
  const db = SessionDB.open(path);
  assert.equal(db.getSession('ghost'), null);
  assert.equal(db.getSession('orphan')!.end_reason, 'orphaned_compression');
  assert.equal(db.getMeta('ghost_session_prune_v1'), '1');
  assert.equal(db.getMeta('orphaned_compression_finalize_v1'), '1');
  // Latched: a new ghost is not pruned on the next open.
  db.raw.prepare("INSERT INTO sessions (id, source, started_at, ended_at) VALUES ('ghost2', 'tui', ?, ?)").run(old, old + 5);
  db.close();
  const again = SessionDB.open(path);
  assert.ok(again.getSession('ghost2'));
  again.close();
});
