// `hermes batch` on a PostgreSQL queue through a database restart: the server is stopped as a crash
// would (`-m immediate`) while workers hold prompts in the model, stays down a moment and comes back.
// The workers keep running (they say once that the database is away), and every prompt is done
// once: one model call and one trajectory each.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);
const PROMPTS = 40;

let cluster: PgCluster | null = null;
let llm: FakeLlm;
const children: ChildProcess[] = [];
before(async () => {
  llm = await startFakeLlm();
  // Commits acknowledged are durable (the helper's default, synchronous_commit off, loses the last
  // ones in a crash restart, which no client can make exactly-once).
  if (!skip) cluster = await startPostgres({ settings: { synchronous_commit: 'on' } });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await llm.close();
  cluster?.stop();
});

const workerErr: string[] = [];
function worker(home: string, url: string): Promise<{ code: number | null; out: string; err: string }> {
  const slot = workerErr.push('') - 1;
  const child = spawn(process.execPath, [BIN, 'batch', 'worker', '--queue', url, '--run-name', 'r', '--num-workers', '3'], { cwd: home, env: cleanEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => ((err += d), (workerErr[slot] = err.slice(-3000))));
  return new Promise((r) => child.on('exit', (code) => r({ code, out, err })));
}

describe('hermes batch through a PostgreSQL restart', { skip: skip ?? false }, () => {
  it(`${PROMPTS} prompts, 2 workers, the database down mid-run: every prompt done once`, { timeout: 120_000 }, async () => {
    const url = await cluster!.createDatabase('batchr');
    const h = tempHome();
    writeFileSync(join(h, 'config.yaml'), `model:\n  default: m\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n`);
    writeFileSync(join(h, 'prompts.jsonl'), `${Array.from({ length: PROMPTS }, (_, i) => JSON.stringify({ prompt: `prompt number ${i}` })).join('\n')}\n`);
    const asked = new Map<string, number>();
    let inModel = 0;
    llm.setHandler(async (r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      if (String(msgs[0]?.content).startsWith('You name conversations')) return { text: 'A title' };
      const user = msgs.find((m) => m.role === 'user')!.content;
      asked.set(user, (asked.get(user) ?? 0) + 1);
      inModel++;
      await new Promise((res) => setTimeout(res, 150));
      inModel--;
      return { text: `answer to ${user}` };
    });
    const q = await hermes(['batch', '--queue', url, '--dataset-file', 'prompts.jsonl', '--run-name', 'r', '--toolsets', 'todo'], { home: h });
    assert.equal(q.code, 0, q.stderr);

    const ws = [worker(h, url), worker(h, url)];
    const { default: pg } = await import('pg');
    const doneCount = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query("SELECT COUNT(*)::int AS n FROM hermes_batch_jobs WHERE status = 'done'")).rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    const deadline = performance.now() + 60_000;
    while ((await doneCount()) < PROMPTS / 4 || inModel === 0) {
      assert.ok(performance.now() < deadline, 'a quarter of the prompts done with some in the model');
      await new Promise((r) => setTimeout(r, 50));
    }
    await cluster!.restart({ downMs: 2000 });
    const timeout = new Promise<never>((_, rej) =>
      setTimeout(async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect().catch(() => undefined);
        const st = await c.query('SELECT status, COUNT(*)::int AS n FROM hermes_batch_jobs GROUP BY 1').catch((e: Error) => ({ rows: [e.message] }));
        await c.end().catch(() => undefined);
        rej(new Error(`the workers did not finish within 60 s after the restart: ${JSON.stringify(st.rows)}\n${workerErr.join('\n---\n')}`));
      }, 60_000).unref(),
    );
    const results = await Promise.race([Promise.all(ws), timeout]);
    for (const r of results) assert.equal(r.code, 0, `a worker ended with ${r.code}: ${r.err}`);
    assert.ok(results.some((r) => /batch: the database is unreachable .*retrying until it is back/.test(r.err)), 'a worker said the database was away');

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    let rows: { idx: number; status: string; trajectory: { prompt_index: number } | null }[];
    try {
      rows = (await c.query('SELECT idx, status, trajectory FROM hermes_batch_jobs ORDER BY idx')).rows;
    } finally {
      await c.end();
    }
    const notDone = rows.filter((r) => r.status !== 'done').map((r) => r.idx);
    const twice = [...asked].filter(([, n]) => n > 1).map(([p]) => p);
    const never = Array.from({ length: PROMPTS }, (_, i) => `prompt number ${i}`).filter((p) => !asked.has(p));
    console.log(`# batch through a database restart: ${PROMPTS} prompts, not done ${notDone.length}, run twice ${twice.length}, never run ${never.length}`);
    assert.deepEqual(notDone, [], 'every prompt is done');
    assert.deepEqual(twice, [], 'no prompt was run twice');
    assert.deepEqual(never, []);
    for (const r of rows) assert.equal(r.trajectory!.prompt_index, r.idx);
    const st = await hermes(['batch', 'status', '--queue', url, '--run-name', 'r'], { home: h });
    assert.match(st.stdout, new RegExp(`done ${PROMPTS}  discarded 0  failed 0  running 0  queued 0`));
  });
});
