// /handoff <platform>: the CLI marks its session pending in state.db; a running gateway (in-memory
// Telegram adapter) claims it, binds the home channel to that same session and has the agent confirm
// there; the CLI sees `completed` and closes. The chat then continues the CLI's conversation.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { GatewayRunner } from '../../src/gateway/runner.ts';
import type { InboundHandlers, InboundMessage, PlatformAdapter, SendResult } from '../../src/gateway/types.ts';
import { Session } from '../../src/session/session.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { handoffState } from '../../src/state/handoff.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';
import { gatewayPorts } from '../../src/gateway/command-ports.ts';

class MemoryTelegram implements PlatformAdapter {
  readonly name = 'telegram';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = false;
  out: { chatId: string; text: string }[] = [];
  handlers!: InboundHandlers;
  async connect(h: InboundHandlers) {
    this.handlers = h;
  }
  async disconnect() {}
  async send(chatId: string, text: string): Promise<SendResult> {
    this.out.push({ chatId, text });
    return { ok: true, messageId: String(this.out.length) };
  }
  say(text: string): void {
    const msg: InboundMessage = { source: { platform: 'telegram', chatId: '42', chatType: 'dm', userId: '42', userName: 'ann' }, messageId: `m${Date.now()}`, text };
    this.handlers.message(msg);
  }
}

describe('/handoff', () => {
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
    llm.setHandler((r) => {
      const all = JSON.stringify(r.body.messages);
      const last = JSON.stringify(r.body.messages.at(-1));
      if (/\[Handoff\]/.test(last)) return { text: `Here on Telegram; we were on the code word${/aubergine/.test(all) ? ' aubergine' : ''}.` };
      if (/code word was/.test(last)) return { text: /aubergine/.test(all) ? 'It was aubergine.' : 'I do not know.' };
      return { text: 'Noted.' };
    });
  });
  after(async () => {
    await llm.close();
  });

  const env = { TELEGRAM_BOT_TOKEN: '123:abc', TELEGRAM_HOME_CHANNEL: '42', TELEGRAM_ALLOWED_USERS: '42' };
  const cli = (t: ReturnType<typeof gatewayHome>, extra: Record<string, string> = {}) => {
    const db = SessionDB.open(join(t.home, 'state.db'));
    const store = new SqliteSessionStore(db);
    const session = new Session({ home: t.home, config: t.config, env: { ...t.env, ...extra }, cwd: t.home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false, store });
    const run = async (line: string) => (await runCommand(createCommandRegistry({ home: t.home }), line, { session, surface: 'cli', hooks: { gatewayPorts } }))!;
    return { store, session, run };
  };

  test('a running gateway takes the session over in the home channel; the chat continues the same conversation', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env });
    const runner = new GatewayRunner({ home: t.home, config: t.config, env: t.env, log: () => undefined, backgroundTasks: false });
    await runner.init();
    const a = new MemoryTelegram();
    await a.connect(runner.handlersFor(a));
    runner.attached(a);
    const { store, session, run } = cli(t);
    try {
      await session.prompt('remember: the code word is aubergine');
      const r = await run('/handoff telegram');
      assert.match(r.output ?? '', /^✓ Handed off to telegram: .*Back here: \/resume /);
      assert.equal(r.action, 'quit', 'the CLI closes, as after /quit');
      assert.equal((await handoffState(store, session.id)).state, 'completed');
      await until(() => a.out.find((o) => /Here on Telegram/.test(o.text)), 5000, 'the confirmation in the chat');
      assert.equal(a.out[0].chatId, '42', 'in the home channel');
      assert.match(a.out[0].text, /aubergine/, 'the agent had the CLI transcript (role-aware, not pasted)');
      a.say('what the code word was?');
      await until(() => a.out.find((o) => o.text === 'It was aubergine.'), 5000, 'the follow-up answer');
      await runner.close();
      const rows = (await store.getMessages(session.id)).map((m) => String(m.content));
      assert.ok(rows.includes('remember: the code word is aubergine') && rows.includes('what the code word was?') && rows.includes('It was aubergine.'), 'one session, CLI and chat turns together');
    } finally {
      await session.close();
      store.close();
    }
  });

  test('no gateway, no home channel, a platform not set up: one clear line each, the conversation stays', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env });
    const { store, session, run } = cli(t, { HERMES_HANDOFF_TIMEOUT: '1' });
    try {
      assert.match((await run('/handoff telegram')).output ?? '', /Nothing to hand off yet/);
      await session.prompt('hello');
      const r = await run('/handoff telegram');
      assert.match(r.output ?? '', /No gateway picked up the handoff within 1 s/);
      assert.equal(r.action, undefined);
      assert.equal((await handoffState(store, session.id)).state, 'failed');
      assert.match((await run('/handoff discord')).output ?? '', /discord is not set up for the gateway/);
      assert.match((await run('/handoff nowhere')).output ?? '', /Unknown platform "nowhere"/);
      const noHome = cli(gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: '123:abc' } }));
      await noHome.session.prompt('hi');
      assert.match((await noHome.run('/handoff telegram')).output ?? '', /telegram has no home channel to hand off to/);
      await noHome.session.close();
      noHome.store.close();
    } finally {
      await session.close();
      store.close();
    }
  });
});
