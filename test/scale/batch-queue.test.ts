// Distributed batch on PostgreSQL: a dataset enqueued once (idempotently), worker processes pulling
// prompts, two of them SIGKILLed midway; every prompt still ends with exactly one trajectory.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);
// The figure is 2,000 prompts; HERMES_TEST_BATCH_PROMPTS raises it (the default keeps CI short).
const PROMPTS = Number(process.env.HERMES_TEST_BATCH_PROMPTS ?? 400);

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

function worker(home: string, url: string, extra: string[] = []): { child: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(process.execPath, [BIN, 'batch', 'worker', '--queue', url, '--run-name', 'big', '--num-workers', '2', '--visibility-timeout', '3', ...extra], {
    cwd: home,
    env: cleanEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return { child, done: new Promise((r) => child.on('exit', (code) => r({ code, out, err }))) };
}

describe('hermes batch on a PostgreSQL queue', { skip: skip ?? false }, () => {
  it(`${PROMPTS} prompts over 4 workers, 2 SIGKILLed midway: one trajectory per prompt; retries; status and collect`, { timeout: 900_000 }, async () => {
    const url = await cluster!.createDatabase('batchq');
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n`);
    writeFileSync(join(h, 'prompts.jsonl'), `${Array.from({ length: PROMPTS }, (_, i) => JSON.stringify({ prompt: `prompt number ${i}` })).join('\n')}\n`);
    const flaky = new Set<string>();
    llm.setHandler((r) => {
      const user = (r.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
      // Prompt 7 fails once (retried with backoff); prompt 11 always fails (failed after --max-attempts).
      if (user === 'prompt number 7' && !flaky.has(user)) {
        flaky.add(user);
        return { status: 400, error: 'transient trouble' };
      }
      if (user === 'prompt number 11') return { status: 400, error: 'this prompt always fails' };
      return { text: `answer to ${user}`, delayMs: 30 };
    });

    const q = ['batch', '--queue', url, '--dataset-file', 'prompts.jsonl', '--run-name', 'big', '--toolsets', 'todo'];
    const a = await hermes(q, { home: h });
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, new RegExp(`Queued ${PROMPTS} prompts for run big`));
    const again = await hermes(q, { home: h });
    assert.match(again.stdout, new RegExp(`Queued 0 prompts for run big \\(${PROMPTS} were already queued\\)`), 'enqueueing is idempotent by prompt index');

    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const ws = [worker(h, url, ['--max-attempts', '2']), worker(h, url, ['--max-attempts', '2']), worker(h, url, ['--max-attempts', '2']), worker(h, url, ['--max-attempts', '2'])];
      // Kill two workers once a quarter of the prompts are done: they hold claimed, unfinished prompts.
      for (;;) {
        const n = (await client.query("SELECT COUNT(*)::int AS n FROM hermes_batch_jobs WHERE status = 'done'")).rows[0].n as number;
        if (n >= PROMPTS / 4) break;
        // Workers that all stopped before doing a quarter would leave this loop polling forever.
        if (ws.every((w) => w.child.exitCode !== null)) assert.fail(`the workers stopped early: ${(await ws[0].done).err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const held = (await client.query("SELECT COUNT(*)::int AS n FROM hermes_batch_jobs WHERE status = 'running'")).rows[0].n as number;
      assert.ok(held > 0, 'prompts are in flight when the workers die');
      ws[0].child.kill('SIGKILL');
      ws[1].child.kill('SIGKILL');
      const results = await Promise.all(ws.map((w) => w.done));
      assert.equal(results[0].code, null);
      assert.equal(results[1].code, null);
      for (const r of results.slice(2)) assert.equal(r.code, 0, r.err);

      const rows = (await client.query('SELECT idx, status, attempts, trajectory FROM hermes_batch_jobs ORDER BY idx')).rows as { idx: number; status: string; attempts: number; trajectory: { prompt_index: number; conversations: { from: string; value: string }[] } | null }[];
      assert.equal(rows.length, PROMPTS);
      const failed = rows.filter((r) => r.status === 'failed').map((r) => r.idx);
      assert.deepEqual(failed, [11]);
      assert.equal(rows.find((r) => r.idx === 11)!.attempts, 2);
      const seven = rows.find((r) => r.idx === 7)!;
      assert.equal(seven.status, 'done');
      assert.ok(seven.attempts >= 2, 'the transient failure was retried');
      for (const r of rows) {
        if (r.idx === 11) continue;
        assert.equal(r.status, 'done', `prompt ${r.idx} is done`);
        assert.equal(r.trajectory!.prompt_index, r.idx);
        assert.equal(r.trajectory!.conversations.find((c) => c.from === 'human')!.value, `prompt number ${r.idx}`);
      }
      const rerun = rows.filter((r) => r.attempts > 1 && r.idx !== 7 && r.idx !== 11).length;
      assert.ok(rerun > 0, 'the killed workers’ prompts were claimed again after their lease lapsed');
    } finally {
      await client.end();
    }

    const st = await hermes(['batch', 'status', '--queue', url, '--run-name', 'big'], { home: h });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, new RegExp(`100\\.0%  ${PROMPTS}/${PROMPTS}`));
    assert.match(st.stdout, new RegExp(`done ${PROMPTS - 1}  discarded 0  failed 1  running 0  queued 0`));
    assert.match(st.stdout, /✗ #11: .*this prompt always fails/);
    const col = await hermes(['batch', 'collect', '--queue', url, '--run-name', 'big'], { home: h });
    assert.equal(col.code, 0, col.stderr);
    const traj = readFileSync(join(h, 'data', 'big', 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { prompt_index: number });
    assert.equal(traj.length, PROMPTS - 1);
    assert.equal(new Set(traj.map((t) => t.prompt_index)).size, PROMPTS - 1, 'exactly one trajectory per prompt');

    const none = await hermes(['batch', 'worker', '--queue', url, '--run-name', 'nope'], { home: h });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No run "nope" in the queue/);
  });
});
