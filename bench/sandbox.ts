// The OS sandbox's cost per terminal step (issue 29: ≤ 5 ms added per command: foreground commands
// run as children of a sandboxed process server; a bwrap per command is the fallback), and a terminal
// output flood (issue 38 item 7: read at ≥ 100 MB/s, hermes under ~150 MB RSS on 2 GB).
// BENCH_FLOOD_MB sets the flood size (default 2048).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBackend } from '../src/tools/env/local.ts';
import { makeSandbox } from '../src/sandbox/index.ts';
import { median, type BenchRow } from './lib.ts';

async function steps(b: LocalBackend, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await b.exec('true', { timeoutMs: 10_000, signal: new AbortController().signal });
    out.push(performance.now() - t);
  }
  return out;
}

// The flood runs in a process of its own, so its RSS is the collector's alone.
const FLOOD = String.raw`
import { LocalBackend } from 'LOCAL_TS';
import { makeSandbox } from 'SANDBOX_TS';
const mb = Number(process.argv[2]);
const sandbox = process.argv[3] === 'boxed' ? makeSandbox({ config: {}, env: process.env, hermesHome: process.env.HOME, cwd: process.cwd() }) : undefined;
const b = new LocalBackend({ cwd: process.cwd(), env: process.env, sandbox });
await b.exec('true', { timeoutMs: 60_000, signal: new AbortController().signal });
let peak = 0;
const iv = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
const t = performance.now();
const r = await b.exec('head -c ' + mb * 1048576 + " /dev/zero | tr '\\0' y", { timeoutMs: 600_000, signal: new AbortController().signal });
const s = (performance.now() - t) / 1000;
clearInterval(iv);
peak = Math.max(peak, process.memoryUsage.rss());
console.log(JSON.stringify({ s, peak: peak / 1048576, kept: r.output.length, dropped: r.dropped ?? 0, code: r.exitCode }));
await b.close();
`;

export default async function (): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
  const work = join(home, 'work');
  mkdirSync(work);
  writeFileSync(join(home, 'config.yaml'), 'model: {}\n');
  const env = { ...process.env, HOME: home };
  const sb = makeSandbox({ config: {}, env, hermesHome: home, cwd: work });
  const plain = new LocalBackend({ cwd: work, env });
  const boxed = new LocalBackend({ cwd: work, env, sandbox: sb });
  const perCommand = new LocalBackend({ cwd: work, env, sandbox: sb });
  const noServer = async (n: number) => {
    process.env.HERMES_SANDBOX_SERVER = '0';
    try {
      return await steps(perCommand, n);
    } finally {
      delete process.env.HERMES_SANDBOX_SERVER;
    }
  };
  await steps(plain, 3);
  if (sb.active) await steps(boxed, 3);
  if (sb.active) await noServer(3);
  const n = 30;
  // Interleaved, so a change in the machine's load hits all three alike.
  const ta: number[] = [];
  const tb: number[] = [];
  const tc: number[] = [];
  for (let i = 0; i < n; i++) {
    ta.push(...(await steps(plain, 1)));
    if (sb.active) tb.push(...(await steps(boxed, 1)));
    if (sb.active) tc.push(...(await noServer(1)));
  }
  const a = median(ta);
  rows.push({ name: 'terminal step, no sandbox (`true`)', value: Math.round(a * 10) / 10, unit: 'ms', note: `median of ${n}` });
  if (sb.active) {
    const b = median(tb);
    const c = median(tc);
    rows.push({ name: 'sandboxed terminal command (`true`)', value: Math.round(b * 10) / 10, unit: 'ms', note: `median of ${n}; the sandboxed process server, bubblewrap, ${sb.plan()!.ops.size} mounts` });
    rows.push({ name: 'sandboxed terminal command, a bwrap each', value: Math.round(c * 10) / 10, unit: 'ms', note: `median of ${n}; HERMES_SANDBOX_SERVER=0 (the fallback, PTY and background commands)` });
    rows.push({ name: 'sandbox cost per command', value: Math.round((b - a) * 10) / 10, unit: 'ms', target: '≤ 5 ms', ok: b - a <= 5 });
  } else rows.push({ name: 'sandbox cost per command', value: NaN, unit: 'ms', note: `no sandbox here: ${sb.availability.reason}` });
  await boxed.close();

  const mb = Number(process.env.BENCH_FLOOD_MB) || 2048;
  const flood = (mode: string) =>
    new Promise<string>((resolve) => {
      const script = join(home, 'flood.mjs');
      writeFileSync(
        script,
        FLOOD.replace('LOCAL_TS', new URL('../src/tools/env/local.ts', import.meta.url).pathname).replace('SANDBOX_TS', new URL('../src/sandbox/index.ts', import.meta.url).pathname),
      );
      const c = spawn(process.execPath, [script, String(mb), mode], { cwd: work, env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.on('close', () => resolve(out));
    });
  for (const mode of sb.active ? ['plain', 'boxed'] : ['plain']) {
    const r = await flood(mode);
    const f = JSON.parse(r) as { s: number; peak: number; kept: number; dropped: number; code: number };
    if (f.code !== 0 || f.kept + f.dropped < mb * 1048576) throw new Error(`the flood did not run: ${r}`);
    const where = mode === 'boxed' ? ' in the sandbox' : '';
    rows.push({ name: `terminal output flood${where} (${mb} MB): read rate`, value: Math.round(mb / f.s), unit: 'MB/s', target: '≥ 100 MB/s', ok: mb / f.s >= 100 });
    rows.push({ name: `terminal output flood${where} (${mb} MB): peak RSS`, value: Math.round(f.peak), unit: 'MB', target: '≤ 150 MB', ok: f.peak <= 150, note: mode === 'boxed' ? 'Hermes\'s side (the server is a process of its own)' : 'the process running the command (LocalBackend.exec)' });
  }
  return rows;
}
