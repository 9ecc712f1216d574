// `hermes mcp serve` driven by the MCP SDK's Client over stdio: Hermes's conversations (a state.db in
// Hermes's on-disk format) as tools, live events, and --tools exposing web tools but never
// terminal or file tools.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFileSync } from 'node:fs';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { startFakeTelegram } from '../helpers/fake-telegram.ts';

/** A state.db as Hermes writes it: CLI and editor sessions, a Telegram chat (gateway row), a subagent. */
function seed(home: string): DatabaseSync {
  const db = new DatabaseSync(join(home, 'state.db'));
  db.exec(`PRAGMA journal_mode=WAL;
    CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (11);
    CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, system_prompt TEXT, parent_session_id TEXT,
      started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
      input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT, cwd TEXT, session_key TEXT, chat_id TEXT, chat_type TEXT,
      display_name TEXT, origin_json TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
      tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL);`);
  const s = db.prepare('INSERT INTO sessions (id, source, started_at, title, input_tokens, output_tokens, session_key, chat_id, chat_type, display_name, origin_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)');
  s.run('20260101_100000_aaaaaa', 'cli', 1767261600, 'Refactor the parser', 100, 50, null, null, null, null, null);
  s.run('20260101_110000_bbbbbb', 'telegram', 1767265200, null, 10, 5, 'agent:main:telegram:dm:4242', '4242', 'dm', 'Ada', JSON.stringify({ platform: 'telegram', chat_id: '4242', user_name: 'ada_l', chat_name: 'Ada' }));
  s.run('20260101_120000_cccccc', 'subagent', 1767268800, null, 0, 0, null, null, null, null, null);
  const m = db.prepare('INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp) VALUES (?,?,?,?,?,?)');
  m.run('20260101_100000_aaaaaa', 'user', 'Please refactor the parser', null, null, 1767261601);
  m.run('20260101_100000_aaaaaa', 'assistant', null, '[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]', null, 1767261602);
  m.run('20260101_100000_aaaaaa', 'tool', '{"content":"..."}', null, 'c1', 1767261603);
  m.run('20260101_100000_aaaaaa', 'assistant', 'Done: the parser is split in two.', null, null, 1767261604);
  m.run('20260101_110000_bbbbbb', 'user', JSON.stringify([{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]), null, null, 1767265201);
  m.run('20260101_110000_bbbbbb', 'assistant', 'A cat. MEDIA: /tmp/cat-annotated.png', null, null, 1767265202);
  m.run('20260101_120000_cccccc', 'user', 'subagent goal', null, null, 1767268801);
  return db;
}

async function connect(home: string, args: string[] = []): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', 'serve', ...args], env: cleanEnv(home) as Record<string, string>, stderr: 'pipe', cwd: home });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, stderr: () => stderr + errors.map((e) => e.message).join('\n') };
}

type Result = Awaited<ReturnType<Client['callTool']>>;
const body = (r: Result) => JSON.parse((r.content as { text: string }[])[0].text) as Record<string, unknown>;

describe('hermes mcp serve', () => {
  let home: string;
  let db: DatabaseSync;
  let client: Client;
  let stderr: () => string;
  before(async () => {
    home = tempHome('hermes-serve-');
    db = seed(home);
    ({ client, stderr } = await connect(home));
  });
  after(async () => {
    await client.close();
    db.close();
  });

  it('lists the conversation tools (permissions need a running gateway)', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['attachments_fetch', 'channels_list', 'conversation_get', 'conversations_list', 'events_poll', 'events_wait', 'messages_read', 'messages_send']);
    assert.equal(client.getServerVersion()?.name, 'hermes');
  });

  it('lists conversations, newest first, with session keys (subagents left out)', async () => {
    const r = body(await client.callTool({ name: 'conversations_list', arguments: {} }));
    assert.equal(r.count, 2);
    const [tg, cli] = r.conversations as Record<string, unknown>[];
    assert.equal(tg.session_key, 'agent:main:telegram:dm:4242');
    assert.equal(tg.platform, 'telegram');
    assert.equal(tg.display_name, 'Ada');
    assert.equal(tg.user_name, 'ada_l');
    assert.equal(cli.session_key, '20260101_100000_aaaaaa');
    assert.equal(cli.title, 'Refactor the parser');
    const only = body(await client.callTool({ name: 'conversations_list', arguments: { platform: 'cli' } }));
    assert.equal(only.count, 1);
    const found = body(await client.callTool({ name: 'conversations_list', arguments: { search: 'parser' } }));
    assert.deepEqual((found.conversations as { session_id: string }[]).map((c) => c.session_id), ['20260101_100000_aaaaaa']);
  });

  it('gets a conversation and reads its messages (text only, oldest first)', async () => {
    const c = body(await client.callTool({ name: 'conversation_get', arguments: { session_key: 'agent:main:telegram:dm:4242' } }));
    assert.equal(c.chat_id, '4242');
    assert.equal(c.total_tokens, 15);
    const msgs = body(await client.callTool({ name: 'messages_read', arguments: { session_key: '20260101_100000_aaaaaa' } }));
    assert.deepEqual((msgs.messages as { role: string; content: string }[]).map((m) => [m.role, m.content]), [
      ['user', 'Please refactor the parser'],
      ['assistant', 'Done: the parser is split in two.'],
    ]);
    const last = body(await client.callTool({ name: 'messages_read', arguments: { session_key: 'agent:main:telegram:dm:4242', limit: 1 } }));
    assert.equal(last.count, 1);
    assert.equal(last.total_in_session, 2);
    const missing = await client.callTool({ name: 'messages_read', arguments: { session_key: 'nope' } });
    assert.equal(missing.isError, true);
    assert.match(String(body(missing).error), /not found.*conversations_list/);
  });

  it('fetches attachments and lists channels', async () => {
    const msgs = body(await client.callTool({ name: 'messages_read', arguments: { session_key: 'agent:main:telegram:dm:4242' } }));
    const [q, a] = msgs.messages as { id: string }[];
    const att = body(await client.callTool({ name: 'attachments_fetch', arguments: { session_key: 'agent:main:telegram:dm:4242', message_id: q.id } }));
    assert.deepEqual(att.attachments, [{ type: 'image', url: 'https://example.com/cat.png' }]);
    const media = body(await client.callTool({ name: 'attachments_fetch', arguments: { session_key: 'agent:main:telegram:dm:4242', message_id: a.id } }));
    assert.deepEqual(media.attachments, [{ type: 'media', path: '/tmp/cat-annotated.png' }]);
    const ch = body(await client.callTool({ name: 'channels_list', arguments: {} }));
    assert.deepEqual(ch.channels, [{ target: 'telegram:4242', platform: 'telegram', name: 'Ada', chat_type: 'dm' }]);
  });

  it('delivers new messages as events: events_wait returns when one is written, events_poll pages by cursor', async () => {
    const start = body(await client.callTool({ name: 'events_poll', arguments: {} }));
    assert.deepEqual(start.events, []);
    const waiting = client.callTool({ name: 'events_wait', arguments: { after_cursor: start.next_cursor, timeout_ms: 20000 } });
    db.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?,?,?,?)').run('20260101_110000_bbbbbb', 'user', 'Are you there?', 1767265300);
    const ev = body(await waiting).event as Record<string, unknown>;
    assert.equal(ev.type, 'message');
    assert.equal(ev.session_key, 'agent:main:telegram:dm:4242');
    assert.equal(ev.content, 'Are you there?');
    db.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?,?,?,?)').run('20260101_100000_aaaaaa', 'assistant', 'Another reply', 1767265301);
    let polled = body(await client.callTool({ name: 'events_poll', arguments: { after_cursor: ev.cursor, session_key: '20260101_100000_aaaaaa' } }));
    while (!(polled.events as unknown[]).length) {
      const w = body(await client.callTool({ name: 'events_wait', arguments: { after_cursor: ev.cursor, timeout_ms: 5000 } }));
      assert.ok(w.event, 'the second message arrives');
      polled = body(await client.callTool({ name: 'events_poll', arguments: { after_cursor: ev.cursor, session_key: '20260101_100000_aaaaaa' } }));
    }
    assert.deepEqual((polled.events as { content: string }[]).map((e) => e.content), ['Another reply']);
    const none = body(await client.callTool({ name: 'events_wait', arguments: { after_cursor: polled.next_cursor, timeout_ms: 50 } }));
    assert.deepEqual(none, { event: null, reason: 'timeout' });
    assert.doesNotMatch(stderr(), /error/i);
  });
});

describe('hermes mcp serve over a state.db written by the SessionDB', () => {
  it('lists and reads sessions the runtime stored, and sees new ones arrive', async () => {
    const { SessionDB } = await import('../../src/state/db.ts');
    const home = tempHome('hermes-serve-');
    const store = SessionDB.open(join(home, 'state.db'));
    store.createSession({ id: '20260102_090000_dddddd', source: 'acp', model: 'm', cwd: '/work/project' });
    store.appendMessage('20260102_090000_dddddd', { role: 'user', content: 'Fix the failing test' });
    store.appendMessage('20260102_090000_dddddd', { role: 'assistant', content: 'Fixed: an off-by-one in the loop.' });
    const { client } = await connect(home);
    try {
      const list = body(await client.callTool({ name: 'conversations_list', arguments: {} }));
      assert.deepEqual((list.conversations as { session_key: string; platform: string }[]).map((c) => [c.session_key, c.platform]), [['20260102_090000_dddddd', 'acp']]);
      const msgs = body(await client.callTool({ name: 'messages_read', arguments: { session_key: '20260102_090000_dddddd' } }));
      assert.deepEqual((msgs.messages as { content: string }[]).map((m) => m.content), ['Fix the failing test', 'Fixed: an off-by-one in the loop.']);
      const waiting = client.callTool({ name: 'events_wait', arguments: { timeout_ms: 20000 } });
      store.appendMessage('20260102_090000_dddddd', { role: 'user', content: 'Thanks!' });
      assert.equal((body(await waiting).event as { content: string }).content, 'Thanks!');
    } finally {
      await client.close();
      store.close();
    }
  });
});

describe('hermes mcp serve --tools', () => {
  it('adds web tools, never terminal or file tools', async () => {
    const home = tempHome('hermes-serve-');
    const { client } = await connect(home, ['--tools']);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('web_extract') && names.includes('conversations_list'), names.join(','));
      for (const n of ['terminal', 'process', 'read_file', 'write_file', 'patch', 'search_files', 'execute_code']) assert.ok(!names.includes(n), n);
      // Private addresses stay blocked for a web tool called over MCP.
      const r = await client.callTool({ name: 'web_extract', arguments: { urls: ['http://127.0.0.1:1/'] } });
      assert.match((r.content as { text: string }[])[0].text, /private|blocked|not allowed/i);
    } finally {
      await client.close();
    }
  });
});

describe('hermes mcp serve --tools-only (the Codex runtime’s hermes-tools)', () => {
  it('serves only Hermes’s web, vision, browser, speech, image, skills and kanban tools: no conversations, no terminal or file tools', async () => {
    const home = tempHome('hermes-serve-');
    const { client } = await connect(home, ['--tools-only']);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      // Tools whose keys or model are missing here (web_search, vision_analyze, image_generate) are left out, as in any session.
      const allowed = ['skill_manage', 'skill_view', 'skills_list', 'vision_analyze', 'web_extract', 'web_search', 'text_to_speech', 'image_generate'];
      assert.ok(names.includes('text_to_speech'), 'Edge TTS needs no key');
      assert.ok(names.includes('skills_list') && names.includes('web_extract'), names.join(','));
      // Kanban tools are served too (a kanban worker on the codex runtime reports back through them).
      assert.deepEqual(names.filter((n) => !allowed.includes(n) && !n.startsWith('kanban_') && !n.startsWith('browser_')), [], 'nothing else: no conversations, terminal or file tools');
      const r = await client.callTool({ name: 'skills_list', arguments: {} });
      assert.match((r.content as { text: string }[])[0].text, /"skills"/);
    } finally {
      await client.close();
    }
  });
});

describe('hermes mcp serve: messages_send', () => {
  it('sends into a Telegram conversation by its session_key, and refuses non-chat sessions', async () => {
    const tg = await startFakeTelegram();
    const home = tempHome('hermes-serve-send-');
    const db = seed(home);
    writeFileSync(join(home, '.env'), `TELEGRAM_BOT_TOKEN=${tg.token}\nTELEGRAM_API_ROOT=${tg.url}\n`, { mode: 0o600 });
    const { client } = await connect(home);
    try {
      const r = body(await client.callTool({ name: 'messages_send', arguments: { session_key: 'agent:main:telegram:dm:4242', message: 'Hello from another agent' } }));
      assert.deepEqual(r, { sent: true, target: 'telegram:4242' });
      const sent = await tg.waitFor((c) => c.method === 'sendMessage', 5000);
      assert.equal(String(sent.params.chat_id), '4242');
      assert.equal(sent.params.text, 'Hello from another agent');
      const cli = await client.callTool({ name: 'messages_send', arguments: { session_key: '20260101_100000_aaaaaa', message: 'x' } });
      assert.equal(cli.isError, true);
      assert.match(String(body(cli).error), /cli session, not a messaging chat/);
    } finally {
      await client.close();
      db.close();
      await tg.close();
    }
  });
});
