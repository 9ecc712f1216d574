// Kanban on `state.backend: postgres`: two machines (two homes, one database) share one board. Both
// run `hermes kanban dispatch` at once, round after round: every task is claimed, spawned and run
// exactly once, and its worker (a profile home with no state settings of its own) reports back
// through the kanban tools into the same database. Six `hermes kanban claim`s of one task from both
// homes: exactly one wins. Neither home writes a kanban.db.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { openBoard } from '../../src/kanban/store.ts';
import { loadConfig } from '../../src/state/config.ts';
import { cleanEnv, hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { until } from '../gateway/helpers.ts';
import { kanbanHome, kb, scriptWorkers, type WorkerScript } from '../kanban/helpers.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);

let cluster: PgCluster | null = null;
let llm: FakeLlm;
let script: WorkerScript;
before(async () => {
  llm = await startFakeLlm();
  script = scriptWorkers(llm);
  if (!skip) cluster = await startPostgres();
});
after(async () => {
  await llm.close();
  cluster?.stop();
});

describe('kanban on PostgreSQL', { skip: skip ?? false, timeout: 240_000 }, () => {
  it('two homes dispatching one board at once: each task claimed and run once', async () => {
    const url = await cluster!.createDatabase('kanban_two');
    const yaml = `state:\n  backend: postgres\n  url: ${url}\n`;
    const profiles = ['ann', 'ben', 'cat'];
    const a = kanbanHome(llm, { profiles, yaml });
    const b = kanbanHome(llm, { profiles, yaml });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await kb(i % 2 ? b : a, ['create', `job${i}`, '--assignee', profiles[i % 3]]);
      assert.equal(r.code, 0, r.stderr);
      ids.push(/Created (t_\w+)/.exec(r.stdout)![1]);
    }
    const listed = await kb(a, ['list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { id: string }[]).map((t) => t.id).sort(), [...ids].sort(), 'home A sees the tasks both homes created');

    for (let round = 0; round < 3; round++) {
      const [x, y] = await Promise.all([kb(a, ['dispatch', '--json']), kb(b, ['dispatch', '--json'])]);
      assert.equal(x.code, 0, x.stderr);
      assert.equal(y.code, 0, y.stderr);
    }
    const check = openBoard({ env: { HERMES_HOME: a } });
    try {
      // A look is a query per task (on PostgreSQL, through a worker thread): every 250 ms, not 20.
      await until(() => ids.every((id) => check.get(id)!.status === 'done'), 120_000, 'all tasks done', 250);
      for (const id of ids) {
        assert.equal(check.runs(id).length, 1, `${id} ran once`);
        assert.equal(check.events(id).filter((e) => e.kind === 'claimed').length, 1, `${id} claimed once`);
        assert.equal(check.events(id).filter((e) => e.kind === 'spawned').length, 1, `${id} spawned once`);
        assert.match(check.latestSummary(id) ?? '', /^done:job\d/, 'the worker completed it through the kanban tools');
      }
      assert.equal(script.completions.length, 6);
    } finally {
      check.close();
    }
    const shown = await kb(b, ['show', ids[0]]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /done:job0/);
    for (const home of [a, b]) assert.equal(existsSync(join(home, 'kanban.db')), false, `${home}: no kanban.db`);
  });

  it('six claims of one task from two homes: exactly one wins', async () => {
    const url = await cluster!.createDatabase('kanban_claim');
    const yaml = `state:\n  backend: postgres\n  url: ${url}\n`;
    const a = kanbanHome(llm, { yaml });
    const b = kanbanHome(llm, { yaml });
    const id = /Created (t_\w+)/.exec((await kb(a, ['create', 'contended'])).stdout)![1];
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => hermes(['kanban', 'claim', id], { home: i % 2 ? b : a })));
    const won = results.filter((r) => r.code === 0);
    assert.equal(won.length, 1, results.map((r) => r.stdout + r.stderr).join('\n'));
    for (const r of results.filter((x) => x.code !== 0)) assert.match(r.stderr, new RegExp(`hermes: cannot claim ${id}: status=running lock=`));
  });

  it('boards live in the database: made on one home, listed, used and removed on the other', async () => {
    const url = await cluster!.createDatabase('kanban_boards');
    const yaml = `state:\n  backend: postgres\n  url: ${url}\n`;
    const a = kanbanHome(llm, { yaml });
    const b = kanbanHome(llm, { yaml });
    const made = await kb(a, ['boards', 'create', 'ops']);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /DB path: +postgres:\/\/hermes@127\.0\.0\.1:\d+\/kanban_boards#kanban_ops/);
    const listed = await kb(b, ['boards', 'list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { slug: string }[]).map((x) => x.slug), ['default', 'ops']);
    const created = await kb(b, ['--board', 'ops', 'create', 'on ops']);
    assert.equal(created.code, 0, created.stderr);
    const onA = await kb(a, ['--board', 'ops', 'list']);
    assert.match(onA.stdout, /on ops/);
    assert.doesNotMatch((await kb(a, ['list'])).stdout, /on ops/, 'the default board is another board');
    const rm = await kb(b, ['boards', 'rm', 'ops']);
    assert.equal(rm.code, 0, rm.stderr);
    const after = await kb(a, ['boards', 'list', '--json']);
    assert.deepEqual((JSON.parse(after.stdout) as { slug: string }[]).map((x) => x.slug), ['default'], 'archived on B: gone from A too');
  });

  it('two gateways on one database run the shared board: every task once', async () => {
    const url = await cluster!.createDatabase('kanban_gateways');
    const yaml = `state:\n  backend: postgres\n  url: ${url}\nkanban:\n  dispatch_interval_seconds: 1\n`;
    const profiles = ['ann', 'ben'];
    const homes = [kanbanHome(llm, { profiles, yaml }), kanbanHome(llm, { profiles, yaml })];
    const gws: RunningGateway[] = [];
    try {
      for (const home of homes) {
        const env = cleanEnv(home, { MESSAGING_CWD: home, API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: 'k-test-key-123456' });
        gws.push(await runGateway({ home, config: loadConfig(home, env).config, env, backgroundTasks: false, cron: false }));
      }
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(/Created (t_\w+)/.exec((await kb(homes[i % 2], ['create', `gw${i}`, '--assignee', profiles[i % 2]])).stdout)![1]);
      const check = openBoard({ env: { HERMES_HOME: homes[1] } });
      try {
        await until(() => ids.every((id) => check.get(id)!.status === 'done'), 120_000, 'all tasks done by the gateways', 250);
        for (const id of ids) {
          assert.equal(check.runs(id).length, 1, `${id} ran once`);
          assert.equal(check.events(id).filter((e) => e.kind === 'claimed').length, 1, `${id} claimed once`);
        }
      } finally {
        check.close();
      }
    } finally {
      for (const g of gws) await g.shutdown();
    }
  });

  it('state migrate copies kanban.db boards into the database: same tasks, comments and runs; new ids go on', async () => {
    const url = await cluster!.createDatabase('kanban_migrate');
    const home = kanbanHome(llm);
    const id = /Created (t_\w+)/.exec((await kb(home, ['create', 'old task'])).stdout)![1];
    assert.equal((await kb(home, ['comment', id, 'kept comment'])).code, 0);
    assert.equal((await kb(home, ['boards', 'create', 'side'])).code, 0);
    assert.equal((await kb(home, ['--board', 'side', 'create', 'side task'])).code, 0);
    const before = await kb(home, ['show', id, '--json']);
    const moved = await hermes(['state', 'migrate', '--to', 'postgres', '--url', url], { home });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /Kanban board 'default': copied \d+ new rows/);
    assert.match(moved.stdout, /Kanban board 'side': copied \d+ new rows/);
    const again = await hermes(['state', 'migrate', '--to', 'postgres', '--url', url], { home });
    assert.match(again.stdout, /Kanban board 'default': copied 0 new rows/);
    writeFileSync(join(home, 'config.yaml'), readFileSync(join(home, 'config.yaml'), 'utf8') + `state:\n  backend: postgres\n  url: ${url}\n`);
    const after = await kb(home, ['show', id, '--json']);
    assert.equal(after.code, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout), JSON.parse(before.stdout));
    assert.match((await kb(home, ['--board', 'side', 'list'])).stdout, /side task/);
    assert.equal((await kb(home, ['comment', id, 'new comment'])).code, 0, 'a new comment gets the next id');
    assert.match((await kb(home, ['show', id])).stdout, /kept comment[\s\S]*new comment/);
  });

  it('an unreachable database: one clear message, non-zero exit', async () => {
    const home = kanbanHome(llm, { yaml: 'state:\n  backend: postgres\n  url: postgres://hermes:secret@127.0.0.1:1/nowhere\n' });
    writeFileSync(join(home, 'marker'), '');
    const r = await kb(home, ['list']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Cannot connect to PostgreSQL at postgres:\/\/hermes@127\.0\.0\.1:1\/nowhere/);
    assert.doesNotMatch(r.stderr + r.stdout, /secret/);
  });
});
