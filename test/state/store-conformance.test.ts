// The SessionDB conformance suite: every case runs against both state stores, SQLite (state.db,
// SessionDB) and PostgreSQL (a cluster started for this file), through the one interface, awaiting
// every call. A last case runs the same corpus and queries through both and compares the answers.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Message } from '../../src/llm/types.ts';
import { SessionDB, TitleConflictError } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { generateInsights } from '../../src/state/insights.ts';
import { claimHandoff, finishHandoff, handoffState, pendingHandoffs, requestHandoff } from '../../src/state/handoff.ts';
import type { SessionStore } from '../../src/state/store/types.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skipPg = postgresUnavailable();
if (skipPg) console.log(`# PostgreSQL conformance skipped: ${skipPg}`);

let cluster: PgCluster | null = null;
let dbNo = 0;
before(async () => {
  if (!skipPg) cluster = await startPostgres();
});
after(() => cluster?.stop());

interface Harness {
  store: SessionStore;
  /** Raw SQL for set-up the interface has no verb for (rewound / compacted rows). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const backends: { name: string; skip: string | false; open(): Promise<Harness> }[] = [
  {
    name: 'sqlite',
    skip: false,
    async open() {
      const db = SessionDB.open(join(mkdtempSync(join(tmpdir(), 'hermes-conf-')), 'state.db'));
      return { store: new SqliteSessionStore(db), exec: async (sql) => db.raw.exec(sql), close: async () => db.close() };
    },
  },
  {
    name: 'postgres',
    skip: skipPg ?? false,
    async open() {
      const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
      const store = await PgSessionStore.open(await cluster!.createDatabase(`conf_${++dbNo}`));
      return { store, exec: async (sql) => void (await store.db.run(sql)), close: () => store.close() };
    },
  },
];

const usage = { input_tokens: 100, output_tokens: 20, cache_read_tokens: 50, cache_write_tokens: 0, reasoning_tokens: 5 };

async function conversation(s: SessionStore, id: string, source = 'cli', texts: string[] = ['hello there', 'hi, how can I help?'], startedAt?: number) {
  await s.createSession({ id, source, model: 'test/model', systemPrompt: 'SYSTEM', startedAt });
  for (const [i, t] of texts.entries()) await s.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: t });
}

for (const b of backends) {
  describe(`SessionDB conformance: ${b.name}`, { skip: b.skip }, () => {
    const withStore = (fn: (s: SessionStore, h: Harness) => Promise<void>) => async () => {
      const h = await b.open();
      try {
        await fn(h.store, h);
      } finally {
        await h.close();
      }
    };

    test(
      'appendMessages writes a step in order with the counters; sqlRun/sqlAll run the same SQL; file is the SQLite file or null',
      withStore(async (s) => {
        await s.createSession({ id: 'st', source: 'cli' });
        const ids = await s.appendMessages('st', [
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
          { role: 'tool', content: 'r', tool_call_id: 'c1' },
        ]);
        assert.equal(ids.length, 2);
        assert.ok(ids[0] < ids[1]);
        assert.deepEqual((await s.getMessages('st')).map((m) => m.role), ['assistant', 'tool']);
        const row = (await s.getSession('st'))!;
        assert.equal(row.message_count, 2);
        assert.equal(row.tool_call_count, 1);
        assert.equal(await s.sqlRun('UPDATE sessions SET title = ? WHERE id = ?', ['by sql', 'st']), 1);
        assert.deepEqual((await s.sqlAll('SELECT title FROM sessions WHERE id = ?', ['st'])).map((r) => r.title), ['by sql']);
        assert.equal(s.file, b.name === 'sqlite' ? s.location : null);
      }),
    );

    test(
      'round-trips a conversation with tool calls, reasoning, images and gateway flags',
      withStore(async (s) => {
        await s.createSession({ id: 's1', source: 'cli', model: 'm', systemPrompt: 'SYS', cwd: '/work' });
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
          { role: 'user', content: 'side remark', observed: true, platform_message_id: '77', timestamp: 1002.5 },
          { role: 'assistant', content: 'A picture of x.', finish_reason: 'stop', codex_reasoning_items: [{ id: 'rs_1', encrypted_content: 'enc' }], timestamp: 1003 },
        ];
        // Unawaited, as the agent loop's sink writes: order and completeness must hold.
        const ids = msgs.map((m) => s.appendMessage('s1', m));
        void s.recordUsage('s1', { usage, costUsd: 0.01, apiCalls: 2 }, 'm2', 'openrouter');
        void s.recordUsage('s1', { usage, costUsd: null, apiCalls: 1 }, 'm2', 'openrouter');
        void s.endSession('s1', 'cli_close');
        await s.flush();
        const got = await Promise.all(ids);
        assert.deepEqual([...got].sort((x, y) => x - y), got, 'ids grow in issue order');
        assert.deepEqual(await s.getMessages('s1'), msgs);
        const row = (await s.getSession('s1'))!;
        assert.equal(row.message_count, 5);
        assert.equal(row.tool_call_count, 1);
        assert.equal(row.input_tokens, 200);
        assert.equal(row.cache_read_tokens, 100);
        assert.equal(row.api_call_count, 3);
        assert.equal(row.estimated_cost_usd, 0.01);
        assert.equal(row.model, 'm2');
        assert.equal(row.billing_provider, 'openrouter');
        assert.equal(row.end_reason, 'cli_close');
        assert.equal(row.cwd, '/work');
        assert.equal(row.system_prompt, 'SYS');
        assert.equal(await s.messageCount('s1'), 5);
        // Resuming reopens the same row.
        await s.createSession({ id: 's1', source: 'cli', model: 'm3' });
        assert.equal((await s.getSession('s1'))!.ended_at, null);
        assert.equal((await s.getSession('s1'))!.model, 'm3');
        await s.endSession('s1', 'again');
        await s.reopenSession('s1');
        assert.equal((await s.getSession('s1'))!.end_reason, null);
        await s.updateSystemPrompt('s1', 'NEW');
        assert.equal((await s.getSession('s1'))!.system_prompt, 'NEW');
        assert.equal(await s.getSession('nope'), null);
      }),
    );

    test(
      'live, shown and all rows: rewound rows are hidden, compacted ones shown but not replayed',
      withStore(async (s, h) => {
        await conversation(s, 'r', 'cli', ['one', 'two', 'three', 'four']);
        await h.exec("UPDATE messages SET active = 0 WHERE content = 'two'");
        await h.exec("UPDATE messages SET active = 0, compacted = 1 WHERE content = 'three'");
        assert.deepEqual((await s.getMessages('r')).map((m) => m.content), ['one', 'four']);
        assert.deepEqual((await s.getTranscript('r')).map((m) => m.content), ['one', 'three', 'four']);
        assert.equal((await s.getMessageRows('r', 'all')).length, 4);
        assert.deepEqual((await s.searchMessages('three')).map((x) => x.session_id), ['r'], 'compacted rows are found');
        assert.deepEqual(await s.searchMessages('two'), [], 'rewound rows are not');
      }),
    );

    test(
      'compression in place: one lease per session, live rows archived as compacted, counts follow the live rows',
      withStore(async (s, h) => {
        await conversation(s, 'c', 'cli', ['alpha question', 'alpha answer', 'beta question', 'beta answer']);
        assert.equal(s.canCompactInPlace, true);
        assert.equal(await s.tryAcquireCompressionLock('c', 'host=a:pid=1'), true);
        assert.equal(await s.tryAcquireCompressionLock('c', 'host=a:pid=1'), true, 'the holder may take it again');
        assert.equal(await s.tryAcquireCompressionLock('c', 'host=b:pid=2'), false, 'another holder is refused');
        assert.equal(await s.getCompressionLockHolder?.('c'), 'host=a:pid=1', 'the holder can be read (a dead one is taken over)');
        assert.equal(await s.getCompressionLockHolder?.('nobody'), null);
        assert.equal(await s.tryAcquireCompressionLock('other', 'host=b:pid=2'), true, 'the lease is per session');
        await assert.rejects(async () => s.archiveAndCompact('c', [{ role: 'user', content: 'x' }], { lockHolder: 'host=b:pid=2' }), /lease .* was lost/);
        assert.equal((await s.getMessages('c')).length, 4, 'a refused commit changes nothing');
        const summary: Message[] = [
          { role: 'user', content: '[summary] alpha was discussed' },
          { role: 'assistant', content: 'ok', tool_calls: [{ id: 't', type: 'function', function: { name: 'terminal', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 't', tool_name: 'terminal', content: '{}' },
        ];
        assert.equal(await s.archiveAndCompact('c', summary, { lockHolder: 'host=a:pid=1' }), 3);
        assert.deepEqual(
          (await s.getMessages('c')).map((m) => m.content),
          ['[summary] alpha was discussed', 'ok', '{}'],
          'the compressed history is what resumes',
        );
        assert.equal((await s.getTranscript('c')).length, 7, 'archived rows stay in the transcript');
        const all = await s.getMessageRows('c', 'all');
        assert.deepEqual(
          all.filter((r) => Number(r.compacted) === 1).map((r) => [r.content, Number(r.active)]),
          [
            ['alpha question', 0],
            ['alpha answer', 0],
            ['beta question', 0],
            ['beta answer', 0],
          ],
        );
        const row = (await s.getSession('c'))!;
        assert.equal(row.message_count, 3);
        assert.equal(row.tool_call_count, 1);
        assert.deepEqual((await s.searchMessages('beta')).map((x) => x.session_id).sort(), ['c', 'c'], 'archived rows stay searchable');
        assert.equal(await s.releaseCompressionLock('c', 'host=b:pid=2'), false, 'only the holder releases');
        assert.equal(await s.releaseCompressionLock('c', 'host=a:pid=1'), true);
        assert.equal(await s.tryAcquireCompressionLock('c', 'host=b:pid=2'), true, 'free again');
        await h.exec("UPDATE compression_locks SET expires_at = 1 WHERE session_id = 'c'");
        assert.equal(await s.tryAcquireCompressionLock('c', 'host=a:pid=1'), true, 'an expired lease is reclaimed');
        await h.exec("UPDATE compression_locks SET expires_at = 1 WHERE session_id = 'c'");
        assert.equal(await s.getCompressionLockHolder?.('c'), null, 'an expired lease has no holder');
        await assert.rejects(async () => s.archiveAndCompact('c', summary, { lockHolder: 'host=a:pid=1' }), /was lost/, 'an expired lease cannot commit');
        assert.equal(await s.getCompressionCooldown('c'), null);
        await s.setCompressionCooldown('c', 2_000_000_000, 'summary model failed');
        assert.deepEqual(await s.getCompressionCooldown('c'), { untilS: 2_000_000_000, error: 'summary model failed' });
        await s.setCompressionCooldown('c', null, null);
        assert.equal(await s.getCompressionCooldown('c'), null);
      }),
    );

    test(
      'handoff state machine: pending → claimed once → completed | failed (what /handoff and the gateway watcher use)',
      withStore(async (s) => {
        await conversation(s, 'h1');
        await conversation(s, 'h2');
        assert.equal(await requestHandoff(s, 'nope', 'telegram'), false, 'no such session');
        assert.equal(await requestHandoff(s, 'h1', 'telegram'), true);
        assert.equal(await requestHandoff(s, 'h2', 'discord'), true);
        assert.deepEqual((await pendingHandoffs(s)).map((p) => [p.id, p.platform]).sort(), [
          ['h1', 'telegram'],
          ['h2', 'discord'],
        ]);
        assert.equal(await claimHandoff(s, 'h1'), true);
        assert.equal(await claimHandoff(s, 'h1'), false, 'a second gateway cannot take it');
        assert.deepEqual(await handoffState(s, 'h1'), { state: 'running', platform: 'telegram', error: null });
        assert.equal(await finishHandoff(s, 'h1', null), true);
        assert.equal((await handoffState(s, 'h1')).state, 'completed');
        assert.equal(await finishHandoff(s, 'h2', 'no gateway', 'pending'), true, 'the CLI gives up on an unclaimed request');
        assert.deepEqual(await handoffState(s, 'h2'), { state: 'failed', platform: 'discord', error: 'no gateway' });
        assert.equal(await claimHandoff(s, 'h2'), false);
        assert.deepEqual(await pendingHandoffs(s), []);
      }),
    );

    test(
      'model_config: merged patches, and subagent sessions tagged as delegates',
      withStore(async (s) => {
        await conversation(s, 'p');
        assert.deepEqual(await s.getModelConfig('p'), {});
        await s.patchModelConfig('p', { codex_thread_id: 't1', codex_home: '/h' });
        await s.patchModelConfig('p', { codex_home: null, x: 1 });
        assert.deepEqual(await s.getModelConfig('p'), { codex_thread_id: 't1', x: 1 });
        await s.createSession({ id: 'kid', source: 'subagent', parentId: 'p' });
        assert.deepEqual(await s.getModelConfig('kid'), { _delegate_from: 'p' });
      }),
    );

    test(
      'meta keys',
      withStore(async (s) => {
        assert.equal(await s.getMeta('k'), null);
        await s.setMeta('k', 'v1');
        await s.setMeta('k', 'v2');
        assert.equal(await s.getMeta('k'), 'v2');
        await s.setMeta('k', null);
        assert.equal(await s.getMeta('k'), null);
      }),
    );

    test(
      'titles are unique, continue along a lineage and resolve to the newest',
      withStore(async (s) => {
        const t0 = Date.now() / 1000;
        await conversation(s, '20260101_000000_aaaaaa', 'cli', undefined, t0);
        await s.setTitle('20260101_000000_aaaaaa', '  Deploy   the\nsite ');
        assert.equal((await s.getSession('20260101_000000_aaaaaa'))!.title, 'Deploy the site');
        await conversation(s, '20260102_000000_bbbbbb', 'cli', undefined, t0 + 1);
        await assert.rejects(async () => s.setTitle('20260102_000000_bbbbbb', 'Deploy the site'), TitleConflictError);
        assert.equal(await s.nextTitleInLineage('Deploy the site'), 'Deploy the site #2');
        await s.createSession({ id: '20260103_000000_cccccc', source: 'cli', parentId: '20260101_000000_aaaaaa', title: await s.nextTitleInLineage('Deploy the site'), startedAt: t0 + 5 });
        assert.equal(await s.nextTitleInLineage('Deploy the site #2'), 'Deploy the site #3');
        assert.equal(await s.resolveSession('Deploy the site'), '20260103_000000_cccccc');
        assert.equal(await s.resolveSession('deploy the site'), '20260103_000000_cccccc');
        assert.equal(await s.resolveSession('Deploy the site #2'), '20260103_000000_cccccc');
        assert.equal(await s.resolveSession('20260102_000000_bbbbbb'), '20260102_000000_bbbbbb');
        assert.equal(await s.resolveSession('20260102'), '20260102_000000_bbbbbb');
        assert.equal(await s.resolveSession('2026010'), null, 'ambiguous prefix');
        assert.equal(await s.resolveSession('nothing like it'), null);
        assert.equal(await s.uniqueTitle('Deploy the site'), 'Deploy the site #3');
        assert.equal(await s.uniqueTitle('Fresh one'), 'Fresh one');
        assert.deepEqual((await s.ancestors('20260103_000000_cccccc')).map((x) => x.id), ['20260101_000000_aaaaaa']);
        assert.deepEqual((await s.descendants('20260101_000000_aaaaaa')).map((x) => x.id), ['20260103_000000_cccccc']);
        await assert.rejects(async () => s.setTitle('20260101_000000_aaaaaa', 'x'.repeat(101)), /too long/);
        await assert.rejects(async () => s.setTitle('missing', 'Whatever'), /No session/);
        await s.setTitle('20260101_000000_aaaaaa', '');
        assert.equal((await s.getSession('20260101_000000_aaaaaa'))!.title, null);
      }),
    );

    test(
      'lists, counts and facets sessions; archived ones hidden unless asked for',
      withStore(async (s) => {
        const t0 = Date.now() / 1000;
        await conversation(s, 'old', 'cli', ['first question\nwith two lines', 'answer'], t0 - 50);
        await conversation(s, 'tg', 'telegram', ['from telegram', 'ok'], t0 - 40);
        await conversation(s, 'tool', 'tool', ['tool session'], t0 - 30);
        await s.appendMessage('old', { role: 'user', content: 'a later message', timestamp: t0 + 100 });
        const list = await s.listSessions();
        assert.deepEqual(
          list.map((x) => x.id),
          ['old', 'tg'],
        );
        assert.equal(list[0].preview, 'first question with two lines');
        assert.equal(list[0].last_active, t0 + 100);
        assert.deepEqual((await s.listSessions({ source: 'telegram' })).map((x) => x.id), ['tg']);
        assert.deepEqual((await s.listSessions({ includeTool: true })).map((x) => x.id), ['old', 'tool', 'tg']);
        assert.deepEqual((await s.listSessions({ limit: 1, offset: 1 })).map((x) => x.id), ['tg']);
        assert.deepEqual((await s.listSessions({ startedAfter: t0 - 45 })).map((x) => x.id), ['tg']);
        assert.equal((await s.mostRecentSession('cli'))!.id, 'old');
        assert.equal(await s.countSessions(), 2);
        assert.equal(await s.countSessions('tool'), 1);
        assert.equal(await s.setArchived('tg', true), true);
        assert.deepEqual((await s.listSessions()).map((x) => x.id), ['old']);
        assert.deepEqual((await s.listSessions({ archived: 'only' })).map((x) => x.id), ['tg']);
        assert.equal(await s.countSessions({ archived: 'include' }), 2);
        assert.deepEqual(await s.searchMessages('telegram'), []);
        assert.equal((await s.searchMessages('telegram', { includeArchived: true })).length, 1);
        const f = await s.facets();
        assert.deepEqual(
          [...f.sources].sort((x, y) => x.value.localeCompare(y.value)),
          [
            { value: 'cli', count: 1 },
            { value: 'telegram', count: 1 },
            { value: 'tool', count: 1 },
          ],
        );
        assert.deepEqual(f.models, [{ value: 'test/model', count: 3 }]);
        assert.deepEqual(await s.sessionIds(), ['old', 'tg', 'tool']);
        assert.deepEqual(await s.sessionIds('telegram'), ['tg']);
      }),
    );

    test(
      'searches with FTS5 syntax, ranked snippets, context either side and filters',
      withStore(async (s) => {
        await conversation(s, 'a', 'cli', ['How do I configure the chat-send tool?', 'Use the config.yaml key chat_tool.enabled', 'thanks', 'you are welcome']);
        await conversation(s, 'b', 'telegram', ['unrelated question about kubernetes', 'kubernetes answer with chat-send mention']);
        await s.appendMessage('b', { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'web_search', arguments: '{"query":"zebra migration"}' } }] });
        await s.appendMessage('b', { role: 'tool', tool_call_id: 'x', tool_name: 'web_search', content: 'results about zebras' });
        await conversation(s, 'c', 'cli', ['Café crème and naïve résumé', 'the quick brown fox jumps', 'brown bread, quick quick quick']);

        const hits = await s.searchMessages('chat-send');
        assert.equal(hits.length, 2);
        assert.ok(hits.every((h) => h.snippet.includes('>>>')), JSON.stringify(hits));
        const a = hits.find((h) => h.session_id === 'a')!;
        assert.equal(a.role, 'user');
        assert.deepEqual(a.context.map((c) => c.role), ['assistant']);
        const bh = hits.find((h) => h.session_id === 'b')!;
        assert.deepEqual(bh.context.map((c) => c.content), ['unrelated question about kubernetes', '']);
        assert.equal(bh.source, 'telegram');
        assert.equal(bh.model, 'test/model');
        assert.equal((await s.searchMessages('chat-send', { source: 'telegram' })).length, 1);
        assert.equal((await s.searchMessages('chat-send', { source: 'cli,telegram' })).length, 2);
        assert.equal((await s.searchMessages('chat-send', { excludeSources: ['telegram'] })).length, 1);
        assert.equal((await s.searchMessages('chat-send', { role: 'user' })).length, 1);
        assert.equal((await s.searchMessages('chat-send', { sessionId: 'b' })).length, 1);
        assert.equal((await s.searchMessages('config.yaml'))[0].session_id, 'a');
        // Tool names and call arguments are indexed too.
        assert.equal((await s.searchMessages('web_search'))[0].session_id, 'b');
        assert.equal((await s.searchMessages('zebra'))[0].session_id, 'b');
        assert.deepEqual(await s.searchMessages('"unclosed AND'), []);
        assert.deepEqual(await s.searchMessages('AND OR'), []);
        assert.deepEqual(await s.searchMessages('   '), []);
        assert.equal((await s.searchMessages('kube*')).length, 2);
        // Operators, phrases and precedence (NOT, then AND, then OR).
        assert.deepEqual((await s.searchMessages('kubernetes NOT answer')).map((h) => h.session_id), ['b']);
        assert.equal((await s.searchMessages('kubernetes NOT answer'))[0].snippet.includes('unrelated'), true);
        assert.equal((await s.searchMessages('zebras OR welcome')).length, 2);
        assert.equal((await s.searchMessages('thanks OR kubernetes answer')).length, 2);
        assert.equal((await s.searchMessages('"quick brown fox"')).length, 1);
        assert.equal((await s.searchMessages('"brown quick"')).length, 0);
        assert.equal((await s.searchMessages('"brown fox"*')).length, 1);
        assert.equal((await s.searchMessages('"quick bro"*')).length, 1);
        // Diacritics fold as FTS5's unicode61 folds them.
        assert.equal((await s.searchMessages('cafe creme'))[0].session_id, 'c');
        assert.equal((await s.searchMessages('résumé'))[0].session_id, 'c');
        // Term frequency ranks: the message saying "quick" three times first.
        const q = await s.searchMessages('quick');
        assert.equal(q.length, 2);
        assert.match(q[0].snippet, /bread/);
        assert.equal((await s.searchMessages('quick', { limit: 1 })).length, 1);
      }),
    );

    test(
      'CJK queries use the trigram index, short ones a substring scan',
      withStore(async (s) => {
        await conversation(s, 'zh', 'cli', ['请帮我检查数据库迁移脚本', '数据库迁移脚本没有问题']);
        await conversation(s, 'ja', 'cli', ['データベースの移行スクリプト']);
        await conversation(s, 'en', 'cli', ['no chinese here', 'none']);
        await s.appendMessage('en', { role: 'tool', tool_call_id: 't', tool_name: 'read_file', content: '数据库迁移 in a tool result' });
        const long = await s.searchMessages('数据库迁移');
        assert.equal(long.length, 2, 'tool output stays out of the trigram index');
        assert.ok(long[0].snippet.includes('>>>'));
        const short = await s.searchMessages('迁移');
        assert.equal(short.length, 3, 'the short scan sees every message');
        assert.ok(short.every((h) => h.snippet.includes('>>>迁移<<<')));
        assert.equal((await s.searchMessages('移行スクリプト'))[0].session_id, 'ja');
        assert.equal((await s.searchMessages('数据库 脚本没')).length, 1, 'pieces are ANDed; short ones dropped');
      }),
    );

    test(
      'delete and prune remove sessions and their index entries',
      withStore(async (s) => {
        await conversation(s, 'keep', 'cli', ['keep this marmalade']);
        await s.createSession({ id: 'old', source: 'cli', startedAt: Date.now() / 1000 - 100 * 86_400 });
        await s.appendMessage('old', { role: 'user', content: 'old marmalade' });
        await s.endSession('old', 'cli_close');
        await s.createSession({ id: 'old-active', source: 'cli', startedAt: Date.now() / 1000 - 100 * 86_400 });
        await s.createSession({ id: 'child', source: 'cli', parentId: 'keep' });
        assert.equal(await s.pruneSessions(90), 1, 'only ended sessions are pruned');
        assert.equal(await s.pruneSessions(90, 'telegram'), 0);
        assert.equal(await s.getSession('old'), null);
        assert.ok(await s.getSession('old-active'));
        assert.equal((await s.searchMessages('marmalade')).length, 1);
        assert.equal(await s.deleteSession('keep'), true);
        assert.equal((await s.getSession('child'))!.parent_session_id, null);
        assert.equal((await s.searchMessages('marmalade')).length, 0);
        assert.equal(await s.deleteSession('keep'), false);
      }),
    );

    test(
      'export and stats',
      withStore(async (s) => {
        await conversation(s, 'e', 'cli', ['export me', 'done']);
        await s.recordUsage('e', { usage, costUsd: 0.5, apiCalls: 1 }, 'm', 'p');
        const ex = (await s.exportSession('e'))!;
        assert.equal(ex.id, 'e');
        const msgs = ex.messages as Record<string, unknown>[];
        assert.deepEqual(
          msgs.map((m) => m.content),
          ['export me', 'done'],
        );
        assert.deepEqual(Object.keys(msgs[0]).filter((k) => k === 'fts' || k === 'cjk'), [], 'search columns stay internal');
        assert.equal(await s.exportSession('nope'), null);
        const st = await s.stats();
        assert.equal(st.sessions, 1);
        assert.equal(st.messages, 2);
        assert.equal(st.inputTokens, 100);
        assert.equal(st.costUsd, 0.5);
        assert.deepEqual(st.bySource, { cli: 1 });
        assert.equal(st.schemaVersion, 23);
      }),
    );

    test(
      'rewindLast takes the last rows out of the conversation, keeping them',
      withStore(async (s) => {
        await conversation(s, 'rw', 'telegram', ['one', 'answer one', 'two']);
        assert.equal(await s.rewindLast('rw', 1), 1);
        assert.deepEqual(
          (await s.getMessages('rw')).map((m) => m.content),
          ['one', 'answer one'],
        );
        assert.equal(await s.messageCount('rw'), 3, 'the row is kept');
        assert.equal((await s.getSession('rw'))!.rewind_count, 1);
        await s.appendMessage('rw', { role: 'user', content: 'two again' });
        assert.deepEqual(
          (await s.getMessages('rw')).map((m) => m.content),
          ['one', 'answer one', 'two again'],
        );
        assert.equal(await s.rewindLast('rw', 0), 0);
        assert.equal(await s.rewindLast('nope', 2), 0);
      }),
    );

    test(
      'findSessions selects what archive and prune act on',
      withStore(async (s) => {
        const day = 86_400;
        const t = Date.now() / 1000;
        await conversation(s, 'f-old', 'cli', ['a', 'b', 'c'], t - 40 * day);
        await s.setTitle('f-old', 'Quarterly 100% Report');
        await s.endSession('f-old', 'cli_close');
        await conversation(s, 'f-new', 'telegram', ['a'], t - day);
        await s.endSession('f-new', 'x');
        await conversation(s, 'f-live', 'cli', ['a'], t - 50 * day);
        await conversation(s, 'f-arch', 'cli', ['a'], t - 60 * day);
        await s.endSession('f-arch', 'x');
        await s.setArchived('f-arch', true);
        assert.deepEqual(await s.findSessions({ startedBefore: t - 30 * day }), ['f-old'], 'ended, unarchived, old enough');
        assert.deepEqual(await s.findSessions({ startedBefore: t - 30 * day, includeArchived: true }), ['f-arch', 'f-old']);
        assert.deepEqual(await s.findSessions({ startedBefore: t - 30 * day, anyState: true }), ['f-live', 'f-old']);
        assert.deepEqual(await s.findSessions({ source: 'telegram' }), ['f-new']);
        assert.deepEqual(await s.findSessions({ startedAfter: t - 2 * day }), ['f-new']);
        assert.deepEqual(await s.findSessions({ title: 'quarterly 100%' }), ['f-old'], 'title: a case-blind substring, % literal');
        assert.deepEqual(await s.findSessions({ title: '0_' }), [], '_ is literal too');
        assert.deepEqual(await s.findSessions({ minMessages: 2 }), ['f-old']);
        assert.deepEqual(await s.findSessions({ maxMessages: 1 }), ['f-new']);
      }),
    );

    test(
      'usageSince and activeSince feed insights and the dashboard',
      withStore(async (s) => {
        const t = Date.now() / 1000;
        await conversation(s, 'u1', 'cli', ['hi', 'hello'], t - 3600);
        await s.appendMessage('u1', { role: 'tool', tool_call_id: 'c', tool_name: 'terminal', content: '{}' });
        await s.appendMessage('u1', { role: 'tool', tool_call_id: 'd', tool_name: 'terminal', content: '{}' });
        await s.appendMessage('u1', { role: 'tool', tool_call_id: 'e', tool_name: 'web_search', content: '{}' });
        await s.recordUsage('u1', { usage, costUsd: 0.25, apiCalls: 2 }, 'vendor/model-a', 'openrouter');
        await conversation(s, 'u2', 'telegram', ['yo'], t - 7200);
        await conversation(s, 'u-tool', 'tool', ['x'], t - 60);
        await conversation(s, 'u-old', 'cli', ['old'], t - 90 * 86_400);
        const all = await s.usageSince(t - 86_400, null);
        assert.deepEqual(
          all.sessions.map((r) => r.id),
          ['u2', 'u1'],
          'started since the cutoff, oldest first, tool sessions left out',
        );
        const u1 = all.sessions.find((r) => r.id === 'u1')!;
        assert.equal(u1.input_tokens, 100);
        assert.equal(u1.api_call_count, 2);
        assert.equal(u1.estimated_cost_usd, 0.25);
        assert.equal(u1.model, 'vendor/model-a');
        assert.equal(typeof u1.started_at, 'number');
        assert.deepEqual(all.tools, [
          { tool: 'terminal', count: 2 },
          { tool: 'web_search', count: 1 },
        ]);
        assert.equal(all.userMessages, 2);
        const tg = await s.usageSince(t - 86_400, 'telegram');
        assert.deepEqual(
          tg.sessions.map((r) => r.id),
          ['u2'],
        );
        assert.equal(tg.userMessages, 1);
        assert.equal(await s.activeSince(t - 300), 4, 'every session got a message just now');
        assert.equal(await s.activeSince(t + 3600), 0);
      }),
    );

    test(
      'usage per model and billing route (session_model_usage), the profile a session ran under, tool names searchable',
      withStore(async (s) => {
        await s.createSession({ id: 'pm', source: 'cli', model: 'vendor/a', profileName: 'coder' });
        await s.createSession({ id: 'pd', source: 'cli', model: 'vendor/a', profileName: 'default' });
        assert.equal((await s.getSession('pm'))!.profile_name, 'coder');
        assert.equal((await s.getSession('pd'))!.profile_name, null, 'the default profile is stored as NULL, as Hermes does');
        await s.createSession({ id: 'pm', source: 'cli', model: 'vendor/a', profileName: 'other' });
        assert.equal((await s.getSession('pm'))!.profile_name, 'coder', 'resuming keeps the first profile');
        const url = 'https://user:secret@api.example.test/v1?key=k';
        await s.recordUsage('pm', { usage, costUsd: 0.5, apiCalls: 2 }, 'vendor/a', 'openrouter', url);
        await s.recordUsage('pm', { usage, costUsd: null, apiCalls: 1 }, 'vendor/a', 'openrouter', url);
        await s.recordUsage('pm', { usage, costUsd: 0.25, apiCalls: 1 }, 'vendor/b', 'anthropic');
        await s.recordUsage('pm', { usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: null, apiCalls: 0 }, 'vendor/c', 'x');
        const rows = await s.modelUsage('pm');
        assert.deepEqual(
          rows.map((r) => [r.model, r.billing_provider, r.billing_base_url, r.task, r.api_call_count, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.reasoning_tokens, r.estimated_cost_usd]),
          [
            ['vendor/a', 'openrouter', 'https://api.example.test/v1', '', 3, 200, 40, 100, 10, 0.5],
            ['vendor/b', 'anthropic', 'https://api.example.test/v1', '', 1, 100, 20, 50, 5, 0.25],
          ],
          'one row per model and route, added up; an empty turn writes none; no credentials kept',
        );
        assert.ok(rows[0].first_seen! <= rows[0].last_seen!);
        assert.equal(rows[0].cost_status, 'estimated');
        const sum = (k: 'input_tokens' | 'api_call_count') => rows.reduce((n, r) => n + r[k], 0);
        const row = (await s.getSession('pm'))!;
        assert.equal(row.input_tokens, sum('input_tokens'), 'the per-model rows add up to the session totals');
        assert.equal(row.api_call_count, sum('api_call_count'));
        assert.deepEqual(await s.modelUsage('pd'), []);
        // FTS covers the tool's name and the calls' arguments, not only the text.
        await s.appendMessage('pm', {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'k1', type: 'function', function: { name: 'skill_manage', arguments: '{"name":"zanzibar-notes"}' } }],
        });
        await s.appendMessage('pm', { role: 'tool', tool_call_id: 'k1', tool_name: 'kanban_create', content: '{"ok":true}' });
        assert.deepEqual((await s.searchMessages('skill_manage')).map((h) => h.role), ['assistant']);
        assert.deepEqual((await s.searchMessages('zanzibar')).map((h) => h.role), ['assistant']);
        assert.deepEqual((await s.searchMessages('kanban_create')).map((h) => h.role), ['tool']);
        // Insights split a session's tokens by the model that served them (tool calls go to the session's model, here
        // vendor/c, which served nothing: to the first model that did).
        const report = await generateInsights(s, { days: 1 });
        assert.deepEqual(
          Object.fromEntries(report.models.map((m) => [m.model, [m.sessions, m.inputTokens, m.outputTokens, m.apiCalls, m.toolCalls, m.costUsd]])),
          { a: [2, 200, 40, 3, 1, 0.5], b: [1, 100, 20, 1, 0, 0.25] },
        );
        assert.equal(report.overview.inputTokens, 300, 'the models add up to the overview');
        // Deleting the session takes its usage rows with it.
        assert.equal(await s.deleteSession('pm'), true);
        assert.deepEqual(await s.modelUsage('pm'), []);
      }),
    );

    test(
      'background delegations (async_delegations): dispatch, finish, one claim, delivered; a dead owner\'s row becomes unknown',
      withStore(async (s) => {
        const d = s.delegations;
        await d.dispatched({ id: 'deleg_aaaaaaaa', originSession: 'p', parentSessionId: 'p', dispatchedAt: 1000.5, task: { goal: 'g', role: 'leaf' }, ownerPid: process.pid, ownerStartedAt: 42 });
        let r = (await d.get('deleg_aaaaaaaa'))!;
        assert.deepEqual([r.state, r.deliveryState, r.deliveryAttempts, r.ownerPid, r.ownerStartedAt, r.dispatchedAt, r.task], ['running', 'pending', 0, process.pid, 42, 1000.5, { goal: 'g', role: 'leaf' }]);
        assert.deepEqual(await d.pending(['p']), [], 'a running row is not delivered');
        await d.finished('deleg_aaaaaaaa', 'completed', { type: 'async_delegation', delegation_id: 'deleg_aaaaaaaa', status: 'completed', goal: 'g', completed_at: 2000.25 }, { status: 'completed' });
        assert.deepEqual((await d.pending(['x', 'p'])).map((x) => [x.delegationId, x.state, x.completedAt, x.event?.status]), [['deleg_aaaaaaaa', 'completed', 2000.25, 'completed']]);
        const c1 = d.claimId('a');
        assert.equal(await d.claim('deleg_aaaaaaaa', c1), true);
        assert.equal(await d.claim('deleg_aaaaaaaa', d.claimId('b')), false, 'one consumer at a time');
        assert.equal(await d.delivered('deleg_aaaaaaaa', d.claimId('b')), false, 'only the claim holder delivers');
        assert.equal(await d.delivered('deleg_aaaaaaaa', c1), true);
        r = (await d.get('deleg_aaaaaaaa'))!;
        assert.deepEqual([r.deliveryState, r.deliveryAttempts, r.deliveryClaim], ['delivered', 1, null]);
        assert.ok(r.deliveredAt! > 0);
        assert.deepEqual(await d.pending(['p']), []);
        // A failed delivery releases; the eighth failure drops the row.
        await d.dispatched({ id: 'deleg_bbbbbbbb', originSession: 'q', parentSessionId: 'q', dispatchedAt: 1, task: { goal: 'h' }, ownerPid: 999_999_999, ownerStartedAt: null });
        assert.equal(await d.recoverAbandoned((pid) => pid === process.pid), 1);
        r = (await d.get('deleg_bbbbbbbb'))!;
        assert.deepEqual([r.state, r.event?.status, r.event?.goal, r.deliveryState], ['unknown', 'unknown', 'h', 'pending']);
        for (let i = 1; i <= 8; i++) {
          const c = d.claimId('x');
          assert.equal(await d.claim('deleg_bbbbbbbb', c), true, `attempt ${i}`);
          await d.release('deleg_bbbbbbbb', c);
        }
        r = (await d.get('deleg_bbbbbbbb'))!;
        assert.deepEqual([r.deliveryState, r.deliveryAttempts], ['dropped', 8]);
        assert.deepEqual((await d.list(['p', 'q'])).map((x) => x.delegationId), ['deleg_aaaaaaaa', 'deleg_bbbbbbbb']);
      }),
    );
  });
}

describe('search parity: SQLite and PostgreSQL answer the same', { skip: skipPg ?? false }, () => {
  test('the same corpus and queries give the same hits in the same order', async () => {
    const sqlite = await backends[0].open();
    const pg = await backends[1].open();
    try {
      const words = ['deploy', 'server', 'config', 'error', 'retry', 'backup', 'token', 'kanban', 'gateway', 'telegram', 'migrate', 'schema', 'index', 'query', 'cache', 'élan'];
      let seed = 7;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
      const t0 = 1_700_000_000;
      for (let i = 0; i < 40; i++) {
        const id = `s${String(i).padStart(3, '0')}`;
        for (const h of [sqlite, pg]) await h.store.createSession({ id, source: i % 3 ? 'cli' : 'telegram', model: 'm', startedAt: t0 + i });
        for (let j = 0; j < 12; j++) {
          const n = 3 + Math.floor(rnd() * 12);
          const text = Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(rnd() < 0.3 ? '-' : ' ') + (rnd() < 0.1 ? ' 数据库迁移脚本' : '');
          const m: Message = { role: j % 2 ? 'assistant' : 'user', content: text, timestamp: t0 + i * 100 + j };
          for (const h of [sqlite, pg]) await h.store.appendMessage(id, m);
        }
      }
      const queries = ['deploy', 'deploy server', 'deploy OR kanban', 'retry NOT cache', '"config error"', 'migr*', 'tele* AND schema', 'elan', 'token-index', '数据库迁移', '迁移', 'nothingmatches', 'cache OR token NOT deploy', '(query)', 'schema AND'];
      let found = 0;
      for (const q of queries) {
        const a = (await sqlite.store.searchMessages(q, { limit: 50 })).map((h) => `${h.session_id}:${h.snippet}:${JSON.stringify(h.context)}`);
        const b = (await pg.store.searchMessages(q, { limit: 50 })).map((h) => `${h.session_id}:${h.snippet}:${JSON.stringify(h.context)}`);
        assert.deepEqual(b, a, `query ${q}`);
        found += a.length;
      }
      assert.ok(found > 200, `the queries find things (${found} hits)`);
      const a = await sqlite.store.listSessions({ limit: 100 });
      const b = await pg.store.listSessions({ limit: 100 });
      assert.deepEqual(b, a);
    } finally {
      await sqlite.close();
      await pg.close();
    }
  });

  test('over more messages than the first id range: a rare word, a common one, a prefix — the same hits', { timeout: 120_000 }, async () => {
    const sqlite = await backends[0].open();
    const pg = await backends[1].open();
    try {
      const N = 100_000;
      let seed = 11;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
      const texts = Array.from({ length: N }, (_, i) => {
        const words = Array.from({ length: 6 }, () => `w${Math.floor(400 * rnd() ** 3)}`);
        if (i % 40_000 === 7) words.push('needle');
        return words.join(' ');
      });
      for (const h of [sqlite, pg]) await h.store.createSession({ id: 'big', source: 'cli', startedAt: 1_700_000_000 });
      const msgs: Message[] = texts.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content, timestamp: 1_700_000_000 + i }));
      await sqlite.store.appendMessages('big', msgs);
      // PostgreSQL in bulk (the search columns as the store writes them), not a round trip per row.
      const { tsvectorLiteral, ftsSource } = await import('../../src/state/store/postgres/fts.ts');
      const db = (pg.store as unknown as { db: { run(sql: string, p?: unknown[]): Promise<number> } }).db;
      for (let i = 0; i < N; i += 20_000) {
        const part = msgs.slice(i, i + 20_000);
        await db.run(
          `INSERT INTO messages (session_id, role, content, timestamp, fts) SELECT 'big', r, c, t, f::tsvector FROM unnest(?::text[], ?::text[], ?::float8[], ?::text[]) AS x(r, c, t, f)`,
          [part.map((m) => m.role), part.map((m) => String(m.content)), part.map((m) => m.timestamp!), part.map((m) => tsvectorLiteral(ftsSource(String(m.content), null, null)))],
        );
      }
      for (const q of ['needle', 'w0', 'w399', 'w1*', 'w350 OR w351', '"w0 w1"']) {
        const a = (await sqlite.store.searchMessages(q, { limit: 20 })).map((h) => `${h.id}:${h.snippet}:${JSON.stringify(h.context)}`);
        const b = (await pg.store.searchMessages(q, { limit: 20 })).map((h) => `${h.id}:${h.snippet}:${JSON.stringify(h.context)}`);
        assert.ok(a.length > 0, `query ${q} finds something`);
        assert.deepEqual(b, a, `query ${q}`);
      }
    } finally {
      await sqlite.close();
      await pg.close();
    }
  });
});
