// The plugin context end to end, through the real binary: one plugin folder in a temp HERMES_HOME
// whose tool calls ctx.llm.complete (the fake LLM), ctx.call_mcp (the test MCP server) and
// ctx.dispatch_tool (read_file of the running session); whose memory provider
// (ctx.register_memory_provider) recalls into the prompt and hears each turn; whose /nudge command
// uses ctx.inject_message in the REPL (tmux); and whose platform (ctx.register_platform) carries a
// conversation through `hermes gateway run`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bodyText, chatHarness, userText } from '../helpers/chat-harness.ts';
import { BIN, cleanEnv, hermes } from '../helpers/cli.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { until } from '../gateway/helpers.ts';
import { TEST_SERVER } from '../mcp/servers.ts';

const { enqueue, main, requests, home, fake } = chatHarness();

const ENTRY = `
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const DIR = import.meta.dirname;
const out = (name, v) => appendFileSync(join(DIR, name), JSON.stringify(v) + '\\n');

class FileChat {
  name = 'filechat';
  maxMessageLength = 1000;
  supportsButtons = false;
  async connect(h) {
    let seen = 0;
    this.timer = setInterval(() => {
      const f = join(DIR, 'inbox.jsonl');
      if (!existsSync(f)) return;
      const lines = readFileSync(f, 'utf8').split('\\n').filter(Boolean);
      for (const l of lines.slice(seen)) {
        const m = JSON.parse(l);
        h.message({ source: { platform: 'filechat', chatId: m.chat, chatType: 'dm', userId: m.user }, messageId: m.id, text: m.text });
      }
      seen = lines.length;
    }, 50);
  }
  async disconnect() { clearInterval(this.timer); }
  async send(chatId, text) { out('outbox.jsonl', { chatId, text }); return { ok: true, messageId: String(Date.now()) }; }
}

export function register(ctx) {
  ctx.register_tool({
    name: 'kit_probe',
    toolset: 'kit',
    schema: { name: 'kit_probe', description: 'Probe the plugin context', parameters: { type: 'object', properties: {} } },
    handler: async () => {
      const llm = await ctx.llm.complete({ prompt: 'Summarize: plugins can call the model', purpose: 'probe' });
      const mcp = await ctx.call_mcp('testsrv', 'ok', { note: 'from-kit' });
      const file = await ctx.dispatch_tool('read_file', { path: join(ctx.hermes_home, 'note.txt') });
      return { llm: llm.text, llm_provider: llm.provider, mcp, file };
    },
  });
  ctx.register_command('nudge', (args) => (ctx.inject_message('Please say NUDGED ' + args) ? 'nudged the session' : 'no session to nudge'), 'inject a message');
  ctx.register_memory_provider({
    name: 'notebook',
    description: 'a notebook memory',
    create: () => ({
      name: 'notebook',
      isAvailable: () => true,
      systemPromptBlock: () => 'Notebook memory is on.',
      prefetch: (q) => (q.includes('like') ? 'Recalled: the user likes green tea.' : undefined),
      syncTurn: (user, assistant) => out('synced.jsonl', { user, assistant }),
      healthCheck: async () => 'notebook ok',
      describe: () => ({ file: 'synced.jsonl' }),
    }),
  });
  ctx.register_platform({ name: 'filechat', label: 'File chat', kind: 'chat', maxMessageLength: 1000, configured: (env) => !!env.FILECHAT_TOKEN, create: async () => new FileChat() });
}
`;

function kitHome(extra = ''): { h: string; dir: string } {
  const h = home(
    `plugins:\n  enabled: [kit]\n  entries:\n    kit:\n      mcp_allowlist: [testsrv]\nmcp_servers:\n  testsrv:\n    command: ${process.execPath}\n    args: [${JSON.stringify(TEST_SERVER)}]\n${extra}`,
  );
  const dir = join(h, 'plugins', 'kit');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: kit\nversion: 0.3.0\ndescription: exercises the plugin context\nkind: standalone\n');
  writeFileSync(join(dir, 'index.mjs'), ENTRY);
  writeFileSync(join(h, 'note.txt'), 'the note says 42\n');
  return { h, dir };
}

const lines = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

describe('the plugin context end to end', () => {
  it('a plugin tool calls llm.complete, call_mcp and dispatch_tool', async () => {
    const { h } = kitHome();
    const n = main().length;
    const before = fake().requests.length;
    enqueue({ toolCalls: [{ name: 'kit_probe', arguments: {} }] }, { text: 'Probed.' });
    const r = await hermes(['chat', '-q', 'probe the kit', '--yolo'], { home: h, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const [, second] = (await requests(n + 2)).slice(n);
    const result = JSON.parse(JSON.parse(JSON.stringify((second.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!.content)));
    // llm.complete: a request outside the conversation, with the plugin's prompt, on the user's provider.
    const side = fake().requests.slice(before).find((q) => /plugins can call the model/.test(bodyText(q)));
    assert.ok(side, 'llm.complete reached the model');
    assert.equal(result.llm, 'A title', 'the fake’s answer to a request without tools');
    assert.equal(result.llm_provider, 'custom');
    assert.equal(result.mcp.ok, true, JSON.stringify(result.mcp));
    assert.match(result.mcp.result, /^fine from \d+: from-kit$/);
    assert.match(result.file, /the note says 42/);
  });

  it('call_mcp refuses a server the plugin was not granted', async () => {
    const { h, dir } = kitHome();
    writeFileSync(join(h, 'config.yaml'), readFileSync(join(h, 'config.yaml'), 'utf8').replace('mcp_allowlist: [testsrv]', 'mcp_allowlist: []'));
    const n = main().length;
    enqueue({ toolCalls: [{ name: 'kit_probe', arguments: {} }] }, { text: 'Refused.' });
    const r = await hermes(['chat', '-q', 'probe the kit', '--yolo'], { home: h, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const [, second] = (await requests(n + 2)).slice(n);
    assert.match(bodyText(second), /may not call MCP server \W{0,8}testsrv\W{0,8}: add it to plugins\.entries\.kit\.mcp_allowlist/);
    assert.ok(existsSync(dir));
  });

  it('a plugin memory provider recalls into the prompt and hears the turn', async () => {
    const { h, dir } = kitHome('memory:\n  provider: notebook\n');
    const n = main().length;
    enqueue({ text: 'You like green tea.' });
    const r = await hermes(['chat', '-q', 'what do I like to drink?'], { home: h, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const [req] = (await requests(n + 1)).slice(n);
    assert.match(bodyText(req), /Notebook memory is on\./);
    assert.match(bodyText(req), /Recalled: the user likes green tea\./);
    await until(() => lines(join(dir, 'synced.jsonl')).length === 1, 10_000, 'syncTurn');
    assert.deepEqual(lines(join(dir, 'synced.jsonl'))[0], { user: 'what do I like to drink?', assistant: 'You like green tea.' });
    const s = await hermes(['memory', 'status'], { home: h });
    assert.match(s.stdout + s.stderr, /notebook/);
  });

  it('a plugin platform carries a conversation through `hermes gateway run`', async () => {
    const { h, dir } = kitHome();
    const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: h, env: cleanEnv(h, { FILECHAT_TOKEN: 'x', FILECHAT_ALLOWED_USERS: 'u1', GATEWAY_ALLOWED_USERS: 'u1' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      await until(() => /File chat/.test(output) || existsSync(join(h, 'gateway.pid')), 60_000, 'the gateway to start');
      enqueue({ text: 'Hello over the file chat.' });
      appendFileSync(join(dir, 'inbox.jsonl'), JSON.stringify({ chat: 'c1', user: 'u1', id: 'm1', text: 'hi there' }) + '\n');
      const reply = await until(() => lines(join(dir, 'outbox.jsonl')).find((m) => /Hello over the file chat/.test(m.text)), 60_000, `the reply (gateway said: ${output})`);
      assert.equal(reply.chatId, 'c1');
      assert.equal(userText(main()[main().length - 1]), 'hi there');
      // A stranger on the plugin platform gets a pairing code, like on any chat platform.
      appendFileSync(join(dir, 'inbox.jsonl'), JSON.stringify({ chat: 'c2', user: 'u2', id: 'm2', text: 'let me in' }) + '\n');
      await until(() => lines(join(dir, 'outbox.jsonl')).find((m) => m.chatId === 'c2' && /pairing code/.test(m.text)), 30_000, 'the pairing code');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('/nudge in the REPL injects a message that becomes the next turn (tmux)', { skip: tmuxAvailable() ?? false }, async () => {
    const { h } = kitHome();
    const n = main().length;
    enqueue({ text: 'NUDGED as asked.' });
    const term = startHermes([], { home: h, env: { LANG: 'C.UTF-8' } });
    try {
      await term.waitFor(/❯/);
      term.type('/nudge now');
      term.keys('Enter');
      await term.waitFor(/nudged the session/);
      await term.waitFor(/NUDGED as asked\./);
      const [req] = (await requests(n + 1)).slice(n);
      assert.match(userText(req), /Please say NUDGED now/);
    } finally {
      term.kill();
    }
  });
});
