// The scheduler with an injected clock and the fake LLM: due jobs run in isolated sessions, output
// is saved, delivery goes through the injected router and is recorded apart from the run's status.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CronStore } from '../../src/cron/jobs.ts';
import { SessionDB } from '../../src/state/db.ts';
import { hermes } from '../helpers/cli.ts';
import { activeTicker, CronScheduler, startCronTicker, type Deliver } from '../../src/cron/scheduler.ts';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from '../helpers/fake-llm.ts';
import { cronHome, outputFiles, readJobs, systemText, testEnv, toolNames, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.setHandler(null));

const T0 = Date.parse('2026-03-02T10:00:00Z');

interface Delivery {
  target: string;
  content: string;
  meta: Parameters<Deliver>[2];
}

function world(extraYaml = '', envExtra: Record<string, string> = {}) {
  const home = cronHome(fake, extraYaml);
  let now = T0;
  const clock = () => now;
  const deliveries: Delivery[] = [];
  const deliver: Deliver = async (target, content, meta) => {
    deliveries.push({ target, content, meta });
    if (target.startsWith('broken')) return { ok: false, error: 'chat not found' };
    return { ok: true };
  };
  const logs: string[] = [];
  const scheduler = new CronScheduler({ home, deliver, now: clock, env: testEnv(home, envExtra), log: (l) => logs.push(l) });
  const store = new CronStore({ home, tz: 'UTC', now: clock });
  return { home, store, scheduler, deliveries, logs, setNow: (ms: number) => (now = ms), tick: async () => (await (await scheduler.tick()).done) };
}

/** Replies by the job prompt found in the request (jobs may run in parallel). */
function replyBy(map: Record<string, FakeReply | ((req: RecordedRequest) => FakeReply)>, fallback: FakeReply = { text: 'ok' }) {
  fake.setHandler((req) => {
    const text = userText(req) + JSON.stringify(req.body.messages);
    for (const [key, r] of Object.entries(map)) if (text.includes(key)) return typeof r === 'function' ? r(req) : r;
    return fallback;
  });
}

describe('cron scheduler', () => {
  it('runs a due job once, in an isolated cron session, saves the output and delivers it', async () => {
    const w = world();
    const job = await w.store.create({
      prompt: 'Report the weather [job-A]',
      schedule: 'every 1h',
      deliver: 'origin',
      origin: { platform: 'telegram', chat_id: '-100777', thread_id: '5', user_id: '42' },
    });
    replyBy({ '[job-A]': { text: 'Sunny, 21°C.' } });
    const before = fake.requests.length;

    assert.deepEqual(await w.tick(), [], 'nothing is due at creation');
    w.setNow(T0 + 30 * 60_000);
    assert.deepEqual(await w.tick(), [], 'nothing is due half-way');
    assert.equal(fake.requests.length, before);

    w.setNow(T0 + 60 * 60_000 + 5_000);
    const [r] = await w.tick();
    assert.equal(r.success, true, r.error ?? '');
    assert.deepEqual(r.delivered, ['origin']);
    // The session: cron platform, the guidance and the prompt, no cron/clarify/messaging tools.
    const reqs = fake.requests.slice(before);
    assert.equal(reqs.length, 1);
    assert.match(userText(reqs[0]), /scheduled cron job[\s\S]*\[SILENT\][\s\S]*Report the weather \[job-A\]$/);
    assert.match(systemText(reqs[0]), /scheduled job with nobody watching/);
    const tools = toolNames(reqs[0]);
    assert.ok(tools.includes('terminal') && tools.includes('read_file'), tools.join(','));
    for (const t of ['cronjob', 'clarify', 'send_message']) assert.ok(!tools.includes(t), `${t} must not be offered to a cron run`);
    // Delivery through the router, with the origin in the contract's shape.
    assert.equal(w.deliveries.length, 1);
    assert.deepEqual(w.deliveries[0].meta, { jobId: job.id, origin: { platform: 'telegram', chatId: '-100777', threadId: '5', userId: '42' } });
    assert.match(w.deliveries[0].content, /^Cronjob Response: Report the weather \[job-A\]\n-------------\n\nSunny, 21°C\.\n\nNote: /);
    // Output file and the record.
    const files = outputFiles(w.home, job.id);
    assert.equal(files.length, 1);
    assert.match(files[0], /2026-03-02_11-00-05\.md$/);
    const doc = readFileSync(files[0], 'utf8');
    assert.match(doc, /^# Cron Job: Report the weather \[job-A\]\n\n\*\*Job ID:\*\* [0-9a-f]{12}\n\*\*Run Time:\*\* 2026-03-02 11:00:05\n\*\*Schedule:\*\* every 60m\n\n## Prompt\n/);
    assert.match(doc, /## Response\n\nSunny, 21°C\.\n/);
    const [rec] = readJobs(w.home);
    assert.deepEqual(
      [rec.last_status, rec.last_error, rec.last_delivery_error, rec.last_run_at, rec.next_run_at, rec.repeat.completed, rec.fire_claim],
      ['ok', null, null, '2026-03-02T11:00:05+00:00', '2026-03-02T12:00:05+00:00', 1, null],
    );
    // The same instant again: nothing left to run.
    assert.deepEqual(await w.tick(), []);
  });

  it('titles each run’s session `cron: <job name>` (never the injected guidance), where sessions are listed', async () => {
    const w = world();
    await w.store.create({ prompt: 'Count the pelicans [job-T]', schedule: 'every 1h', name: 'pelican count', deliver: 'local' });
    replyBy({ '[job-T]': { text: '12 pelicans.' } });
    for (const h of [1, 2]) {
      w.setNow(T0 + h * 60 * 60_000 + 5_000);
      const [r] = await w.tick();
      assert.equal(r.success, true, r.error ?? '');
    }
    const list = await hermes(['sessions', 'list', '--source', 'cron'], { home: w.home });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /cron: pelican count #2[\s\S]*cron: pelican count\b/);
    assert.doesNotMatch(list.stdout, /SYSTEM|scheduled cron job/);
    const db = SessionDB.open(join(w.home, 'state.db'));
    try {
      assert.deepEqual(
        db.listSessions({ source: 'cron' }).map((x) => x.title).sort(),
        ['cron: pelican count', 'cron: pelican count #2'],
      );
    } finally {
      db.close();
    }
  });

  it('records a failed delivery apart from a successful run, and a failed run apart from its delivery', async () => {
    const w = world();
    const good = await w.store.create({ prompt: 'good run [job-G]', schedule: 'every 1h', deliver: 'broken:1,telegram:2' });
    replyBy({ '[job-G]': { text: 'All fine.' }, '[job-F]': { status: 400, error: 'model not found' } });
    w.setNow(T0 + 3600_000);
    const [r] = await w.tick();
    assert.equal(r.success, true);
    assert.deepEqual(r.delivered, ['telegram:2']);
    assert.equal(r.deliveryError, 'broken:1: chat not found');
    let rec = readJobs(w.home).find((j) => j.id === good.id)!;
    assert.deepEqual([rec.last_status, rec.last_error, rec.last_delivery_error], ['ok', null, 'broken:1: chat not found']);

    const bad = await w.store.create({ prompt: 'failing run [job-F]', schedule: 'every 1h', deliver: 'telegram:9' });
    w.setNow(T0 + 2 * 3600_000 + 1000);
    const reports = await w.tick();
    const rf = reports.find((x) => x.jobId === bad.id)!;
    assert.equal(rf.success, false);
    assert.match(rf.error!, /model not found/);
    assert.equal(rf.deliveryError, null, 'the failure notice itself was delivered');
    const notice = w.deliveries.find((d) => d.meta.jobId === bad.id)!;
    assert.match(notice.content, /⚠️ Cron job 'failing run \[job-F\]' failed:\n.*model not found/);
    rec = readJobs(w.home).find((j) => j.id === bad.id)!;
    assert.deepEqual([rec.last_status, rec.last_delivery_error], ['error', null]);
    assert.match(rec.last_error!, /model not found/);
    assert.match(readFileSync(outputFiles(w.home, bad.id)[0], 'utf8'), /^# Cron Job: failing run \[job-F\] \(FAILED\)[\s\S]*## Error\n\n```\n.*model not found/);
  });

  it('[SILENT] suppresses delivery but keeps the output; local jobs never call the router', async () => {
    const w = world();
    const quiet = await w.store.create({ prompt: 'check [job-S]', schedule: 'every 1h', deliver: 'telegram:1' });
    const local = await w.store.create({ prompt: 'note [job-L]', schedule: 'every 1h' });
    replyBy({ '[job-S]': { text: '[SILENT]' }, '[job-L]': { text: 'written down' } });
    w.setNow(T0 + 3600_000);
    const reports = await w.tick();
    assert.equal(reports.length, 2);
    assert.equal(reports.find((r) => r.jobId === quiet.id)!.silent, true);
    assert.equal(w.deliveries.length, 0);
    assert.match(readFileSync(outputFiles(w.home, quiet.id)[0], 'utf8'), /\[SILENT\]/);
    assert.match(readFileSync(outputFiles(w.home, local.id)[0], 'utf8'), /written down/);
    assert.ok(readJobs(w.home).every((j) => j.last_status === 'ok' && j.last_delivery_error === null));
  });

  it('without a gateway, non-local targets are recorded as "gateway not running"', async () => {
    const home = cronHome(fake);
    const store = new CronStore({ home, tz: 'UTC', now: () => T0 });
    const job = await store.create({ prompt: 'ping [job-N]', schedule: 'every 1h', deliver: 'local,telegram' });
    replyBy({ '[job-N]': { text: 'pong' } });
    const s = new CronScheduler({ home, now: () => T0 + 3600_000, env: testEnv(home) });
    const [r] = await (await s.tick()).done;
    assert.equal(r.success, true);
    assert.equal(r.deliveryError, 'telegram: gateway not running');
    const [rec] = readJobs(home);
    assert.deepEqual([rec.id, rec.last_status, rec.last_delivery_error], [job.id, 'ok', 'telegram: gateway not running']);
  });

  it('loads the job\'s skills into the prompt, in order, and says which are missing', async () => {
    const w = world();
    for (const [dir, body] of [
      ['skills/feeds', '---\nname: feeds\n---\nRead the feeds in order.'],
      ['skills/research/maps', '---\nname: maps\n---\nUse the map service.'],
    ]) {
      mkdirSync(join(w.home, dir), { recursive: true });
      writeFileSync(join(w.home, dir, 'SKILL.md'), body);
    }
    await w.store.create({ prompt: 'Combine them [job-K]', schedule: 'every 1h', skills: ['feeds', 'nope', 'maps'] });
    replyBy({ '[job-K]': { text: 'done' } });
    const before = fake.requests.length;
    w.setNow(T0 + 3600_000);
    await w.tick();
    const u = userText(fake.requests[before]);
    assert.match(u, /could not be found, so they were skipped: nope/);
    assert.ok(u.indexOf('Read the feeds in order.') < u.indexOf('Use the map service.'));
    assert.match(u, /The task for this run: \[SYSTEM: This is a scheduled cron job[\s\S]*Combine them \[job-K\]$/);
  });

  it('runs the pre-run script first and gives its output to the agent; failures and timeouts are reported', async () => {
    const w = world('cron:\n  script_timeout_seconds: 5\n'); // python3 can take seconds to start on a loaded machine
    mkdirSync(join(w.home, 'scripts'));
    writeFileSync(join(w.home, 'scripts', 'collect.sh'), 'echo "disk at 91%"; if [ -n "$OPENAI_API_KEY" ]; then echo "key leaked"; else echo "key hidden"; fi; echo "found ghp_abcdefghijklmnopqrstuvwxyz0123456789"\n');
    writeFileSync(join(w.home, 'scripts', 'broken.py'), 'import sys\nprint("partial")\nsys.exit(3)\n');
    writeFileSync(join(w.home, 'scripts', 'slow.sh'), 'sleep 30\n');
    await w.store.create({ prompt: 'Summarise [job-1]', schedule: 'every 1h', script: 'collect.sh' });
    await w.store.create({ prompt: 'Summarise [job-2]', schedule: 'every 1h', script: 'broken.py' });
    await w.store.create({ prompt: 'Summarise [job-3]', schedule: 'every 1h', script: 'slow.sh' });
    replyBy({});
    const before = fake.requests.length;
    const s = new CronScheduler({ home: w.home, now: () => T0 + 3600_000, env: testEnv(w.home, { OPENAI_API_KEY: 'sk-secret-value-1234567890' }) });
    await (await s.tick()).done;
    const texts = fake.requests.slice(before).map(userText);
    const t1 = texts.find((t) => t.includes('[job-1]'))!;
    assert.match(t1, /## Script Output\n[^\n]*\n\n```\ndisk at 91%\nkey hidden\nfound ghp_\.\.\.6789\n```\n\nSummarise \[job-1\]$/);
    const t2 = texts.find((t) => t.includes('[job-2]'))!;
    assert.match(t2, /## Script Error[\s\S]*(exited with code 3[\s\S]*partial|python3)/);
    const t3 = texts.find((t) => t.includes('[job-3]'))!;
    assert.match(t3, /## Script Error[\s\S]*Script timed out after 5s: .*slow\.sh/);
  });

  it('runs tools in the job\'s workdir', async () => {
    const w = world();
    const work = realpathSync(join(w.home));
    mkdirSync(join(work, 'proj'));
    writeFileSync(join(work, 'proj', 'marker.txt'), 'in the project');
    await w.store.create({ prompt: 'Where am I? [job-W]', schedule: 'every 1h', workdir: join(work, 'proj') });
    let step = 0;
    fake.setHandler(() => (step++ === 0 ? { toolCalls: [{ name: 'terminal', arguments: { command: 'pwd && cat marker.txt' } }] } : { text: 'done' }));
    const before = fake.requests.length;
    w.setNow(T0 + 3600_000);
    const [r] = await w.tick();
    assert.equal(r.success, true, r.error ?? '');
    const toolResult = JSON.stringify(fake.requests[before + 1].body.messages.at(-1));
    assert.match(toolResult, new RegExp(`${join(work, 'proj').replace(/[/.]/g, '\\$&')}.*in the project`));
  });

  it('stops a run that goes quiet for longer than HERMES_CRON_TIMEOUT', async () => {
    const w = world('', { HERMES_CRON_TIMEOUT: '1' });
    const job = await w.store.create({ prompt: 'hang [job-H]', schedule: 'every 1h', deliver: 'telegram:1' });
    replyBy({ '[job-H]': { hang: true } });
    w.setNow(T0 + 3600_000);
    const [r] = await w.tick();
    assert.equal(r.success, false);
    assert.match(r.error!, /^Cron job 'hang \[job-H\]' idle for \ds \(limit 1s\) — last activity: model call 1$/);
    const [rec] = readJobs(w.home);
    assert.deepEqual([rec.id, rec.last_status], [job.id, 'error']);
    assert.match(w.deliveries[0].content, /idle for/);
  });

  it('a tool that is still running counts as activity', async () => {
    const w = world('', { HERMES_CRON_TIMEOUT: '1' });
    await w.store.create({ prompt: 'slow tool [job-Z]', schedule: 'every 1h' });
    let step = 0;
    fake.setHandler(() => (step++ === 0 ? { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1.6; echo finished' } }] } : { text: 'slow but fine' }));
    w.setNow(T0 + 3600_000);
    const [r] = await w.tick();
    assert.equal(r.success, true, r.error ?? '');
  });

  it('runs at most HERMES_CRON_MAX_PARALLEL jobs at once', async () => {
    const w = world('', { HERMES_CRON_MAX_PARALLEL: '2' });
    for (let i = 0; i < 5; i++) await w.store.create({ prompt: `parallel [P${i}]`, schedule: 'every 1h' });
    let inFlight = 0;
    let peak = 0;
    fake.setHandler(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 60));
      inFlight--;
      return { text: 'ok' };
    });
    w.setNow(T0 + 3600_000);
    // A tick claims only as many jobs as there are free slots; the rest wait for the next tick.
    const first = await w.scheduler.tick();
    assert.equal(first.claimed.length, 2);
    const second = await w.scheduler.tick();
    assert.equal(second.claimed.length, 0, 'no free slot while two run');
    await first.done;
    // `hermes cron tick` claims everything due and still runs two at a time.
    const rest = await w.scheduler.tick({ all: true });
    assert.equal(rest.claimed.length, 3);
    await rest.done;
    assert.equal(peak, 2);
    assert.ok(readJobs(w.home).every((j) => j.last_status === 'ok'));
  });

  it('the ticker ticks on its interval, reports liveness, and drains on stop', async () => {
    const home = cronHome(fake);
    const store = new CronStore({ home, tz: 'UTC' });
    const job = await store.create({ prompt: 'tick tock [job-T]', schedule: 'in 1m', deliver: 'telegram:5' });
    // Make it due now (as if a minute had passed).
    await store.mutate((jobs) => {
      jobs[0].next_run_at = new Date(Date.now() - 1000).toISOString();
      return { result: null, changed: true };
    });
    replyBy({ '[job-T]': { text: 'tock', delayMs: 50 } });
    const delivered: string[] = [];
    let resolveDelivered!: () => void;
    const got = new Promise<void>((r) => (resolveDelivered = r));
    const ticker = startCronTicker({
      home,
      intervalMs: 30,
      env: testEnv(home),
      deliver: async (target, content) => {
        delivered.push(`${target} ${content}`);
        resolveDelivered();
        return { ok: true };
      },
    });
    assert.equal(activeTicker(home), ticker);
    await got;
    await ticker.stop();
    assert.equal(activeTicker(home), undefined);
    assert.equal(delivered.length, 1);
    assert.match(delivered[0], /^telegram:5 Cronjob Response: tick tock/);
    const [rec] = readJobs(home);
    assert.deepEqual([rec.id, rec.state, rec.last_status], [job.id, 'completed', 'ok']);
    assert.ok(store.markerAge('ticker_heartbeat')! < 5);
    assert.ok(store.markerAge('ticker_last_success')! < 5);
  });

  it('stop() interrupts runs that outlast the drain; an interrupted one-shot runs again later', async () => {
    const home = cronHome(fake);
    const store = new CronStore({ home, tz: 'UTC' });
    await store.create({ prompt: 'long [job-D]', schedule: 'in 1m' });
    await store.mutate((jobs) => {
      jobs[0].next_run_at = new Date(Date.now() - 1000).toISOString();
      return { result: null, changed: true };
    });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    fake.setHandler(() => {
      started();
      return { hang: true };
    });
    const ticker = startCronTicker({ home, intervalMs: 10_000, drainMs: 50, env: testEnv(home), deliver: async () => ({ ok: true }) });
    await running;
    await ticker.stop();
    const [rec] = readJobs(home);
    assert.deepEqual([rec.state, rec.fire_claim, rec.last_status], ['scheduled', null, null], 'released, not recorded');
    assert.equal(new CronStore({ home, tz: 'UTC' }).isRunning(rec), false);
  });

  it('interrupting a tick releases the claimed jobs that have not started yet', async () => {
    const w = world('', { HERMES_CRON_MAX_PARALLEL: '1' });
    for (let i = 0; i < 3; i++) await w.store.create({ prompt: `queued [Q${i}]`, schedule: 'every 1h' });
    let started!: () => void;
    const first = new Promise<void>((r) => (started = r));
    fake.setHandler(() => {
      started();
      return { hang: true };
    });
    w.setNow(T0 + 3600_000);
    const t = await w.scheduler.tick({ all: true });
    assert.equal(t.claimed.length, 3);
    await first;
    await w.scheduler.drain(0);
    const reports = await t.done;
    assert.equal(reports.length, 1, 'only the running job reports');
    assert.match(reports[0].error!, /Interrupted by shutdown/);
    const jobs = readJobs(w.home);
    assert.deepEqual(jobs.map((j) => j.fire_claim), [null, null, null]);
    assert.deepEqual(jobs.map((j) => j.last_status).sort(), ['error', null, null]);
    assert.equal((await w.scheduler.tick({ all: true })).claimed.length, 0, 'a stopped scheduler claims nothing');
    // Another process picks the released ones up.
    fake.setHandler(() => ({ text: 'ok' }));
    const other = new CronScheduler({ home: w.home, now: () => T0 + 3600_000, env: testEnv(w.home) });
    const again = await (await other.tick({ all: true })).done;
    assert.equal(again.length, 2);
  });

  it('a broken config.yaml is a tick error recorded for `cron status`, not a crash', async () => {
    const home = cronHome(fake);
    writeFileSync(join(home, 'config.yaml'), 'model: [unclosed\n');
    const logs: string[] = [];
    const ticker = startCronTicker({ home, intervalMs: 10_000, env: testEnv(home), log: (l) => logs.push(l), deliver: async () => ({ ok: true }) });
    for (let i = 0; i < 100 && !logs.length; i++) await new Promise((r) => setTimeout(r, 10));
    await ticker.stop();
    assert.match(logs[0], /cron: tick failed: /);
    const store = new CronStore({ home, tz: 'UTC' });
    assert.ok(store.lastTickError());
    chmodSync(join(home, 'config.yaml'), 0o600);
  });
});
