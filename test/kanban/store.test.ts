// The board store against Hermes's on-disk format: a board written by an older Python Hermes opens
// and is migrated the way Hermes migrates it; a fresh board has Hermes's tables and columns; the
// failure breaker, typed blocks, the review loop and the event-watch API behave as specified.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openKanbanDb } from '../../src/kanban/db.ts';
import { dispatchOnce } from '../../src/kanban/dispatcher.ts';
import { block, claim, complete, requestChanges, requestReview, unblock } from '../../src/kanban/lifecycle.ts';
import { KanbanStore, type TaskEvent } from '../../src/kanban/store.ts';
import { recordFailure } from '../../src/kanban/sweeps.ts';
import { watchEvents } from '../../src/kanban/watch.ts';
import { sqlite } from '../../src/state/sqlite.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'hermes-kanban-store-'));
const cols = (db: ReturnType<typeof openKanbanDb>, t: string) => (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((r) => r.name);
function board(): KanbanStore {
  return new KanbanStore(openKanbanDb(join(tmp(), 'kanban.db')), { board: 'default' });
}

describe('kanban store', () => {
  test('a fresh board has Hermes’s tables and columns', () => {
    const db = openKanbanDb(join(tmp(), 'kanban.db'));
    try {
      assert.deepEqual(cols(db, 'tasks'), [
        'id', 'title', 'body', 'assignee', 'status', 'priority', 'created_by', 'created_at', 'started_at', 'completed_at', 'workspace_kind', 'workspace_path',
        'branch_name', 'project_id', 'claim_lock', 'claim_expires', 'tenant', 'result', 'idempotency_key', 'consecutive_failures', 'worker_pid', 'last_failure_error',
        'max_runtime_seconds', 'last_heartbeat_at', 'current_run_id', 'workflow_template_id', 'current_step_key', 'skills', 'model_override', 'provider_override',
        'reasoning_effort', 'max_retries', 'goal_mode', 'goal_max_turns', 'session_id', 'block_kind', 'block_recurrences', 'completion_contract',
      ]);
      assert.deepEqual(cols(db, 'task_runs'), ['id', 'task_id', 'profile', 'step_key', 'status', 'claim_lock', 'claim_expires', 'worker_pid', 'max_runtime_seconds', 'last_heartbeat_at', 'started_at', 'ended_at', 'outcome', 'summary', 'metadata', 'error']);
      assert.deepEqual(cols(db, 'task_events'), ['id', 'task_id', 'run_id', 'kind', 'payload', 'created_at']);
      assert.deepEqual(cols(db, 'task_comments'), ['id', 'task_id', 'author', 'body', 'created_at']);
      assert.deepEqual(cols(db, 'task_links'), ['parent_id', 'child_id']);
      assert.deepEqual(cols(db, 'kanban_notify_subs'), ['task_id', 'platform', 'chat_id', 'thread_id', 'user_id', 'user_id_alt', 'chat_type', 'notifier_profile', 'delivery_mode', 'delivery_metadata', 'created_at', 'last_event_id', 'last_ping_event_id']);
      assert.equal((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
    } finally {
      db.close();
    }
  });

  test('a board from an older Hermes is migrated in place: columns added, renamed counters copied, in-flight runs backfilled', () => {
    const path = join(tmp(), 'kanban.db');
    const { DatabaseSync } = sqlite();
    const old = new DatabaseSync(path);
    old.exec(`
      CREATE TABLE tasks (id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT, assignee TEXT, status TEXT NOT NULL, priority INTEGER DEFAULT 0,
        created_by TEXT, created_at INTEGER NOT NULL, started_at INTEGER, completed_at INTEGER, workspace_kind TEXT NOT NULL DEFAULT 'scratch',
        workspace_path TEXT, claim_lock TEXT, claim_expires INTEGER, spawn_failures INTEGER NOT NULL DEFAULT 0, last_spawn_error TEXT);
      CREATE TABLE task_links (parent_id TEXT NOT NULL, child_id TEXT NOT NULL, PRIMARY KEY (parent_id, child_id));
      CREATE TABLE task_comments (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, author TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE task_events (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT, created_at INTEGER NOT NULL);
      INSERT INTO tasks (id, title, assignee, status, created_at, spawn_failures, last_spawn_error) VALUES ('t_0000aaaa', 'old done', 'alice', 'done', 1700000000, 0, NULL);
      INSERT INTO tasks (id, title, assignee, status, created_at, started_at, claim_lock, claim_expires, spawn_failures, last_spawn_error)
        VALUES ('t_0000bbbb', 'old running', 'bob', 'running', 1700000001, 1700000005, 'otherhost:42', 1700000900, 1, 'boom');
      INSERT INTO task_links VALUES ('t_0000aaaa', 't_0000bbbb');
      INSERT INTO task_events (task_id, kind, payload, created_at) VALUES ('t_0000aaaa', 'ready', NULL, 1700000002), ('t_0000bbbb', 'spawn_auto_blocked', '{"failures":2}', 1700000003);
    `);
    old.close();

    const s = new KanbanStore(openKanbanDb(path), { board: 'default' });
    try {
      const t = s.get('t_0000bbbb')!;
      assert.equal(t.consecutive_failures, 1);
      assert.equal(t.last_failure_error, 'boom');
      assert.ok(t.current_run_id, 'the in-flight task got a run');
      assert.equal(s.runs('t_0000bbbb')[0].claim_lock, 'otherhost:42');
      assert.deepEqual(
        s.events('t_0000aaaa').map((e) => e.kind),
        ['promoted'],
      );
      assert.deepEqual(
        s.events('t_0000bbbb').map((e) => e.kind),
        ['gave_up'],
      );
      assert.deepEqual(s.parents('t_0000bbbb'), ['t_0000aaaa']);
      for (const c of ['tenant', 'result', 'consecutive_failures', 'current_run_id', 'skills', 'session_id', 'block_kind']) assert.ok(cols(s.db, 'tasks').includes(c), c);
      assert.ok(cols(s.db, 'task_events').includes('run_id'));
      // The legacy columns stay (the file still opens in the Hermes that wrote it).
      assert.ok(cols(s.db, 'tasks').includes('spawn_failures'));
      // And the migrated board works.
      const id = s.create({ title: 'new', parents: ['t_0000aaaa'] });
      assert.equal(s.get(id)!.status, 'ready');
    } finally {
      s.close();
    }
  });

  test('the failure breaker blocks a task at the limit; an unblock gives it a fresh budget', () => {
    const s = board();
    try {
      const id = s.create({ title: 'flaky', assignee: 'a' });
      claim(s, id);
      assert.equal(recordFailure(s, id, 'spawn: boom', { outcome: 'spawn_failed', failureLimit: 2, releaseClaim: true }), false);
      assert.equal(s.get(id)!.status, 'ready');
      claim(s, id);
      assert.equal(recordFailure(s, id, 'spawn: boom again', { outcome: 'spawn_failed', failureLimit: 2, releaseClaim: true }), true);
      const t = s.get(id)!;
      assert.equal(t.status, 'blocked');
      assert.equal(t.consecutive_failures, 2);
      assert.equal(s.recomputeReady(2), 0, 'at the limit it stays blocked');
      const gaveUp = s.events(id).find((e) => e.kind === 'gave_up')!;
      assert.equal(gaveUp.payload!.effective_limit, 2);
      assert.deepEqual(
        s.runs(id).map((r) => r.outcome),
        ['spawn_failed', 'gave_up'],
      );
      assert.ok(unblock(s, id));
      assert.equal(s.get(id)!.status, 'ready');
      assert.equal(s.get(id)!.consecutive_failures, 0);
    } finally {
      s.close();
    }
  });

  test('typed blocks: dependency waits in todo; the same block after an unblock, twice, goes to triage', () => {
    const s = board();
    try {
      const id = s.create({ title: 'x', assignee: 'a' });
      assert.ok(block(s, id, { reason: 'waiting for t_x', kind: 'dependency' }));
      assert.equal(s.get(id)!.status, 'todo');
      s.recomputeReady();
      assert.equal(s.get(id)!.status, 'ready');
      assert.ok(block(s, id, { reason: 'need a key', kind: 'needs_input' }));
      assert.equal(s.get(id)!.status, 'blocked');
      assert.equal(s.recomputeReady(), 0, 'an explicit block waits for a person');
      unblock(s, id);
      assert.ok(block(s, id, { reason: 'need a key', kind: 'needs_input' }));
      assert.equal(s.get(id)!.status, 'triage');
      assert.equal(s.events(id).at(-1)!.kind, 'block_loop_detected');
      assert.throws(() => block(s, id, { kind: 'whatever' }), /block kind must be one of/);
    } finally {
      s.close();
    }
  });

  test('review loop: the reviewer is dispatched from review and can send the task back to its implementer', async () => {
    const s = board();
    try {
      const id = s.create({ title: 'feature', assignee: 'dev' });
      const run = claim(s, id)!.current_run_id!;
      assert.deepEqual(requestReview(s, id, { summary: 'built it' }), { ok: false, reason: 'task is running under a live claim; only its own worker (or --force) can hand it to review' });
      assert.equal(requestReview(s, id, { summary: 'built it', reviewer: 'qa', expectedRunId: run }).ok, true);
      assert.equal(s.get(id)!.status, 'review');
      const spawned: string[] = [];
      const r = await dispatchOnce(s, { spawn: (t) => (spawned.push(`${t.id}@${t.assignee}`), 1), maxInProgress: 4, lockHeld: true });
      assert.deepEqual(spawned, [`${id}@qa`]);
      assert.equal(r.spawned.length, 1);
      const back = requestChanges(s, id, { reason: 'add tests' });
      assert.deepEqual(back, { ok: true, detail: 'dev' });
      assert.equal(s.get(id)!.status, 'ready');
      assert.equal(s.get(id)!.assignee, 'dev');
      assert.deepEqual(
        s.runs(id).map((x) => x.outcome),
        ['review_requested', 'changes_requested'],
      );
      claim(s, id);
      assert.ok(complete(s, id, { summary: 'with tests' }));
    } finally {
      s.close();
    }
  });

  test('watchEvents hands over every new event in order (the live-view seam)', async () => {
    const path = join(tmp(), 'kanban.db');
    const s = new KanbanStore(openKanbanDb(path), { board: 'default' });
    const got: TaskEvent[] = [];
    const w = watchEvents(path, 'default', { intervalMs: 20 }, (evs) => void got.push(...evs));
    try {
      const id = s.create({ title: 'watched' });
      s.comment(id, 'me', 'hi');
      const deadline = performance.now() + 5000;
      while (got.length < 2 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        got.map((e) => [e.task_id, e.kind]),
        [
          [id, 'created'],
          [id, 'commented'],
        ],
      );
      assert.equal(w.cursor, got[1].id);
    } finally {
      w.stop();
      s.close();
    }
  });
});

describe('kanban workspaces', () => {
  test('scratch is made under the board and removed when done; dir is kept; worktree is a git worktree on wt/<id>', async () => {
    const { execFileSync } = await import('node:child_process');
    const { existsSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { resolveWorkspace, setWorkspace } = await import('../../src/kanban/workspace.ts');
    const home = tmp();
    const env = { HERMES_HOME: home };
    const s = new KanbanStore(openKanbanDb(join(home, 'kanban.db')), { board: 'default', env });
    try {
      const scratch = s.create({ title: 'scratch', assignee: 'a' });
      const ws = resolveWorkspace(claim(s, scratch)!, 'default', env);
      assert.equal(ws.path, join(home, 'kanban', 'workspaces', scratch));
      setWorkspace(s, scratch, ws.path, null);
      writeFileSync(join(ws.path, 'notes.txt'), 'x');
      assert.ok(complete(s, scratch, { summary: 'ok' }));
      assert.ok(!existsSync(ws.path), 'scratch removed');

      const keep = join(home, 'shared');
      const dir = s.create({ title: 'dir', assignee: 'a', workspaceKind: 'dir', workspacePath: keep });
      assert.equal(resolveWorkspace(claim(s, dir)!, 'default', env).path, keep);
      assert.ok(complete(s, dir, { summary: 'ok' }));
      assert.ok(existsSync(keep), 'dir kept');

      const repo = join(home, 'repo');
      mkdirSync(repo);
      const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
      git('init', '-q');
      writeFileSync(join(repo, 'README'), 'hi');
      git('add', '.');
      git('commit', '-qm', 'init');
      const wt = s.create({ title: 'wt', assignee: 'a', workspaceKind: 'worktree', workspacePath: repo });
      const w = resolveWorkspace(claim(s, wt)!, 'default', env);
      assert.equal(w.path, join(repo, '.worktrees', wt));
      assert.equal(w.branch, `wt/${wt}`);
      assert.equal(execFileSync('git', ['-C', w.path, 'branch', '--show-current'], { encoding: 'utf8' }).trim(), `wt/${wt}`);
      setWorkspace(s, wt, w.path, w.branch);
      assert.ok(complete(s, wt, { summary: 'ok' }));
      assert.ok(existsSync(w.path), 'a worktree whose commits are on no remote is kept');
      assert.throws(() => resolveWorkspace({ ...s.get(wt)!, workspace_path: 'relative/path' }, 'default', env), /relative worktree path/);
    } finally {
      s.close();
    }
  });
});
