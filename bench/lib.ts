// Shared helpers for `npm run bench`. Benchmarks measure; they never assert.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** The goal, for the table (e.g. "≤ 150 ms"). */
  target?: string;
  /** Whether the goal is met, when there is one. */
  ok?: boolean;
  note?: string;
}

export type Bench = () => Promise<BenchRow[]>;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Wall time (ms) and peak RSS (MB) of a command, via GNU time when present. */
export function timeCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ ms: number; rssMb: number | null; code: number | null; stdout: string }> {
  const gnuTime = existsSync('/usr/bin/time');
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = gnuTime
      ? spawn('/usr/bin/time', ['-f', '__RSS_KB=%M', cmd, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const m = /__RSS_KB=(\d+)/.exec(stderr);
      resolve({ ms, rssMb: m ? Number(m[1]) / 1024 : null, code, stdout });
    });
  });
}

export function nodeBaselineMs(runs = 10): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

/** Median wall time (ms) of `fn` over `runs` runs, after one warm-up run. */
export async function timeIt(runs: number, fn: () => unknown): Promise<number> {
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(xs);
}
