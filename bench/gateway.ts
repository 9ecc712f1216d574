// Gateway benchmark: the real `hermes gateway run` (the bundle in dist/) polling a fake Telegram
// Bot API server and answering through the zero-latency fake LLM, with 200 chats.
//  1. throughput: every chat sends its next message as soon as its last one is answered (closed
//     loop, 200 in flight), 5,000 messages;
//  2. latency: each chat sends one message a second (200 msg/s in all, open loop), 5,000 messages;
//     latency is "update available" → "reply received", which with an instant LLM is what the
//     gateway (and the fake servers) add;
//  3. the gateway's RSS (and JS heap) every 1,000 messages over all 10,000, its slope over the
//     last 4,000 (goal: ≤ 1 MB per 1k messages; the median of pairwise slopes, so one sample taken
//     at the top of a GC cycle does not decide it), and its CPU time per message. The RSS moves with
//     V8's heap size, which steps up or down from one mark-compact to the next: the heap row also
//     shows the memory outside the JS heap (malloc: array buffers, SQLite, Node).
// The gateway runs with the Node flags Hermes gives its daemon (GATEWAY_NODE_FLAGS), its default
// settings, and bench/gateway-probe.ts preloaded (it answers memory questions over an IPC channel).
// A message unanswered for BENCH_GATEWAY_TIMEOUT_MS (30 s) fails the benchmark with the chat and
// the gateway's last stderr, instead of waiting forever.
// Knobs: BENCH_GATEWAY_CACHE sets agent.agent_cache.max_size; BENCH_GATEWAY_YAML appends to
// config.yaml; BENCH_GATEWAY_HEAPSNAP=<dir> writes heap snapshots after 2,000 and 8,000 messages
// (BENCH_GATEWAY_HEAPSNAP_AT=6000,22000 for others)
// (the bench pauses while the gateway writes them; compare with `node bench/heapdiff.ts a b`);
// BENCH_GATEWAY_ALLOC=<file.heapprofile> samples every allocation (garbage too) over messages
// 1,000–4,000 (BENCH_GATEWAY_ALLOC_AT=6000,9000: the latency phase) (`node bench/allocs.ts <file>`
// sums them by function and source file; with BENCH_GATEWAY_ALLOC_OLD=1 only what was promoted to
// the old generation);
// BENCH_GATEWAY_STDOUT=<file> keeps the gateway's stdout (with BENCH_GATEWAY_NODE_FLAGS=--trace-gc);
// BENCH_GATEWAY_TIMELINE=<file> writes the latency phase as JSON: every message ([epoch ms sent,
// latency ms, chat]) and the event-loop stalls and GC pauses of the gateway and of the bench
// itself ([epoch ms, ms, what]), to tell what a slow message waited for (`node bench/stalls.ts`);
// The gateway gets the daemon's environment (GATEWAY_ENV: MALLOC_ARENA_MAX=2); MALLOC_* variables
// (glibc tuning) set for the bench override it.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../src/gateway/daemon.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { startFakeTelegram } from '../test/helpers/fake-telegram.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

const CHATS = Number(process.env.BENCH_GATEWAY_CHATS ?? 200);
const PHASE = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 5000);
const RATE = Number(process.env.BENCH_GATEWAY_RATE ?? 200);
const TIMEOUT_MS = Number(process.env.BENCH_GATEWAY_TIMEOUT_MS ?? 30_000);
const SNAP_DIR = process.env.BENCH_GATEWAY_HEAPSNAP ? resolve(process.env.BENCH_GATEWAY_HEAPSNAP) : '';
const SNAP_AT = (process.env.BENCH_GATEWAY_HEAPSNAP_AT ?? '2000,8000').split(',').map(Number);
const ALLOC = process.env.BENCH_GATEWAY_ALLOC ? resolve(process.env.BENCH_GATEWAY_ALLOC) : '';
const [ALLOC_FROM, ALLOC_TO] = (process.env.BENCH_GATEWAY_ALLOC_AT ?? '1000,4000').split(',').map(Number);
const STDOUT = process.env.BENCH_GATEWAY_STDOUT ?? '';
const TIMELINE = process.env.BENCH_GATEWAY_TIMELINE ? resolve(process.env.BENCH_GATEWAY_TIMELINE) : '';
/** The RSS goal: growth per 1,000 messages once the gateway has reached its working size. */
const SLOPE_GOAL_MB = 1;

/** CPU time (user + system, ms) a process has used so far. */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(parts[11]) + Number(parts[12])) * 1000) / 100;
}

/** Time (ms) the process's main thread has spent ready to run but waiting for a CPU (other processes had them). */
function cpuWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

/** Resident memory in MB: all of it, and its parts (malloc and V8's heap; mapped files; shared memory such as SQLite's -shm index). */
function rssMb(pid: number): { rss: number; anon: number; file: number; shmem: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => {
    const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
    return m ? Number(m[1]) / 1024 : NaN;
  };
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem') };
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

/**
 * Theil–Sen slope of y over x: the median of the slopes between every pair of points. One sample
 * taken just before a mark-compact (or a jump at the end of the window) moves it little, where it
 * can double a least-squares slope over nine points.
 */
function medianSlope(xs: number[], ys: number[]): number {
  const pairs: number[] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) pairs.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  return pairs.length ? median(pairs) : 0;
}

const MB = 1024 * 1024;

const bench: Bench = async () => {
  const llm = await startFakeLlm({ defaultReply: { text: 'ok, noted.' } });
  const tg = await startFakeTelegram({ record: false, retain: false });
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gw-'));
  const cache = process.env.BENCH_GATEWAY_CACHE ?? '';
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: bench-model\n  api_key: k\nagent:\n  api_max_retries: 0\n${cache ? `  agent_cache:\n    max_size: ${cache}\n` : ''}${process.env.BENCH_GATEWAY_YAML ?? ''}`);
  const env = cleanEnv(home, { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOW_ALL_USERS: 'true', MESSAGING_CWD: home });
  delete env.HERMES_FROM_SOURCE;
  // The flags Hermes starts the daemon with (gateway start, the systemd unit); BENCH_GATEWAY_NODE_FLAGS overrides.
  const nodeFlags = [
    ...(process.env.BENCH_GATEWAY_NODE_FLAGS !== undefined ? process.env.BENCH_GATEWAY_NODE_FLAGS.split(' ').filter(Boolean) : GATEWAY_NODE_FLAGS),
    ...(process.env.BENCH_GATEWAY_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`] : []),
    `--import=${resolve(import.meta.dirname, 'gateway-probe.ts')}`,
  ];
  if (TIMELINE) env.BENCH_GATEWAY_TIMELINE = '1';
  // The environment Hermes starts the daemon with; MALLOC_* variables (glibc tuning) set here override it.
  Object.assign(env, GATEWAY_ENV);
  for (const k of Object.keys(process.env)) if (k.startsWith('MALLOC_')) env[k] = process.env[k];
  if (process.env.BENCH_GATEWAY_ALLOC_OLD) env.BENCH_GATEWAY_ALLOC_OLD = '1';
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'gateway', 'run', '--quiet'], { cwd: home, env, stdio: ['ignore', STDOUT ? 'pipe' : 'ignore', 'pipe', 'ipc'] });
  if (STDOUT) child.stdout!.pipe(createWriteStream(STDOUT));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const pid = () => child.pid!;

  // The probe: memory figures and heap snapshots on request.
  type Mem = NodeJS.MemoryUsage;
  const asked = new Map<number, (m: { mem?: Mem; file?: string; stalls?: [number, number, string][]; clock?: [number, number] }) => void>();
  let askSeq = 0;
  type Stall = [number, number, string];
  child.on('message', (m: { id: number; mem?: Mem; file?: string; stalls?: Stall[]; clock?: [number, number] }) => {
    asked.get(m.id)?.(m);
    asked.delete(m.id);
  });
  const ask = (cmd: 'mem' | 'snap' | 'alloc-start' | 'alloc-stop' | 'stalls', path?: string) =>
    new Promise<{ mem?: Mem; file?: string; stalls?: Stall[]; clock?: [number, number] }>((resolveAsk, reject) => {
      const id = ++askSeq;
      const t = setTimeout(() => reject(new Error(`the gateway's probe did not answer '${cmd}' within 120 s`)), 120_000);
      asked.set(id, (m) => {
        clearTimeout(t);
        resolveAsk(m);
      });
      child.send({ id, cmd, path });
    });

  const rows: BenchRow[] = [];
  // The bench's own event-loop stalls (it is the fake Telegram and LLM too): a late reply may be ours.
  const ownStalls: Stall[] = [];
  let lastTick = performance.now();
  const ownWatch = TIMELINE
    ? setInterval(() => {
        const now = performance.now();
        if (now - lastTick > 12) ownStalls.push([performance.timeOrigin + lastTick, now - lastTick - 2, 'bench-loop']);
        lastTick = now;
      }, 2)
    : null;
  try {
    const deadline = Date.now() + 20_000;
    while (tg.pollers() === 0) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start: ${stderr.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Every chat's message in flight → when it became available to the bot, and its number.
    const inflight = new Map<number, { at: number; n: number }>();
    let onReply: (chat: number, ms: number) => void = () => undefined;
    let answered = 0;
    let counted = 0; // answered in phases 1 and 2
    const samples: { at: number; rss: number; anon: number; file: number; shmem: number; mem?: Mem }[] = [];
    const memAsks: Promise<void>[] = [];
    let drained: (() => void) | null = null;
    tg.onCall((c) => {
      if (c.method !== 'sendMessage') return;
      // The fake LLM keeps every request it got (tests read them), each with the whole history:
      // over 10k messages that is gigabytes of JSON and slow GCs in the bench's own process, whose
      // pauses showed up as gateway latency. The bench reads none of them.
      if (llm.requests.length > 50) llm.requests.length = 0;
      const chat = Number(c.params.chat_id);
      const f = inflight.get(chat);
      if (f === undefined) return;
      inflight.delete(chat);
      answered++;
      onReply(chat, performance.now() - f.at);
      if (!inflight.size) drained?.();
    });
    const send = (chat: number, n: number) => {
      inflight.set(chat, { at: performance.now(), n });
      tg.userMessage({ chatId: chat, text: `message ${n} from chat ${chat}` });
    };
    const chats = Array.from({ length: CHATS }, (_, i) => 10_000 + i);
    /** Counts a measured reply; every 1,000 a memory sample (true when a heap snapshot is due). */
    const count = (): boolean => {
      counted++;
      if (counted % 500 === 0) {
        const s: (typeof samples)[number] = { at: counted, ...rssMb(pid()) };
        samples.push(s);
        if (counted % 1000 === 0) memAsks.push(ask('mem').then((m) => void (s.mem = m.mem)));
      }
      if (ALLOC && counted === ALLOC_FROM) void ask('alloc-start');
      if (ALLOC && counted === ALLOC_TO) memAsks.push(ask('alloc-stop', ALLOC).then(() => void process.stderr.write(`bench: allocation profile of messages ${ALLOC_FROM}–${ALLOC_TO}: ${ALLOC}\n`)));
      return !!SNAP_DIR && SNAP_AT.includes(counted);
    };
    /** Waits for every message in flight to be answered, then has the gateway write a heap snapshot. */
    let holding = false;
    const snapshot = async () => {
      holding = true;
      if (inflight.size) await new Promise<void>((r) => (drained = r));
      drained = null;
      mkdirSync(SNAP_DIR, { recursive: true });
      const path = join(SNAP_DIR, `gateway-${counted}.heapsnapshot`);
      process.stderr.write(`bench: gateway heap snapshot after ${counted} messages…`);
      await ask('snap', path);
      process.stderr.write(` ${path}\n`);
      holding = false;
    };
    /** A phase ends when `body` calls done; it fails when a message waits past the timeout or the gateway exits. */
    const phase = (name: string, body: (done: () => void, fail: (e: Error) => void) => void) =>
      new Promise<void>((resolvePhase, reject) => {
        const stop = () => {
          clearInterval(watch);
          child.off('exit', exited);
        };
        const fail = (e: Error) => {
          stop();
          reject(e);
        };
        const exited = (code: number | null) => fail(new Error(`the gateway exited (code ${code}) during the ${name} phase: ${stderr.slice(-500)}`));
        child.once('exit', exited);
        const watch = setInterval(() => {
          if (holding) return;
          const now = performance.now();
          for (const [chat, f] of inflight)
            if (now - f.at > TIMEOUT_MS)
              return fail(new Error(`${name}: chat ${chat} got no reply to message ${f.n} within ${TIMEOUT_MS / 1000} s (${answered} answered, ${inflight.size} waiting); gateway stderr: ${stderr.slice(-500) || '(empty)'}`));
        }, 500);
        body(() => {
          stop();
          resolvePhase();
        }, fail);
      });

    // Warm-up: chat i sends 1 + (i % 10) messages, so the chats are at different turn counts (as
    // real chats are) and per-turn work such as the self-review every 10 turns does not fire for
    // all 200 at the same moment.
    await phase('warm-up', (done) => {
      const left = new Map(chats.map((c, i) => [c, 1 + (i % 10)]));
      let open = chats.length;
      onReply = (chat) => {
        const n = left.get(chat)! - 1;
        left.set(chat, n);
        if (n > 0) send(chat, 0);
        else if (--open === 0) done();
      };
      for (const c of chats) send(c, 0);
    });

    // 1. Throughput, closed loop.
    const cpu0 = cpuMs(pid());
    const t0 = performance.now();
    let held = 0;
    const sat: number[] = [];
    await phase('throughput', (done, fail) => {
      let issued = 0;
      let measured = 0;
      const parked: number[] = [];
      const next = (chat: number) => {
        if (issued >= PHASE) return;
        if (holding) return void parked.push(chat);
        send(chat, ++issued);
      };
      onReply = (chat, ms) => {
        sat.push(ms);
        measured++;
        if (count()) {
          parked.push(chat);
          const h0 = performance.now();
          void snapshot().then(() => {
            held += performance.now() - h0;
            if (measured >= PHASE) return done();
            for (const c of parked.splice(0)) next(c);
          }, fail);
        } else if (measured >= PHASE) done();
        else next(chat);
      };
      for (const c of chats) next(c);
    });
    const secs = (performance.now() - t0 - held) / 1000;
    const cpuPerMsg = (cpuMs(pid()) - cpu0) / PHASE;
    await new Promise((r) => setTimeout(r, 200));
    const rate = PHASE / secs;
    rows.push({ name: `throughput, ${CHATS} chats (closed loop)`, value: rate, unit: 'msg/s', target: '≥ 500', ok: rate >= 500, note: `${PHASE} messages in ${secs.toFixed(1)} s; latency at saturation p50 ${median(sat).toFixed(0)} ms` });
    rows.push({ name: 'gateway CPU per message', value: cpuPerMsg, unit: 'ms', note: `= ${(1000 / cpuPerMsg).toFixed(0)} msg/s on one core (from /proc, load-independent)${SNAP_DIR ? '; includes a heap snapshot' : ''}` });

    // 2. Latency at RATE msg/s in all (open loop: each chat once every CHATS/RATE s).
    const lat: number[] = [];
    const timeline: [number, number, number][] = [];
    const waited0 = [cpuWaitMs(pid()), cpuWaitMs(process.pid)];
    const latT0 = performance.now();
    await phase('latency', (done, fail) => {
      let sent = 0;
      let got = 0;
      let start = performance.now();
      onReply = (chat, ms) => {
        lat.push(ms);
        if (TIMELINE) timeline.push([Math.round(performance.timeOrigin + performance.now() - ms), Math.round(ms * 10) / 10, chat]);
        got++;
        if (count()) {
          const h0 = performance.now();
          void snapshot().then(() => (start += performance.now() - h0), fail);
        }
        if (got >= PHASE) done();
      };
      const tick = () => {
        if (!holding) {
          const due = Math.min(PHASE, Math.floor(((performance.now() - start) / 1000) * RATE));
          while (sent < due) {
            const chat = chats[sent % CHATS];
            if (inflight.has(chat)) break; // its previous message is still being answered
            send(chat, sent++);
          }
        }
        if (sent < PHASE) setTimeout(tick, 2);
      };
      tick();
    });
    const p99 = percentile(lat, 99);
    // On a shared machine a late reply may only mean the gateway (or the fake servers here) had no CPU.
    const waited = `waited for a CPU: gateway ${((cpuWaitMs(pid()) - waited0[0]) / 1000).toFixed(1)} s, bench ${((cpuWaitMs(process.pid) - waited0[1]) / 1000).toFixed(1)} s of ${((performance.now() - latT0) / 1000).toFixed(0)} s`;
    if (TIMELINE) {
      const { stalls = [], clock } = await ask('stalls');
      writeFileSync(TIMELINE, JSON.stringify({ messages: timeline, gateway: stalls, bench: ownStalls, clock }));
      process.stderr.write(`bench: latency timeline: ${TIMELINE}\n`);
    }
    rows.push({ name: `latency added at ${RATE} msg/s, p50`, value: median(lat), unit: 'ms' });
    rows.push({ name: `latency added at ${RATE} msg/s, p99`, value: p99, unit: 'ms', target: '≤ 50 ms', ok: p99 <= 50, note: `${CHATS} chats, one message/s each; update available → reply received, LLM instant; ${waited}` });

    // 3. Memory over all 10,000 messages.
    // The slope is taken over the last 4,000 messages (a sample every 500): before that the heap
    // is still growing to its working size (200 warm sessions, their histories, V8's heap sizing).
    // All samples are in the notes.
    await Promise.all(memAsks);
    const last = samples[samples.length - 1];
    const tail = samples.filter((r) => r.at >= last.at - 4000);
    const slopeOf = (pts: { at: number; v: number }[], how = slope) =>
      how(
        pts.map((p) => p.at / 1000),
        pts.map((p) => p.v),
      );
    const rssPts = tail.map((r) => ({ at: r.at, v: r.rss }));
    const perK = slopeOf(rssPts, medianSlope);
    const heapPts = tail.filter((r) => r.mem).map((r) => ({ at: r.at, v: r.mem!.heapUsed / MB }));
    const everyK = samples.filter((r) => r.at % 1000 === 0);
    const m = everyK[everyK.length - 1]?.mem;
    rows.push({ name: `gateway RSS after ${last.at} messages`, value: last.rss, unit: 'MB', note: `every 1k: ${everyK.map((r) => r.rss.toFixed(0)).join(' ')}; of which anonymous (malloc, V8): ${everyK.map((r) => r.anon.toFixed(0)).join(' ')}; files ${last.file.toFixed(0)} MB and shared ${last.shmem.toFixed(0)} MB at the end` });
    if (m)
      rows.push({
        name: `gateway JS heap after ${last.at} messages`,
        value: m.heapUsed / MB,
        unit: 'MB',
        note: `heap total ${(m.heapTotal / MB).toFixed(0)} MB, external ${(m.external / MB).toFixed(0)} MB (array buffers ${(m.arrayBuffers / MB).toFixed(0)}); heap used (live + garbage) every 1k: ${everyK.map((r) => (r.mem ? (r.mem.heapUsed / MB).toFixed(0) : '?')).join(' ')}; heap total: ${everyK.map((r) => (r.mem ? (r.mem.heapTotal / MB).toFixed(0) : '?')).join(' ')}; outside the JS heap (RSS − heap total): ${everyK.map((r) => (r.mem ? (r.rss - r.mem.heapTotal / MB).toFixed(0) : '?')).join(' ')}; array buffers: ${everyK.map((r) => (r.mem ? (r.mem.arrayBuffers / MB).toFixed(0) : '?')).join(' ')}`,
      });
    const span = (last.at - tail[0].at) / 1000;
    rows.push({
      name: `RSS slope over the last ${span}k msgs`,
      value: perK,
      unit: 'MB/1k msgs',
      target: `≤ ${SLOPE_GOAL_MB} MB/1k`,
      ok: perK <= SLOPE_GOAL_MB,
      note: `Theil–Sen (median of pairwise slopes) over a sample every 500 msgs; least-squares ${slopeOf(rssPts).toFixed(2)}; heap used ${heapPts.length > 1 ? slopeOf(heapPts).toFixed(2) : '?'} MB/1k (garbage included: the live heap is what heap snapshots show)`,
    });
  } finally {
    if (ownWatch) clearInterval(ownWatch);
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    await tg.close();
    await llm.close();
  }
  return rows;
};

export default bench;
