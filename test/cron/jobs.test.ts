// cron/jobs.json: Hermes's record, validation, lifecycle, claims, and the cross-process lock.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { beginOwner, CronStore, endOwner, newClaimOwner, type CronJob } from '../../src/cron/jobs.ts';
import { tryLock, withLock } from '../../src/state/process-lock.ts';
import { tempHome } from '../helpers/cli.ts';

const at = (iso: string) => Date.parse(iso);

/** A store on a fresh home with a clock the test moves. */
function setup(startIso = '2026-03-02T10:00:00Z', tz = 'UTC') {
  const home = tempHome('hermes-cron-');
  let now = at(startIso);
  const logs: string[] = [];
  const store = new CronStore({ home, tz, now: () => now, log: (l) => logs.push(l) });
  return {
    home,
    store,
    logs,
    set: (iso: string) => (now = at(iso)),
    advance: (ms: number) => (now += ms),
    file: () => JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: CronJob[]; updated_at: string },
  };
}

describe('CronStore: creating jobs', () => {
  it('writes Hermes\'s job record to cron/jobs.json (0600)', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'Summarise the news', schedule: 'every 2h', skills: ['news', 'news', ' digest '] });
    assert.match(job.id, /^[0-9a-f]{12}$/);
    const f = t.file();
    assert.equal(f.jobs.length, 1);
    assert.equal(f.updated_at, '2026-03-02T10:00:00+00:00');
    const j = f.jobs[0];
    assert.deepEqual(
      { ...j, id: 'x' },
      {
        id: 'x',
        name: 'Summarise the news',
        prompt: 'Summarise the news',
        skills: ['news', 'digest'],
        skill: 'news',
        model: null,
        provider: null,
        provider_snapshot: null,
        model_snapshot: null,
        base_url: null,
        script: null,
        no_agent: false,
        context_from: null,
        schedule: { kind: 'interval', minutes: 120, display: 'every 120m' },
        schedule_display: 'every 120m',
        repeat: { times: null, completed: 0 },
        enabled: true,
        state: 'scheduled',
        paused_at: null,
        paused_reason: null,
        created_at: '2026-03-02T10:00:00+00:00',
        next_run_at: '2026-03-02T12:00:00+00:00',
        last_run_at: null,
        last_status: null,
        last_error: null,
        last_delivery_error: null,
        deliver: 'local',
        origin: null,
        enabled_toolsets: null,
        workdir: null,
      },
    );
    // The keys in the order Python Hermes 0.18.2 writes them (its jobs.json in test/fixtures).
    const fixture = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'hermes-0.18.2-home', 'cron', 'jobs.json'), 'utf8')) as { jobs: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(j), Object.keys(fixture.jobs[0]));
    assert.equal(statSync(join(t.home, 'cron', 'jobs.json')).mode & 0o777, 0o600);
  });

  it('one-shots repeat once; deliver defaults to origin when created from a chat', async () => {
    const t = setup();
    const origin = { platform: 'telegram', chat_id: '-100123', thread_id: '17', user_id: '42' };
    const job = await t.store.create({ prompt: 'ping', schedule: '30m', origin });
    assert.deepEqual(job.repeat, { times: 1, completed: 0 });
    assert.equal(job.deliver, 'origin');
    assert.deepEqual(job.origin, origin);
    const named = await t.store.create({ prompt: 'x'.repeat(80), schedule: 'every 1h', repeat: 'once', deliver: ' telegram , discord:#ops ' });
    assert.equal(named.name, 'x'.repeat(50));
    assert.equal(named.deliver, 'telegram,discord:#ops');
    assert.equal(named.repeat.times, 1);
    assert.equal((await t.store.create({ prompt: 'y', schedule: 'every 1h', repeat: 0 })).repeat.times, null);
  });

  it('refuses bad input with a clear message and stores nothing', async () => {
    const t = setup();
    const cases: [Parameters<CronStore['create']>[0], RegExp][] = [
      [{ prompt: '  ', schedule: 'every 1h' }, /nothing to run/],
      [{ prompt: 'x', schedule: 'whenever' }, /Invalid schedule "whenever"/],
      [{ prompt: 'x', schedule: '2026-03-02T09:00:00' }, /more than 120s in the past/],
      [{ prompt: 'x', schedule: 'every 1h', workdir: 'relative/dir' }, /absolute path/],
      [{ prompt: 'x', schedule: 'every 1h', workdir: '/no/such/dir/anywhere' }, /does not exist/],
      [{ prompt: 'x', schedule: 'every 1h', script: '../../etc/passwd' }, /must be inside .*scripts/],
      [{ prompt: 'x', schedule: 'every 1h', script: '/usr/bin/env' }, /must be inside .*scripts/],
      [{ prompt: 'then run hermes gateway restart', schedule: 'every 1h' }, /may not stop or restart the Hermes gateway/],
      [{ prompt: 'x', schedule: 'every 1h', repeat: 'lots' }, /Invalid repeat/],
      [{ prompt: 'x', schedule: 'every 1h', deliver: 'tele gram' }, /Invalid delivery target/],
    ];
    for (const [input, re] of cases) await assert.rejects(t.store.create(input), re, JSON.stringify(input));
    assert.equal(t.store.read().length, 0);
  });

  it('accepts a workdir (absolute, ~ expanded) and a script inside HERMES_HOME/scripts', async () => {
    const t = setup();
    mkdirSync(join(t.home, 'scripts'));
    writeFileSync(join(t.home, 'scripts', 'collect.sh'), 'echo hi\n');
    const job = await t.store.create({ prompt: '', schedule: 'every 1h', script: 'collect.sh', workdir: t.home });
    assert.equal(job.script, 'collect.sh');
    assert.equal(job.workdir, t.home);
    assert.equal(job.name, 'collect.sh');
  });
});

describe('CronStore: changing jobs', () => {
  it('finds jobs by ID or case-insensitive name; an ambiguous name is refused', async () => {
    const t = setup();
    const a = await t.store.create({ prompt: 'a', schedule: 'every 1h', name: 'Morning' });
    await t.store.create({ prompt: 'b', schedule: 'every 1h', name: 'Dup' });
    await t.store.create({ prompt: 'c', schedule: 'every 1h', name: 'dup' });
    assert.equal(t.store.get('morning').id, a.id);
    assert.equal(t.store.get(a.id).id, a.id);
    assert.throws(() => t.store.get('DUP'), /matches 2 jobs .*use the job ID/);
    assert.throws(() => t.store.get('nope'), /No cron job with ID or name "nope"/);
  });

  it('update: skills [] clears, schedule changes recompute the next run, kind flips re-derive repeat', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: '30m', skills: ['a'] });
    let u = await t.store.update(job.id, { skills: [] });
    assert.deepEqual([u.skills, u.skill], [[], null]);
    u = await t.store.update(job.id, { schedule: 'every 15m' });
    assert.deepEqual(u.repeat, { times: null, completed: 0 });
    assert.equal(u.next_run_at, '2026-03-02T10:15:00+00:00');
    u = await t.store.update(job.id, { schedule: '2026-03-03T08:00:00' });
    assert.deepEqual(u.repeat, { times: 1, completed: 0 });
    assert.equal(u.next_run_at, '2026-03-03T08:00:00+00:00');
    await assert.rejects(t.store.update(job.id, { prompt: '' }), /nothing to run/);
    await assert.rejects(t.store.update(job.id, { workdir: 'rel' }), /absolute/);
    assert.equal(t.store.get(job.id).prompt, 'p');
  });

  it('pause keeps the job; resume schedules it again from now', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 1h' });
    const p = await t.store.pause(job.name, 'holiday');
    assert.deepEqual([p.enabled, p.state, p.paused_reason, p.paused_at], [false, 'paused', 'holiday', '2026-03-02T10:00:00+00:00']);
    assert.deepEqual(t.store.list().map((j) => j.id), []);
    assert.equal(t.store.list({ all: true }).length, 1);
    t.set('2026-03-05T00:00:00Z');
    assert.deepEqual(await t.store.claimDue(newClaimOwner()), []);
    const r = await t.store.resume(job.id);
    assert.deepEqual([r.enabled, r.state, r.paused_at, r.next_run_at], [true, 'scheduled', null, '2026-03-05T01:00:00+00:00']);
  });

  it('remove deletes the job and its saved output', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 1h' });
    const out = t.store.saveOutput(job.id, '# hello\n');
    assert.ok(existsSync(out));
    assert.equal(statSync(out).mode & 0o777, 0o600);
    await t.store.remove(job.id);
    assert.equal(t.store.read().length, 0);
    assert.ok(!existsSync(join(t.home, 'cron', 'output', job.id)));
  });

  it('keeps at most cron.output_retention files per job, oldest removed first', async () => {
    const home = tempHome('hermes-cron-');
    let now = at('2026-03-02T10:00:00Z');
    const store = new CronStore({ home, tz: 'UTC', now: () => now, outputRetention: 3 });
    const job = await store.create({ prompt: 'p', schedule: 'every 1h' });
    for (let i = 0; i < 5; i++) {
      store.saveOutput(job.id, `run ${i}`, now);
      now += 1000;
    }
    const files = store.outputs(job.id);
    assert.deepEqual(
      files.map((f) => readFileSync(f, 'utf8')),
      ['run 4', 'run 3', 'run 2'],
    );
    assert.match(files[0], /output\/[0-9a-f]{12}\/2026-03-02_10-00-04\.md$/);
  });

  it('never overwrites a jobs.json it cannot read', async () => {
    const t = setup();
    mkdirSync(join(t.home, 'cron'), { recursive: true });
    writeFileSync(join(t.home, 'cron', 'jobs.json'), '{"jobs": [ {broken');
    assert.throws(() => t.store.read(), /not valid JSON.*will not overwrite/);
    await assert.rejects(t.store.create({ prompt: 'p', schedule: 'every 1h' }), /not valid JSON/);
    assert.equal(readFileSync(join(t.home, 'cron', 'jobs.json'), 'utf8'), '{"jobs": [ {broken');
  });

  it('reads hand-edited and older records (single `skill`, bare list, no state)', () => {
    const t = setup();
    mkdirSync(join(t.home, 'cron'), { recursive: true });
    writeFileSync(
      join(t.home, 'cron', 'jobs.json'),
      JSON.stringify([{ id: 'abc123', prompt: null, skill: 'blogwatcher', schedule: { kind: 'cron', expr: '0 9 * * *' }, enabled: false, custom_field: 7 }]),
    );
    const [j] = t.store.read();
    assert.deepEqual([j.skills, j.skill, j.name, j.prompt, j.state, j.schedule_display, j.deliver, j.custom_field], [['blogwatcher'], 'blogwatcher', 'blogwatcher', '', 'paused', '0 9 * * *', 'local', 7]);
  });
});

describe('CronStore: claiming runs', () => {
  it('advances next_run_at and writes the claim before anything runs', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 1h' });
    t.set('2026-03-02T11:00:30Z');
    const owner = newClaimOwner();
    beginOwner(owner);
    try {
      const claimed = await t.store.claimDue(owner);
      assert.deepEqual(claimed.map((j) => j.id), [job.id]);
      const stored = t.file().jobs[0];
      assert.equal(stored.next_run_at, '2026-03-02T12:00:30+00:00');
      assert.equal(stored.fire_claim?.by, owner);
      // A second claim (another tick, another process) finds nothing.
      assert.deepEqual(await t.store.claimDue(newClaimOwner()), []);
      assert.ok(t.store.isRunning(t.store.get(job.id)));
      const done = await t.store.finishRun(job.id, owner, { success: true, deliveryError: 'telegram: gateway not running' });
      assert.deepEqual(
        [done!.last_status, done!.last_error, done!.last_delivery_error, done!.last_run_at, done!.repeat.completed, done!.fire_claim, done!.next_run_at],
        ['ok', null, 'telegram: gateway not running', '2026-03-02T11:00:30+00:00', 1, null, '2026-03-02T12:00:30+00:00'],
      );
    } finally {
      endOwner(owner);
    }
  });

  it('a one-shot completes after its run and is kept for the record', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: '30m' });
    t.set('2026-03-02T10:31:00Z');
    const owner = newClaimOwner();
    beginOwner(owner);
    const [c] = await t.store.claimDue(owner);
    assert.equal(t.file().jobs[0].next_run_at, job.next_run_at, 'a one-shot keeps its slot while it runs');
    const done = await t.store.finishRun(c.id, owner, { success: false, error: 'boom' });
    endOwner(owner);
    assert.deepEqual([done!.state, done!.enabled, done!.next_run_at, done!.last_status, done!.last_error], ['completed', false, null, 'error', 'boom']);
    t.advance(3600_000);
    assert.deepEqual(await t.store.claimDue(newClaimOwner()), []);
    await assert.rejects(t.store.resume(job.id), /has passed and it already ran/);
  });

  it('a finite repeat completes after its last run', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 10m', repeat: 2 });
    for (let i = 0; i < 2; i++) {
      t.advance(10 * 60_000);
      const owner = newClaimOwner();
      beginOwner(owner);
      assert.equal((await t.store.claimDue(owner)).length, 1);
      await t.store.finishRun(job.id, owner, { success: true });
      endOwner(owner);
    }
    assert.deepEqual([t.store.get(job.id).state, t.store.get(job.id).repeat], ['completed', { times: 2, completed: 2 }]);
  });

  it('a claim whose process died is released; the one-shot runs again', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: '30m' });
    t.set('2026-03-02T10:31:00Z');
    // A process that has exited.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const stale = `${(await import('node:os')).hostname()}:${dead.pid}:deadbeef`;
    await t.store.mutate((jobs) => {
      jobs[0].fire_claim = { by: stale, at: '2026-03-02T10:30:00+00:00' };
      return { result: null, changed: true };
    });
    assert.equal(t.store.isRunning(t.store.get(job.id)), false);
    const owner = newClaimOwner();
    beginOwner(owner);
    assert.deepEqual((await t.store.claimDue(owner)).map((j) => j.id), [job.id]);
    endOwner(owner);
    assert.ok(t.logs.some((l) => l.includes('which is gone')));
  });

  it('a recurring job missed by more than its grace runs once late, or is skipped with catch_up_missed off', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 10m' });
    t.set('2026-03-02T13:00:00Z'); // ~17 slots missed
    const owner = newClaimOwner();
    beginOwner(owner);
    assert.equal((await t.store.claimDue(owner)).length, 1);
    assert.equal(t.file().jobs[0].next_run_at, '2026-03-02T13:10:00+00:00');
    await t.store.finishRun(job.id, owner, { success: true });
    endOwner(owner);

    const skipper = new CronStore({ home: t.home, tz: 'UTC', now: () => at('2026-03-02T16:00:00Z'), catchUpMissed: false, log: (l) => t.logs.push(l) });
    assert.deepEqual(await skipper.claimDue(newClaimOwner()), []);
    assert.equal(t.file().jobs[0].next_run_at, '2026-03-02T16:10:00+00:00');
    assert.ok(t.logs.some((l) => /catch_up_missed is off/.test(l)));
  });

  it('claims the earliest due jobs first, up to the limit', async () => {
    const t = setup();
    const a = await t.store.create({ prompt: 'a', schedule: 'every 30m' });
    const b = await t.store.create({ prompt: 'b', schedule: 'every 10m' });
    await t.store.create({ prompt: 'c', schedule: 'every 20m' });
    t.set('2026-03-02T10:40:00Z');
    const owner = newClaimOwner();
    beginOwner(owner);
    const got = await t.store.claimDue(owner, 2);
    endOwner(owner);
    assert.deepEqual(got.map((j) => j.prompt), ['b', 'c']);
    assert.notEqual(a.id, b.id);
  });

  it('a manual claim refuses a running or completed job', async () => {
    const t = setup();
    const job = await t.store.create({ prompt: 'p', schedule: 'every 1h' });
    const owner = newClaimOwner();
    beginOwner(owner);
    await t.store.claimManual(job.id, owner);
    await assert.rejects(t.store.claimManual(job.id, newClaimOwner()), /running right now/);
    const done = await t.store.finishRun(job.id, owner, { success: true });
    endOwner(owner);
    assert.equal(done!.next_run_at, '2026-03-02T11:00:00+00:00', 'a manual run leaves the schedule alone');
  });
});

describe('cron locks', () => {
  it('exclude each other in one process, and are free again after release', async () => {
    const dir = tempHome('hermes-lock-');
    const path = join(dir, 'cron', '.tick.lock');
    const a = tryLock(path);
    assert.ok(a);
    assert.equal(tryLock(path), null);
    a!.release();
    const b = tryLock(path);
    assert.ok(b);
    b!.release();
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('withLock serialises critical sections', async () => {
    const dir = tempHome('hermes-lock-');
    const path = join(dir, '.jobs.lock');
    const order: string[] = [];
    const slow = withLock(path, async () => {
      order.push('a-in');
      await new Promise((r) => setTimeout(r, 60));
      order.push('a-out');
    });
    await new Promise((r) => setTimeout(r, 5));
    await withLock(path, () => order.push('b'));
    await slow;
    assert.deepEqual(order, ['a-in', 'a-out', 'b']);
  });

  it('a lock held by a process that is killed is free at once', async () => {
    const dir = tempHome('hermes-lock-');
    const path = join(dir, '.tick.lock');
    const lockUrl = new URL('../../src/state/process-lock.ts', import.meta.url).href;
    const child = spawn(process.execPath, ['--input-type=module', '-e', `const {tryLock}=await import(${JSON.stringify(lockUrl)}); globalThis.held = tryLock(${JSON.stringify(path)}); console.log('held'); setInterval(()=>{},1000);`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.on('exit', r));
    try {
      await new Promise<void>((r) => child.stdout.on('data', (d) => String(d).includes('held') && r()));
      assert.equal(tryLock(path), null);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const l = tryLock(path);
    assert.ok(l, 'the dead holder\'s lock was released by the kernel');
    l!.release();
    chmodSync(path, 0o600);
  });
});
