// Gateway benchmark: the real `hermes gateway run` (the bundle in dist/) polling a fake Telegram
// Bot API server and answering through the zero-latency fake LLM, with 200 chats.
//  1. throughput: every chat sends its next message as soon as its last one is answered (closed
//     loop, 200 in flight), 5,000 messages;
//  2. latency: each chat sends one message a second (200 msg/s in all, open loop), 5,000 messages;
//     latency is "update available" → "reply received", which with an instant LLM is what the
//     gateway (and the fake servers) add;
//  3. the gateway's RSS every 1,000 messages over all 10,000, and its CPU time per message.
// The gateway runs with the Node flags Hermes gives its daemon (GATEWAY_NODE_FLAGS).
// The warm cache is the gateway's default (sized from the machine's memory, 128 at least);
// BENCH_GATEWAY_CACHE sets agent.agent_cache.max_size instead.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_NODE_FLAGS } from '../src/gateway/daemon.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { startFakeTelegram } from '../test/helpers/fake-telegram.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

const CHATS = Number(process.env.BENCH_GATEWAY_CHATS ?? 200);
const PHASE = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 5000);
const RATE = Number(process.env.BENCH_GATEWAY_RATE ?? 200);

/** CPU time (user + system, ms) a process has used so far. */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(parts[11]) + Number(parts[12])) * 1000) / 100;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : 0;
}

const bench: Bench = async () => {
  spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const llm = await startFakeLlm({ defaultReply: { text: 'ok, noted.' } });
  const tg = await startFakeTelegram({ record: false, retain: false });
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gw-'));
  const cache = process.env.BENCH_GATEWAY_CACHE ?? '';
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: bench-model\n  api_key: k\nagent:\n  api_max_retries: 0\n${cache ? `  agent_cache:\n    max_size: ${cache}\n` : ''}${process.env.BENCH_GATEWAY_YAML ?? ''}`);
  const env = cleanEnv(home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOW_ALL_USERS: 'true', MESSAGING_CWD: home });
  delete env.HERMES_FROM_SOURCE;
  // The flags Hermes starts the daemon with (gateway start, the systemd unit); BENCH_GATEWAY_NODE_FLAGS overrides.
  const nodeFlags = [...(process.env.BENCH_GATEWAY_NODE_FLAGS !== undefined ? process.env.BENCH_GATEWAY_NODE_FLAGS.split(' ').filter(Boolean) : GATEWAY_NODE_FLAGS), ...(process.env.BENCH_GATEWAY_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`] : [])];
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'gateway', 'run', '--quiet'], { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const rows: BenchRow[] = [];
  const pid = () => child.pid!;
  try {
    const deadline = Date.now() + 20_000;
    while (tg.pollers() === 0) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start: ${stderr.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Every chat's message in flight → the time it became available to the bot.
    const inflight = new Map<number, number>();
    let onReply: (chat: number, ms: number) => void = () => undefined;
    let answered = 0;
    const rss: { at: number; mb: number }[] = [];
    tg.onCall((c) => {
      if (c.method !== 'sendMessage') return;
      const chat = Number(c.params.chat_id);
      const at = inflight.get(chat);
      if (at === undefined) return;
      inflight.delete(chat);
      answered++;
      onReply(chat, performance.now() - at);
    });
    const send = (chat: number, n: number) => {
      inflight.set(chat, performance.now());
      tg.userMessage({ chatId: chat, text: `message ${n} from chat ${chat}` });
    };
    const chats = Array.from({ length: CHATS }, (_, i) => 10_000 + i);

    // Warm-up: chat i sends 1 + (i % 10) messages, so the chats are at different turn counts (as
    // real chats are) and per-turn work such as the self-review every 10 turns does not fire for
    // all 200 at the same moment.
    await new Promise<void>((resolve) => {
      const left = new Map(chats.map((c, i) => [c, 1 + (i % 10)]));
      let open = chats.length;
      onReply = (chat) => {
        const n = left.get(chat)! - 1;
        left.set(chat, n);
        if (n > 0) send(chat, 0);
        else if (--open === 0) resolve();
      };
      for (const c of chats) send(c, 0);
    });

    // 1. Throughput, closed loop.
    let measured = 0;
    const cpu0 = cpuMs(pid());
    const t0 = performance.now();
    const sat: number[] = [];
    await new Promise<void>((resolve) => {
      let issued = 0;
      let n = 0;
      onReply = (chat, ms) => {
        sat.push(ms);
        measured++;
        if (measured % 1000 === 0) rss.push({ at: measured, mb: rssMb(pid()) });
        if (measured >= PHASE) return resolve();
        if (issued < PHASE) {
          issued++;
          send(chat, ++n);
        }
      };
      for (const c of chats) {
        issued++;
        send(c, ++n);
      }
    });
    const secs = (performance.now() - t0) / 1000;
    const cpuPerMsg = (cpuMs(pid()) - cpu0) / PHASE;
    await new Promise((r) => setTimeout(r, 200));
    const rate = PHASE / secs;
    rows.push({ name: `throughput, ${CHATS} chats (closed loop)`, value: rate, unit: 'msg/s', target: '≥ 500', ok: rate >= 500, note: `${PHASE} messages in ${secs.toFixed(1)} s; latency at saturation p50 ${median(sat).toFixed(0)} ms` });
    rows.push({ name: 'gateway CPU per message', value: cpuPerMsg, unit: 'ms', note: `= ${(1000 / cpuPerMsg).toFixed(0)} msg/s on one core (from /proc, load-independent)` });

    // 2. Latency at RATE msg/s in all (open loop: each chat once every CHATS/RATE s).
    const lat: number[] = [];
    await new Promise<void>((resolve) => {
      let sent = 0;
      let got = 0;
      onReply = (_chat, ms) => {
        lat.push(ms);
        got++;
        if ((PHASE + got) % 1000 === 0) rss.push({ at: PHASE + got, mb: rssMb(pid()) });
        if (got >= PHASE) resolve();
      };
      const start = performance.now();
      const tick = () => {
        const due = Math.min(PHASE, Math.floor(((performance.now() - start) / 1000) * RATE));
        while (sent < due) {
          const chat = chats[sent % CHATS];
          if (inflight.has(chat)) break; // its previous message is still being answered
          send(chat, sent++);
        }
        if (sent < PHASE) setTimeout(tick, 2);
      };
      tick();
    });
    const p99 = percentile(lat, 99);
    rows.push({ name: `latency added at ${RATE} msg/s, p50`, value: median(lat), unit: 'ms' });
    rows.push({ name: `latency added at ${RATE} msg/s, p99`, value: p99, unit: 'ms', target: '≤ 50 ms', ok: p99 <= 50, note: `${CHATS} chats, one message/s each; update available → reply received, LLM instant` });

    // 3. Memory over all 10,000 messages.
    // The trend is taken over the last 3,000 messages: before that the heap is still growing to
    // its working size (200 warm sessions, their histories, V8's heap sizing). All samples are in the note.
    const last = rss[rss.length - 1];
    const tail = rss.slice(-4);
    const perK = slope(
      tail.map((r) => r.at / 1000),
      tail.map((r) => r.mb),
    );
    rows.push({ name: `gateway RSS after ${last.at} messages`, value: last.mb, unit: 'MB', note: `every 1k: ${rss.map((r) => r.mb.toFixed(0)).join(' ')}` });
    rows.push({ name: `RSS trend over the last ${(tail[tail.length - 1].at - tail[0].at) / 1000}k msgs`, value: perK, unit: 'MB/1k msgs', target: 'no upward trend (< 1)', ok: perK < 1, note: 'least-squares slope' });
    void answered;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await tg.close();
    await llm.close();
  }
  return rows;
};

export default bench;
