// The chat commands of the shared registry (src/commands/chat.ts) in a real Telegram chat: the real
// grammy adapter against the fake Bot API, the gateway daemon and its supervisor. /help lists them,
// /commands pages them, /platform shows and pauses platforms, /topup answers, /restart drains and
// stops the gateway for the process that runs it to start again.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

describe('chat commands from the shared registry', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;
  /** Sends `text`; the replies since, joined, once one matches `re`. */
  const ask = async (text: string, re: RegExp) => {
    const from = tg.calls.length;
    tg.userMessage({ chatId: OWNER, text, username: 'owner' });
    const since = () => tg.calls.slice(from).filter((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER);
    await until(() => since().some(isText(OWNER, re)), 10_000, `the reply to ${text}`);
    return since().map((c) => String(c.params.text)).join('\n');
  };

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
  });

  test('/help lists the chat commands; the menu publishes them; /commands pages everything', async () => {
    const help = await ask('/help', /skill commands/);
    for (const n of ['approve', 'deny', 'sethome', 'start', 'restart', 'platform', 'commands', 'topic', 'topup', 'suggestions']) assert.match(help, new RegExp(`/${n}\\b`), `/${n} in /help`);
    assert.doesNotMatch(help, /\/subscription\b/, '/subscription is the terminal\'s');
    const menu = tg.calls.find((c) => c.method === 'setMyCommands');
    const names = (menu?.params.commands as { command: string }[]).map((c) => c.command);
    for (const n of ['restart', 'platform', 'commands', 'deny']) assert.ok(names.includes(n), `${n} in the menu`);
    const first = await ask('/commands', /^Commands \(\d+, page 1\/\d+\)/);
    const [, total, pages] = /^Commands \((\d+), page 1\/(\d+)\)/.exec(first)!;
    assert.equal(Number(pages), Math.ceil(Number(total) / 15), 'Telegram pages hold 15');
    assert.equal(first.split('\n').filter((l) => l.startsWith('/')).length, 15);
    assert.match(first, /next → \/commands 2/);
    const last = await ask(`/commands ${Number(pages) + 5}`, /out of range/);
    assert.match(last, new RegExp(`page ${pages}/${pages}`));
    assert.match(await ask('/commands two', /Usage: \/commands/), /^Usage: \/commands \[page\]$/);
  });

  test('/platform lists the platforms; pause refuses a connected one and pauses one that retries', async () => {
    assert.match(await ask('/platform', /Gateway platforms/), /Connected: telegram\nFailed\/paused: \(none\)/);
    assert.match(await ask('/platform pause telegram', /retry queue/), /telegram is not in the retry queue \(it is connected\)/);
    assert.match(await ask('/platform pause', /Usage/), /Usage: \/platform pause &lt;name&gt;/);
    assert.match(await ask('/platform pause nowhere', /Unknown platform/), /Unknown platform: nowhere/);
    // A platform failing to reconnect (the state the supervisor keeps while it retries).
    const st = gw.supervisor.status.get('telegram')!;
    gw.supervisor.status.set('telegram', { ...st, state: 'reconnecting', attempts: 3, last_error: 'socket hang up' });
    assert.match(await ask('/platform pause telegram', /paused/), /✓ telegram paused/);
    assert.equal(gw.supervisor.status.get('telegram')!.state, 'paused');
    assert.match(await ask('/platform list', /PAUSED/), /telegram — PAUSED.*\/platform resume telegram/);
    gw.supervisor.status.set('telegram', { ...st, state: 'connected' });
    assert.match(await ask('/platform resume telegram', /not paused/), /telegram is not paused \(it is connected\)/);
  });

  test('/topup says in one line that the provider has no billing page', async () => {
    assert.match(await ask('/topup', /billing page/), /^custom has no billing page Hermes knows of/);
  });

  test('/topic: a Telegram DM topic is its own session; /topic <id> continues a saved one there', async () => {
    const askIn = async (threadId: number | undefined, text: string, re: RegExp) => {
      const from = tg.calls.length;
      tg.userMessage({ chatId: OWNER, text, username: 'owner', threadId });
      const since = () => tg.calls.slice(from).filter((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER);
      await until(() => since().some(isText(OWNER, re)), 10_000, `the reply to ${text}`);
      return since().map((c) => String(c.params.text)).join('\n');
    };
    assert.match(await askIn(undefined, '/topic', /Telegram topics/), /each topic of this private chat is an independent Hermes session/);
    assert.match(await askIn(undefined, '/topic abc', /first create or open a Telegram topic/), /send \/topic &lt;session-id&gt; inside that topic/);
    llm.enqueue({ text: 'main chat answer' });
    await askIn(undefined, 'hello in the main chat', /main chat answer/);
    llm.enqueue({ text: 'topic answer' });
    await askIn(7, 'hello in a topic', /topic answer/);
    gw.runner.index.flush();
    const sessions = JSON.parse(readFileSync(join(t.home, 'sessions', 'sessions.json'), 'utf8')) as Record<string, { session_id: string }>;
    const main = sessions[`agent:main:telegram:dm:${OWNER}`].session_id;
    const topic = sessions[`agent:main:telegram:dm:${OWNER}:7`].session_id;
    assert.notEqual(main, topic);
    assert.match(await askIn(7, '/topic', /This topic is linked to/), new RegExp(`ID: ${topic}`));
    assert.match(await askIn(7, `/topic ${main}`, /Resumed/), new RegExp(`\\(${main}\\): 2 messages`));
    gw.runner.index.flush();
    const after = JSON.parse(readFileSync(join(t.home, 'sessions', 'sessions.json'), 'utf8')) as Record<string, { session_id: string }>;
    assert.equal(after[`agent:main:telegram:dm:${OWNER}:7`].session_id, main);
    tg.userMessage({ chatId: -500, userId: OWNER, text: '/topic', username: 'owner' });
    await tg.waitFor(isText(-500, /only available in Telegram private chats/), 10_000, '/topic in a group');
  });

  test('/restart drains and stops the gateway, asking the process that runs it to start it again', async () => {
    assert.equal(gw.restart, null);
    await ask('/restart', /Restarting gateway\. If you aren't notified within 60 seconds/);
    await gw.closed;
    assert.deepEqual(gw.restart, { platform: 'telegram', chatId: String(OWNER), threadId: undefined });
    // The gateway started again tells the chat that asked, once.
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    await tg.waitFor(isText(OWNER, /Gateway restarted successfully/), 10_000, 'the restart notice');
    assert.ok(!existsSync(join(t.home, '.restart_notify.json')));
  });
});

describe('restartGateway', () => {
  test('under a service manager the gateway exits 75 for it to start the gateway again', async () => {
    const { restartGateway, RESTART_EXIT_CODE } = await import('../../src/gateway/daemon.ts');
    assert.equal(RESTART_EXIT_CODE, 75);
    assert.equal(await restartGateway('/nonexistent-home', { INVOCATION_ID: 'abc' }, '/nonexistent-bin'), 75);
  });
});
