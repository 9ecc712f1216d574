// Cron on `state.backend: postgres`: two machines (two homes) hold the same job; both tick at once
// (`hermes cron tick`, two processes). Each scheduled run is fired by exactly one of them, and the
// other's schedule moves on without running it. A one-shot completes on both.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);

let cluster: PgCluster | null = null;
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
  if (!skip) cluster = await startPostgres();
});
after(async () => {
  await llm.close();
  cluster?.stop();
});

function tick(home: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'cron', 'tick'], { cwd: home, env: cleanEnv(home, {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

type Job = { id: string; name: string; next_run_at: string | null; state: string; fire_claim?: unknown; repeat: { completed: number } };
const jobsOf = (home: string) => (JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: Job[] }).jobs;
const outputs = (home: string, id: string) => (existsSync(join(home, 'cron', 'output', id)) ? readdirSync(join(home, 'cron', 'output', id)).length : 0);

describe('cron claims on PostgreSQL', { skip: skip ?? false, timeout: 180_000 }, () => {
  it('two processes ticking the same jobs: each run fires once, the other moves on', async () => {
    const url = await cluster!.createDatabase('cron_claims');
    let calls = 0;
    llm.setHandler(() => (calls++, { text: 'Report done.' }));
    const yaml = `state:\n  backend: postgres\n  url: ${url}\n`;
    const a = homeWithModel(llm.openaiBaseUrl, yaml);
    const b = homeWithModel(llm.openaiBaseUrl, yaml);
    const made = await hermes(['cron', 'create', 'every 1h', 'write the report', '--name', 'hourly'], { home: a });
    assert.equal(made.code, 0, made.stderr);
    const once = await hermes(['cron', 'create', '30m', 'remind me once', '--name', 'once'], { home: a });
    assert.equal(once.code, 0, once.stderr);
    // Both due a minute ago; machine B holds a copy of the same jobs.
    const file = join(a, 'cron', 'jobs.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { jobs: Job[] };
    const due = new Date(Date.now() - 60_000).toISOString();
    for (const j of doc.jobs) j.next_run_at = due;
    writeFileSync(file, JSON.stringify(doc, null, 2));
    mkdirSync(join(b, 'cron'), { recursive: true });
    copyFileSync(file, join(b, 'cron', 'jobs.json'));
    const hourly = doc.jobs.find((j) => j.name === 'hourly')!;
    const one = doc.jobs.find((j) => j.name === 'once')!;

    const [ra, rb] = await Promise.all([tick(a), tick(b)]);
    assert.equal(ra.code, 0, ra.out);
    assert.equal(rb.code, 0, rb.out);
    for (const j of [hourly, one]) assert.equal(outputs(a, j.id) + outputs(b, j.id), 1, `job ${j.id} ran exactly once across both machines`);
    assert.equal(calls, 2, 'two runs in all (one per job), not four');
    for (const home of [a, b]) {
      const jobs = jobsOf(home);
      const h = jobs.find((j) => j.id === hourly.id)!;
      assert.ok(h.next_run_at && Date.parse(h.next_run_at) > Date.now(), `${home}: the hourly job moved on to its next slot`);
      assert.equal(h.fire_claim ?? null, null);
      const o = jobs.find((j) => j.id === one.id)!;
      assert.equal(o.state, 'completed', `${home}: the one-shot is complete on both machines`);
      assert.equal(o.repeat.completed, 1);
    }
    // Nothing is due any more on either machine.
    const again = await Promise.all([tick(a), tick(b)]);
    for (const r of again) assert.match(r.out, /No jobs due/);
    assert.equal(calls, 2);

    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const fires = await c.query('SELECT job_id, slot FROM hermes_cron_fires ORDER BY job_id');
      assert.equal(fires.rows.length, 2, 'one fire row per (job, slot)');
      const runs = await c.query("SELECT COUNT(*)::int AS n FROM sessions WHERE source = 'cron'");
      assert.equal(runs.rows[0].n, 2, 'the runs are saved as cron sessions in PostgreSQL');
    } finally {
      await c.end();
    }
    assert.equal(existsSync(join(a, 'state.db')) || existsSync(join(b, 'state.db')), false, 'no state.db on either machine');
  });
});
