import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Message } from '../../src/llm/types.ts';
import { SCHEMA_VERSION, SessionDB, TitleConflictError } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import type { SessionStore } from '../../src/state/store/types.ts';
import { buildV11Fixture, buildV6Fixture } from './hermes-fixture.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'hermes-db-'));
const usage = { input_tokens: 100, output_tokens: 20, cache_read_tokens: 50, cache_write_tokens: 0, reasoning_tokens: 5 };

function conversation(db: SessionDB, id: string, source = 'cli', texts: string[] = ['hello there', 'hi, how can I help?']) {
  db.createSession({ id, source, model: 'test/model', systemPrompt: 'SYSTEM' });
  texts.forEach((t, i) => db.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: t }));
}

test('round-trips a conversation with tool calls, reasoning and images', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  const store: SessionStore = new SqliteSessionStore(db); // the session store over it: each call runs at once
  store.createSession({ id: 's1', source: 'cli', model: 'm', systemPrompt: 'SYS', cwd: '/work' });
  const msgs: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }], timestamp: 1000 },
    {
      role: 'assistant',
      content: null,
      reasoning: 'look at it',
      reasoning_details: [{ type: 'reasoning.text', text: 'look', signature: 'sig' }],
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
      timestamp: 1001,
    },
    { role: 'tool', tool_call_id: 'c1', tool_name: 'read_file', content: '{"content":"x"}', timestamp: 1002 },
    { role: 'assistant', content: 'A picture of x.', finish_reason: 'stop', codex_reasoning_items: [{ id: 'rs_1', encrypted_content: 'enc' }], timestamp: 1003 },
  ];
  for (const m of msgs) store.appendMessage('s1', m);
  store.recordUsage('s1', { usage, costUsd: 0.01, apiCalls: 2 } as never, 'm2', 'openrouter');
  void store.endSession('s1', 'cli_close');

  assert.deepEqual(db.getMessages('s1'), msgs);
  const s = db.getSession('s1')!;
  assert.equal(s.message_count, 4);
  assert.equal(s.tool_call_count, 1);
  assert.equal(s.input_tokens, 100);
  assert.equal(s.cache_read_tokens, 50);
  assert.equal(s.api_call_count, 2);
  assert.equal(s.estimated_cost_usd, 0.01);
  assert.equal(s.model, 'm2');
  assert.equal(s.billing_provider, 'openrouter');
  assert.equal(s.end_reason, 'cli_close');
  assert.equal(s.cwd, '/work');
  assert.equal(s.system_prompt, 'SYS');
  // Resuming reopens the same row.
  db.createSession({ id: 's1', source: 'cli', model: 'm3' });
  assert.equal(db.getSession('s1')!.ended_at, null);
  assert.equal(db.getSession('s1')!.message_count, 4);
  db.close();
});

test('state.db and its WAL are private to the user', () => {
  const path = join(tmp(), 'state.db');
  const db = SessionDB.open(path);
  conversation(db, 'a');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(db.stats().schemaVersion, SCHEMA_VERSION);
  db.close();
});

test('titles are unique, continue along a lineage and resolve to the newest', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  conversation(db, '20260101_000000_aaaaaa');
  db.setTitle('20260101_000000_aaaaaa', '  Deploy   the\nsite ');
  assert.equal(db.getSession('20260101_000000_aaaaaa')!.title, 'Deploy the site');
  conversation(db, '20260102_000000_bbbbbb');
  assert.throws(() => db.setTitle('20260102_000000_bbbbbb', 'Deploy the site'), TitleConflictError);
  assert.equal(db.nextTitleInLineage('Deploy the site'), 'Deploy the site #2');
  db.createSession({ id: '20260103_000000_cccccc', source: 'cli', parentId: '20260101_000000_aaaaaa', title: db.nextTitleInLineage('Deploy the site'), startedAt: Date.now() / 1000 + 5 });
  assert.equal(db.nextTitleInLineage('Deploy the site #2'), 'Deploy the site #3');
  assert.equal(db.resolveSession('Deploy the site'), '20260103_000000_cccccc');
  assert.equal(db.resolveSession('deploy the site'), '20260103_000000_cccccc');
  assert.equal(db.resolveSession('Deploy the site #2'), '20260103_000000_cccccc');
  assert.equal(db.resolveSession('20260102_000000_bbbbbb'), '20260102_000000_bbbbbb');
  assert.equal(db.resolveSession('20260102'), '20260102_000000_bbbbbb');
  assert.equal(db.resolveSession('2026010'), null, 'ambiguous prefix');
  assert.equal(db.resolveSession('nothing like it'), null);
  assert.equal(db.uniqueTitle('Deploy the site'), 'Deploy the site #3');
  assert.deepEqual(db.ancestors('20260103_000000_cccccc').map((s) => s.id), ['20260101_000000_aaaaaa']);
  assert.deepEqual(db.descendants('20260101_000000_aaaaaa').map((s) => s.id), ['20260103_000000_cccccc']);
  assert.throws(() => db.setTitle('20260101_000000_aaaaaa', 'x'.repeat(101)), /too long/);
  db.setTitle('20260101_000000_aaaaaa', '');
  assert.equal(db.getSession('20260101_000000_aaaaaa')!.title, null);
  db.close();
});

test('lists sessions by last activity with a preview', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  conversation(db, 'old', 'cli', ['first question\nwith two lines', 'answer']);
  conversation(db, 'tg', 'telegram', ['from telegram', 'ok']);
  db.appendMessage('old', { role: 'user', content: 'a later message', timestamp: Date.now() / 1000 + 100 });
  const list = db.listSessions();
  assert.deepEqual(list.map((s) => s.id), ['old', 'tg']);
  assert.equal(list[0].preview, 'first question with two lines');
  assert.deepEqual(db.listSessions({ source: 'telegram' }).map((s) => s.id), ['tg']);
  assert.equal(db.mostRecentSession('cli')!.id, 'old');
  assert.equal(db.mostRecentSession('telegram')!.id, 'tg');
  db.close();
});

test('searches with ranked snippets, context either side and filters', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  conversation(db, 'a', 'cli', ['How do I configure the chat-send tool?', 'Use the config.yaml key chat_tool.enabled', 'thanks', 'you are welcome']);
  conversation(db, 'b', 'telegram', ['unrelated question about kubernetes', 'kubernetes answer with chat-send mention']);
  db.appendMessage('b', { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'web_search', arguments: '{"query":"zebra migration"}' } }] });
  db.appendMessage('b', { role: 'tool', tool_call_id: 'x', tool_name: 'web_search', content: 'results about zebras' });

  const hits = db.searchMessages('chat-send');
  assert.equal(hits.length, 2);
  assert.ok(hits.every((h) => h.snippet.includes('>>>')), JSON.stringify(hits));
  const a = hits.find((h) => h.session_id === 'a')!;
  assert.equal(a.role, 'user');
  assert.deepEqual(a.context.map((c) => c.role), ['assistant']);
  const b = hits.find((h) => h.session_id === 'b')!;
  assert.deepEqual(b.context.map((c) => c.content), ['unrelated question about kubernetes', '']);
  assert.equal(db.searchMessages('chat-send', { source: 'telegram' }).length, 1);
  assert.equal(db.searchMessages('chat-send', { role: 'user' }).length, 1);
  assert.equal(db.searchMessages('config.yaml')[0].session_id, 'a');
  // Tool names and call arguments are indexed too.
  assert.equal(db.searchMessages('web_search')[0].session_id, 'b');
  assert.equal(db.searchMessages('zebra')[0].session_id, 'b');
  assert.deepEqual(db.searchMessages('"unclosed AND'), []);
  assert.deepEqual(db.searchMessages('AND OR'), []);
  assert.equal(db.searchMessages('kube*').length, 2);
  db.close();
});

test('CJK queries use the trigram index, short ones a substring scan', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  conversation(db, 'zh', 'cli', ['请帮我检查数据库迁移脚本', '数据库迁移脚本没有问题']);
  conversation(db, 'en', 'cli', ['no chinese here', 'none']);
  const long = db.searchMessages('数据库迁移');
  assert.equal(long.length, 2);
  assert.ok(long[0].snippet.includes('>>>'));
  const short = db.searchMessages('迁移');
  assert.equal(short.length, 2);
  assert.ok(short.every((h) => h.snippet.includes('>>>迁移<<<')));
  db.close();
});

test('delete and prune remove sessions and their index entries', () => {
  const db = SessionDB.open(join(tmp(), 'state.db'));
  conversation(db, 'keep', 'cli', ['keep this marmalade']);
  db.createSession({ id: 'old', source: 'cli', startedAt: Date.now() / 1000 - 100 * 86_400 });
  db.appendMessage('old', { role: 'user', content: 'old marmalade' });
  db.endSession('old', 'cli_close');
  db.createSession({ id: 'old-active', source: 'cli', startedAt: Date.now() / 1000 - 100 * 86_400 });
  db.createSession({ id: 'child', source: 'cli', parentId: 'keep' });
  assert.equal(db.pruneSessions(90), 1, 'only ended sessions are pruned');
  assert.equal(db.getSession('old'), null);
  assert.ok(db.getSession('old-active'));
  assert.equal(db.searchMessages('marmalade').length, 1);
  assert.equal(db.deleteSession('keep'), true);
  assert.equal(db.getSession('child')!.parent_session_id, null);
  assert.equal(db.searchMessages('marmalade').length, 0);
  assert.equal(db.deleteSession('keep'), false);
  db.close();
});

test('migrates a schema v11 file (Hermes 0.14, and this project before v19) and continues its sessions', () => {
  const path = join(tmp(), 'state.db');
  buildV11Fixture(path);
  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 11);
  const list = db.listSessions();
  assert.deepEqual(list.map((s) => s.id), ['20260511_090000_d4e5f6', '20260510_101500_a1b2c3']);
  assert.equal(db.resolveSession('Nginx log size'), '20260510_101500_a1b2c3');
  const msgs = db.getMessages('20260510_101500_a1b2c3');
  assert.equal(msgs.length, 4);
  assert.equal(msgs[1].tool_calls![0].function.name, 'terminal');
  assert.equal(msgs[1].reasoning, 'I should check the file size with du.');
  assert.equal(msgs[2].tool_call_id, 'call_ab12cd34');
  assert.equal(msgs[3].content, 'The nginx access log is 1.2 GB. Consider rotating it with logrotate.');
  assert.equal(db.getMessages('20260511_090000_d4e5f6')[1].reasoning, 'The user wants a summary in Chinese.');
  const s = db.getSession('20260510_101500_a1b2c3')!;
  assert.equal(s.input_tokens, 1200);
  assert.equal(s.estimated_cost_usd, 0.0087);
  assert.equal(db.searchMessages('logrotate')[0].session_id, '20260510_101500_a1b2c3');
  assert.equal(db.searchMessages('数据库迁移')[0].session_id, '20260511_090000_d4e5f6');
  // Continue the Python session: its own triggers index the new rows.
  db.createSession({ id: '20260510_101500_a1b2c3', source: 'cli', model: 'x' });
  db.appendMessage('20260510_101500_a1b2c3', { role: 'user', content: 'and the error log, quokka?' });
  assert.equal(db.searchMessages('quokka')[0].session_id, '20260510_101500_a1b2c3');
  assert.equal(db.stats().schemaVersion, SCHEMA_VERSION);
  db.close();
});

test('migrates an early (v6) state.db: columns added, FTS rebuilt over tool calls, trigram backfilled', () => {
  const path = join(tmp(), 'state.db');
  buildV6Fixture(path);
  const db = SessionDB.open(path);
  assert.equal(db.foundVersion, 6);
  assert.equal(db.stats().schemaVersion, SCHEMA_VERSION);
  assert.equal(db.getMessages('20260301_080000_000001').length, 4);
  assert.equal(db.searchMessages('logrotate').length, 1);
  assert.ok(db.searchMessages('terminal').some((h) => h.role === 'assistant'), 'tool call names indexed after the rebuild');
  db.recordUsage('20260301_080000_000001', { usage, costUsd: null, apiCalls: 1 }, 'm', 'p');
  assert.equal(db.getSession('20260301_080000_000001')!.api_call_count, 1);
  assert.equal(db.pruneSessions(90), 1);
  db.close();
  // Reopening is a no-op.
  const again = SessionDB.open(path);
  assert.equal(again.foundVersion, SCHEMA_VERSION);
  again.close();
});

const WRITER = fileURLToPath(new URL('./db-writer.ts', import.meta.url));

function runWriter(path: string, id: string, count: number, opts: { announce?: boolean } = {}) {
  const child = spawn(process.execPath, [WRITER, path, id, String(count), opts.announce ? 'announce' : ''], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return { child, out: () => out, err: () => err, done: new Promise<number | null>((r) => child.on('close', (c) => r(c))) };
}

test('several processes write to one state.db at once without losing a message', async () => {
  const path = join(tmp(), 'state.db');
  SessionDB.open(path).close();
  const writers = [runWriter(path, 'p1', 150), runWriter(path, 'p2', 150), runWriter(path, 'p3', 150)];
  const db = SessionDB.open(path);
  db.createSession({ id: 'main', source: 'cli' });
  for (let i = 0; i < 150; i++) db.appendMessage('main', { role: 'user', content: `main ${i}` });
  const codes = await Promise.all(writers.map((w) => w.done));
  assert.deepEqual(codes, [0, 0, 0], writers.map((w) => w.err()).join('\n'));
  for (const id of ['p1', 'p2', 'p3', 'main']) {
    assert.equal(db.messageCount(id), 150, id);
    assert.equal(db.getSession(id)!.message_count, 150);
  }
  assert.equal(db.searchMessages('writer').length > 0, true);
  db.close();
});

test('a writer killed with SIGKILL leaves every committed message readable', async () => {
  const path = join(tmp(), 'state.db');
  SessionDB.open(path).close();
  const w = runWriter(path, 'victim', 100_000, { announce: true });
  await new Promise<void>((resolve) => {
    const check = () => {
      if ((w.out().match(/^ok \d+$/gm) ?? []).length >= 40) {
        w.child.stdout.off('data', check);
        resolve();
      }
    };
    w.child.stdout.on('data', check);
  });
  w.child.kill('SIGKILL');
  await w.done;
  const acked = Math.max(...(w.out().match(/^ok (\d+)$/gm) ?? []).map((l) => Number(l.split(' ')[1])));
  const db = SessionDB.open(path);
  const msgs = db.getMessages('victim');
  assert.ok(msgs.length >= acked + 1, `${msgs.length} stored, ${acked + 1} acknowledged`);
  msgs.forEach((m, i) => assert.equal(m.content, `writer victim message ${i}`));
  db.close();
});
