// A DAG of three tasks run by the real dispatcher (`hermes kanban dispatch`), each by its own worker
// process (`hermes chat -q`) on the fake LLM: workers claim, heartbeat and complete in dependency
// order, and each child's worker is handed its parents' results.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { openBoard } from '../../src/kanban/store.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { until } from '../gateway/helpers.ts';
import { kanbanHome, kb, scriptWorkers, type WorkerScript } from './helpers.ts';

const idOf = (stdout: string) => /Created (t_[0-9a-f]+)/.exec(stdout)?.[1] ?? assert.fail(`no task id in ${stdout}`);

describe('kanban: a DAG runs to done through the dispatcher', () => {
  let llm: FakeLlm;
  let home: string;
  let script: WorkerScript;
  before(async () => {
    llm = await startFakeLlm();
    script = scriptWorkers(llm);
    home = kanbanHome(llm, { profiles: ['alice', 'bob', 'carol'] });
  });
  after(async () => llm?.close());

  test('A → B → C (and A → C): workers complete in order with their parents’ results', async () => {
    const a = idOf((await kb(home, ['create', 'A', '--assignee', 'alice', '--body', 'first step'])).stdout);
    const b = idOf((await kb(home, ['create', 'B', '--assignee', 'bob', '--parent', a])).stdout);
    const c = idOf((await kb(home, ['create', 'C', '--assignee', 'carol', '--parent', a, '--parent', b])).stdout);
    const list = await kb(home, ['list']);
    assert.match(list.stdout, new RegExp(`${a}\\s+ready`));
    assert.match(list.stdout, new RegExp(`${b}\\s+todo`));
    assert.match(list.stdout, new RegExp(`${c}\\s+todo`));

    const status = (id: string) => {
      const s = openBoard({ env: { HERMES_HOME: home } });
      try {
        return s.get(id)!.status;
      } finally {
        s.close();
      }
    };
    for (const id of [a, b, c]) {
      const d = await kb(home, ['dispatch']);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stdout, new RegExp(`Spawned:\\s+1[\\s\\S]*${id}`), d.stdout);
      await until(() => status(id) === 'done', 60_000, `${id} done`);
    }
    assert.deepEqual(script.completions, [a, b, c]);

    const s = openBoard({ env: { HERMES_HOME: home } });
    try {
      assert.equal(s.latestSummary(a), 'done:A()');
      assert.equal(s.latestSummary(b), 'done:B(A)');
      assert.equal(s.latestSummary(c), 'done:C(A,B)');
      for (const [id, who] of [
        [a, 'alice'],
        [b, 'bob'],
        [c, 'carol'],
      ]) {
        const kinds = s.events(id).map((e) => e.kind);
        for (const k of ['created', 'claimed', 'spawned', 'heartbeat', 'completed']) assert.ok(kinds.includes(k), `${id}: ${kinds.join(',')}`);
        assert.ok(kinds.indexOf('claimed') < kinds.indexOf('heartbeat') && kinds.indexOf('heartbeat') < kinds.indexOf('completed'));
        const runs = s.runs(id);
        assert.equal(runs.length, 1);
        assert.equal(runs[0].profile, who);
        assert.equal(runs[0].outcome, 'completed');
        assert.deepEqual(runs[0].metadata, { by: id });
      }
      // Scratch workspaces are removed once a task and everything depending on it are done.
      for (const id of [a, b, c]) {
        const ws = s.get(id)!.workspace_path!;
        assert.match(ws, new RegExp(`kanban/workspaces/${id}$`));
        await until(() => !existsSync(ws), 10_000, `${ws} removed`);
      }
    } finally {
      s.close();
    }
    const ctx = await kb(home, ['context', c]);
    assert.match(ctx.stdout, new RegExp(`## Parent task results[\\s\\S]*### ${a} \\(completed [^)]*\\)\\ndone:A\\(\\)`));
    assert.match(ctx.stdout, new RegExp(`### ${b} \\(completed [^)]*\\)\\ndone:B\\(A\\)`));
    const tail = await kb(home, ['show', c]);
    assert.match(tail.stdout, /status:\s+done/);
  });

  test('a task created without an assignee runs: the dispatcher gives it to kanban.default_assignee (the default profile)', async () => {
    const t = idOf((await kb(home, ['create', 'nobody named'])).stdout);
    assert.match((await kb(home, ['list'])).stdout, new RegExp(`${t}\\s+ready\\s+\\(unassigned\\)`));
    const d = await kb(home, ['dispatch']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, new RegExp(`Auto-assigned to kanban.default_assignee: ${t}`));
    assert.match(d.stdout, new RegExp(`Spawned:\\s+1[\\s\\S]*${t}`), d.stdout);
    const s = () => openBoard({ env: { HERMES_HOME: home } });
    await until(() => {
      const b = s();
      try {
        return b.get(t)!.status === 'done';
      } finally {
        b.close();
      }
    }, 60_000, `${t} done`);
    const b = s();
    try {
      assert.equal(b.get(t)!.assignee, 'default');
      assert.equal(b.runs(t)[0].profile, 'default');
      assert.deepEqual(b.events(t).find((e) => e.kind === 'assigned')?.payload, { assignee: 'default', source: 'kanban.default_assignee' });
      assert.equal(b.latestSummary(t), 'done:nobody named()');
    } finally {
      b.close();
    }
  });

  test('kanban.default_assignee set empty (or to a missing profile) leaves unassigned tasks waiting, and says how to assign them', async () => {
    const other = kanbanHome(llm, { yaml: "kanban:\n  default_assignee: ''\n" });
    const t = idOf((await kb(other, ['create', 'left alone'])).stdout);
    const d = await kb(other, ['dispatch']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, new RegExp(`Skipped \\(unassigned\\): ${t} \\(kanban.default_assignee is empty or not a profile: assign them with \`hermes kanban assign <id> <profile>\``));
    assert.match(d.stdout, /Spawned:\s+0/);
    const ghost = kanbanHome(llm, { yaml: 'kanban:\n  default_assignee: ghost\n' });
    const g = idOf((await kb(ghost, ['create', 'for a ghost'])).stdout);
    assert.match((await kb(ghost, ['dispatch'])).stdout, new RegExp(`Skipped \\(unassigned\\): ${g}`));
  });
});
