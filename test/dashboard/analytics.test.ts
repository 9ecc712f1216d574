// The numbers agree: `hermes insights`, `hermes sessions stats`, /usage's definition and the
// dashboard's Analytics tab count tokens the same way (input, cache read, cache write and output
// apart, total = all four), and the charts' axes fit the data — a week that cost $0 draws a $0–$1
// axis, not 0–100 — with nothing clipped. The charts are looked at in a real Chromium (screenshot
// saved; the path is printed).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axisWidth, moneyLabel, niceCeil, zeroBasedRange } from '../../web/src/chart-axes.ts';
import { SessionDB } from '../../src/state/db.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { chromiumMissing, launchChromium, screenshotDir, startDashboardProcess, type RunningDash } from '../helpers/dashboard.ts';
import { gatedSuite } from '../helpers/skip.ts';

const DAY = 86_400;

/** Sessions on a model with no known price (so every day costs $0), with cache reads and writes. */
function seedUnpriced(home: string): void {
  const db = SessionDB.open(join(home, 'state.db'));
  const now = Date.now() / 1000;
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  // The newest session is today whatever the hour (a session "2 hours ago" is yesterday at 01:00).
  const starts = [Math.max(midnight.getTime() / 1000 + 1, now - 600), now - 2 * DAY, now - 4 * DAY];
  starts.forEach((t, i) => {
    const id = `20260101_09000${i}_ffffff`;
    db.createSession({ id, source: 'cli', model: 'local/unpriced-model', startedAt: t });
    db.appendMessage(id, { role: 'user', content: `question ${i}`, timestamp: t + 1 } as never);
    db.appendMessage(id, { role: 'assistant', content: `answer ${i}`, timestamp: t + 2 } as never);
    db.recordUsage(id, { usage: { input_tokens: 1000, output_tokens: 200, cache_read_tokens: 5000, cache_write_tokens: 300, reasoning_tokens: 50 }, costUsd: null, apiCalls: 1 }, 'local/unpriced-model', 'custom');
    db.endSession(id, 'cli_close');
  });
  db.close();
}

describe('chart axes', () => {
  it('start at 0 and end at a round number just above the data; an all-zero series gets a small axis', () => {
    assert.deepEqual(zeroBasedRange(0, 1), [0, 1]);
    assert.deepEqual(zeroBasedRange(null, 1), [0, 1]);
    assert.deepEqual(zeroBasedRange(0.0123, 1), [0, 0.02]);
    assert.deepEqual(zeroBasedRange(19_500, 1000), [0, 25_000]);
    assert.equal(niceCeil(3), 5);
    assert.equal(niceCeil(100), 100);
    assert.equal(moneyLabel(0.005, 0.005), '$0.005');
    assert.equal(moneyLabel(0.5, 0.25), '$0.50');
    assert.equal(moneyLabel(1, 0.2), '$1.00', 'every label of an axis has the same decimals');
    assert.equal(moneyLabel(12, 5), '$12');
    assert.equal(axisWidth(['$0.00', '$0.025'], (t) => t.length * 7, 18), 18 + 6 * 7 + 2);
  });
});

const missing = chromiumMissing();
const browserSuite = gatedSuite(missing);
browserSuite.describe('the numbers agree across surfaces, and the Analytics charts fit', { timeout: 240_000 }, () => {
  let home: string;
  let dash: RunningDash;
  let browser: Browser;
  let page: Page;
  browserSuite.before(async () => {
    home = tempHome();
    seedUnpriced(home);
    dash = await startDashboardProcess(home);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    await page.goto(dash.loginUrl);
  });
  browserSuite.after(async () => {
    await browser?.close();
    await dash?.stop();
  });

  const total = (3 * (1000 + 200 + 5000 + 300)).toLocaleString('en-US'); // 19,500

  browserSuite.it('insights, sessions stats and the Analytics API give the same total and parts', async () => {
    const ins = await hermes(['insights', '--days', '7'], { home });
    assert.equal(ins.code, 0, ins.stderr);
    assert.match(ins.stdout, new RegExp(`Tokens\\s+${total} total \\(input 3,000 · cache read 15,000 · cache write 900 · output 600, of which reasoning 150\\)`));
    assert.match(ins.stdout, /\* Tokens: total = input \+ cache read \+ cache write \+ output/);
    assert.match(ins.stdout, new RegExp(`unpriced-model\\s+3\\s+${total}\\s`), 'the per-model table counts the same tokens');
    const stats = await hermes(['sessions', 'stats'], { home });
    assert.match(stats.stdout, new RegExp(`Tokens\\s+${total} total \\(input 3,000 · cache read 15,000 · cache write 900 · output 600`));
    const api = (await (await page.request.get(`${dash.url}api/analytics?days=7`)).json()) as { overview: { tokens: { total: number; input: number; cacheRead: number; cacheWrite: number; output: number }; totalTokens: number }; daily: { totalTokens: number }[]; models: { totalTokens: number }[] };
    assert.deepEqual(api.overview.tokens, { ...api.overview.tokens, total: 19_500, input: 3000, cacheRead: 15_000, cacheWrite: 900, output: 600 });
    assert.equal(api.overview.totalTokens, 19_500);
    assert.equal(api.daily.reduce((a, d) => a + d.totalTokens, 0), 19_500, 'the days add up to the total');
    assert.equal(api.models[0].totalTokens, 19_500);
  });

  browserSuite.it('the Analytics tab shows the total and its parts, and axes that fit the data ($0 → a $0–$1 axis)', async () => {
    await page.goto(`${dash.url}analytics`);
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByTestId('total-tokens').getByText(total).waitFor();
    assert.match(await page.getByTestId('token-parts').innerText(), /input 3,000 · cache read 15,000 · cache write 900 · output 600/);
    const charts = page.locator('.chart');
    await page.waitForFunction(() => document.querySelectorAll('.chart[data-ranges]').length >= 2);
    const ranges = (await charts.evaluateAll((els) => els.map((e) => JSON.parse((e as HTMLElement).dataset.ranges ?? '{}')))) as Record<string, [number, number]>[];
    assert.deepEqual(ranges[0].y, [0, 10_000], 'tokens: up to a round number above the busiest day (6,500)');
    assert.deepEqual(ranges[1].$, [0, 1], 'a week that cost $0 draws $0–$1, not 0–100');
    assert.deepEqual(ranges[1].n, [0, 2], 'one session a day at most: 0–2 (a whole-number axis with headroom)');
    // Nothing clipped: every axis label lies inside its canvas.
    const clipped = await page.evaluate(() => {
      const out: string[] = [];
      for (const c of document.querySelectorAll('.chart .u-wrap')) {
        const box = c.getBoundingClientRect();
        const root = c.closest('.chart')!.getBoundingClientRect();
        if (box.left < root.left - 0.5 || box.right > root.right + 0.5) out.push(`plot ${box.left}-${box.right} outside ${root.left}-${root.right}`);
      }
      return out;
    });
    assert.deepEqual(clipped, []);
    const dir = screenshotDir('hermes-analytics-');
    await page.screenshot({ path: join(dir, 'analytics.png'), fullPage: true });
    console.log(`# analytics screenshot: ${join(dir, 'analytics.png')}`);
  });
});
