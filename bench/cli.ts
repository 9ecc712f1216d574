// REPL benchmarks: start-up to a usable prompt (in a real PTY), the first keystroke's echo,
// keystroke echo latency, idle memory, and the Markdown renderer's throughput.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MarkdownStream } from '../src/cli/repl/markdown.ts';
import { makeStyle } from '../src/cli/repl/style.ts';
import { stripAnsi } from '../src/cli/repl/width.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { median, percentile, type Bench, type BenchRow } from './lib.ts';

interface Pty {
  pid: number;
  write(s: string): void;
  kill(): void;
  onData(fn: (d: string) => void): void;
}

async function spawnRepl(home: string): Promise<{ p: Pty; waitFor: (s: string, from?: number) => Promise<number>; output: () => string }> {
  const pty = (await import('@lydell/node-pty')).default;
  const env = { ...cleanEnv(home), TERM: 'xterm-256color' } as Record<string, string>;
  delete env.HERMES_FROM_SOURCE;
  const p = pty.spawn(process.execPath, [BIN], { cols: 120, rows: 40, cwd: home, env }) as unknown as Pty;
  let buf = '';
  const waiters = new Set<() => void>();
  p.onData((d) => {
    buf += d;
    for (const w of [...waiters]) w();
  });
  const waitFor = (s: string, from = 0) =>
    new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`REPL did not show ${JSON.stringify(s)}: ${stripAnsi(buf).slice(-500)}`)), 15_000);
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

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

const bench: Bench = async () => {
  spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-cli-'));
  // A configured provider (never called: nothing is sent during these measurements).
  writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: bench-model\n  api_key: bench-key\n');

  const toPrompt: number[] = [];
  const toEcho: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const r = await spawnRepl(home);
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
  const r = await spawnRepl(home);
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
