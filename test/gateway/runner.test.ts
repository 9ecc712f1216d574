// The runner with an in-memory adapter: busy modes, clarify in chat, the reset policy, /new,
// tool progress modes, hooks, send_message with mirroring, redaction, warm-cache eviction.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaultCacheSize } from '../../src/gateway/cache.ts';
import { GatewayRunner } from '../../src/gateway/runner.ts';
import type { InboundHandlers, InboundMessage, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../../src/gateway/types.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

interface Out {
  chatId: string;
  text: string;
  opts?: SendOptions;
  id: string;
}

class MemoryAdapter implements PlatformAdapter {
  readonly name: string;
  readonly maxMessageLength = 4096;
  readonly supportsButtons: boolean;
  out: Out[] = [];
  edits: Out[] = [];
  typing = 0;
  handlers!: InboundHandlers;
  private n = 0;
  private mid = 0;
  edit?: PlatformAdapter['edit'];
  constructor(name = 'telegram', o: { buttons?: boolean; edits?: boolean } = {}) {
    this.name = name;
    this.supportsButtons = o.buttons ?? true;
    if (o.edits !== false)
      this.edit = async (chatId: string, messageId: string, text: string) => {
        this.edits.push({ chatId, text, id: messageId });
        return { ok: true, messageId };
      };
  }
  async connect(h: InboundHandlers) {
    this.handlers = h;
  }
  async disconnect() {}
  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const id = String(++this.n);
    this.out.push({ chatId, text, opts, id });
    return { ok: true, messageId: id };
  }
  async sendTyping() {
    this.typing++;
  }
  say(text: string, o: Partial<SessionSource> = {}): string {
    const id = `m${++this.mid}`;
    const msg: InboundMessage = { source: { platform: this.name, chatId: '1', chatType: 'dm', userId: '1', userName: 'ann', ...o }, messageId: id, text };
    this.handlers.message(msg);
    return id;
  }
  texts(chatId = '1') {
    return this.out.filter((o) => o.chatId === chatId).map((o) => o.text);
  }
}

describe('gateway runner', () => {
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
  });
  after(async () => {
    await llm.close();
  });

  const setup = async (o: { yaml?: string; env?: Record<string, string>; now?: () => number; adapter?: MemoryAdapter } = {}) => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_ALLOWED_USERS: '1,2', ...o.env }, yaml: o.yaml });
    const runner = new GatewayRunner({ home: t.home, config: t.config, env: t.env, now: o.now, log: () => undefined, backgroundTasks: false });
    await runner.init();
    const a = o.adapter ?? new MemoryAdapter();
    await a.connect(runner.handlersFor(a));
    runner.attached(a);
    return { t, runner, a };
  };
  const lastUser = () => {
    const m = llm.requests[llm.requests.length - 1].body.messages;
    return m.filter((x: { role: string }) => x.role === 'user').pop().content;
  };

  test('queue mode answers every message, in order, with an ack', async () => {
    const { runner, a } = await setup({ yaml: 'display:\n  busy_input_mode: queue\n' });
    llm.enqueue({ text: 'one', delayMs: 300 }, { text: 'two' });
    a.say('first');
    await until(() => llm.requests.some((r) => JSON.stringify(r.body).includes('first')), 5000);
    a.say('second');
    await until(() => a.texts().includes('two'), 5000, 'two');
    const texts = a.texts();
    assert.ok(texts.indexOf('one') < texts.indexOf('two'));
    assert.ok(texts.some((x) => /Queued/.test(x)));
    assert.ok(a.typing > 0);
    await runner.close();
  });

  test('steer mode hands text to the running turn', async () => {
    const { runner, a } = await setup({ yaml: 'display:\n  busy_input_mode: steer\n' });
    llm.enqueue({ toolCalls: [{ name: 'todo', arguments: {} }], delayMs: 300 }, { text: 'steered answer' });
    a.say('start working');
    await until(() => llm.requests.some((r) => JSON.stringify(r.body).includes('start working')), 5000);
    a.say('use the blue one');
    await until(() => a.texts().includes('steered answer'), 5000, 'the answer');
    assert.ok(a.texts().some((x) => /Noted/.test(x)));
    assert.match(JSON.stringify(llm.requests[llm.requests.length - 1].body.messages), /use the blue one/);
    await runner.close();
  });

  test('clarify is asked in chat; a number picks a choice', async () => {
    const { runner, a } = await setup();
    llm.enqueue({ toolCalls: [{ name: 'clarify', arguments: { question: 'Which colour?', choices: ['red', 'blue'] } }] }, { text: 'Blue it is.' });
    a.say('paint it');
    await until(() => a.out.find((o) => /Which colour\?/.test(o.text)), 5000, 'the question');
    const q = a.out.find((o) => /Which colour\?/.test(o.text))!;
    assert.deepEqual(
      q.opts?.buttons?.map((r) => r[0].label),
      ['red', 'blue'],
    );
    a.say('2');
    await until(() => a.texts().includes('Blue it is.'), 5000, 'the answer');
    const tool = llm.requests[llm.requests.length - 1].body.messages.findLast((m: { role: string }) => m.role === 'tool');
    assert.match(tool.content, /"user_response":"blue"/);
    await runner.close();
  });

  test('idle reset starts a fresh session (old one ended), /new too; hooks see it all', async () => {
    let now = Date.now();
    const ev = join('hooks', 'rec');
    const { t, runner, a } = await setup({ now: () => now, yaml: 'session_reset:\n  mode: idle\n  idle_minutes: 30\n' });
    void t;
    mkdirSync(join(t.home, ev), { recursive: true });
    writeFileSync(join(t.home, ev, 'HOOK.yaml'), 'events: ["session:*", "agent:*", "command:*"]\n');
    writeFileSync(join(t.home, ev, 'handler.mjs'), `import { appendFileSync } from 'node:fs';\nexport function handle(t, c) { appendFileSync(${JSON.stringify(join(t.home, 'hooks.log'))}, t + '\\n'); }\n`);
    await runner.hooks.load(t.home);
    llm.enqueue({ text: 'first answer' });
    a.say('remember the number 7');
    await until(() => a.texts().includes('first answer'), 5000);
    const key = 'agent:main:telegram:dm:1';
    const first = runner.index.get(key)!.session_id;
    now += 31 * 60_000;
    llm.enqueue({ text: 'fresh answer' });
    a.say('what number?');
    await until(() => a.texts().includes('fresh answer'), 5000);
    const second = runner.index.get(key)!.session_id;
    assert.notEqual(second, first);
    assert.ok(a.texts().some((x) => /fresh conversation/.test(x)));
    assert.doesNotMatch(JSON.stringify(llm.requests[llm.requests.length - 1].body.messages), /number 7/, 'the old conversation is gone');
    assert.equal((await runner.transcripts.getStoredSession(first))?.endReason, 'session_reset_idle', 'the old session is ended in state.db');
    assert.equal(runner.transcripts.kind, 'state.db');
    a.say('/new');
    await until(() => a.texts().some((x) => /New session/.test(x)), 5000);
    assert.notEqual(runner.index.get(key)!.session_id, second);
    await until(() => readFileSync(join(t.home, 'hooks.log'), 'utf8').includes('command:new'), 5000, 'hooks');
    const events = readFileSync(join(t.home, 'hooks.log'), 'utf8').trim().split('\n');
    for (const e of ['agent:start', 'agent:end', 'session:reset', 'command:new']) assert.ok(events.includes(e), `${e} in ${events.join(',')}`);
    await runner.close();
  });

  test('tool progress: "new" shows only tool changes, accumulated by editing one message', async () => {
    const { runner, a } = await setup({ yaml: 'display:\n  tool_progress: new\n' });
    llm.enqueue({ toolCalls: [{ name: 'todo', arguments: {} }] }, { toolCalls: [{ name: 'todo', arguments: {} }] }, { toolCalls: [{ name: 'search_files', arguments: { pattern: 'zzz', path: '.' } }] }, { text: 'done' });
    a.say('work');
    await until(() => a.texts().includes('done'), 10_000);
    const progress = a.out.filter((o) => /todo|search_files/.test(o.text));
    assert.equal(progress.length, 1, 'one progress message');
    assert.ok(a.edits.some((e) => /todo[\s\S]*search_files/.test(e.text)), 'edited to add the next tool');
    assert.ok(a.texts().indexOf('done') > a.out.indexOf(progress[0]), 'progress comes before the answer');
    await runner.close();
  });

  test('send_message reaches another chat and is mirrored there; secrets in replies are redacted', async () => {
    const { t, runner, a } = await setup();
    llm.enqueue({ text: 'hi from 2' });
    a.say('hello', { chatId: '2', userId: '2' });
    await until(() => a.texts('2').includes('hi from 2'), 5000);
    llm.enqueue({ toolCalls: [{ name: 'send_message', arguments: { target: 'telegram:2', message: 'Reminder: standup at 10' } }] }, { text: 'Sent. The key is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd' });
    a.say('remind chat 2 about standup');
    await until(() => a.texts('2').includes('Reminder: standup at 10'), 5000, 'the delivery');
    await until(() => a.texts().some((x) => x.startsWith('Sent.')), 5000, 'the answer');
    const answer = a.texts().find((x) => x.startsWith('Sent.'))!;
    assert.doesNotMatch(answer, /ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd/);
    const sid = runner.index.get('agent:main:telegram:dm:2')!.session_id;
    assert.ok(
      (await runner.transcripts.getMessages(sid)).some((m) => m.role === 'assistant' && m.content === 'Reminder: standup at 10'),
      'mirrored into the target conversation',
    );
    void t;
    const listed = await runner.router.listTargets();
    assert.ok(listed.chats.some((c) => c.target === 'telegram:2'));
    await runner.close();
  });

  test('evicted sessions come back from the store with their history', async () => {
    const { runner, a } = await setup({ yaml: 'agent:\n  agent_cache:\n    max_size: 1\n' });
    llm.enqueue({ text: 'A1' });
    a.say('alpha fact', { chatId: '1', userId: '1' });
    await until(() => a.texts('1').includes('A1'), 5000);
    llm.enqueue({ text: 'B1' });
    a.say('beta', { chatId: '2', userId: '2' });
    await until(() => a.texts('2').includes('B1'), 5000);
    assert.equal(runner.cache.size, 1);
    assert.equal(runner.cache.maxSize, 1, 'agent.agent_cache.max_size wins over the memory-sized default');
    llm.enqueue({ text: 'A2' });
    a.say('and again', { chatId: '1', userId: '1' });
    await until(() => a.texts('1').includes('A2'), 5000);
    assert.match(JSON.stringify(llm.requests[llm.requests.length - 1].body.messages), /alpha fact/);
    assert.equal(lastUser(), 'and again');
    await runner.close();
  });

  test('without agent.agent_cache.max_size the warm cache is sized from memory', async () => {
    const { runner } = await setup();
    assert.equal(runner.cache.maxSize, defaultCacheSize());
    assert.ok(runner.cache.maxSize >= 128);
    await runner.close();
  });

  test('mid-turn commands: /model is refused, /status answers, /stop stops', async () => {
    const { runner, a } = await setup();
    llm.enqueue({ text: 'never', hang: true });
    a.say('long task');
    await until(() => llm.requests.some((r) => JSON.stringify(r.body).includes('long task')), 5000);
    a.say('/model other');
    await until(() => a.texts().some((x) => /can't run mid-turn/.test(x)), 5000);
    a.say('/status');
    await until(() => a.texts().some((x) => /\(working\)/.test(x)), 5000);
    a.say('/stop');
    await until(() => a.texts().some((x) => /Stopped/.test(x)), 5000);
    await until(() => runner.activeTurns === 0, 5000, 'the turn to end');
    assert.ok(!a.texts().includes('never'));
    await runner.close();
  });
});
