// TUI benchmarks (`hermes --tui` in a real PTY, from the bundle): start-up to the first full frame
// (the status bar drawn), CPU while idle, keystroke echo latency on a warm TUI, idle memory. The REPL's rows are in
// cli.ts; the TUI must not move them (ink and react load only on this path).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripAnsi } from '../src/cli/repl/width.ts';
import { median, percentile, rssMb, spawnPty, type Bench, type BenchRow } from './lib.ts';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/** User + system CPU time of a process, in clock ticks (null off Linux). */
function cpuTicks(pid: number): number | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return null;
  }
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-tui-'));
  // A configured provider (never called: nothing is sent during these measurements).
  writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: bench-model\n  api_key: bench-key\n');

  const toFrame: number[] = [];
  const overRepl: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 8; i++) {
    // The REPL's start right before, as the yardstick on a machine whose load varies.
    const replStarted = performance.now();
    const repl = await spawnPty(home, ['--cli']);
    let replMs: number;
    try {
      await repl.waitFor('❯');
      replMs = performance.now() - replStarted;
    } finally {
      repl.p.kill();
    }
    const started = performance.now();
    const r = await spawnPty(home, ['--tui']);
    try {
      await r.waitFor('● ready');
      toFrame.push(performance.now() - started);
      overRepl.push(performance.now() - started - replMs);
      // Settle, then measure memory at rest.
      await new Promise((res) => setTimeout(res, 300));
      const m = rssMb(r.p.pid);
      if (m !== null) rss.push(m);
    } finally {
      r.p.kill();
    }
  }
  const tf = median(toFrame);
  rows.push({ name: 'TUI start → first frame', value: tf, unit: 'ms', target: '≤ 150 ms', ok: tf <= 150, note: 'spawn in a PTY until the status bar is drawn' });
  const over = median(overRepl);
  rows.push({ name: 'TUI first frame − REPL prompt', value: over, unit: 'ms', target: '≤ 200 ms', ok: over <= 200, note: 'the same, minus the REPL start measured just before' });
  if (rss.length) rows.push({ name: 'TUI idle RSS', value: median(rss), unit: 'MB', target: '≤ 150 MB', ok: median(rss) <= 150 });

  // Keystroke echo on a warm TUI: the time from a key to the first output that draws it. First,
  // idle CPU: nothing typed, nothing running, for BENCH_TUI_IDLE_S (60) seconds after 2 s to settle;
  // user + system time from /proc, and whether anything was drawn meanwhile (a poll or a clock).
  const r = await spawnPty(home, ['--tui']);
  try {
    await r.waitFor('● ready');
    await new Promise((res) => setTimeout(res, 2000));
    const idleS = Number(process.env.BENCH_TUI_IDLE_S ?? 60);
    const drawn = r.output().length;
    const t0 = cpuTicks(r.p.pid);
    const w0 = performance.now();
    await new Promise((res) => setTimeout(res, idleS * 1000));
    const t1 = cpuTicks(r.p.pid);
    if (t0 !== null && t1 !== null) {
      const pct = ((t1 - t0) / TICKS_PER_S / ((performance.now() - w0) / 1000)) * 100;
      rows.push({ name: `TUI idle CPU (${idleS} s)`, value: pct, unit: '%', target: '≤ 0.5%', ok: pct <= 0.5, note: `${t1 - t0} clock ticks; ${r.output().length - drawn} bytes drawn while idle` });
    }
    const lat: number[] = [];
    for (let i = 0; i < 40; i++) {
      const ch = String.fromCharCode(97 + (i % 26));
      const from = stripAnsi(r.output()).length;
      const t = performance.now();
      r.p.write(ch);
      await r.waitFor(ch, from);
      lat.push(performance.now() - t);
      await new Promise((res) => setTimeout(res, 20));
    }
    rows.push({ name: 'TUI keystroke echo (median)', value: median(lat), unit: 'ms', target: '≤ 16 ms', ok: median(lat) <= 16, note: `p95 ${percentile(lat, 95).toFixed(1)} ms over 40 keys` });
  } finally {
    r.p.kill();
  }
  return rows;
};

export default bench;
