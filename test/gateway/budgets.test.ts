// budgets.daily_tokens across two processes of one home: a one-shot run (the real binary) spends
// past the day's cap, then the gateway (fake Telegram) asks before its next model call, with
// buttons: deny stops the turn with one line naming the cap, once lets the turn go on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;
const isText = (re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && re.test(String(c.params.text));

describe('budgets across processes, asked on Telegram', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway | undefined;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) }, yaml: 'budgets:\n  daily_tokens: 50000\n  action: ask\n' });
  });
  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
  });

  test('a one-shot run spends the day; the gateway asks; deny stops, once goes on', async () => {
    llm.setHandler(() => ({ text: 'Spent a lot.', usage: { input: 50_000, output: 100 } }));
    const r = await hermes(['chat', '-q', 'big job'], { home: t.home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /budgets\.daily_tokens: 100% used/, 'the 80% warning');
    // Another one-shot of the same home stops at once: no terminal to ask on.
    const before = llm.requests.length;
    const again = await hermes(['chat', '-q', 'more'], { home: t.home });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^hermes: budgets\.daily_tokens 50,000 tokens reached: 50,100 tokens spent today, all sessions of this home/m);
    assert.equal(llm.requests.length, before, 'nothing was sent');

    llm.setHandler(() => ({ text: 'Answered on Telegram.', usage: { input: 100, output: 10 } }));
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');

    tg.userMessage({ chatId: OWNER, text: 'hello', username: 'owner' });
    let ask = await tg.waitFor(isText(/budgets\.daily_tokens 50,000 tokens reached: 50,100 tokens spent today/), 15_000, 'the budget question');
    let keyboard = (ask.params.reply_markup.inline_keyboard as { text: string; callback_data: string }[][]).flat();
    const deny = keyboard.find((b) => /deny/i.test(b.text))!;
    tg.pressButton({ chatId: OWNER, userId: OWNER, messageId: ask.messageId!, data: deny.callback_data });
    await tg.waitFor(isText(/budgets\.daily_tokens 50,000 tokens reached.*The turn stopped/s), 15_000, 'the stop line');
    assert.ok(!tg.calls.some(isText(/Answered on Telegram/)));

    const n = tg.calls.length;
    tg.userMessage({ chatId: OWNER, text: 'please', username: 'owner' });
    await until(() => tg.calls.slice(n).find(isText(/budgets\.daily_tokens/)), 15_000, 'the second question');
    ask = tg.calls.slice(n).find(isText(/budgets\.daily_tokens/))!;
    keyboard = (ask.params.reply_markup.inline_keyboard as { text: string; callback_data: string }[][]).flat();
    const once = keyboard.find((b) => /once/i.test(b.text))!;
    tg.pressButton({ chatId: OWNER, userId: OWNER, messageId: ask.messageId!, data: once.callback_data });
    await tg.waitFor(isText(/Answered on Telegram/), 15_000, 'the answer after once');
  });
});
