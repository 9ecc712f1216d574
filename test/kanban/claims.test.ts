// Claims under real processes: a worker killed with SIGKILL keeps its claim until the TTL runs out
// (time injected into the dispatcher, no sleeping), then the task is reclaimed and runs again; a
// worker gone after the launch grace is detected as crashed at once; two dispatchers racing on one
// board claim each task once; concurrent `kanban claim` calls on one task: exactly one wins.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dispatchOnce } from '../../src/kanban/dispatcher.ts';
import { pidAlive } from '../../src/kanban/procs.ts';
import { openBoard, type KanbanStore } from '../../src/kanban/store.ts';
import { cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { until } from '../gateway/helpers.ts';
import { kanbanHome, kb, scriptWorkers, type WorkerScript } from './helpers.ts';

const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('kanban claims', () => {
  let llm: FakeLlm;
  let script: WorkerScript;
  before(async () => {
    llm = await startFakeLlm();
    script = scriptWorkers(llm);
  });
  after(async () => llm?.close());

  async function killedWorker(s: KanbanStore, env: NodeJS.ProcessEnv, id: string): Promise<number> {
    script.hang.add(id);
    const r = await dispatchOnce(s, { env, maxInProgress: 4 });
    assert.equal(r.spawned.length, 1, JSON.stringify(r));
    const pid = s.get(id)!.worker_pid!;
    await until(() => script.tools.has(id), 60_000, 'the worker reaching the model');
    process.kill(pid, 'SIGKILL');
    // Dead and reaped (a zombie is already "not alive" to the dispatcher; reaping records the exit).
    await until(() => !pidAlive(pid) && !exists(pid), 10_000, 'the worker to die');
    return pid;
  }

  test('a SIGKILLed worker keeps its claim until the TTL expires, then the task is reclaimed and retried', async () => {
    const home = kanbanHome(llm, { profiles: ['alice'] });
    const env = cleanEnv(home);
    const t0 = Math.floor(Date.now() / 1000);
    let now = t0;
    const s = openBoard({ env, now: () => now });
    try {
      const id = s.create({ title: 'long job', assignee: 'alice' });
      const pid = await killedWorker(s, env, id);

      now = t0 + 10; // dead, but inside the launch grace and the 15-minute claim
      let r = await dispatchOnce(s, { env, maxInProgress: 4 });
      assert.equal(r.reclaimed, 0);
      assert.equal(s.get(id)!.status, 'running');
      assert.equal(s.get(id)!.worker_pid, pid);

      script.hang.delete(id);
      now = t0 + 15 * 60 + 1; // the claim has expired
      r = await dispatchOnce(s, { env, maxInProgress: 4 });
      assert.equal(r.reclaimed, 1, JSON.stringify(r));
      assert.equal(r.spawned.length, 1, 'retried in the same tick');
      const reclaimed = s.events(id).find((e) => e.kind === 'reclaimed')!;
      assert.equal(reclaimed.payload!.worker_pid, pid);
      assert.equal(reclaimed.payload!.claim_expires, t0 + 900);
      await until(() => s.get(id)!.status === 'done', 60_000, 'the retry to finish', 250);
      assert.deepEqual(
        s.runs(id).map((x) => x.outcome),
        ['reclaimed', 'completed'],
      );
    } finally {
      s.close();
    }
  });

  test('a worker that died after the launch grace is detected at once (no TTL wait) and counted', async () => {
    const home = kanbanHome(llm, { profiles: ['bob'] });
    const env = cleanEnv(home);
    const t0 = Math.floor(Date.now() / 1000);
    let now = t0;
    const s = openBoard({ env, now: () => now });
    try {
      const id = s.create({ title: 'flaky job', assignee: 'bob' });
      const pid = await killedWorker(s, env, id);
      now = t0 + 31;
      const r = await dispatchOnce(s, { env, maxInProgress: 4, maxSpawn: 0 });
      assert.deepEqual(r.crashed, [id]);
      const crashed = s.events(id).find((e) => e.kind === 'crashed')!;
      assert.equal(crashed.payload!.pid, pid);
      assert.equal(crashed.payload!.exit_kind, 'signaled');
      const t = s.get(id)!;
      assert.equal(t.status, 'ready');
      assert.equal(t.consecutive_failures, 1);
      assert.match(t.last_failure_error ?? '', /killed by signal SIGKILL/);
    } finally {
      s.close();
    }
  });

  test('two dispatchers racing on one board claim every task exactly once', async () => {
    const home = kanbanHome(llm, { profiles: ['ann', 'ben', 'cat'] });
    const ids: string[] = [];
    const s = openBoard({ env: { HERMES_HOME: home } });
    try {
      for (let i = 0; i < 6; i++) ids.push(s.create({ title: `job ${i}`, assignee: ['ann', 'ben', 'cat'][i % 3] }));
    } finally {
      s.close();
    }
    for (let round = 0; round < 3; round++) {
      const [x, y] = await Promise.all([kb(home, ['dispatch', '--json']), kb(home, ['dispatch', '--json'])]);
      assert.equal(x.code, 0, x.stderr);
      assert.equal(y.code, 0, y.stderr);
    }
    const check = openBoard({ env: { HERMES_HOME: home } });
    try {
      await until(() => ids.every((id) => check.get(id)!.status === 'done'), 90_000, 'all tasks done', 250);
      for (const id of ids) {
        assert.equal(check.runs(id).length, 1, `${id} ran once`);
        assert.equal(check.events(id).filter((e) => e.kind === 'claimed').length, 1);
        assert.equal(check.events(id).filter((e) => e.kind === 'spawned').length, 1);
      }
    } finally {
      check.close();
    }
  });

  test('concurrent claims of one task: exactly one wins', async () => {
    const home = kanbanHome(llm);
    const id = /Created (t_\w+)/.exec((await kb(home, ['create', 'contended'])).stdout)![1];
    const results = await Promise.all(Array.from({ length: 6 }, () => hermes(['kanban', 'claim', id], { home })));
    const won = results.filter((r) => r.code === 0);
    assert.equal(won.length, 1, results.map((r) => r.stdout + r.stderr).join('\n'));
    assert.match(won[0].stdout, new RegExp(`Claimed ${id}\\nWorkspace: .*${id}`));
    for (const r of results.filter((x) => x.code !== 0)) assert.match(r.stderr, new RegExp(`hermes: cannot claim ${id}: status=running lock=`));
  });
});
