// The delivery ledger on PostgreSQL: two `hermes gateway run` (two homes, as two machines would be)
// on one database and one Telegram bot, chats talking as people do, while the database is restarted
// (`pg_ctl restart -m immediate`: every connection cut, every advisory lock released) and the owner
// of the bot is SIGKILLed mid-turn. Every message is answered exactly once, nobody is told to send a
// message again, only one gateway ever polls the bot, and `hermes gateway status` counts it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { gatewayHome, until } from '../gateway/helpers.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);
const CHATS = 12;
const PER_CHAT = 4;

let cluster: PgCluster | null = null;
let llm: FakeLlm;
let tg: FakeTelegram;
const children: ChildProcess[] = [];
before(async () => {
  llm = await startFakeLlm();
  tg = await startFakeTelegram();
  // Commits acknowledged are durable (the helper's default, synchronous_commit off, loses the last
  // ones in a crash restart, which no client can make exactly-once).
  if (!skip) cluster = await startPostgres({ settings: { synchronous_commit: 'on' } });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tg.close();
  await llm.close();
  cluster?.stop();
});

interface Gw {
  name: string;
  home: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

function gateway(name: string, url: string, home?: string): Gw {
  const h = home ?? gatewayHome({ llmUrl: llm.openaiBaseUrl, yaml: `state:\n  backend: postgres\n  url: ${url}\n` }).home;
  const env = {
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.url,
    TELEGRAM_ALLOW_ALL_USERS: 'true',
    MESSAGING_CWD: '/tmp',
    HERMES_GATEWAY_FAILOVER_POLL_MS: '300',
    HERMES_GATEWAY_HEARTBEAT_MS: '300',
    HERMES_GATEWAY_STATUS_INTERVAL_MS: '500',
  };
  const child = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: h, env: cleanEnv(h, env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { name, home: h, child, output: () => out, exited: new Promise((r) => child.on('exit', r)) };
}

const owns = (g: Gw) => /telegram: this gateway .* owns it now/.test(g.output());

describe('delivery ledger on PostgreSQL: database restarts and a failover', { skip: skip ?? false }, () => {
  it(`${CHATS} chats × ${PER_CHAT} messages through two database restarts and the owner SIGKILLed: each answered once, no notice`, {
    timeout: 180_000,
  }, async () => {
    const url = await cluster!.createDatabase('ledger');
    const inModel = new Set<string>();
    llm.setHandler(async (req) => {
      const msgs = req.body.messages as { role: string; content: unknown }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      const id = /msg (\d+-\d+)/.exec(String(msgs.at(-1)?.content))?.[1];
      if (!id) return { text: 'ok' };
      inModel.add(id);
      await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 350)));
      inModel.delete(id);
      return { text: `Answer ${id}.` };
    });
    const a = gateway('A', url);
    await until(() => owns(a) && tg.pollers() > 0, 60_000, 'gateway A to own the bot');
    const b = gateway('B', url);
    await until(() => /telegram: another gateway owns it; standing by/.test(b.output()), 60_000, 'gateway B to stand by');
    const all = () => {
      return `--- A\n${a.output().slice(-3000)}\n--- B\n${b.output().slice(-3000)}`;
    };

    // Only one gateway may poll the bot at any moment.
    let maxPollers = 0;
    const sampler = setInterval(() => (maxPollers = Math.max(maxPollers, tg.pollers())), 25);

    const answered = (chat: number, n: number) => tg.calls.some((c) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && String(c.params.text).includes(`Answer ${chat}-${n}.`));
    let done = 0;
    const chats = Array.from({ length: CHATS }, async (_, i) => {
      const chat = 7000 + i;
      for (let n = 1; n <= PER_CHAT; n++) {
        tg.userMessage({ chatId: chat, text: `msg ${chat}-${n}` });
        await until(() => answered(chat, n), 45_000, `the answer to ${chat}-${n}`);
        done++;
        await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 300)));
      }
    });
    const everyone = Promise.all(chats).catch((e: Error) => {
      throw new Error(`${e.message}\n${all()}`);
    });
    const total = CHATS * PER_CHAT;

    // 1. The database restarts while turns run on A: A keeps the bot, B keeps standing by.
    await until(() => done >= total / 4 && inModel.size > 0, 60_000, 'a quarter done, turns in flight');
    await cluster!.restart();
    await until(() => /cluster: reconnected to the database \(holding telegram\)/.test(a.output()), 30_000, 'A to take its lock back').catch((e: Error) => {
      throw new Error(`${e.message}\n${all()}`);
    });

    // 2. A is SIGKILLed with a turn in the model: B takes the bot over and answers what A left.
    await until(() => done >= total / 2 && inModel.size > 0, 60_000, 'half done, turns in flight');
    a.child.kill('SIGKILL');
    await a.exited;
    await until(() => owns(b), 30_000, 'B to take the bot over');
    // A's machine comes back as the standby.
    const a2 = gateway('A2', url, a.home);
    await until(() => /telegram: another gateway owns it; standing by/.test(a2.output()), 60_000, 'A to stand by');

    // 3. The database restarts again, now under B, with the standby waiting for a free lock.
    await until(() => done >= (total * 3) / 4 && inModel.size > 0, 60_000, 'three quarters done, turns in flight');
    await cluster!.restart();
    await everyone;
    await new Promise((r) => setTimeout(r, 1500)); // a second copy would come now
    clearInterval(sampler);

    const texts = tg.calls.filter((c) => c.method === 'sendMessage').map((c) => `${c.params.chat_id}|${String(c.params.text)}`);
    let lost = 0;
    let duplicated = 0;
    for (let i = 0; i < CHATS; i++)
      for (let n = 1; n <= PER_CHAT; n++) {
        const chat = 7000 + i;
        const copies = texts.filter((x) => x.startsWith(`${chat}|`) && x.includes(`Answer ${chat}-${n}.`)).length;
        if (copies === 0) lost++;
        if (copies > 1) duplicated++;
      }
    const notices = texts.filter((x) => /restarted before it finished|may be a duplicate/.test(x)).length;
    console.log(`# ledger on PostgreSQL: ${total} messages, 2 database restarts, 1 failover: lost ${lost}, duplicated ${duplicated}, notices ${notices}, most pollers at once ${maxPollers}`);
    assert.equal(lost, 0, 'no message lost');
    assert.equal(duplicated, 0, `no message answered twice\n${all()}`);
    assert.equal(notices, 0, 'nobody was told to send a message again');
    assert.equal(maxPollers, 1, 'only one gateway polled the bot at a time');
    assert.ok(owns(b) && !owns(a2), 'B kept the bot through the second restart');
    assert.doesNotMatch(a.output() + b.output() + a2.output(), /another gateway took it while the database was away/);
    assert.doesNotMatch(a.output() + b.output() + a2.output(), /Unhandled|uncaught/i);

    // The model saw each message once per request.
    for (const r of llm.requests) {
      const users = (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content));
      const ids = users.flatMap((u) => [...u.matchAll(/msg (\d+-\d+)/g)].map((m) => m[1]));
      assert.equal(new Set(ids).size, ids.length, `a request showed a message twice: ${ids.join(', ')}`);
    }

    // `hermes gateway status` on B (the running owner) counts the cluster's ledger.
    const countsBy = performance.now() + 30_000;
    for (;;) {
      const st = await hermes(['gateway', 'status', '--json'], { home: b.home });
      if ((JSON.parse(st.stdout).ledger as { answered?: number } | null)?.answered === total) break;
      if (performance.now() > countsBy) assert.fail(`the counts were not written: ${JSON.stringify(JSON.parse(st.stdout).ledger)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const st = await hermes(['gateway', 'status', '--json'], { home: b.home });
    const ledger = JSON.parse(st.stdout).ledger as { received: number; answered: number; pending: number; replayed: number; givenUp: number };
    assert.equal(ledger.received, total);
    assert.equal(ledger.answered, total);
    assert.equal(ledger.pending, 0);
    assert.equal(ledger.givenUp, 0);
    assert.ok(ledger.replayed >= 1, 'the message in the model at the kill was answered by B');
    const text = await hermes(['gateway', 'status'], { home: b.home });
    assert.match(text.stdout, new RegExp(`Messages \\(7 days\\): ${total} received, ${total} answered, 0 pending, ${ledger.replayed} replayed after a restart, 0 given up`));

    for (const g of [b, a2]) g.child.kill('SIGTERM');
    await Promise.all([b.exited, a2.exited]);
  });
});
