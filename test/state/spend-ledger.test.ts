// test-timeout: 30
// The spend ledger's writer and reader: one kept-open descriptor per home and day, lines from two
// processes never interleave, a day file removed under a long-lived process is made again, old day
// files are pruned by the first write of a day, and the day's reader follows all of it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { appendSpend, closeSpendWriters, DayTotals, dayFile, localDay, readDay, SPEND_DIR, SPEND_KEEP_DAYS, type SpendEntry } from '../../src/state/spend-ledger.ts';

const homes: string[] = [];
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'hermes-spend-'));
  homes.push(h);
  return h;
};
after(() => {
  closeSpendWriters();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const entry = (over: Partial<SpendEntry> = {}): SpendEntry => ({ ts: 1, pid: process.pid, session: 's1', kind: 'main', provider: 'custom', model: 'm', input: 100, output: 10, cache_read: 0, cache_write: 0, reasoning: 0, usd: 0.01, ...over });
const DAY = 86_400_000;

describe('spend ledger', () => {
  test('appends follow the day; a removed day file is made again; the reader counts what is there', () => {
    const h = home();
    const now = Date.now();
    const totals = new DayTotals(h, () => now);
    assert.equal(totals.refresh().calls, 0, 'no file yet: an empty day');
    appendSpend(h, entry(), now);
    appendSpend(h, entry({ kind: 'title_generation', usd: null }), now);
    assert.equal(totals.refresh().calls, 2);
    assert.equal(totals.tokens, 220);
    assert.ok(Math.abs(totals.usd - 0.01) < 1e-9);
    assert.deepEqual(readDay(h, localDay(now)).map((e) => e.kind), ['main', 'title_generation']);

    rmSync(dayFile(h, localDay(now)));
    appendSpend(h, entry({ output: 1 }), now);
    assert.equal(readDay(h, localDay(now)).length, 1, 'the removed file was made again, with the new line');
    assert.equal(totals.refresh().calls, 1, 'the reader counts the new file from its start');

    // The next day is a new file; the reader starts over.
    appendSpend(h, entry(), now + DAY);
    assert.equal(readDay(h, localDay(now + DAY)).length, 1);
    assert.equal(new DayTotals(h, () => now + DAY).refresh().close().calls, 1);
  });

  test('the first write of a day prunes day files older than the kept days, and only those', () => {
    const h = home();
    const now = Date.now();
    const dir = join(h, SPEND_DIR);
    mkdirSync(dir, { recursive: true });
    const old = localDay(now - (SPEND_KEEP_DAYS + 5) * DAY);
    const kept = localDay(now - (SPEND_KEEP_DAYS - 5) * DAY);
    writeFileSync(join(dir, `${old}.jsonl`), `${JSON.stringify(entry())}\n`);
    writeFileSync(join(dir, `${kept}.jsonl`), `${JSON.stringify(entry())}\n`);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    appendSpend(h, entry(), now);
    assert.deepEqual(readdirSync(dir).sort(), [`${kept}.jsonl`, `${localDay(now)}.jsonl`, 'notes.txt'].sort());
    // Later writes of the day do not look again (an old file appearing now stays until tomorrow).
    writeFileSync(join(dir, `${old}.jsonl`), '');
    appendSpend(h, entry(), now);
    assert.ok(existsSync(join(dir, `${old}.jsonl`)));
  });

  test('lines of two processes appending at once never interleave', async () => {
    const h = home();
    const script = `
      import { appendSpend } from ${JSON.stringify(join(process.cwd(), 'src/state/spend-ledger.ts'))};
      const big = 'x'.repeat(3000);
      for (let i = 0; i < 400; i++) appendSpend(process.argv[1], { ts: i, pid: process.pid, session: big, kind: 'main', provider: 'p', model: 'm', input: 1, output: 1, cache_read: 0, cache_write: 0, reasoning: 0, usd: null });
    `;
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['--input-type=module', '-e', script, h], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr.on('data', (d: Buffer) => (stderr += d));
        p.on('close', (code) => resolve({ code, stderr }));
      });
    // Two writers at once, each writing 400 lines of 3 KB.
    const [a, b] = await Promise.all([run(), run()]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const lines = readFileSync(dayFile(h, localDay()), 'utf8').trim().split('\n');
    assert.equal(lines.length, 800);
    for (const l of lines) assert.equal((JSON.parse(l) as SpendEntry).session.length, 3000);
  });
});
