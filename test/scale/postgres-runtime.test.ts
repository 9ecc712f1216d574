// The runtime on `state.backend: postgres`: the one-shot chat saves to PostgreSQL, --continue resumes
// from it, session_search finds earlier sessions there, and a bad backend gets one clear message.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'hermes-0.18.2-home');
if (skip) console.log(`# skipped: ${skip}`);

let cluster: PgCluster | null = null;
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
  if (!skip) cluster = await startPostgres();
});
after(async () => {
  await llm.close();
  cluster?.stop();
});

describe('runtime on PostgreSQL', { skip: skip ?? false }, () => {
  it('chat -q writes to PostgreSQL, --continue resumes there, session_search searches there; nothing goes to state.db', async () => {
    const url = await cluster!.createDatabase('rt');
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\nstate:\n  backend: postgres\n  url: ${url}\n`);
    const seen: unknown[][] = [];
    llm.setHandler((r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      seen.push(msgs);
      const last = msgs.at(-1)!;
      if (last.role === 'user' && last.content.includes('search past')) return { toolCalls: [{ name: 'session_search', arguments: { query: 'aubergine' } }] };
      if (last.role === 'tool') return { text: `found: ${last.content.includes('aubergine') ? 'yes' : 'no'}` };
      return { text: `reply to ${last.content}` };
    });
    const a = await hermes(['chat', '-q', 'my favourite vegetable is the aubergine', '-Q'], { home: h });
    assert.equal(a.code, 0, a.stderr);
    const b = await hermes(['chat', '-q', 'what did I say?', '-Q', '--continue'], { home: h });
    assert.equal(b.code, 0, b.stderr);
    const resumed = seen.at(-1)!.map((m) => (m as { content: string }).content);
    assert.ok(resumed.includes('my favourite vegetable is the aubergine'), 'the resumed turn replays the first one from PostgreSQL');
    const c = await hermes(['chat', '-q', 'search past sessions please', '-Q', '-t', 'session_search'], { home: h });
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /found: yes/);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const n = await client.query("SELECT COUNT(*)::int AS n FROM messages WHERE content LIKE '%aubergine%' AND role = 'user'");
      assert.equal(n.rows[0].n, 1);
      const s = await client.query('SELECT COUNT(*)::int AS n FROM sessions');
      assert.equal(s.rows[0].n, 2, 'the one-shot and its --continue share a session; the search run is a second');
    } finally {
      await client.end();
    }
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(join(h, 'state.db')), false, 'state.db is not created on the postgres backend');
  });

  it('hermes state migrate --to postgres copies a real Hermes state.db (ids, titles, messages), idempotently; chat resumes from it', async () => {
    const url = await cluster!.createDatabase('mig');
    const h = tempHome();
    const { copyFileSync } = await import('node:fs');
    copyFileSync(join(FIXTURE, 'state.db'), join(h, 'state.db'));
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n`);
    const a = await hermes(['state', 'migrate', '--to', 'postgres', '--url', url], { home: h });
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /Copied 7 sessions and 34 messages/);
    const again = await hermes(['state', 'migrate', '--to', 'postgres', '--url', url], { home: h });
    assert.match(again.stdout, /Copied 0 sessions and 0 messages .*\(7 sessions were there already\)/);
    const bad = await hermes(['state', 'migrate', '--to', 'mysql'], { home: h });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Only `--to postgres` is supported/);
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\nstate:\n  backend: postgres\n  url: ${url}\n`);
    let replayed: string[] = [];
    llm.setHandler((r) => {
      replayed = (r.body.messages as { content: unknown }[]).map((m) => String(m.content));
      return { text: 'ok' };
    });
    const c = await hermes(['chat', '-q', 'and now?', '-Q', '--resume', 'Two-turn fixture chat'], { home: h });
    assert.equal(c.code, 0, c.stderr);
    const { SessionDB } = await import('../../src/state/db.ts');
    const src = SessionDB.open(join(h, 'state.db')) // the copy: the fixture itself is never opened in place;
    try {
      const id = src.resolveSession('Two-turn fixture chat')!;
      const history = src.getMessages(id).filter((m) => m.role === 'user').map((m) => String(m.content));
      assert.ok(history.length > 0 && history.every((t) => replayed.some((x) => x.includes(t))), 'the migrated conversation is replayed from PostgreSQL');
      // The per-model usage rows came along; the new turn got its own row (model m).
      const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
      const pg = await PgSessionStore.open(url);
      try {
        const mine = src.modelUsage(id);
        assert.equal(mine.length, 1);
        const theirs = await pg.modelUsage(id);
        assert.deepEqual(theirs.find((u) => u.model === mine[0].model), mine[0]);
        assert.equal(theirs.find((u) => u.model === 'm')?.api_call_count, 1);
      } finally {
        await pg.close();
      }
    } finally {
      src.close();
    }
  });

  it('a conversation past the context limit is compressed in place on PostgreSQL: one session, replaced rows kept as compacted, lease released', async () => {
    const url = await cluster!.createDatabase('compress');
    const h = tempHome();
    const aux = await startFakeLlm();
    writeFileSync(
      join(h, 'config.yaml'),
      `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  context_length: 9000\ntoolsets: [todo]\ncompression:\n  protect_last_n: 4\n` +
        `auxiliary:\n  compression:\n    base_url: ${aux.openaiBaseUrl}\n    model: summary-model\n    api_key: k\n` +
        `state:\n  backend: postgres\n  url: ${url}\n`,
    );
    aux.setHandler(() => ({ text: '## Goal\nDiscuss the essays.' }));
    llm.setHandler((r) => ({ text: `Thoughts: ${'interesting '.repeat(150)}`, usage: { input: Math.ceil(JSON.stringify(r.body).length / 4) } }));
    try {
      let compressed = 0;
      for (let i = 0; i < 9; i++) {
        const r = await hermes(['chat', ...(i ? ['--continue'] : []), '-q', `essay${i}token ${'lorem ipsum dolor '.repeat(110)}`], { home: h });
        assert.equal(r.code, 0, r.stderr);
        if (/Context compressed/.test(r.stderr)) compressed++;
      }
      assert.ok(compressed >= 1, `compressed ${compressed} times`);
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const s = await client.query('SELECT id, message_count FROM sessions');
        assert.equal(s.rows.length, 1, 'compressed in place: no child session');
        const rows = (await client.query('SELECT content, active, compacted FROM messages WHERE session_id = $1 ORDER BY id', [s.rows[0].id])).rows;
        const live = rows.filter((r) => Number(r.active) === 1);
        assert.ok(rows.some((r) => Number(r.active) === 0 && Number(r.compacted) === 1), 'replaced turns are kept as compacted rows');
        assert.ok(live.some((r) => String(r.content).startsWith('[CONTEXT COMPACTION]')), 'the summary is a live row');
        assert.equal(Number(s.rows[0].message_count), live.length, 'the count follows the live rows');
        assert.equal((await client.query('SELECT COUNT(*)::int AS n FROM compression_locks')).rows[0].n, 0, 'the lease is released');
        for (let i = 0; i < 9; i++) assert.ok(rows.some((r) => String(r.content).includes(`essay${i}token`)), `essay ${i} is kept`);
      } finally {
        await client.end();
      }
    } finally {
      llm.setHandler(null);
      await aux.close();
    }
  });

  it('a wrong backend or URL is one clear message and a non-zero exit', async () => {
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\nstate:\n  backend: mysql\n`);
    const a = await hermes(['chat', '-q', 'hi'], { home: h });
    assert.equal(a.code, 2);
    assert.match(a.stderr, /state\.backend is "mysql"; it must be sqlite or postgres/);
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\nstate:\n  backend: postgres\n  url: postgres://nobody:secret@127.0.0.1:1/x\n`);
    const b = await hermes(['chat', '-q', 'hi'], { home: h });
    assert.equal(b.code, 1);
    assert.match(b.stderr, /Cannot connect to PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/x/);
    assert.doesNotMatch(b.stderr, /secret/);
  });
});
