// Telegram end to end: the real grammy adapter against a fake Bot API server on loopback
// (TELEGRAM_API_ROOT), the gateway runner, real tools and the fake LLM.
import { createServer } from 'node:net';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

describe('telegram gateway', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
  });

  test('an allowed user gets an answer, with typing and the PID file', async () => {
    llm.enqueue({ text: 'Hello from **Hermes**!', delayMs: 600 });
    tg.userMessage({ chatId: OWNER, text: 'hi there', username: 'owner' });
    const reply = await tg.waitFor(isText(OWNER, /Hello from/), 10_000, 'the reply');
    assert.equal(reply.params.parse_mode, 'HTML');
    assert.match(reply.params.text, /<b>Hermes<\/b>/);
    assert.ok(tg.calls.some((c) => c.method === 'sendChatAction' && c.params.action === 'typing' && Number(c.params.chat_id) === OWNER));
    const last = llm.requests[llm.requests.length - 1];
    assert.equal(last.body.messages[last.body.messages.length - 1].content, 'hi there');
    assert.match(last.body.messages[0].content, /talking on telegram/);
    assert.ok(existsSync(join(t.home, 'gateway.pid')));
    const menu = tg.calls.find((c) => c.method === 'setMyCommands');
    const names = (menu?.params.commands as { command: string }[]).map((c) => c.command);
    assert.ok(names.includes('approve') && names.includes('new') && names.includes('sethome'), 'the command menu is published');
    gw.runner.index.flush();
    const sessions = JSON.parse(readFileSync(join(t.home, 'sessions', 'sessions.json'), 'utf8'));
    assert.ok(sessions[`agent:main:telegram:dm:${OWNER}`], 'session key as Hermes builds it');
    const sid = sessions[`agent:main:telegram:dm:${OWNER}`].session_id;
    assert.equal(gw.runner.transcripts.kind, 'state.db');
    assert.equal((await gw.runner.transcripts.db!.getSession(sid))?.source, 'telegram');
    assert.deepEqual(
      (await gw.runner.transcripts.getMessages(sid)).map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  test('a reply whose connection drops is sent again, once', async () => {
    llm.enqueue({ text: 'Delivered after all.' });
    tg.cutNext('sendMessage');
    tg.userMessage({ chatId: OWNER, text: 'are you there?' });
    await tg.waitFor(isText(OWNER, /Delivered after all/), 10_000, 'the reply, sent again');
    assert.equal(tg.calls.filter(isText(OWNER, /Delivered after all/)).length, 1);
  });

  test('a tool-using turn asks for approval with buttons; the button runs it', async () => {
    // In a folder of its own: the home's top level is sealed by the sandbox (it holds protected files).
    const victim = join(t.home, 'victims', 'victim-dir');
    mkdirSync(join(victim, 'sub'), { recursive: true });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'Deleted it.' });
    tg.userMessage({ chatId: OWNER, text: 'delete the victim dir' });
    const ask = await tg.waitFor(isText(OWNER, /Approval needed/), 10_000, 'the approval request');
    const keyboard = ask.params.reply_markup.inline_keyboard as { text: string; callback_data: string }[][];
    const once = keyboard.flat().find((b) => /once/i.test(b.text));
    assert.ok(once, 'an "Allow once" button');
    assert.ok(existsSync(victim), 'nothing ran before approval');
    // A stranger pressing the button is refused.
    tg.pressButton({ chatId: OWNER, userId: 999, messageId: 1, data: once!.callback_data });
    await tg.waitFor((c) => c.method === 'answerCallbackQuery' && /not allowed/.test(String(c.params.text)), 5000, 'the refusal');
    assert.ok(existsSync(victim));
    tg.pressButton({ chatId: OWNER, userId: OWNER, messageId: 1, data: once!.callback_data });
    await tg.waitFor(isText(OWNER, /Deleted it/), 10_000, 'the final answer');
    assert.ok(!existsSync(victim), 'the approved command ran');
    assert.ok(tg.calls.some((c) => c.method === 'sendMessage' && /💻 terminal: rm -rf/.test(String(c.params.text))), 'tool progress shown');
    assert.ok(tg.calls.some((c) => c.method === 'editMessageText' && /Approved \(once\)/.test(String(c.params.text))), 'the approval message is updated');
  });

  test('in a group topic (one shared session), an approval button pressed by an unauthorised member named like the owner does nothing', async () => {
    const GROUP = -100777;
    const TOPIC = 7;
    const victim = join(t.home, 'victims', 'group-victim');
    mkdirSync(victim, { recursive: true });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'Group cleanup done.' });
    tg.userMessage({ chatId: GROUP, userId: OWNER, username: 'owner', text: 'clean the group victim', chatType: 'supergroup', threadId: TOPIC });
    const ask = await tg.waitFor(isText(GROUP, /Approval needed/), 10_000, 'the approval request in the group');
    const data = (ask.params.reply_markup.inline_keyboard as { text: string; callback_data: string }[][]).flat().find((b) => /once/i.test(b.text))!.callback_data;
    const refusals = () => tg.calls.filter((c) => c.method === 'answerCallbackQuery' && /not allowed/.test(String(c.params.text))).length;
    const n = refusals();
    // A member with no username whose first name is the owner's id, then one whose first name is the owner's username.
    tg.pressButton({ chatId: GROUP, userId: 444, firstName: String(OWNER), messageId: ask.messageId!, data, threadId: TOPIC });
    tg.pressButton({ chatId: GROUP, userId: 445, firstName: 'owner', messageId: ask.messageId!, data, threadId: TOPIC });
    await until(() => refusals() >= n + 2, 5000, 'both presses refused');
    assert.ok(existsSync(victim), 'nothing ran on their presses');
    assert.ok(!tg.calls.some(isText(GROUP, /Group cleanup done/)));
    tg.pressButton({ chatId: GROUP, userId: OWNER, username: 'owner', messageId: ask.messageId!, data, threadId: TOPIC });
    await tg.waitFor(isText(GROUP, /Group cleanup done/), 10_000, 'the answer after the owner’s press');
    assert.ok(!existsSync(victim), 'the owner’s press approved it');
  });

  test('/deny in text refuses a pending approval', async () => {
    const keep = join(t.home, 'keep-dir');
    mkdirSync(keep, { recursive: true });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${keep}` } }] }, { text: 'OK, I left it alone.' });
    tg.userMessage({ chatId: OWNER, text: 'delete keep dir' });
    await tg.waitForCount(isText(OWNER, /Approval needed/), 2);
    tg.userMessage({ chatId: OWNER, text: '/deny' });
    await tg.waitFor(isText(OWNER, /left it alone/), 10_000, 'the answer after deny');
    assert.ok(existsSync(keep));
    const toolMsg = llm.requests[llm.requests.length - 1].body.messages.findLast((m: { role: string }) => m.role === 'tool');
    assert.match(toolMsg.content, /denied/);
  });

  test('a second message interrupts the running turn', async () => {
    llm.enqueue({ text: 'slow answer that must not arrive', delayMs: 3000 }, { text: 'Answer to the second message.' });
    tg.userMessage({ chatId: OWNER, text: 'first, slow question' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('first, slow question')), 5000, 'the first request');
    tg.userMessage({ chatId: OWNER, text: 'actually, second question' });
    await tg.waitFor(isText(OWNER, /Interrupting/), 5000, 'the interrupt ack');
    await tg.waitFor(isText(OWNER, /Answer to the second message/), 10_000, 'the second answer');
    assert.ok(!tg.calls.some(isText(OWNER, /must not arrive/)), 'the interrupted answer is not delivered');
    const last = llm.requests[llm.requests.length - 1].body.messages;
    assert.match(JSON.stringify(last), /actually, second question/);
  });

  test('a stranger gets a pairing code, is approved with `hermes pairing approve`, then is answered', async () => {
    const STRANGER = 222;
    const before = llm.requests.length;
    tg.userMessage({ chatId: STRANGER, text: 'let me in', username: 'stranger' });
    const codeMsg = await tg.waitFor(isText(STRANGER, /pairing code/i), 5000, 'the pairing code');
    const code = /code: ([A-Z2-9]{8})/.exec(String(codeMsg.params.text))?.[1];
    assert.ok(code, 'an 8-character code');
    assert.match(code!, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
    assert.equal(llm.requests.length, before, 'the stranger never reached the agent');
    const pending = join(t.home, 'pairing', 'telegram-pending.json');
    assert.equal(statSync(pending).mode & 0o777, 0o600);
    assert.ok(!readFileSync(pending, 'utf8').includes(code!), 'the code itself is not stored');
    assert.ok(!readFileSync(join(t.home, 'logs', 'gateway.log'), 'utf8').includes(code!), 'the code is not logged');
    // A second message within 10 minutes gets no new code.
    tg.userMessage({ chatId: STRANGER, text: 'hello??' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(tg.calls.filter(isText(STRANGER, /pairing code/i)).length, 1);

    const bad = await hermes(['pairing', 'approve', 'telegram', 'ZZZZZZZZ'], { home: t.home });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /No pending request/);
    const ok = await hermes(['pairing', 'approve', 'telegram', code!.toLowerCase()], { home: t.home });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /Approved user id 222 on telegram \(display name "stranger"/);
    const list = await hermes(['pairing', 'list'], { home: t.home });
    assert.match(list.stdout, /telegram\s+222\s+stranger/);

    llm.enqueue({ text: 'Welcome aboard.' });
    tg.userMessage({ chatId: STRANGER, text: 'am I in now?' });
    await tg.waitFor(isText(STRANGER, /Welcome aboard/), 10_000, 'the answer to the approved user');
  });

  test('group messages from strangers are ignored silently; [SILENT] replies are not sent', async () => {
    const GROUP = -100500;
    const before = tg.calls.length;
    tg.userMessage({ chatId: GROUP, userId: 333, text: 'hello bot', chatType: 'supergroup' });
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(!tg.calls.slice(before).some((c) => Number(c.params.chat_id) === GROUP));
    llm.enqueue({ text: '[SILENT] nothing to say' });
    tg.userMessage({ chatId: OWNER, text: 'just fyi, no reply needed' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('just fyi')), 5000, 'the request');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(!tg.calls.some(isText(OWNER, /nothing to say/)));
  });

  test('long replies are split at the Telegram limit; /status and /sethome work', async () => {
    const para = 'word '.repeat(500).trim();
    llm.enqueue({ text: `${para}\n\n${para}\n\n${para}` });
    tg.userMessage({ chatId: OWNER, text: 'write a lot' });
    const parts = await tg.waitForCount(isText(OWNER, /^word word/), 3, 10_000);
    for (const p of parts) assert.ok(String(p.params.text).length <= 4096);
    tg.userMessage({ chatId: OWNER, text: '/status' });
    await tg.waitFor(isText(OWNER, /Session key: agent:main:telegram:dm:111/), 5000, '/status');
    tg.userMessage({ chatId: OWNER, text: '/sethome' });
    await tg.waitFor(isText(OWNER, /home channel/), 5000, '/sethome');
    assert.match(readFileSync(join(t.home, '.env'), 'utf8'), /TELEGRAM_HOME_CHANNEL=111/);
    const r = await gw.runner.router.send('telegram', 'delivered to home');
    assert.deepEqual({ ok: r.ok }, { ok: true });
    await tg.waitFor(isText(OWNER, /delivered to home/), 5000, 'the home delivery');
  });
});

describe('telegram webhook mode and media', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
  });
  after(async () => {
    await tg.close();
    await llm.close();
  });

  test('webhook mode refuses to start without TELEGRAM_WEBHOOK_SECRET', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/tg' } });
    // A setting that can never work is not retried; with nothing else configured, nothing runs.
    await assert.rejects(
      runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false, backoff: () => 60_000 }),
      /No platform can start[\s\S]*telegram: TELEGRAM_WEBHOOK_URL is set but TELEGRAM_WEBHOOK_SECRET is not/,
    );
  });

  test('webhook mode: updates with the secret are answered, others refused', async () => {
    // A port the system says is free (a random one could be taken by a parallel test file).
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/tg-hook', TELEGRAM_WEBHOOK_SECRET: 'hook-secret-123', TELEGRAM_WEBHOOK_PORT: String(port), TELEGRAM_WEBHOOK_HOST: '127.0.0.1' },
    });
    const g = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    try {
      assert.equal(g.supervisor.status.get('telegram')?.state, 'connected');
      const set = tg.calls.find((c) => c.method === 'setWebhook')!;
      assert.equal(set.params.url, 'https://bot.example.com/tg-hook');
      assert.equal(set.params.secret_token, 'hook-secret-123');
      const update = (id: number, text: string) => JSON.stringify({ update_id: id, message: { message_id: id, date: 0, chat: { id: OWNER, type: 'private', first_name: 'O' }, from: { id: OWNER, is_bot: false, first_name: 'O' }, text } });
      const bad = await fetch(`http://127.0.0.1:${port}/tg-hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'wrong' }, body: update(900001, 'forged') });
      assert.equal(bad.status, 401);
      llm.enqueue({ text: 'Webhook reply.' });
      const ok = await fetch(`http://127.0.0.1:${port}/tg-hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'hook-secret-123' }, body: update(900002, 'via webhook') });
      assert.equal(ok.status, 200);
      await tg.waitFor(isText(OWNER, /Webhook reply/), 10_000, 'the webhook-mode reply');
      assert.ok(!llm.requests.some((r) => JSON.stringify(r.body).includes('forged')));
    } finally {
      await g.shutdown();
    }
  });

  test('a photo reaches the model as an image; MEDIA: lines go out as files', async () => {
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) } });
    const g = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    try {
      await until(() => tg.pollers() > 0, 5000, 'polling');
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077535e0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082', 'hex');
      tg.files.set('files/PHOTO1', png);
      const report = join(t.home, 'report.txt');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(report, 'the report');
      llm.enqueue({ text: `A one-pixel image. Here is the report:\nMEDIA:${report}` });
      tg.pushRaw({ message: { message_id: 7001, date: 0, chat: { id: OWNER, type: 'private', first_name: 'O' }, from: { id: OWNER, is_bot: false, first_name: 'O' }, caption: 'what is this?', photo: [{ file_id: 'PHOTO1', file_unique_id: 'uP1', width: 1, height: 1 }] } });
      const doc = await tg.waitFor((c) => c.method === 'sendDocument', 10_000, 'the document');
      assert.equal(Number(doc.params.chat_id), OWNER);
      assert.ok(tg.calls.some(isText(OWNER, /A one-pixel image/)));
      assert.ok(!tg.calls.some(isText(OWNER, /MEDIA:/)), 'the MEDIA line itself is not sent');
      const user = llm.requests[llm.requests.length - 1].body.messages.findLast((m: { role: string }) => m.role === 'user');
      assert.ok(Array.isArray(user.content));
      assert.equal(user.content[0].text.startsWith('what is this?'), true);
      assert.match(user.content[1].image_url.url, /^data:image\/jpeg;base64,iVBORw0KGgo/);
    } finally {
      await g.shutdown();
    }
  });
});
