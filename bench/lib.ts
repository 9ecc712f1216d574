// Shared helpers for `npm run bench`. Benchmarks measure; they never assert.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { stripAnsi } from '../src/cli/repl/width.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';

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

export interface Pty {
  pid: number;
  write(s: string): void;
  kill(): void;
  onData(fn: (d: string) => void): void;
}

/**
 * `hermes <args>` (the bundle) in a real PTY, 120×40. `waitFor(s, from)` resolves with the offset
 * after the first `s` in the output (ANSI stripped) at or after `from`.
 */
export async function spawnPty(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ p: Pty; waitFor: (s: string, from?: number) => Promise<number>; output: () => string }> {
  const pty = (await import('@lydell/node-pty')).default;
  const e = { ...cleanEnv(home, env), TERM: 'xterm-256color' } as Record<string, string>;
  delete e.HERMES_FROM_SOURCE;
  const p = pty.spawn(process.execPath, [BIN, ...args], { cols: 120, rows: 40, cwd: home, env: e }) as unknown as Pty;
  let buf = '';
  const waiters = new Set<() => void>();
  p.onData((d) => {
    buf += d;
    for (const w of [...waiters]) w();
  });
  const waitFor = (s: string, from = 0) =>
    new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`hermes did not show ${JSON.stringify(s)}: ${stripAnsi(buf).slice(-500)}`)), 15_000);
      const check = () => {
        const i = stripAnsi(buf).indexOf(s, from);
        if (i >= 0) {
          waiters.delete(check);
          clearTimeout(t);
          resolve(i + s.length);
        }
      };
      waiters.add(check);
      check();
    });
  return { p, waitFor, output: () => buf };
}

/** Resident memory of a process (MB), from /proc. */
export function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
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
