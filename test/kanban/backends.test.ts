// The kanban store on both backends: the same operations on a kanban.db board and on a PostgreSQL
// board (`state.backend: postgres`) give the same board — DAG gating and promotion, comments and the
// event log, claims (a second claim of a claimed task loses), runs and summaries, notification
// cursors, sorting, stats, idempotency keys, archive and delete, the dispatcher and its board lock.
// PostgreSQL is a real server (test/helpers/postgres.ts); without one that half is skipped.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openBoardDb, tryDispatchLock } from '../../src/kanban/backend.ts';
import { dbPath } from '../../src/kanban/boards.ts';
import { dispatchOnce } from '../../src/kanban/dispatcher.ts';
import { archive, claim, complete, deleteArchived, heartbeatClaim } from '../../src/kanban/lifecycle.ts';
import { KanbanStore, openBoard } from '../../src/kanban/store.ts';
import { cleanEnv, tempHome } from '../helpers/cli.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const pgSkip = postgresUnavailable();
if (pgSkip) console.log(`# postgres half skipped: ${pgSkip}`);

let cluster: PgCluster | null = null;
before(async () => {
  if (!pgSkip) cluster = await startPostgres();
});
after(() => cluster?.stop());

let dbs = 0;
async function envFor(backend: 'sqlite' | 'postgres'): Promise<NodeJS.ProcessEnv> {
  const home = tempHome('hermes-kanban-be-');
  if (backend === 'postgres') {
    const url = await cluster!.createDatabase(`kanban_be_${++dbs}`);
    writeFileSync(join(home, 'config.yaml'), `state:\n  backend: postgres\n  url: ${url}\n`);
  }
  return cleanEnv(home);
}

/** Runs the battery on one backend; returns a backend-neutral picture of the board. */
async function battery(env: NodeJS.ProcessEnv): Promise<unknown> {
  let now = 1_800_000_000;
  const s = openBoard({ env, now: () => now });
  const other = new KanbanStore(openBoardDb('default', env), { board: 'default', env, now: () => now });
  try {
    const a = s.create({ title: 'design', assignee: 'alice', priority: 2, tenant: 'acme' });
    now += 1; // distinct creation times: ties in a sort are in storage order, which the backends do not share
    const b = s.create({ title: 'build', assignee: 'bob', parents: [a] });
    now += 1;
    const c = s.create({ title: 'ship', parents: [b], idempotencyKey: 'ship-1' });
    assert.equal(s.create({ title: 'ship again', idempotencyKey: 'ship-1' }), c, 'an idempotency key returns the existing task');
    assert.equal(s.get(b)!.status, 'todo');
    assert.equal(s.get(b)!.tenant, 'acme', 'tenant inherited from the parent');
    assert.throws(() => s.link(c, a), /cycle/);
    assert.deepEqual(s.parents(c), [b]);
    assert.deepEqual(s.children(a), [b]);
    s.link(a, c); // a second parent; the duplicate link is ignored
    s.link(a, c);
    assert.deepEqual(s.parents(c).sort(), [a, b].sort());

    now += 5;
    s.comment(a, 'carol', 'use the blue one');
    s.subscribe({ taskId: a, platform: 'telegram', chatId: '42' });
    s.subscribe({ taskId: a, platform: 'telegram', chatId: '42' });
    assert.equal(s.subscriptions(a).length, 1);

    // Claims: one winner, even through another connection.
    const first = claim(s, a, { claimer: 'host-a:1', ttlSeconds: 60 });
    assert.ok(first, 'the first claim wins');
    assert.equal(claim(other, a, { claimer: 'host-b:2', ttlSeconds: 60 }), null, 'a second claim of a running task loses');
    assert.equal(claim(other, b, { claimer: 'host-b:2' }), null, 'a task with unfinished parents is not claimable');
    assert.ok(heartbeatClaim(s, a, { claimer: 'host-a:1', ttlSeconds: 120 }));
    assert.equal(heartbeatClaim(other, a, { claimer: 'host-b:2' }), false);
    now += 10;
    assert.ok(complete(s, a, { summary: 'blue it is', metadata: { files: 2 } }));
    assert.equal(s.recomputeReady(), 0, 'completing promoted the child already');
    assert.equal(s.get(b)!.status, 'ready');
    assert.equal(s.latestSummary(a), 'blue it is');
    const unseen = s.claimUnseen({ task_id: a, platform: 'telegram', chat_id: '42', thread_id: '' }, ['completed']);
    assert.deepEqual(
      unseen.map((e) => e.kind),
      ['completed'],
    );
    assert.equal(other.claimUnseen({ task_id: a, platform: 'telegram', chat_id: '42', thread_id: '' }, ['completed']).length, 0, 'an event is delivered once');

    // The dispatcher: the board lock held elsewhere → this tick skips; free → it claims and spawns.
    const held = tryDispatchLock(other.db, 'default', other.path);
    assert.ok(held);
    const spawnedIds: string[] = [];
    const spawn = (t: { id: string }) => (spawnedIds.push(t.id), 999_999);
    assert.equal((await dispatchOnce(s, { env, spawn, maxInProgress: 4 })).skippedLocked, true);
    held.release();
    const r = await dispatchOnce(s, { env, spawn, maxInProgress: 4 });
    assert.equal(r.skippedLocked, false);
    assert.deepEqual(spawnedIds, [b]);
    assert.equal(s.get(b)!.status, 'running');

    const d = s.create({ title: 'scrap' });
    assert.ok(archive(s, d).ok);
    assert.ok(deleteArchived(s, d));
    assert.equal(s.get(d), null);
    assert.equal(s.eventsAfter(0).filter((e) => e.task_id === d).length, 0, 'a deleted task leaves no events');

    const ids = new Map([
      [a, 'A'],
      [b, 'B'],
      [c, 'C'],
    ]);
    const name = (id: string) => ids.get(id) ?? id;
    return {
      list: s.list({ sort: 'priority' }).map((t) => [name(t.id), t.status, t.assignee, t.priority]),
      byTitle: s.list({ sort: 'title' }).map((t) => name(t.id)),
      alice: s.list({ assignee: 'alice', includeArchived: true }).map((t) => name(t.id)),
      stats: s.stats(),
      events: [a, b, c].map((id) => s.events(id).map((e) => [e.kind, e.payload ? Object.keys(e.payload).sort() : null])),
      comments: s.comments(a).map((x) => [x.author, x.body, x.created_at]),
      runs: s.runs(a).map((x) => [x.status, x.outcome, x.summary, x.metadata, x.started_at, x.ended_at]),
      lastEventIsMax: s.lastEventId() === Math.max(...s.eventsAfter(0).map((e) => e.id)),
    };
  } finally {
    other.close();
    s.close();
  }
}

describe('kanban store on both backends', { timeout: 120_000 }, () => {
  let sqliteResult: unknown;
  test('sqlite (kanban.db)', async () => {
    const env = await envFor('sqlite');
    sqliteResult = await battery(env);
    assert.ok(dbPath('default', env).endsWith('kanban.db'));
  });

  test('postgres: the same board, in the database (no kanban.db written)', { skip: pgSkip ?? false }, async () => {
    const env = await envFor('postgres');
    const pg = await battery(env);
    assert.deepEqual(pg, sqliteResult);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(dbPath('default', env)), false, 'the board is not in a file');
  });

  test('postgres: a pooled connection the server dropped is replaced on the next open', { skip: pgSkip ?? false }, async () => {
    const env = await envFor('postgres');
    const s = openBoard({ env });
    const t = openBoard({ env });
    const id = s.create({ title: 'survives' });
    s.close(); // both connections back to the idle list
    t.close();
    const killer = openBoard({ env }); // takes one; the server drops the other
    const mine = killer.db.prepare('SELECT pg_backend_pid() AS pid').get() as { pid: number };
    const killed = killer.db.prepare("SELECT COUNT(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = 'hermes-kanban' AND datname = current_database() AND pid <> ?").get(mine.pid) as { n: number };
    assert.equal(killed.n, 1);
    const again = openBoard({ env });
    try {
      assert.equal(again.get(id)?.title, 'survives');
    } finally {
      again.close();
      killer.close();
    }
  });
});
