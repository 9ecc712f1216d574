// Cron inside the gateway: a job created from a Telegram chat (the cronjob tool) remembers the chat
// as its origin; the gateway's ticker runs it and the report reaches the chat through the router.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { activeTicker } from '../../src/cron/scheduler.ts';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

describe('cron in the gateway', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, backgroundTasks: false });
    await until(() => tg.pollers() > 0 && activeTicker(t.home), 5000, 'telegram and the ticker');
  });
  after(async () => {
    await gw?.shutdown();
    await tg?.close();
    await llm?.close();
  });

  test('a job made in a chat delivers its report back to that chat', async () => {
    llm.enqueue({ toolCalls: [{ name: 'cronjob', arguments: { action: 'create', schedule: 'every 1h', prompt: 'Summarise the day', name: 'daily summary', deliver: 'origin' } }] }, { text: 'Scheduled: every hour.' });
    tg.userMessage({ chatId: OWNER, text: 'send me a summary every hour' });
    await tg.waitFor(isText(OWNER, /Scheduled: every hour/), 10_000, 'the confirmation');
    const jobs = JSON.parse(readFileSync(join(t.home, 'cron', 'jobs.json'), 'utf8'));
    const job = (jobs.jobs ?? jobs).find((j: { name: string }) => j.name === 'daily summary');
    assert.ok(job, JSON.stringify(jobs).slice(0, 300));
    assert.equal(job.deliver, 'origin');
    assert.equal(String(job.origin.chat_id), String(OWNER));
    assert.equal(job.origin.platform, 'telegram');

    const r = await hermes(['cron', 'run', job.id], { home: t.home, env: t.env as Record<string, string> });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /the running gateway will run it/);
    llm.enqueue({ text: 'Today: three things happened.' });
    activeTicker(t.home)!.poke();
    const report = await tg.waitFor(isText(OWNER, /Today: three things happened/), 15_000, 'the cron report');
    assert.match(String(report.params.text), /daily summary/);
  });
});
