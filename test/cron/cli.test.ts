// `hermes cron …` as a person uses it: the real binary, a throwaway HERMES_HOME, the fake LLM.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { cronHome, outputFiles, readJobs, userText } from './helpers.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((req) => {
    const u = userText(req);
    if (u.includes('[fail]')) return { status: 400, error: 'no such model' };
    if (u.includes('[quiet]')) return { text: '[SILENT]' };
    return { text: `Report for: ${/\[(\w+)\]\s*$/.exec(u)?.[1] ?? "?"}` };
  });
});
after(async () => {
  await fake.close();
});

const idOf = (stdout: string) => /Created job ([0-9a-f]{12})/.exec(stdout)![1];

describe('hermes cron', () => {
  it('create, list, edit, pause, resume, remove', async () => {
    const home = cronHome(fake);
    let r = await hermes(['cron', 'list'], { home });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /No scheduled jobs/);

    r = await hermes(['cron', 'create', 'every 2h', 'Check the disks [disks]', '--name', 'Disks', '--skill', 'ops', '--skill', 'report', '--deliver', 'telegram:-100,local'], { home });
    assert.equal(r.code, 0, r.stderr);
    const id = idOf(r.stdout);
    assert.match(r.stdout, /Schedule:  every 120m\n  Repeat:    forever\n  Next run:  \S+\n  Deliver:   telegram:-100,local\n  Skills:    ops, report/);
    assert.match(r.stderr, /No gateway is running/);

    r = await hermes(['cron', 'add', '30m', 'one-off [once]'], { home });
    assert.equal(r.code, 0, r.stderr);
    const once = idOf(r.stdout);

    r = await hermes(['cron', 'list'], { home });
    assert.match(r.stdout, new RegExp(`${id} \\[scheduled\\]\\n  Name:      Disks`));
    assert.match(r.stdout, new RegExp(`${once} \\[scheduled\\]\\n  Name:      one-off \\[once\\]\\n  Schedule:  once in 30m\\n  Repeat:    once`));

    r = await hermes(['cron', 'edit', 'disks', '--schedule', '0 9 * * *', '--remove-skill', 'ops', '--add-skill', 'charts'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Updated job [0-9a-f]{12}\n  Name:      Disks\n  Schedule:  0 9 \* \* \*/);
    assert.match(r.stdout, /Skills:    report, charts/);

    // --no-agent / --agent switch an existing job (no_agent needs a script: refused without one).
    r = await hermes(['cron', 'edit', 'disks', '--no-agent'], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no_agent runs a script without the LLM, so it needs `script`/);
    mkdirSync(join(home, 'scripts'), { recursive: true });
    writeFileSync(join(home, 'scripts', 'df.sh'), 'df -h\n');
    r = await hermes(['cron', 'edit', 'disks', '--script', 'df.sh', '--no-agent'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Mode: {6}no-agent/);
    assert.equal(readJobs(home).find((j) => j.id === id)!.no_agent, true);
    r = await hermes(['cron', 'edit', 'disks', '--agent', '--script', ''], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readJobs(home).find((j) => j.id === id)!.no_agent, false);

    r = await hermes(['cron', 'pause', id, '--reason', 'maintenance'], { home });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Paused job .* \(Disks\)/);
    r = await hermes(['cron', 'list'], { home });
    assert.doesNotMatch(r.stdout, /Disks/);
    r = await hermes(['cron', 'list', '--all'], { home });
    assert.match(r.stdout, new RegExp(`${id} \\[paused\\][\\s\\S]*Paused:    maintenance`));
    r = await hermes(['cron', 'resume', 'DISKS'], { home });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Resumed job .* Next run: \S+T09:00:00/);

    r = await hermes(['cron', 'remove', once], { home });
    assert.equal(r.code, 0);
    assert.deepEqual(readJobs(home).map((j) => j.id), [id]);
    const [job] = readJobs(home);
    assert.deepEqual([job.skills, job.schedule, job.deliver, job.state], [['report', 'charts'], { kind: 'cron', expr: '0 9 * * *', display: '0 9 * * *' }, 'telegram:-100,local', 'scheduled']);
  });

  it('bad input: one clear line and a non-zero exit, nothing changed', async () => {
    const home = cronHome(fake);
    const cases: [string[], RegExp, number][] = [
      [['cron', 'create', 'every fortnight-ish', 'x'], /^hermes: Invalid schedule "every fortnight-ish"\. Use one of: /, 1],
      [['cron', 'create', 'every 1h'], /^hermes: The job has nothing to run/, 1],
      [['cron', 'create', 'every 1h', 'x', '--workdir', 'rel/dir'], /^hermes: The workdir must be an absolute path/, 1],
      [['cron', 'pause', 'nope'], /^hermes: No cron job with ID or name "nope"/, 1],
      [['cron', 'run', 'nope'], /^hermes: No cron job with ID or name "nope"/, 1],
      [['cron', 'edit', 'nope', '--prompt', 'x'], /^hermes: No cron job with ID or name "nope"/, 1],
    ];
    for (const [args, re, code] of cases) {
      const r = await hermes(args, { home });
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    const made = await hermes(['cron', 'create', 'every 1h', 'x'], { home });
    const r = await hermes(['cron', 'edit', idOf(made.stdout)], { home });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Nothing to change/);
    assert.ok(!existsSync(join(home, 'cron', 'output')) || outputFiles(home, idOf(made.stdout)).length === 0);
  });

  it('run: runs now without a gateway; a platform without credentials is recorded as not delivered', async () => {
    const home = cronHome(fake);
    const c = await hermes(['cron', 'create', 'every 1h', 'Daily numbers [numbers]', '--deliver', 'local,telegram:42'], { home });
    const id = idOf(c.stdout);
    const r = await hermes(['cron', 'run', id], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^✓ Daily numbers \\[numbers\\] \\(${id}\\): ok\\n  ⚠ delivery failed: telegram:42: telegram is not configured \\(no credentials in ~/\\.hermes/\\.env\\) and no gateway connection is up for it\\.\\n  output: .*/cron/output/${id}/\\d{4}-\\d{2}-\\d{2}_\\d{2}-\\d{2}-\\d{2}\\.md\\n$`));
    const [file] = outputFiles(home, id);
    assert.match(readFileSync(file, 'utf8'), /## Response\n\nReport for: numbers/);
    const [job] = readJobs(home);
    assert.deepEqual([job.last_status, job.last_delivery_error, job.repeat.completed], ['ok', 'telegram:42: telegram is not configured (no credentials in ~/.hermes/.env) and no gateway connection is up for it.', 1]);
    const list = await hermes(['cron', 'list'], { home });
    assert.match(list.stdout, /Last run:  \S+  ok\n  ⚠ Delivery failed: telegram:42: telegram is not configured.*\n  Output:    .*\.md/);
    // The run is a session like any other: in state.db with source `cron`, searchable.
    const sessions = await hermes(['sessions', 'list', '--source', 'cron'], { home });
    assert.equal(sessions.code, 0, sessions.stderr);
    assert.match(sessions.stdout, new RegExp(`cron_${id}_`));
  });

  it('run: a failing job exits 1 and is recorded as failed', async () => {
    const home = cronHome(fake);
    const c = await hermes(['cron', 'create', 'every 1h', 'Will fail [fail]'], { home });
    const r = await hermes(['cron', 'run', idOf(c.stdout)], { home });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^✗ Will fail \[fail\] \([0-9a-f]{12}\): failed: .*no such model/);
    const [job] = readJobs(home);
    assert.equal(job.last_status, 'error');
    assert.match(job.last_error!, /no such model/);
  });

  it('tick: runs only what is due; [SILENT] runs are not delivered', async () => {
    const home = cronHome(fake);
    await hermes(['cron', 'create', 'every 1h', 'Not yet [later]'], { home });
    let r = await hermes(['cron', 'tick'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'No jobs due.\n');
    // Make two jobs due by editing jobs.json the way an older run would have left it.
    await hermes(['cron', 'create', 'every 1h', 'Nothing new [quiet]', '--deliver', 'telegram:1'], { home });
    await hermes(['cron', 'create', 'every 1h', 'Now please [now]'], { home });
    const file = join(home, 'cron', 'jobs.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    for (const j of data.jobs) if (!j.prompt.includes('[later]')) j.next_run_at = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(file, JSON.stringify(data));
    r = await hermes(['cron', 'tick'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /✓ Nothing new \[quiet\] \([0-9a-f]{12}\): ok\n  \[SILENT\]: nothing delivered\n  output: /);
    assert.match(r.stdout, /✓ Now please \[now\] \([0-9a-f]{12}\): ok\n  output: /);
    assert.doesNotMatch(r.stdout, /later/);
    const quiet = readJobs(home).find((j) => j.prompt.includes('[quiet]'))!;
    assert.equal(quiet.last_delivery_error, null, 'a silent run is not a failed delivery');
    r = await hermes(['cron', 'tick'], { home });
    assert.equal(r.stdout, 'No jobs due.\n');
  });

  it('status: ticker liveness, the next run, failing jobs', async () => {
    const home = cronHome(fake);
    let r = await hermes(['cron', 'status'], { home });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^✗ No cron ticker has run for this Hermes home/);
    assert.match(r.stdout, /No active jobs/);
    await hermes(['cron', 'create', 'every 1h', 'x [fail]'], { home });
    await hermes(['cron', 'run', 'x [fail]'], { home });
    mkdirSync(join(home, 'cron'), { recursive: true });
    writeFileSync(join(home, 'cron', 'ticker_heartbeat'), `${Date.now() / 1000 - 5}\n`);
    writeFileSync(join(home, 'cron', 'ticker_last_success'), `${Date.now() / 1000 - 5}\n`);
    r = await hermes(['cron', 'status'], { home, env: { HERMES_TIMEZONE: 'Europe/Paris' } });
    assert.match(r.stdout, /^✓ The cron ticker is running \(heartbeat \d+s ago\)/);
    assert.match(r.stdout, /Timezone: Europe\/Paris\n  1 active job\(s\)\n  Next run: \S+\+0\d:00 \(x \[fail\], [0-9a-f]{12}\)\n  ⚠ x \[fail\] \([0-9a-f]{12}\) failed its last run: .*no such model/);
    // With a live ticker, `cron run` hands the job to it instead of running here.
    const before = fake.requests.length;
    r = await hermes(['cron', 'run', 'x [fail]'], { home });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Triggered job [0-9a-f]{12} \(x \[fail\]\): the running gateway will run it within a minute/);
    assert.equal(fake.requests.length, before);
    assert.ok(Date.parse(readJobs(home)[0].next_run_at!) <= Date.now());
  });
});

describe('cron shows run times in the configured timezone', () => {
  it('a next run stored in UTC is shown in Europe/Paris with its real offset (+01:00 in November, +02:00 in July)', async () => {
    const home = cronHome(fake);
    let r = await hermes(['cron', 'create', 'every 1h', 'tz check [later]'], { home, env: { HERMES_TIMEZONE: 'UTC' } });
    assert.equal(r.code, 0, r.stderr);
    const file = join(home, 'cron', 'jobs.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.jobs[0].next_run_at = '2099-11-26T08:00:00+00:00';
    writeFileSync(file, JSON.stringify(data));
    r = await hermes(['cron', 'status'], { home, env: { HERMES_TIMEZONE: 'Europe/Paris' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Timezone: Europe\/Paris\n  1 active job\(s\)\n  Next run: 2099-11-26T09:00:00\+01:00 \(tz check \[later\]/, r.stdout);
    data.jobs[0].next_run_at = '2099-07-01T08:00:00Z';
    writeFileSync(file, JSON.stringify(data));
    r = await hermes(['cron', 'status'], { home, env: { HERMES_TIMEZONE: 'Europe/Paris' } });
    assert.match(r.stdout, /Next run: 2099-07-01T10:00:00\+02:00 /, r.stdout);
    r = await hermes(['cron', 'status'], { home, env: { HERMES_TIMEZONE: 'America/New_York' } });
    assert.match(r.stdout, /Next run: 2099-07-01T04:00:00-04:00 /, r.stdout);
  });
});

describe('cron status tells a live ticker from a stopped one', () => {
  it('a heartbeat older than two ticks reads "not running"', async () => {
    const home = cronHome(fake);
    mkdirSync(join(home, 'cron'), { recursive: true });
    writeFileSync(join(home, 'cron', 'ticker_heartbeat'), `${Date.now() / 1000 - 130}\n`);
    writeFileSync(join(home, 'cron', 'ticker_last_success'), `${Date.now() / 1000 - 130}\n`);
    const r = await hermes(['cron', 'status'], { home });
    assert.match(r.stdout, /^✗ The cron ticker is not running \(last heartbeat 2 min ago, more than two ticks\)/);
    writeFileSync(join(home, 'cron', 'ticker_heartbeat'), `${Date.now() / 1000 - 100}\n`);
    writeFileSync(join(home, 'cron', 'ticker_last_success'), `${Date.now() / 1000 - 100}\n`);
    const fresh = await hermes(['cron', 'status'], { home });
    assert.match(fresh.stdout, /^✓ The cron ticker is running/);
  });

  it('a gateway that stops cleanly takes its heartbeat with it', async () => {
    const home = cronHome(fake);
    const gw = spawn(process.execPath, [BIN, 'gateway', 'run'], { cwd: home, env: cleanEnv(home, { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    gw.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => gw.on('exit', (c) => r(c)));
    const hb = join(home, 'cron', 'ticker_heartbeat');
    const deadline = performance.now() + 20_000;
    while (!existsSync(hb)) {
      if (performance.now() > deadline) throw new Error(`no heartbeat; gateway log:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    let r = await hermes(['cron', 'status'], { home });
    assert.match(r.stdout, /^✓ The cron ticker is running/);
    gw.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.equal(existsSync(hb), false, 'the heartbeat is gone');
    r = await hermes(['cron', 'status'], { home });
    assert.match(r.stdout, /^✗ The cron ticker is not running \(it stopped; its last tick was \d+s ago\)/);
  });
});

describe('hermes cron without a gateway: direct delivery', () => {
  it('delivers to Telegram through the Bot API when the bot token is configured', async () => {
    const { startFakeTelegram } = await import('../helpers/fake-telegram.ts');
    const tg = await startFakeTelegram();
    const fake2 = await startFakeLlm();
    try {
      const home = cronHome(fake2);
      writeFileSync(join(home, '.env'), `TELEGRAM_BOT_TOKEN=${tg.token}\nTELEGRAM_API_ROOT=${tg.url}\n`, { mode: 0o600 });
      const c = await hermes(['cron', 'create', 'every 1h', 'Weather report', '--deliver', 'telegram:4242'], { home });
      const id = idOf(c.stdout);
      fake2.enqueue({ text: 'Sunny, 21°C.' });
      const r = await hermes(['cron', 'run', id], { home });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /delivered to telegram:4242/);
      const sent = await tg.waitFor((x) => x.method === 'sendMessage', 5000);
      assert.equal(String(sent.params.chat_id), '4242');
      assert.match(String(sent.params.text), /Sunny, 21°C\./);
      const [job] = readJobs(home);
      assert.equal(job.last_delivery_error, null);
    } finally {
      await tg.close();
      await fake2.close();
    }
  });
});
