// API-server benchmark: the real `hermes gateway run` (the bundle in dist/) with only the
// OpenAI-compatible API server, against a fake LLM that answers after 100 ms. CLIENTS (200)
// streaming clients, each in a closed loop (POST /v1/chat/completions with stream: true, read the
// SSE to `[DONE]`, send the next), for SECONDS (60). Warm-up lasts WARMUP_S (15) seconds and
// WARMUP_REQ (500) answers, whichever ends later (at most two thirds of the run: on a slow machine
// the heap is still growing to its working size after 15 s): latency counts for requests sent after
// it, and the RSS slope is taken over the rest (Theil–Sen: the median of pairwise slopes, so one
// sample at the top of a GC cycle does not decide it).
// Rows: latency p50 and p99 of a whole streamed answer (goal: p99 ≤ 3 × p50), requests per second,
// the gateway's RSS after warm-up and at the end with its slope (goal: flat, ≤ 1 MB per 1,000
// requests), the gateway's CPU per request.
// Knobs: BENCH_API_CLIENTS, BENCH_API_SECONDS, BENCH_API_WARMUP_S, BENCH_API_WARMUP_REQ,
// BENCH_API_MODEL_MS (the model's delay before answering), BENCH_API_NODE_FLAGS (instead of the
// daemon's flags), BENCH_API_DUMP=<file> (every request as [ms after the start it was sent, latency]).
// The fake LLM and the clients share the bench's process: on a machine short of CPU the first burst
// of 200 connections is answered late by the fake server (not by the gateway), which is one reason
// the warm-up is long.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../src/gateway/daemon.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

const CLIENTS = Number(process.env.BENCH_API_CLIENTS ?? 200);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 60);
const WARMUP_S = Number(process.env.BENCH_API_WARMUP_S ?? 15);
const WARMUP_REQ = Number(process.env.BENCH_API_WARMUP_REQ ?? 500);
const MODEL_MS = Number(process.env.BENCH_API_MODEL_MS ?? 100);
// Generous: under load a request waits its turn (the server runs at most max_concurrent at once).
const REQUEST_TIMEOUT_MS = 300_000;

const ANSWER = 'Here is a short answer, streamed in pieces the way a model sends them, about sixty words long. '.repeat(3);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(parts[11]) + Number(parts[12])) * 1000) / 100;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function medianSlope(xs: number[], ys: number[]): number {
  const pairs: number[] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) pairs.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  return pairs.length ? median(pairs) : 0;
}

/** One streamed chat completion; resolves with its latency (ms) once `[DONE]` arrives. */
function streamOnce(agent: http.Agent, port: number, n: number): Promise<number> {
  const body = JSON.stringify({ model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: `question number ${n}` }] });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`HTTP ${res.statusCode}`));
      }
      let tail = '';
      let done = false;
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        tail = (tail + d).slice(-64);
        if (!done && tail.includes('data: [DONE]')) done = true;
      });
      res.on('end', () => (done ? resolve(performance.now() - t0) : reject(new Error('the stream ended without [DONE]'))));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const bench: Bench = async () => {
  const llm = await startFakeLlm({ defaultReply: { text: ANSWER, delayMs: MODEL_MS, chunkSize: 24 } });
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-api-'));
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: bench-model\n  api_key: k\nagent:\n  api_max_retries: 0\n`);
  const port = await freePort();
  const env = cleanEnv(home, { API_SERVER_ENABLED: 'true', API_SERVER_PORT: String(port), MESSAGING_CWD: home });
  delete env.HERMES_FROM_SOURCE;
  Object.assign(env, GATEWAY_ENV);
  const flags = process.env.BENCH_API_NODE_FLAGS !== undefined ? process.env.BENCH_API_NODE_FLAGS.split(' ').filter(Boolean) : GATEWAY_NODE_FLAGS;
  const child = spawn(process.execPath, [...flags, BIN, 'gateway', 'run', '--quiet'], { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const pid = child.pid!;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 10 });
  const rows: BenchRow[] = [];
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    // Up when /health answers.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ok = await new Promise<boolean>((r) => http.get({ host: '127.0.0.1', port, path: '/health', agent }, (res) => (res.resume(), r(res.statusCode === 200))).on('error', () => r(false)));
      if (ok) break;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start: ${stderr.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const t0 = performance.now();
    let warmEnd = Infinity;
    const warmLatest = t0 + (SECONDS * 1000 * 2) / 3;
    const end = t0 + SECONDS * 1000;
    const lat: number[] = [];
    const all: [number, number][] = [];
    const errors: string[] = [];
    let measured = 0;
    let cpuAtWarm = 0;
    let warmAt = 0;
    let warmedAfter = 0;
    const samples: { at: number; done: number; rss: number }[] = [];
    let completed = 0;
    sampler = setInterval(() => {
      // The fake LLM keeps every request (tests read them); the bench reads none.
      if (llm.requests.length > 50) llm.requests.length = 0;
      const now = performance.now();
      if (warmEnd === Infinity && ((now >= t0 + WARMUP_S * 1000 && completed >= WARMUP_REQ) || now >= warmLatest)) warmEnd = now;
      if (now >= warmEnd) samples.push({ at: now, done: completed, rss: rssMb(pid) });
      if (!warmAt && now >= warmEnd) {
        warmAt = now;
        warmedAfter = completed;
        cpuAtWarm = cpuMs(pid);
        measured = 0;
      }
    }, 1000);
    let n = 0;
    const client = async () => {
      while (performance.now() < end) {
        if (child.exitCode !== null) throw new Error(`the gateway exited (code ${child.exitCode}): ${stderr.slice(-500)}`);
        const started = performance.now();
        try {
          const ms = await streamOnce(agent, port, n++);
          completed++;
          if (process.env.BENCH_API_DUMP) all.push([Math.round(started - t0), Math.round(ms)]);
          if (started >= warmEnd) {
            lat.push(ms);
            measured++;
          }
        } catch (e) {
          errors.push((e as Error).message);
          if (errors.length > 100) throw new Error(`too many failed requests (${errors.length}), the last: ${errors.at(-1)}; gateway stderr: ${stderr.slice(-300) || '(empty)'}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    if (process.env.BENCH_API_DUMP) writeFileSync(process.env.BENCH_API_DUMP, JSON.stringify(all));
    clearInterval(sampler);
    const cpuPerReq = measured ? (cpuMs(pid) - cpuAtWarm) / measured : NaN;
    const secs = (performance.now() - (warmAt || t0)) / 1000;
    const p50 = median(lat);
    const p99 = percentile(lat, 99);
    const ratio = p99 / p50;
    const warmNote = `a ${((warmAt - t0) / 1000).toFixed(0)} s warm-up (${warmedAfter} answers)`;
    rows.push({ name: `streamed answer p50, ${CLIENTS} clients`, value: p50, unit: 'ms', note: `${lat.length} answers after ${warmNote}; model ${MODEL_MS} ms; ${errors.length} errors${errors.length ? ` (${errors[0]})` : ''}` });
    rows.push({ name: `streamed answer p99, ${CLIENTS} clients`, value: p99, unit: 'ms', target: '≤ 3 × p50', ok: ratio <= 3, note: `${ratio.toFixed(2)} × p50; max ${Math.max(...lat).toFixed(0)} ms` });
    rows.push({ name: 'requests per second', value: lat.length / secs, unit: 'req/s', note: `over ${secs.toFixed(0)} s after warm-up` });
    const first = samples[0];
    const last = samples.at(-1)!;
    const slopePerK = medianSlope(samples.map((s) => s.done), samples.map((s) => s.rss)) * 1000;
    rows.push({
      name: 'gateway RSS after warm-up → end',
      value: last.rss,
      unit: 'MB',
      target: '≤ 1 MB / 1k req',
      ok: slopePerK <= 1,
      note: `${first.rss.toFixed(0)} → ${last.rss.toFixed(0)} MB over ${last.done - first.done} requests; slope ${slopePerK.toFixed(2)} MB per 1,000`,
    });
    rows.push({ name: 'gateway CPU per request', value: cpuPerReq, unit: 'ms', note: `= ${(1000 / cpuPerReq).toFixed(0)} req/s on one core (from /proc); machine load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs` });
  } finally {
    clearInterval(sampler);
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    await llm.close();
  }
  return rows;
};

export default bench;
