// The delivery ledger under kills: 100 chats on the fake Telegram talk to the real `hermes gateway
// run` (SQLite state.db), each sending its next message once the last was answered, as people do,
// while the gateway is SIGKILLed at seeded random moments and started again. Every message must be
// answered exactly once, nobody told to send a message again, the model shown each message once per
// request, and `hermes gateway status` must count what happened.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.ts';
import { gatewayHome, until } from '../gateway/helpers.ts';

const CHATS = Number(process.env.LEDGER_SOAK_CHATS ?? 100);
const PER_CHAT = 3;
const KILLS = 3;
const SEED = Number(process.env.LEDGER_SOAK_SEED ?? 36);

/** mulberry32: the kill points are random, and the same every run of a seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let llm: FakeLlm;
let tg: FakeTelegram;
const children: ChildProcess[] = [];
before(async () => {
  llm = await startFakeLlm();
  tg = await startFakeTelegram();
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tg.close();
  await llm.close();
});

describe('delivery ledger: gateway SIGKILLed under load (SQLite)', () => {
  it(`${CHATS} chats × ${PER_CHAT} messages, ${KILLS} kills at seeded random points: each answered exactly once, no notice`, {
    timeout: 180_000,
  }, async () => {
    const random = rng(SEED);
    const people = rng(SEED + 1);
    llm.setHandler((req) => {
      const msgs = req.body.messages as { role: string; content: unknown }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      const m = /msg (\d+-\d+)/.exec(String(msgs.at(-1)?.content));
      // A short, varying think time: turns are in flight whenever a kill comes.
      return { text: m ? `Answer ${m[1]}.` : 'ok', delayMs: 20 + Math.floor(Math.random() * 200) };
    });
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl });
    const env = cleanEnv(t.home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOW_ALL_USERS: 'true', MESSAGING_CWD: '/tmp', HERMES_GATEWAY_STATUS_INTERVAL_MS: '500' });
    let out = '';
    const start = () => {
      const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: t.home, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      return { child, exited: new Promise((r) => child.on('exit', r)) };
    };
    let gw = start();
    await until(() => tg.pollers() > 0, 60_000, 'the gateway to poll Telegram');

    const answered = (chat: number, n: number) => tg.calls.some((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && String(c.params.text).includes(`Answer ${chat}-${n}.`));
    const waiting = new Set<string>();
    let done = 0;
    // People: each chat sends its next message once the last one is answered.
    const chats = Array.from({ length: CHATS }, async (_, i) => {
      const chat = 5000 + i;
      for (let n = 1; n <= PER_CHAT; n++) {
        waiting.add(`${chat}-${n}`);
        tg.userMessage({ chatId: chat, text: `msg ${chat}-${n}` });
        await until(() => answered(chat, n), 180_000, `the answer to ${chat}-${n}`);
        waiting.delete(`${chat}-${n}`);
        done++;
        // A person reads the answer before writing again.
        await new Promise((r) => setTimeout(r, 100 + Math.floor(people() * 600)));
      }
    });
    const everyone = Promise.all(chats);

    // The killer: at seeded random moments while messages are in flight. The next kill comes once
    // the messages a kill cut short are answered (a message caught by two kills is the loop guard's
    // case, which the guard answers with a notice: not what this test counts).
    let kills = 0;
    for (let k = 0; k < KILLS && done < CHATS * PER_CHAT; k++) {
      await new Promise((r) => setTimeout(r, 100 + Math.floor(random() * 900)));
      if (done === CHATS * PER_CHAT) break;
      const cut = [...waiting];
      gw.child.kill('SIGKILL');
      await gw.exited;
      kills++;
      gw = start();
      await until(() => tg.pollers() > 0, 60_000, 'the restarted gateway to poll');
      await until(() => cut.every((id) => !waiting.has(id)), 120_000, `the ${cut.length} message(s) in flight at kill ${kills} to be answered`).catch((e: Error) => {
        throw new Error(`${e.message}\n${out.slice(-4000)}`);
      });
    }
    await everyone.catch((e: Error) => {
      throw new Error(`${e.message}\n${out.slice(-6000)}`);
    });
    // Anything late (a second copy) would come now.
    await new Promise((r) => setTimeout(r, 1500));

    const texts = tg.calls.filter((c) => c.method === 'sendMessage').map((c) => `${c.params.chat_id}|${String(c.params.text)}`);
    let lost = 0;
    let duplicated = 0;
    for (let i = 0; i < CHATS; i++)
      for (let n = 1; n <= PER_CHAT; n++) {
        const chat = 5000 + i;
        const copies = texts.filter((x) => x.startsWith(`${chat}|`) && x.includes(`Answer ${chat}-${n}.`)).length;
        if (copies === 0) lost++;
        if (copies > 1) duplicated++;
      }
    const notices = texts.filter((x) => /restarted before it finished|may be a duplicate/.test(x)).length;
    console.log(`# ledger soak: ${CHATS * PER_CHAT} messages, ${kills} kills, lost ${lost}, duplicated ${duplicated}, notices ${notices}`);
    assert.ok(kills >= 2, `the gateway was killed mid-run (${kills} times)`);
    assert.equal(lost, 0, 'no message lost');
    assert.equal(duplicated, 0, 'no message answered twice');
    assert.equal(notices, 0, 'nobody was told to send a message again');

    // The model saw each message once per request (a turn cut short is rewound before it runs again).
    for (const r of llm.requests) {
      const users = (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content));
      const ids = users.flatMap((u) => [...u.matchAll(/msg (\d+-\d+)/g)].map((m) => m[1]));
      assert.equal(new Set(ids).size, ids.length, `a request showed a message twice: ${ids.join(', ')}`);
    }

    // hermes gateway status counts it all.
    const st = await hermes(['gateway', 'status', '--json'], { home: t.home });
    const ledger = JSON.parse(st.stdout).ledger as { received: number; answered: number; pending: number; replayed: number; givenUp: number };
    assert.equal(ledger.received, CHATS * PER_CHAT);
    assert.equal(ledger.answered, CHATS * PER_CHAT);
    assert.equal(ledger.pending, 0);
    assert.equal(ledger.givenUp, 0);
    assert.ok(ledger.replayed > 0, 'some messages were answered after a restart');
    const text = await hermes(['gateway', 'status'], { home: t.home });
    assert.match(text.stdout, new RegExp(`Messages \\(7 days\\): ${CHATS * PER_CHAT} received, ${CHATS * PER_CHAT} answered, 0 pending, ${ledger.replayed} replayed after a restart, 0 given up`));
    gw.child.kill('SIGTERM');
    await gw.exited;
  });
});
