// A long gateway chat is compressed in place (Hermes 0.18): the chat keeps its session id and the
// `session:compress` hook says so (in_place: true, compression_count).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { GatewayRunner } from '../../src/gateway/runner.ts';
import type { InboundHandlers, PlatformAdapter, SendResult } from '../../src/gateway/types.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

class ChatAdapter implements PlatformAdapter {
  readonly name = 'telegram';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = false;
  out: string[] = [];
  handlers!: InboundHandlers;
  private n = 0;
  async connect(h: InboundHandlers) {
    this.handlers = h;
  }
  async disconnect() {}
  async send(_chatId: string, text: string): Promise<SendResult> {
    this.out.push(text);
    return { ok: true, messageId: String(++this.n) };
  }
  say(text: string): void {
    this.handlers.message({ source: { platform: 'telegram', chatId: '1', chatType: 'dm', userId: '1', userName: 'ann' }, messageId: `m${++this.n}`, text });
  }
}

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
  llm.setHandler((r) => (/compress conversations/.test(JSON.stringify(r.body.messages?.[0] ?? '')) ? { text: '## Goal\nTalk about essays.' } : { text: `noted ${llm.requests.length}` }));
});
after(async () => {
  await llm.close();
});

test('a gateway chat compressed in place keeps its session id; session:compress says in_place', async () => {
  const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_ALLOWED_USERS: '1' }, yaml: 'compression:\n  protect_last_n: 2\n' });
  t.config.model.context_length = 6000;
  mkdirSync(join(t.home, 'hooks', 'rec'), { recursive: true });
  writeFileSync(join(t.home, 'hooks', 'rec', 'HOOK.yaml'), 'events: ["session:compress"]\n');
  writeFileSync(join(t.home, 'hooks', 'rec', 'handler.mjs'), `import { appendFileSync } from 'node:fs';\nexport function handle(t, c) { appendFileSync(${JSON.stringify(join(t.home, 'hooks.log'))}, JSON.stringify(c) + '\\n'); }\n`);
  const runner = new GatewayRunner({ home: t.home, config: t.config, env: t.env, log: () => undefined, backgroundTasks: false });
  await runner.init();
  await runner.hooks.load(t.home);
  const a = new ChatAdapter();
  await a.connect(runner.handlersFor(a));
  runner.attached(a);
  try {
    const key = 'agent:main:telegram:dm:1';
    let first = '';
    for (let i = 0; i < 8; i++) {
      const before = a.out.length;
      a.say(`essay ${i}: ${'lorem ipsum dolor sit amet '.repeat(80)}`);
      await until(() => a.out.length > before, 10_000, `reply ${i}`);
      if (!first) first = runner.index.get(key)!.session_id;
    }
    await until(() => { try { return readFileSync(join(t.home, 'hooks.log'), 'utf8'); } catch { return ''; } }, 5000, 'the session:compress hook');
    const ctx = JSON.parse(readFileSync(join(t.home, 'hooks.log'), 'utf8').trim().split('\n')[0]) as Record<string, unknown>;
    assert.equal(ctx.in_place, true);
    assert.equal(ctx.session_id, first);
    assert.equal(ctx.old_session_id, first);
    assert.equal(ctx.compression_count, 1);
    assert.equal(runner.index.get(key)!.session_id, first, 'the chat keeps its session');
  } finally {
    await runner.close();
  }
});
