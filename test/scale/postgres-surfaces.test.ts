// Every surface that shows saved sessions reads PostgreSQL when `state.backend: postgres`:
// `hermes sessions …` (list, show, search, rename, export, stats, archive, prune, delete), `hermes
// insights`, `hermes status`, `hermes doctor`, the dashboard's Sessions and Analytics APIs, /branch, /insights, /quit --delete
// `hermes acp` (sessions listed and loaded after a restart) and `hermes mcp serve` (conversations, events). optimize/repair (state.db file operations)
// refuse in one line. Nothing is written to a state.db.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startDashboardProcess } from '../helpers/dashboard.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);

let cluster: PgCluster | null = null;
before(async () => {
  if (!skip) cluster = await startPostgres();
});
after(() => cluster?.stop());

async function seed(url: string): Promise<void> {
  const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
  const s = await PgSessionStore.open(url);
  try {
    const t = Date.now() / 1000;
    await s.createSession({ id: 'pg-recent', source: 'telegram', model: 'vendor/model-a', startedAt: t - 3600 });
    await s.appendMessage('pg-recent', { role: 'user', content: 'tell me about the pelican brief' });
    await s.appendMessage('pg-recent', { role: 'assistant', content: 'A pelican is a large water bird.' });
    await s.recordUsage('pg-recent', { usage: { input_tokens: 1200, output_tokens: 300, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: 0.5, apiCalls: 1 }, 'vendor/model-a', 'openrouter');
    await s.setTitle('pg-recent', 'Pelican talk');
    await s.createSession({ id: 'pg-old', source: 'cli', model: 'm', startedAt: t - 200 * 86_400 });
    await s.appendMessage('pg-old', { role: 'user', content: 'an ancient question about walruses', timestamp: t - 200 * 86_400 });
    await s.endSession('pg-old', 'cli_close');
  } finally {
    await s.close();
  }
}

describe('surfaces on PostgreSQL', { skip: skip ?? false, timeout: 180_000 }, () => {
  it('hermes sessions and hermes insights read and change PostgreSQL', async () => {
    const url = await cluster!.createDatabase('cli_surfaces');
    await seed(url);
    const h = homeWithModel('http://127.0.0.1:9/v1', `state:\n  backend: postgres\n  url: ${url}\n`);
    const run = async (args: string[], code = 0) => {
      const r = await hermes(args, { home: h });
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      return r;
    };

    assert.match((await run(['status'])).stdout, /Sessions\s+2 in postgres:\/\/hermes@127\.0\.0\.1:\d+\/cli_surfaces/);
    const doctor = await hermes(['doctor', '--timeout', '5'], { home: h });
    assert.match(doctor.stdout, /✓ PostgreSQL\s+postgres:\/\/hermes@127\.0\.0\.1:\d+\/cli_surfaces: schema v23, 2 sessions/);
    const list = await run(['sessions', 'list']);
    assert.match(list.stdout, /pg-recent .* telegram +Pelican talk/);
    assert.match(list.stdout, /pg-old/);
    const show = await run(['sessions', 'show', 'Pelican talk']);
    assert.match(show.stdout, /you: tell me about the pelican brief/);
    assert.match(show.stdout, /hermes: A pelican is a large water bird\./);
    const search = await run(['sessions', 'search', 'walruses']);
    assert.match(search.stdout, /pg-old/);
    await run(['sessions', 'rename', 'pg-recent', 'Bird', 'talk']);
    assert.match((await run(['sessions', 'list', '--json'])).stdout, /"title": "Bird talk"/);
    const stats = JSON.parse((await run(['sessions', 'stats', '--json'])).stdout) as { backend: string; sessions: number; messages: number; path: string };
    assert.equal(stats.backend, 'postgres');
    assert.equal(stats.sessions, 2);
    assert.equal(stats.messages, 3);
    assert.match(stats.path, /^postgres:\/\/hermes@127\.0\.0\.1:\d+\/cli_surfaces$/);
    const file = join(tempHome(), 'out.jsonl');
    await run(['sessions', 'export', file]);
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 2);

    const insights = JSON.parse((await run(['insights', '--days', '7', '--json'])).stdout) as { overview: { sessions: number; inputTokens: number; costUsd: number } };
    assert.equal(insights.overview.sessions, 1, 'only the recent session is in the last 7 days');
    assert.equal(insights.overview.inputTokens, 1200);
    assert.equal(insights.overview.costUsd, 0.5);

    const dry = await run(['sessions', 'prune', '--dry-run']);
    assert.match(dry.stdout, /Would delete 1 ended session\(s\) older than 90 days/);
    assert.match(dry.stdout, /pg-old/);
    await run(['sessions', 'prune', '--yes']);
    assert.doesNotMatch((await run(['sessions', 'list'])).stdout, /pg-old/);
    await run(['sessions', 'archive', 'pg-recent']);
    assert.match((await run(['sessions', 'list'])).stdout, /1 archived session is hidden/);
    await run(['sessions', 'unarchive', 'pg-recent']);
    await run(['sessions', 'delete', 'pg-recent', '--yes']);
    assert.match((await run(['sessions', 'list'])).stdout, /No sessions saved yet/);

    const down = homeWithModel('http://127.0.0.1:9/v1', 'state:\n  backend: postgres\n  url: postgres://nobody:secret@127.0.0.1:1/x\n');
    const bad = await hermes(['doctor', '--timeout', '5'], { home: down });
    assert.match(bad.stdout, /✗ PostgreSQL\s+Cannot connect to PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/x/);
    assert.doesNotMatch(bad.stdout + bad.stderr, /secret/);
    const list2 = await hermes(['sessions', 'list'], { home: down });
    assert.equal(list2.code, 1);
    assert.match(list2.stderr, /^hermes: Cannot connect to PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/x/m);
    const opt = await run(['sessions', 'optimize'], 2);
    assert.match(opt.stderr, /works on state\.db; state\.backend is postgres/);
    const rep = await run(['sessions', 'repair'], 2);
    assert.match(rep.stderr, /works on state\.db; state\.backend is postgres/);
    assert.equal(existsSync(join(h, 'state.db')), false, 'no state.db was created');
  });

  it('the dashboard lists, searches, opens and charts PostgreSQL sessions', async () => {
    const url = await cluster!.createDatabase('dash_surfaces');
    await seed(url);
    const h = homeWithModel('http://127.0.0.1:9/v1', `state:\n  backend: postgres\n  url: ${url}\n`);
    const dash = await startDashboardProcess(h);
    try {
      const get = async (path: string) => {
        const r = await fetch(`${dash.origin}${path}`, { headers: { cookie: `hermes_dashboard=${dash.token}` } });
        assert.equal(r.status, 200, `${path}: ${r.status}`);
        return (await r.json()) as Record<string, unknown>;
      };
      const list = (await get('/api/sessions')) as { total: number; sessions: { id: string }[] };
      assert.equal(list.total, 2);
      assert.deepEqual(
        list.sessions.map((s) => s.id),
        ['pg-recent', 'pg-old'],
      );
      const hits = (await get('/api/sessions/search?q=pelican')) as { hits: { session_id: string }[] };
      assert.equal(hits.hits[0]?.session_id, 'pg-recent');
      const one = (await get('/api/sessions/Pelican%20talk')) as { messages: { content: string }[] };
      assert.equal(one.messages.length, 2);
      const analytics = (await get('/api/analytics?days=7')) as { overview: { sessions: number } };
      assert.equal(analytics.overview.sessions, 1);
      const status = (await get('/api/status')) as { sessions: number };
      assert.equal(status.sessions, 2);
    } finally {
      await dash.stop();
    }
    assert.equal(existsSync(join(h, 'state.db')), false, 'no state.db was created');
  });

  it('/branch, /insights and /quit --delete work on a PostgreSQL session', async () => {
    const url = await cluster!.createDatabase('slash_surfaces');
    const llm = await startFakeLlm();
    const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
    const store = await PgSessionStore.open(url);
    try {
      const home = homeWithModel(llm.openaiBaseUrl, `state:\n  backend: postgres\n  url: ${url}\n`);
      const env = { ...process.env, HERMES_HOME: home, HOME: home };
      const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, store, seedBundledSkills: false, backgroundTasks: false });
      session.on((e) => {
        if (e.type === 'request') session.answer(e.id, 'yes');
      });
      const registry = createCommandRegistry({ home });
      const run = async (line: string) => (await runCommand(registry, line, { session, surface: 'cli', hooks: {} })) ?? {};
      llm.enqueue({ text: 'first answer' });
      await session.prompt('first question');
      const parent = session.id;
      const r = await run('/branch experiment');
      assert.match(r.output!, /Branched into “experiment”/);
      await store.flush();
      const child = (await store.getSession(session.id))!;
      assert.equal(child.parent_session_id, parent);
      assert.equal((await store.getSession(parent))!.end_reason, 'branched');
      assert.equal((await store.getMessages(session.id)).length, 2);
      assert.match((await run('/insights 7')).output!, /Sessions\s+2/);
      llm.enqueue({ text: 'branch answer' });
      await session.prompt('only in the branch');
      const branch = session.id;
      const q = await run('/quit --delete');
      assert.equal(q.action, 'quit');
      assert.match(q.output!, /Deleted session/);
      assert.equal(await store.getSession(branch), null);
      assert.ok(await store.getSession(parent), 'the original stays');
      await session.close();
    } finally {
      await store.close();
      await llm.close();
    }
  });

  it('hermes acp keeps editor sessions in PostgreSQL: list, load and go on after a restart', async () => {
    const url = await cluster!.createDatabase('acp_surfaces');
    const fake = await startFakeLlm();
    const acp = await import('@agentclientprotocol/sdk/unstable');
    const { startEditor, initialize } = await import('../acp/harness.ts');
    try {
      const pgYaml = `state:\n  backend: postgres\n  url: ${url}\n`;
      const first = await startEditor(fake, { extraConfig: pgYaml });
      await initialize(first);
      const s = await first.agent.request(acp.methods.agent.session.new, { cwd: first.work, mcpServers: [] });
      fake.enqueue({ text: 'Noted: the code word is heron.' });
      await first.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'the code word is heron' }] });
      await first.close();

      const again = await startEditor(fake, { home: first.home, extraConfig: pgYaml });
      try {
        await initialize(again);
        const list = await again.agent.request(acp.methods.agent.session.list, {});
        assert.ok(list.sessions.some((x) => x.sessionId === s.sessionId), JSON.stringify(list));
        await again.agent.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd: first.work, mcpServers: [] });
        const n = fake.requests.length;
        fake.enqueue({ text: 'heron' });
        await again.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'what was the code word?' }] });
        assert.match(JSON.stringify(fake.requests[n].body.messages), /the code word is heron/, 'the loaded session replays its history from PostgreSQL');
      } finally {
        await again.close();
      }
      const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
      const store = await PgSessionStore.open(url);
      try {
        assert.equal((await store.getSession(s.sessionId))?.source, 'acp');
        assert.equal((await store.getMessages(s.sessionId)).length, 4);
      } finally {
        await store.close();
      }
      assert.equal(existsSync(join(first.home, 'state.db')), false, 'no state.db was created');
    } finally {
      await fake.close();
    }
  });

  it('hermes mcp serve lists and reads PostgreSQL conversations and reports new messages', async () => {
    const url = await cluster!.createDatabase('mcp_surfaces');
    await seed(url);
    const h = homeWithModel('http://127.0.0.1:9/v1', `state:\n  backend: postgres\n  url: ${url}\n`);
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { BIN, cleanEnv } = await import('../helpers/cli.ts');
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', 'serve'], env: cleanEnv(h) as Record<string, string>, stderr: 'pipe', cwd: h });
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown> = {}) => JSON.parse(((await client.callTool({ name, arguments: args })).content as { text: string }[])[0].text) as Record<string, unknown>;
    try {
      const list = (await call('conversations_list')) as { conversations: { session_id: string }[] };
      assert.deepEqual(
        list.conversations.map((c) => c.session_id),
        ['pg-recent', 'pg-old'],
      );
      const read = (await call('messages_read', { session_key: 'pg-recent' })) as { messages: { content: string }[] };
      assert.deepEqual(
        read.messages.map((m) => m.content),
        ['tell me about the pelican brief', 'A pelican is a large water bird.'],
      );
      const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
      const store = await PgSessionStore.open(url);
      try {
        await store.appendMessage('pg-recent', { role: 'user', content: 'and a heron?' });
      } finally {
        await store.close();
      }
      const ev = (await call('events_wait', { after_cursor: 0, timeout_ms: 20_000 })) as { event: { session_id: string; content: string } | null };
      assert.equal(ev.event?.session_id, 'pg-recent');
      assert.equal(ev.event?.content, 'and a heron?');
    } finally {
      await client.close();
    }
    assert.equal(existsSync(join(h, 'state.db')), false, 'no state.db was created');
  });
});
