// Gateway benchmark: the real `hermes gateway run` (the bundle in dist/) polling a fake Telegram
// Bot API server, answering through the zero-latency fake LLM. 200 chats talk at once, each sending
// its next message as soon as its previous one is answered (closed loop), 10,000 messages in all.
// Reports throughput, latency from "update available" to "reply received" (the LLM answers
// instantly, so this is what the gateway adds, fake servers included), and the gateway's RSS every
// 1,000 messages.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { startFakeTelegram } from '../test/helpers/fake-telegram.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

const CHATS = Number(process.env.BENCH_GATEWAY_CHATS ?? 200);
const TOTAL = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 10_000);
const WARMUP_PER_CHAT = 1;

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
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: bench-model\n  api_key: k\nagent:\n  api_max_retries: 0\n${process.env.BENCH_GATEWAY_CACHE ? `  agent_cache:\n    max_size: ${process.env.BENCH_GATEWAY_CACHE}\n` : ""}`);
  const env = cleanEnv(home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOW_ALL_USERS: 'true', MESSAGING_CWD: home });
  delete env.HERMES_FROM_SOURCE;
  const prof = process.env.SEMI ? [`--max-semi-space-size=${process.env.SEMI}`] : process.env.BENCH_GATEWAY_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`] : [];
  const child = spawn(process.execPath, [...prof, BIN, 'gateway', 'run', '--quiet'], { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const rows: BenchRow[] = [];
  try {
    const deadline = Date.now() + 20_000;
    while (tg.pollers() === 0) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start: ${stderr.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const sentAt = new Map<number, { at: number; measured: boolean }>();
    const latencies: number[] = [];
    let answered = 0;
    let measuring = false;
    const rss: { at: number; mb: number }[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const perChat = new Map<number, number>();
    const budget = CHATS * WARMUP_PER_CHAT + TOTAL;
    let issued = 0;
    let t0 = 0;
    const send = (chat: number) => {
      if (issued >= budget) return;
      issued++;
      if (issued === CHATS * WARMUP_PER_CHAT + 1) {
        measuring = true;
        t0 = performance.now();
        cpu0 = cpuMs(child.pid!);
      }
      perChat.set(chat, (perChat.get(chat) ?? 0) + 1);
      sentAt.set(chat, { at: performance.now(), measured: measuring });
      tg.userMessage({ chatId: chat, text: `message ${perChat.get(chat)} from ${chat}` });
    };
    let tEnd = 0;
    let cpu0 = 0;
    let cpu1 = 0;
    tg.onCall((c) => {
      if (c.method !== 'sendMessage') return;
      const chat = Number(c.params.chat_id);
      const s = sentAt.get(chat);
      if (s === undefined) return;
      sentAt.delete(chat);
      answered++;
      if (s.measured) {
        latencies.push(performance.now() - s.at);
        if (latencies.length % 1000 === 0) rss.push({ at: latencies.length, mb: rssMb(child.pid!) });
      }
      if (answered >= budget) {
        tEnd = performance.now();
        cpu1 = cpuMs(child.pid!);
        done();
      } else send(chat);
    });
    for (let i = 0; i < CHATS; i++) send(10_000 + i);
    const timeout = setTimeout(() => done(), 600_000);
    await finished;
    clearTimeout(timeout);
    if (answered < budget) throw new Error(`only ${answered}/${budget} messages answered; gateway stderr: ${stderr.slice(-500)}`);
    const secs = (tEnd - t0) / 1000;
    const rate = latencies.length / secs;
    rows.push({ name: `throughput, ${CHATS} chats`, value: rate, unit: 'msg/s', target: '≥ 500', ok: rate >= 500, note: `${latencies.length} messages in ${secs.toFixed(1)} s` });
    const perMsg = (cpu1 - cpu0) / latencies.length;
    rows.push({ name: 'gateway CPU per message', value: perMsg, unit: 'ms', note: `${(1000 / perMsg).toFixed(0)} msg/s per core; /proc stat (not skewed by other load)` });
    const p99 = percentile(latencies, 99);
    rows.push({ name: 'latency added, p50', value: median(latencies), unit: 'ms' });
    rows.push({ name: 'latency added, p99', value: p99, unit: 'ms', target: '≤ 50 ms', ok: p99 <= 50, note: 'update available → reply received; LLM answers instantly' });
    const last = rss[rss.length - 1];
    const half = rss.slice(Math.floor(rss.length / 2));
    const perK = slope(
      half.map((r) => r.at / 1000),
      half.map((r) => r.mb),
    );
    rows.push({ name: `gateway RSS after ${last.at} msgs`, value: last.mb, unit: 'MB', note: `samples/1k: ${rss.map((r) => r.mb.toFixed(0)).join(' ')}` });
    rows.push({ name: 'RSS trend, second half', value: perK, unit: 'MB/1k msgs', target: '≈ 0 (no upward trend)', ok: perK < 1, note: 'least-squares slope over the last half of the samples' });
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await tg.close();
    await llm.close();
  }
  return rows;
};

export default bench;
