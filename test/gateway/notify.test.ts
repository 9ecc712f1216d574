// Background work reporting back in a gateway chat: when a notify_on_complete process ends, the
// conversation gets a turn of its own and the answer is sent to the chat without the user asking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GatewayRunner } from '../../src/gateway/runner.ts';
import type { InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../../src/gateway/types.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

class ChatAdapter implements PlatformAdapter {
  readonly name = 'telegram';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = false;
  out: { chatId: string; text: string; opts?: SendOptions }[] = [];
  handlers!: InboundHandlers;
  async connect(h: InboundHandlers) {
    this.handlers = h;
  }
  async disconnect() {}
  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    this.out.push({ chatId, text, opts });
    return { ok: true, messageId: String(this.out.length) };
  }
}

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const lastUser = (req: RecordedRequest) => {
  const u = (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)?.content;
  return typeof u === 'string' ? u : JSON.stringify(u ?? '');
};

test('a finished notify_on_complete process starts a turn whose answer goes to the chat', async () => {
  const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_ALLOWED_USERS: '7' }, yaml: 'display:\n  tool_progress: off\n' });
  const runner = new GatewayRunner({ home: t.home, config: t.config, env: t.env, log: () => undefined, backgroundTasks: false });
  await runner.init();
  const a = new ChatAdapter();
  await a.connect(runner.handlersFor(a));
  runner.attached(a);
  llm.setHandler((req) => {
    if (lastUser(req).startsWith('[IMPORTANT: Background process')) return { text: 'Your backup finished.' };
    if ((req.body.messages as { role: string }[]).at(-1)?.role === 'tool') return { text: 'Backup started; I will tell you when it is done.' };
    return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 0.5; echo saved 12 files', background: true, notify_on_complete: true } }] };
  });
  try {
    a.handlers.message({ source: { platform: 'telegram', chatId: '42', chatType: 'dm', userId: '7', userName: 'ann' }, messageId: 'm1', text: 'back up my notes' });
    await until(() => a.out.some((o) => o.text.includes('Backup started')), 10_000, 'the first answer');
    await until(() => a.out.some((o) => o.text.includes('Your backup finished.')), 15_000, 'the follow-up');
    const texts = a.out.filter((o) => o.chatId === '42').map((o) => o.text);
    assert.ok(texts.indexOf('Your backup finished.') > texts.findIndex((x) => x.includes('Backup started')));
    const follow = llm.requests.find((q) => lastUser(q).startsWith('[IMPORTANT'))!;
    assert.match(lastUser(follow), /completed normally \(exit code 0\)[\s\S]*saved 12 files/);
    assert.doesNotMatch(lastUser(follow), /^\[ann\]/, 'not attributed to a user');
  } finally {
    llm.setHandler(null);
    await runner.close();
  }
});
