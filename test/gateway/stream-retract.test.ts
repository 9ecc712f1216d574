// A streamed Telegram reply whose model stream is cut mid-answer: the gateway has already shown the
// partial answer by editing its message; the LLM client sends the request again, the message is
// withdrawn at once ("cut off; retrying") and ends as the retry's answer. The transcript keeps only
// that answer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;

describe('telegram: a streamed reply whose model stream breaks', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) },
      yaml: 'streaming:\n  enabled: true\n  edit_interval: 0.05\n  buffer_threshold: 10\n',
    });
    // gatewayHome turns retries off; this test is about the retry.
    t.config.agent.api_max_retries = 2;
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
  });

  test('the partial answer shown by edits is withdrawn and replaced by the retry’s answer', async () => {
    const partial = 'The answer is forty-two, because six times seven is forty-two. '.repeat(4);
    const edits: SentCall[] = [];
    const off = tg.onCall((c) => {
      if ((c.method === 'sendMessage' || c.method === 'editMessageText') && Number(c.params.chat_id) === OWNER) edits.push(c);
    });
    try {
      // Slow enough for the gateway to show part of it, then the connection drops.
      llm.enqueue({ text: partial, chunkDelayMs: 40, cutAfterChunks: 20 }, { text: 'Forty-two. That is all.' });
      tg.userMessage({ chatId: OWNER, text: 'what is the answer?' });
      await until(() => edits.find((c) => /That is all\./.test(String(c.params.text))), 20_000, 'the final answer in the chat');
      const texts = edits.map((c) => String(c.params.text));
      const firstPartial = texts.findIndex((x) => x.includes('six times seven'));
      const withdrawn = texts.findIndex((x) => /cut off; retrying/.test(x));
      assert.ok(firstPartial >= 0, `the partial answer was shown first: ${JSON.stringify(texts)}`);
      assert.ok(withdrawn > firstPartial, `then withdrawn: ${JSON.stringify(texts)}`);
      const last = texts.at(-1)!;
      assert.match(last, /^Forty-two\. That is all\.$/);
      assert.equal(edits.filter((c) => c.method === 'sendMessage').length, 1, 'one message, edited in place');
      gw.runner.index.flush();
      const sid = JSON.parse(readFileSync(join(t.home, 'sessions', 'sessions.json'), 'utf8'))[`agent:main:telegram:dm:${OWNER}`].session_id;
      const stored = await gw.runner.transcripts.getMessages(sid);
      assert.deepEqual(
        stored.map((m) => [m.role, m.content]),
        [
          ['user', 'what is the answer?'],
          ['assistant', 'Forty-two. That is all.'],
        ],
      );
    } finally {
      off();
    }
  });
});
