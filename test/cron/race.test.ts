// Two processes ticking the same HERMES_HOME: every due job runs exactly once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CronStore } from '../../src/cron/jobs.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { cronHome, outputFiles, readJobs, testEnv, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
  // Slow enough that runs overlap the other process's ticks.
  fake.setHandler(async (req) => {
    await new Promise((r) => setTimeout(r, 40));
    const m = /\[race-(\d+)\]/.exec(userText(req));
    return { text: `done ${m?.[1] ?? '?'}` };
  });
});
after(async () => {
  await fake.close();
});

/** N jobs that are all due now: half one-shots, half recurring. */
async function dueJobs(home: string, n: number): Promise<string[]> {
  const past = new CronStore({ home, tz: 'UTC', now: () => Date.now() - 61_000 });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job =
      i % 2
        ? await past.create({ prompt: `race job [race-${i}]`, schedule: 'in 1m', deliver: 'telegram:1' })
        : await new CronStore({ home, tz: 'UTC', now: () => Date.now() - 3_600_000 - 1000 }).create({ prompt: `race job [race-${i}]`, schedule: 'every 1h', deliver: 'telegram:1' });
    ids.push(job.id);
  }
  return ids;
}

function requestsFor(marker: string, from: number): number {
  return fake.requests.slice(from).filter((r) => userText(r).includes(marker)).length;
}

describe('two tickers racing', () => {
  it('two ticker processes on one home run each due job exactly once', async () => {
    const home = cronHome(fake);
    const n = 10;
    const ids = await dueJobs(home, n);
    const before = fake.requests.length;
    const child = fileURLToPath(new URL('./ticker-child.ts', import.meta.url));
    const deliveries: string[] = [];
    let allDelivered!: () => void;
    const done = new Promise<void>((r) => (allDelivered = r));
    const procs: ChildProcess[] = [];
    for (let p = 0; p < 2; p++) {
      const proc = spawn(process.execPath, [child, home, '15'], { env: testEnv(home, { HERMES_CRON_MAX_PARALLEL: '3' }), stdio: ['ignore', 'pipe', 'pipe'] });
      let buf = '';
      proc.stdout!.on('data', (d) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.startsWith('DELIVERED ')) {
            deliveries.push(line);
            if (deliveries.length >= n) allDelivered();
          }
        }
      });
      let err = '';
      proc.stderr!.on('data', (d) => (err += d));
      proc.on('exit', (code) => {
        if (code) allDelivered();
        if (code) deliveries.push(`EXIT ${code} ${err}`);
      });
      procs.push(proc);
    }
    const timer = setTimeout(() => allDelivered(), 60_000);
    await done;
    clearTimeout(timer);
    // Both keep ticking a little longer: nothing may run twice.
    await new Promise((r) => setTimeout(r, 200));
    await Promise.all(
      procs.map(
        (p) =>
          new Promise((r) => {
            p.on('exit', r);
            p.kill('SIGTERM');
          }),
      ),
    );

    assert.equal(deliveries.length, n, deliveries.join('\n'));
    const jobIds = deliveries.map((l) => l.split(' ')[2]).sort();
    assert.deepEqual(jobIds, [...ids].sort(), 'one delivery per job');
    for (let i = 0; i < n; i++) assert.equal(requestsFor(`[race-${i}]`, before), 1, `job ${i} ran once`);
    assert.equal(fake.requests.length - before, n);
    const jobs = readJobs(home);
    for (const j of jobs) {
      assert.equal(j.repeat.completed, 1, `${j.id} recorded once`);
      assert.equal(j.last_status, 'ok');
      assert.equal(j.fire_claim, null);
      assert.equal(outputFiles(home, j.id).length, 1);
      assert.equal(j.state, j.schedule.kind === 'once' ? 'completed' : 'scheduled');
    }
  });

  it('two `hermes cron tick` processes at once run each due job exactly once', async () => {
    const home = cronHome(fake);
    const n = 6;
    const ids = await dueJobs(home, n);
    const before = fake.requests.length;
    const runs = await Promise.all([0, 1].map(() => hermes(['cron', 'tick'], { home, env: { HERMES_CRON_MAX_PARALLEL: '2' }, timeoutMs: 60_000 })));
    for (const r of runs) assert.ok(r.code === 0, `${r.stdout}\n${r.stderr}`);
    const lines = runs.flatMap((r) => r.stdout.split('\n').filter((l) => l.startsWith('✓') || l.startsWith('✗')));
    assert.equal(lines.length, n, runs.map((r) => r.stdout).join('\n---\n'));
    assert.ok(lines.every((l) => l.startsWith('✓')));
    for (let i = 0; i < n; i++) assert.equal(requestsFor(`[race-${i}]`, before), 1, `job ${i} ran once`);
    const jobs = readJobs(home);
    assert.deepEqual(jobs.map((j) => j.id).sort(), [...ids].sort());
    for (const j of jobs) {
      assert.equal(j.repeat.completed, 1);
      assert.equal(j.last_delivery_error, 'telegram:1: telegram is not configured (no credentials in ~/.hermes/.env) and no gateway connection is up for it.');
      assert.equal(outputFiles(home, j.id).length, 1);
    }
  });
});
