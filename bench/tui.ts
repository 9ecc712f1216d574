// TUI benchmarks (`hermes --tui` in a real PTY, from the bundle): start-up to the first full frame
// (the status bar drawn), keystroke echo latency on a warm TUI, idle memory. The REPL's rows are in
// cli.ts; the TUI must not move them (ink and react load only on this path).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripAnsi } from '../src/cli/repl/width.ts';
import { median, percentile, rssMb, spawnPty, type Bench, type BenchRow } from './lib.ts';

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
  rows.push({ name: 'TUI start → first frame', value: tf, unit: 'ms', target: '≤ 500 ms', ok: tf <= 500, note: 'spawn in a PTY until the status bar is drawn' });
  const over = median(overRepl);
  rows.push({ name: 'TUI first frame − REPL prompt', value: over, unit: 'ms', target: '≤ 200 ms', ok: over <= 200, note: 'the same, minus the REPL start measured just before' });
  if (rss.length) rows.push({ name: 'TUI idle RSS', value: median(rss), unit: 'MB', target: '≤ 150 MB', ok: median(rss) <= 150 });

  // Keystroke echo on a warm TUI: the time from a key to the first output that draws it.
  const r = await spawnPty(home, ['--tui']);
  try {
    await r.waitFor('● ready');
    await new Promise((res) => setTimeout(res, 300));
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
