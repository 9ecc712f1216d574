// Dashboard: start to first byte (spawn `hermes dashboard` → the page's first byte), and the first
// paint of the Sessions tab with 10k sessions in state.db (Chromium; skipped without it), plus the
// API call behind it.
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionDB } from '../src/state/db.ts';
import { chromiumMissing, launchChromium, startDashboardProcess } from '../test/helpers/dashboard.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

function firstByte(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    // The status line and headers are the first bytes (the token link answers with a redirect and no body).
    const req = request(url, { headers }, (res) => {
      resolve(performance.now() - t0);
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
}

function seed10k(home: string): void {
  const db = SessionDB.open(join(home, 'state.db'));
  const raw = db.raw;
  const now = Date.now() / 1000;
  const sources = ['cli', 'telegram', 'discord', 'cron', 'acp'];
  raw.exec('BEGIN');
  const s = raw.prepare('INSERT INTO sessions (id, source, model, started_at, ended_at, message_count, input_tokens, output_tokens, title) VALUES (?, ?, ?, ?, ?, 2, 1000, 200, ?)');
  const m = raw.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
  for (let i = 0; i < 10_000; i++) {
    const id = `20260101_000000_${i.toString(16).padStart(6, '0')}`;
    const t = now - i * 600;
    s.run(id, sources[i % sources.length], i % 2 ? 'anthropic/claude-sonnet-4' : 'openai/gpt-4.1', t, t + 300, i % 3 ? null : `Conversation ${i}`);
    m.run(id, 'user', `question number ${i} about topic ${i % 97}`, t + 1);
    m.run(id, 'assistant', `answer number ${i} with some words to index`, t + 2);
  }
  raw.exec('COMMIT');
  db.close();
}

const bench: Bench = async () => {
  process.env.HERMES_TEST_BUNDLE = '1';
  const rows: BenchRow[] = [];
  const say = (m: string) => process.env.BENCH_DEBUG && process.stderr.write(`  dashboard: ${m}\n`);

  // Start → first byte of the page, on an empty home.
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const home = mkdtempSync(join(tmpdir(), 'hermes-bench-dash-'));
    const t0 = performance.now();
    const d = await startDashboardProcess(home);
    await firstByte(d.loginUrl);
    starts.push(performance.now() - t0);
    say(`start ${i}: ${starts.at(-1)!.toFixed(0)} ms`);
    await d.stop();
  }
  const st = median(starts);
  rows.push({ name: 'dashboard start → first byte', value: st, unit: 'ms', target: '≤ 1000 ms', ok: st <= 1000, note: 'spawn `hermes dashboard` until GET / answers (median of 5)' });

  // 10k sessions.
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-dash10k-'));
  seed10k(home);
  say('seeded 10k sessions');
  const d = await startDashboardProcess(home);
  try {
    const api: number[] = [];
    for (let i = 0; i < 7; i++) api.push(await firstByte(`${d.origin}/api/sessions?limit=50`, { authorization: `Bearer ${d.token}` }));
    rows.push({ name: 'GET /api/sessions (10k sessions)', value: median(api), unit: 'ms', target: '≤ 100 ms', ok: median(api) <= 100, note: 'first 50 with total, median of 7' });
    const missing = chromiumMissing();
    if (missing) rows.push({ name: 'Sessions tab first paint (10k)', value: NaN, unit: 'ms', note: `skipped: ${missing}` });
    else {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
        await page.goto(d.loginUrl);
        say('signed in');
        const paints: number[] = [];
        for (let i = 0; i < 5; i++) {
          await page.goto('about:blank');
          const t0 = performance.now();
          await page.goto(`${d.url}sessions`);
          await page.getByTestId('sessions-table').locator('tbody tr').nth(49).waitFor();
          paints.push(performance.now() - t0);
        }
        const p = median(paints);
        rows.push({ name: 'Sessions tab first paint (10k)', value: p, unit: 'ms', target: '≤ 1000 ms', ok: p <= 1000, note: 'navigation → 50 rows drawn, Chromium, median of 5' });
      } finally {
        await browser.close();
      }
    }
  } finally {
    await d.stop();
  }
  return rows;
};

export default bench;
