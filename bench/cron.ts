// Cron benchmarks: what a tick costs the gateway when nothing is due (scan of 1,000 jobs), claiming
// 100 due jobs in one locked write, and an uncontended lock round trip.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginOwner, CronStore, endOwner, newClaimOwner } from '../src/cron/jobs.ts';
import { tryLock } from '../src/state/process-lock.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

async function timeIt(runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const xs: number[] = [];
  await fn();
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(xs);
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-cron-'));
  try {
    const t0 = Date.parse('2026-03-02T10:00:00Z');
    let now = t0;
    const store = new CronStore({ home, tz: 'Europe/Brussels', now: () => now });
    const schedules = ['every 1h', 'every 15m', '0 9 * * *', '*/5 * * * mon-fri', 'every monday 9am'];
    for (let i = 0; i < 1000; i++) await store.create({ prompt: `job ${i}`, schedule: schedules[i % schedules.length] });

    const idle = await timeIt(20, async () => {
      const owner = newClaimOwner();
      beginOwner(owner);
      await store.claimDue(owner);
      endOwner(owner);
    });
    rows.push({ name: 'tick claim phase, 1,000 jobs, none due', value: idle, unit: 'ms', target: '≤ 50 ms', ok: idle <= 50 });

    // Make 100 jobs due, then claim them in one write.
    const claimMs: number[] = [];
    for (let round = 0; round < 5; round++) {
      await store.mutate((jobs) => {
        for (let i = 0; i < 100; i++) jobs[(i * 10 + round) % jobs.length].next_run_at = new Date(now - 1000).toISOString();
        return { result: null, changed: true };
      });
      const owner = newClaimOwner();
      beginOwner(owner);
      const t = process.hrtime.bigint();
      const got = await store.claimDue(owner);
      claimMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      for (const j of got) await store.releaseClaim(j.id, owner);
      endOwner(owner);
      now += 1000;
    }
    rows.push({ name: 'claim 100 due of 1,000 jobs (one locked write)', value: median(claimMs), unit: 'ms', target: '≤ 100 ms', ok: median(claimMs) <= 100 });

    const lockPath = join(home, 'cron', '.bench.lock');
    const lock = await timeIt(200, () => tryLock(lockPath)!.release());
    rows.push({ name: 'cross-process lock acquire + release', value: lock * 1000, unit: 'µs', target: '≤ 1000 µs', ok: lock * 1000 <= 1000 });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
};

export default bench;
