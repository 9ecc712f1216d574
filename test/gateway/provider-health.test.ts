// Provider health across the gateway's cached sessions: a primary that hangs before its first byte
// is left by one chat's session at the deadline, and every other session of the gateway starts on
// the fallback from then on without trying it (one process, one registry per home).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const ALICE = 111;
const BOB = 222;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

describe('gateway: provider health shared by the cached sessions', () => {
  let llm: FakeLlm;
  let proxy: FaultProxy;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    llm.setHandler((r) => (!(Array.isArray(r.body.tools) && r.body.tools.length) ? { text: 'A title' } : { text: r.body.model === 'backup-model' ? 'Answered by the backup.' : 'Answered by the primary.' }));
    proxy = await startFaultProxy(llm.url);
    tg = await startFakeTelegram();
    t = gatewayHome({
      llmUrl: proxy.openaiBaseUrl,
      env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: `${ALICE},${BOB}`, HERMES_STREAM_FIRST_BYTE_TIMEOUT: '1.5' },
      yaml: `fallback_providers:\n  - provider: custom\n    model: backup-model\n    base_url: ${llm.openaiBaseUrl}\n    api_key: backup-key\n`,
    });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await proxy?.close();
    await llm?.close();
  });

  test('one chat’s session leaves the silent primary; the other chat’s session never tries it', async () => {
    proxy.setDefault({ stallBeforeFirstByte: true });
    const turnPosts = () => proxy.requests.filter((r) => r.method === 'POST' && /"tools"/.test(r.body)).length;

    tg.userMessage({ chatId: ALICE, text: 'hello?' });
    await tg.waitFor(isText(ALICE, /Answered by the backup\./), 20_000, 'Alice’s answer from the backup');
    assert.equal(turnPosts(), 1, 'Alice’s turn tried the primary once, until the deadline');
    // Alice is told in one line, before the answer, that another model answers.
    const aliceTexts = tg.calls.filter(isText(ALICE, /./)).map((c) => String(c.params.text));
    const switched = aliceTexts.findIndex((t) => /^⇄ switching from custom:fake-model to fallback custom:backup-model: no response within 1\.5s/.test(t));
    assert.ok(switched >= 0 && switched < aliceTexts.findIndex((t) => /Answered by the backup/.test(t)), aliceTexts.join('\n'));

    tg.userMessage({ chatId: BOB, text: 'hi there' });
    await tg.waitFor(isText(BOB, /Answered by the backup\./), 20_000, 'Bob’s answer from the backup');
    assert.equal(turnPosts(), 1, 'Bob’s session went straight to the fallback');
    assert.equal(tg.calls.filter(isText(BOB, /Answered/)).length, 1);
    assert.equal(tg.calls.filter(isText(BOB, /^⇄ .*custom:fake-model is not answering .*using custom:backup-model until it answers again/)).length, 1, 'Bob hears once why another model answers');
  });
});
