// Kanban benchmarks: how fast tasks can be claimed (each claim is one IMMEDIATE write transaction
// with synchronous=FULL, as Hermes runs it), and what one dispatcher tick costs on a 10,000-task
// board (reclaim sweeps, promotion, lane scan) — once with nothing to start, once starting 8.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKanbanDb } from '../src/kanban/db.ts';
import { dispatchOnce } from '../src/kanban/dispatcher.ts';
import { claim } from '../src/kanban/lifecycle.ts';
import { claimerId, KanbanStore, newTaskId } from '../src/kanban/store.ts';
import { median, type Bench, type BenchRow } from './lib.ts';

/** Fills a board with `n` tasks quickly (one transaction): mostly done, some todo/blocked/running/ready. */
function fill(s: KanbanStore, n: number): void {
  const now = s.now();
  s.txn(() => {
    const ins = s.db.prepare('INSERT INTO tasks (id, title, assignee, status, created_at, claim_lock, claim_expires, worker_pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const link = s.db.prepare('INSERT INTO task_links (parent_id, child_id) VALUES (?, ?)');
    const ev = s.db.prepare('INSERT INTO task_events (task_id, kind, payload, created_at) VALUES (?, ?, NULL, ?)');
    let runningParent = '';
    for (let i = 0; i < n; i++) {
      const id = newTaskId() + i.toString(16);
      const r = i % 100;
      const status = r < 80 ? 'done' : r < 90 ? 'todo' : r < 95 ? 'blocked' : r < 99 ? 'running' : 'ready';
      const running = status === 'running';
      ins.run(id, `task ${i}`, `p${i % 20}`, status, now - n + i, running ? claimerId() : null, running ? now + 900 : null, running ? process.pid : null);
      ev.run(id, 'created', now);
      if (running) runningParent = id;
      if (status === 'todo' && runningParent) link.run(runningParent, id);
      if (status === 'blocked') ev.run(id, 'blocked', now);
    }
  });
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-kanban-'));
  try {
    const s = new KanbanStore(openKanbanDb(join(dir, 'claims.db')), { board: 'default' });
    const ids: string[] = [];
    s.txn(() => {
      for (let i = 0; i < 2000; i++) ids.push(s.create({ title: `t${i}`, assignee: 'worker' }, ));
    });
    const t = process.hrtime.bigint();
    let won = 0;
    for (const id of ids) if (claim(s, id)) won++;
    const sec = Number(process.hrtime.bigint() - t) / 1e9;
    s.close();
    rows.push({ name: `claims per second (${won} ready tasks, sequential CAS + run + event)`, value: won / sec, unit: '/s', target: '≥ 100 /s', ok: won / sec >= 100 });

    const b = new KanbanStore(openKanbanDb(join(dir, 'board.db')), { board: 'default' });
    fill(b, 10_000);
    const idle: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t0 = process.hrtime.bigint();
      await dispatchOnce(b, { maxInProgress: 400, lockHeld: true, spawn: () => null });
      idle.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    rows.push({ name: 'dispatcher tick, 10,000 tasks, at capacity (nothing to start)', value: median(idle), unit: 'ms', target: '≤ 250 ms', ok: median(idle) <= 250 });
    const busy: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      await dispatchOnce(b, { maxInProgress: b.list({ status: 'running' }).length + 8, lockHeld: true, spawn: () => null });
      busy.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    rows.push({ name: 'dispatcher tick, 10,000 tasks, claiming 8 (spawn stubbed)', value: median(busy), unit: 'ms', target: '≤ 400 ms', ok: median(busy) <= 400 });
    b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
};

export default bench;
