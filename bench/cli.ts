// REPL benchmarks: start-up to a usable prompt (in a real PTY), the first keystroke's echo,
// keystroke echo latency, idle memory, and the Markdown renderer's throughput.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MarkdownStream } from '../src/cli/repl/markdown.ts';
import { makeStyle } from '../src/cli/repl/style.ts';
import { median, percentile, rssMb, spawnPty, type Bench, type BenchRow } from './lib.ts';

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-cli-'));
  // A configured provider (never called: nothing is sent during these measurements).
  writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: bench-model\n  api_key: bench-key\n');

  const toPrompt: number[] = [];
  const toEcho: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const r = await spawnPty(home);
    try {
      const at = await r.waitFor('❯');
      toPrompt.push(performance.now() - started);
      r.p.write('x');
      await r.waitFor('❯ x', at - 4);
      toEcho.push(performance.now() - started);
      const m = rssMb(r.p.pid);
      if (m !== null) rss.push(m);
    } finally {
      r.p.kill();
    }
  }
  const tp = median(toPrompt);
  const te = median(toEcho);
  rows.push({ name: 'REPL start → prompt', value: tp, unit: 'ms', target: '≤ 300 ms', ok: tp <= 300, note: 'spawn in a PTY until ❯ is drawn' });
  rows.push({ name: 'REPL start → first key echoed', value: te, unit: 'ms', target: '≤ 300 ms', ok: te <= 300, note: 'prompt to first keystroke' });
  if (rss.length) rows.push({ name: 'REPL idle RSS', value: median(rss), unit: 'MB', target: '≤ 100 MB', ok: median(rss) <= 100 });

  // Keystroke echo latency on a warm REPL.
  const r = await spawnPty(home);
  try {
    let at = await r.waitFor('❯');
    const lat: number[] = [];
    let typed = '';
    for (let i = 0; i < 40; i++) {
      const ch = String.fromCharCode(97 + (i % 26));
      typed += ch;
      const t = performance.now();
      r.p.write(ch);
      at = await r.waitFor(`❯ ${typed}`, at - typed.length - 2);
      lat.push(performance.now() - t);
    }
    rows.push({ name: 'keystroke echo (median)', value: median(lat), unit: 'ms', target: '≤ 16 ms', ok: median(lat) <= 16, note: `p95 ${percentile(lat, 95).toFixed(1)} ms over 40 keys` });
  } finally {
    r.p.kill();
  }

  // Markdown rendering of a long streamed answer, in small deltas.
  const para = 'Some **bold** text, `inline code`, a [link](https://example.com) and _emphasis_ in a sentence.\n';
  const doc = Array.from({ length: 400 }, (_, i) =>
    i % 40 === 0 ? `## Section ${i}\n` : i % 40 === 10 ? '```ts\nconst x = 1;\n```\n' : i % 40 === 20 ? '| a | b |\n|---|---|\n| 1 | 2 |\n' : i % 7 === 0 ? `- item ${i}\n` : para,
  ).join('');
  const times: number[] = [];
  for (let k = 0; k < 5; k++) {
    const md = new MarkdownStream({ mode: 'render', style: makeStyle(true), width: () => 120 });
    const t = performance.now();
    for (let i = 0; i < doc.length; i += 12) md.push(doc.slice(i, i + 12));
    md.end();
    times.push(performance.now() - t);
  }
  const perMb = (median(times) / doc.length) * 1e6;
  rows.push({ name: 'Markdown render (streamed)', value: perMb, unit: 'ms/MB', target: '≤ 500 ms/MB', ok: perMb <= 500, note: `${(doc.length / 1024).toFixed(0)} KB in 12-char deltas` });
  return rows;
};

export default bench;
