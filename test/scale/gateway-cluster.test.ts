// Two `hermes gateway run` processes (two machines: two homes) on one PostgreSQL and one Telegram bot:
// one owns the bot, the other stands by; the owner is SIGKILLed mid-turn, the other takes the bot
// over, answers the message the dead one left unanswered, and the chat goes on in the same session
// (routing and history shared in PostgreSQL): no reply twice, none lost.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { gatewayHome, until } from '../gateway/helpers.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);
const OWNER = 111;
const isText = (re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && re.test(String(c.params.text));

let cluster: PgCluster | null = null;
let llm: FakeLlm;
let tg: FakeTelegram;
const children: ChildProcess[] = [];
before(async () => {
  llm = await startFakeLlm();
  tg = await startFakeTelegram();
  if (!skip) cluster = await startPostgres();
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tg.close();
  await llm.close();
  cluster?.stop();
});

function gateway(url: string, extra: Record<string, string> = {}): { home: string; child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, yaml: `state:\n  backend: postgres\n  url: ${url}\n` });
  const env = { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER), MESSAGING_CWD: '/tmp', HERMES_GATEWAY_FAILOVER_POLL_MS: '300', ...extra };
  const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: t.home, env: cleanEnv(t.home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { home: t.home, child, output: () => out, exited: new Promise((r) => child.on('exit', r)) };
}

describe('several gateways on one PostgreSQL', { skip: skip ?? false }, () => {
  it('one owns the bot, the other takes over when it is SIGKILLed mid-turn; no reply twice, none lost', { timeout: 180_000 }, async () => {
    const url = await cluster!.createDatabase('gw');
    llm.setHandler((req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      const last = String(msgs.at(-1)?.content);
      if (last.includes('question two')) return { text: 'Answer two.', delayMs: 4000 };
      const m = last.match(/question (\w+)/);
      return { text: m ? `Answer ${m[1]}.` : 'ok' };
    });
    const a = gateway(url);
    await until(() => /telegram: this gateway .* owns it now/.test(a.output()) && tg.pollers() > 0, 60_000, 'gateway A to own the bot');
    const b = gateway(url);
    await until(() => /telegram: another gateway owns it; standing by/.test(b.output()), 60_000, 'gateway B to stand by');
    assert.equal(tg.pollers(), 1, 'only the owner polls the bot');

    tg.userMessage({ chatId: OWNER, text: 'question one' });
    await tg.waitFor(isText(/Answer one/), 20_000, 'answer one');

    tg.userMessage({ chatId: OWNER, text: 'question two' });
    await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages).includes('question two')), 20_000, 'A to start on question two');
    // Let A confirm the update to Telegram (its next poll), so Telegram will not send it again.
    await new Promise((r) => setTimeout(r, 500));
    a.child.kill('SIGKILL');
    await a.exited;

    await until(() => /telegram: this gateway .* owns it now/.test(b.output()), 30_000, 'B to take the bot over');
    await tg.waitFor(isText(/Answer two/), 30_000, 'the unanswered question two, answered by B');
    tg.userMessage({ chatId: OWNER, text: 'question three' });
    await tg.waitFor(isText(/Answer three/), 20_000, 'answer three');
    await new Promise((r) => setTimeout(r, 1000));
    for (const n of ['one', 'two', 'three']) assert.equal(tg.calls.filter(isText(new RegExp(`Answer ${n}`))).length, 1, `answer ${n} sent exactly once`);
    // The chat went on in the same session at B: its history came from PostgreSQL, not a fresh start.
    const asked = (word: string) => llm.requests.filter((r) => String((r.body.messages as { content: unknown }[]).at(-1)?.content).includes(`question ${word}`)).at(-1)!;
    const seen = (r: { body: Record<string, unknown> }) => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role !== 'system').map((m) => `${m.role}: ${String(m.content)}`);
    const third = seen(asked('three'));
    assert.deepEqual(
      third.filter((m) => /question|Answer/.test(m)),
      ['user: question one', 'assistant: Answer one.', 'user: question two', 'assistant: Answer two.', 'user: question three'],
      'B answers question three with the whole conversation, question two once',
    );
    const { default: pg } = await import('pg');
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const sessions = await db.query("SELECT id FROM sessions WHERE source = 'telegram'");
      assert.equal(sessions.rows.length, 1, 'one session for the chat, before and after the failover');
      const routed = await db.query('SELECT entry_json FROM gateway_routing');
      assert.equal(routed.rows.length, 1);
      assert.equal(JSON.parse(routed.rows[0].entry_json).session_id, sessions.rows[0].id, 'the shared routing points at that session');
      const texts = await db.query('SELECT role, content FROM messages WHERE session_id = $1 AND active = 1 ORDER BY id', [sessions.rows[0].id]);
      assert.deepEqual(
        texts.rows.filter((m) => /question|Answer/.test(String(m.content))).map((m) => `${m.role}: ${m.content}`),
        ['user: question one', 'assistant: Answer one.', 'user: question two', 'assistant: Answer two.', 'user: question three', 'assistant: Answer three.'],
        'the live conversation: the copy of question two A saved before dying is rewound (kept, not replayed)',
      );
    } finally {
      await db.end();
    }
    assert.doesNotMatch(tg.calls.filter((c) => c.method === 'sendMessage').map((c) => String(c.params.text)).join('\n'), /restarted before it finished/);
    b.child.kill('SIGTERM');
    await b.exited;
  });

  it('an owner cut off from the database past its heartbeats finds the bot taken when it is back: it stands by, nothing is answered twice', { timeout: 180_000 }, async () => {
    const url = await cluster!.createDatabase('cut');
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // A logs in as a role of its own, so the database can shut it alone out (a network cut, as A sees it).
    await admin.query('CREATE ROLE gw_cut LOGIN SUPERUSER');
    const urlA = url.replace('://hermes@', '://gw_cut@');
    assert.notEqual(urlA, url);
    llm.setHandler((req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      const m = String(msgs.at(-1)?.content).match(/cut (\w+)/);
      return { text: m ? `Reply ${m[1]}.` : 'ok' };
    });
    const fast = { HERMES_GATEWAY_HEARTBEAT_MS: '300' };
    const owns = (g: { output: () => string }) => /telegram: this gateway .* owns it now/.test(g.output());
    const a = gateway(urlA, fast);
    await until(() => owns(a) && tg.pollers() > 0, 60_000, 'gateway A to own the bot');
    const b = gateway(url, fast);
    await until(() => /telegram: another gateway owns it; standing by/.test(b.output()), 60_000, 'gateway B to stand by');
    const replies = (word: string) => tg.calls.filter((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === OWNER && String(c.params.text).includes(`Reply ${word}.`)).length;
    tg.userMessage({ chatId: OWNER, text: 'cut one' });
    await until(() => replies('one') === 1, 20_000, 'A to answer');

    // A is shut out: its connections cut, and it cannot log in again.
    await admin.query('ALTER ROLE gw_cut NOLOGIN');
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'gw_cut'");
    await until(() => owns(b), 30_000, 'B to take the bot over once A is silent for five heartbeats').catch((e: Error) => {
      throw new Error(`${e.message}\n--- A\n${a.output().slice(-2000)}\n--- B\n${b.output().slice(-2000)}`);
    });
    // A comes back: it finds its lock taken, stops polling and stands by.
    await admin.query('ALTER ROLE gw_cut LOGIN');
    await until(() => /telegram: another gateway took it while the database was away; this one stops taking its messages/.test(a.output()), 30_000, 'A to see the bot taken').catch((e: Error) => {
      throw new Error(`${e.message}\n--- A\n${a.output().slice(-2000)}`);
    });
    await until(() => tg.pollers() === 1, 30_000, 'only B to poll');
    let maxPollers = 0;
    const sampler = setInterval(() => (maxPollers = Math.max(maxPollers, tg.pollers())), 25);
    for (const word of ['two', 'three', 'four']) {
      tg.userMessage({ chatId: OWNER, text: `cut ${word}` });
      await until(() => replies(word) >= 1, 20_000, `the reply to ${word}`);
    }
    await new Promise((r) => setTimeout(r, 1500)); // a second copy would come now
    clearInterval(sampler);
    for (const word of ['one', 'two', 'three', 'four']) assert.equal(replies(word), 1, `${word} answered exactly once`);
    assert.equal(maxPollers, 1, 'one gateway polled the bot once A stood by');
    assert.ok(owns(b));
    assert.doesNotMatch(a.output() + b.output(), /Unhandled|uncaught/i);
    await admin.end();
    for (const g of [a, b]) g.child.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
  });

  it("a photo the dead gateway had downloaded reaches the model through the gateway that takes over", { timeout: 180_000 }, async () => {
    const url = await cluster!.createDatabase('gw_files');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077535e0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082', 'hex');
    tg.files.set('files/PHOTO9', png);
    llm.setHandler((req) => {
      const msgs = req.body.messages as { role: string; content: unknown }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      return JSON.stringify(msgs.at(-1)?.content).includes('what is in the photo') ? { text: 'A tiny picture.', delayMs: 4000 } : { text: 'ok' };
    });
    const a = gateway(url);
    await until(() => /telegram: this gateway .* owns it now/.test(a.output()) && tg.pollers() > 0, 60_000, 'gateway A to own the bot');
    const b = gateway(url);
    await until(() => /telegram: another gateway owns it; standing by/.test(b.output()), 60_000, 'gateway B to stand by');
    const asked = () => llm.requests.filter((r) => JSON.stringify(r.body.messages).includes('what is in the photo'));
    tg.pushRaw({ message: { message_id: 9901, date: 0, chat: { id: OWNER, type: 'private', first_name: 'O' }, from: { id: OWNER, is_bot: false, first_name: 'O' }, caption: 'what is in the photo?', photo: [{ file_id: 'PHOTO9', file_unique_id: 'uP9', width: 1, height: 1 }] } });
    await until(() => asked().length > 0, 20_000, 'A to start on the photo');
    await new Promise((r) => setTimeout(r, 500));
    a.child.kill('SIGKILL');
    await a.exited;
    // A's machine is gone, and its caches with it.
    const { rmSync, readdirSync } = await import('node:fs');
    rmSync(join(a.home, 'image_cache'), { recursive: true, force: true });
    await until(() => /telegram: this gateway .* owns it now/.test(b.output()), 30_000, 'B to take the bot over');
    await tg.waitFor(isText(/A tiny picture/), 30_000, 'the photo question, answered by B');
    const last = asked().at(-1)!.body.messages as { role: string; content: unknown }[];
    const user = last.findLast((m) => m.role === 'user')!;
    assert.ok(Array.isArray(user.content), 'the photo is in the message B sent to the model');
    assert.match(JSON.stringify(user.content), /data:image\/[a-z]+;base64,iVBORw0KGgo/);
    assert.ok(readdirSync(join(b.home, 'image_cache')).some((f) => f.startsWith('takeover-')), "B wrote the photo into its own cache");
    assert.equal(tg.calls.filter(isText(/A tiny picture/)).length, 1);
    b.child.kill('SIGTERM');
    await b.exited;
  });
});
