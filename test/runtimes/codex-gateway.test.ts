// A Telegram chat (the real grammy adapter against the fake Bot API) whose turns run inside the real
// codex app-server: codex's approval request arrives as the gateway's approval message with buttons,
// the turn lands in state.db, and /codex-runtime auto hands the chat back to Hermes's loop.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatedSuite } from '../helpers/skip.ts';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { loadConfig } from '../../src/state/config.ts';
import { codexHermesConfig, codexMissing, makeCodexHome, type CodexHome } from '../helpers/codex.ts';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from '../gateway/helpers.ts';

const OWNER = 4242;
const isText = (re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && re.test(String(c.params.text));
const skip = codexMissing() ?? false;

const { describe, it: test, before, after } = gatedSuite(skip || null);
describe('a gateway chat on the codex app-server runtime', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;
  let codex: CodexHome;
  const codexReplies: FakeReply[] = [];
  const loopReplies: FakeReply[] = [];

  before(async () => {
    llm = await startFakeLlm();
    llm.setHandler((r) => (r.wire === 'responses' ? (codexReplies.shift() ?? { text: '(none queued)' }) : (loopReplies.shift() ?? { text: 'loop ok' })));
    tg = await startFakeTelegram();
    codex = makeCodexHome(llm.openaiBaseUrl);
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), ...codex.env } });
    writeFileSync(join(t.home, 'config.yaml'), codexHermesConfig(llm.openaiBaseUrl));
    t.config = loadConfig(t.home, t.env).config;
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 10_000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
    codex?.cleanup();
  });

  test('codex asks through the gateway’s approval buttons; approved, the command runs and the turn is stored', async () => {
    codexReplies.push(
      { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo from-telegram > gw.txt', sandbox_permissions: 'require_escalated', justification: 'write gw.txt' } }] },
      { text: 'Wrote gw.txt for you.' },
    );
    tg.userMessage({ chatId: OWNER, text: 'please write gw.txt' });
    const ask = await tg.waitFor(isText(/Approval needed/), 60_000, 'the approval request');
    assert.match(String(ask.params.text), /echo from-telegram &gt; gw\.txt|echo from-telegram > gw\.txt/);
    assert.match(String(ask.params.text), /Codex wants to run this in/);
    assert.equal(existsSync(join(t.home, 'gw.txt')), false, 'nothing ran before approval');
    const once = (ask.params.reply_markup.inline_keyboard as { text: string; callback_data: string }[][]).flat().find((b) => /once/i.test(b.text))!;
    tg.pressButton({ chatId: OWNER, userId: OWNER, messageId: 1, data: once.callback_data });
    await tg.waitFor(isText(/Wrote gw\.txt for you\./), 60_000, 'the answer');
    assert.equal(readFileSync(join(t.home, 'gw.txt'), 'utf8'), 'from-telegram\n');
    assert.ok(tg.calls.some((c) => c.method === 'editMessageText' && /Approved \(once\)/.test(String(c.params.text))), 'the approval message is updated');

    const db = gw.runner.transcripts.db!;
    const [session] = await db.listSessions({ limit: 1 });
    assert.equal(session.source, 'telegram');
    const msgs = await db.getMessages(session.id);
    assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(msgs[1].tool_calls![0].function.name, 'exec_command');
    assert.match(String((await db.getModelConfig(session.id)).codex_thread_id), /^[0-9a-f-]{36}$/);
  });

  test('/deny declines the next request; /codex-runtime auto gives the chat back to the Hermes loop', async () => {
    codexReplies.push(
      { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo no > denied.txt', sandbox_permissions: 'require_escalated', justification: 'write denied.txt' } }] },
      { text: 'Fine, I did not write it.' },
    );
    tg.userMessage({ chatId: OWNER, text: 'write denied.txt' });
    await tg.waitForCount(isText(/Approval needed/), 2, 60_000);
    tg.userMessage({ chatId: OWNER, text: '/deny' });
    await tg.waitFor(isText(/Fine, I did not write it\./), 60_000, 'the answer after /deny');
    assert.equal(existsSync(join(t.home, 'denied.txt')), false);

    tg.userMessage({ chatId: OWNER, text: '/codex-runtime auto' });
    await tg.waitFor(isText(/Runtime: auto/), 10_000, 'the switch');
    const codexCalls = llm.requests.filter((r) => r.wire === 'responses').length;
    loopReplies.push({ text: 'Hermes loop here, and I remember gw.txt.' });
    tg.userMessage({ chatId: OWNER, text: 'who is answering now?' });
    await tg.waitFor(isText(/Hermes loop here/), 30_000, 'the loop answer');
    assert.equal(llm.requests.filter((r) => r.wire === 'responses').length, codexCalls, 'codex is not asked any more');
    const last = llm.requests.filter((r) => r.wire === 'chat').at(-1)!;
    assert.match(JSON.stringify(last.body.messages), /please write gw\.txt/, 'the restored session keeps the codex turns');
  });
});
