// One dispatcher tick on one board, under the board's non-blocking tick lock (`kanban.db.dispatch.lock`,
// so two dispatchers never write a tick at once; the loser skips): reclaim stale, orphaned, crashed
// and overdue running tasks, promote todo → ready, then claim each ready (and review) task — a
// compare-and-set — resolve its workspace and spawn its worker, within the concurrency caps.
import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { defaultHermesRoot, normalizeProfileName } from '../state/paths.ts';
import { boardHasDb, openBoardDb, tryDispatchLock } from './backend.ts';
import { dbPath, listBoards } from './boards.ts';
import { claim } from './lifecycle.ts';
import type { SignalFn } from './procs.ts';
import { DEFAULT_FAILURE_LIMIT, KanbanStore, type Task } from './store.ts';
import { detectCrashed, detectStale, enforceMaxRuntime, reconcileOrphans, recordFailure, releaseStaleClaims } from './sweeps.ts';
import { resolveWorkspace, setWorkspace } from './workspace.ts';
import { spawnWorker } from './worker.ts';

export interface DispatchResult {
  reclaimed: number;
  promoted: number;
  reconciled: string[];
  crashed: string[];
  timedOut: string[];
  stale: string[];
  autoBlocked: string[];
  rateLimited: string[];
  spawned: { taskId: string; assignee: string; workspace: string }[];
  skippedUnassigned: string[];
  autoAssignedDefault: string[];
  skippedPerProfileCapped: { taskId: string; assignee: string; running: number }[];
  /** Another dispatcher held this board's tick lock: this tick wrote nothing. */
  skippedLocked: boolean;
}

const emptyResult = (): DispatchResult => ({
  reclaimed: 0,
  promoted: 0,
  reconciled: [],
  crashed: [],
  timedOut: [],
  stale: [],
  autoBlocked: [],
  rateLimited: [],
  spawned: [],
  skippedUnassigned: [],
  autoAssignedDefault: [],
  skippedPerProfileCapped: [],
  skippedLocked: false,
});

/** Starts a worker for a claimed task; returns its PID (tests inject their own). */
export type SpawnFn = (t: Task, workspace: string, board: string) => number | null | Promise<number | null>;

export interface DispatchOptions {
  dryRun?: boolean;
  /** Live cap on this board's running tasks (running + this tick's spawns). */
  maxSpawn?: number | null;
  /** Host-wide cap on running workers across all boards. */
  maxInProgress?: number | null;
  maxInProgressPerProfile?: number | null;
  failureLimit?: number;
  staleTimeoutSeconds?: number;
  defaultAssignee?: string | null;
  reviewDispatch?: boolean;
  ttlSeconds?: number | null;
  spawn?: SpawnFn;
  signal?: SignalFn;
  graceMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Skip the tick lock (the caller holds it). */
  lockHeld?: boolean;
}

/** kanban.max_in_progress, else one worker per 512 MiB of RAM, clamped to [2, 8]. */
export function resolveMaxInProgress(configured: unknown): number {
  const n = Number(configured);
  if (configured !== null && configured !== undefined && configured !== '' && Number.isInteger(n) && n >= 1) return n;
  return Math.max(2, Math.min(8, Math.floor(totalmem() / (1024 * 1024) / 512)));
}

const countRunning = (s: KanbanStore) => Number((s.q("SELECT COUNT(*) AS n FROM tasks WHERE status = 'running'").get() as { n: number }).n);

/** Running tasks on every other board (the host-wide cap counts them too). */
function runningElsewhere(board: string, env: NodeJS.ProcessEnv): number {
  const here = dbPath(board, env);
  // HERMES_KANBAN_DB pins every board to one file: there is nothing "elsewhere" to count.
  let total = 0;
  for (const b of listBoards({ includeArchived: false }, env)) {
    if (b.slug === board || dbPath(b.slug, env) === here) continue;
    try {
      if (!boardHasDb(b.slug, env)) continue;
      const db = openBoardDb(b.slug, env);
      try {
        total += countRunning(new KanbanStore(db, { board: b.slug, env }));
      } finally {
        db.close();
      }
    } catch {
      /* a broken board never bricks dispatch on a healthy one */
    }
  }
  return total;
}

async function dispatchLocked(s: KanbanStore, o: DispatchOptions): Promise<DispatchResult> {
  const r = emptyResult();
  const env = o.env ?? process.env;
  const failureLimit = o.failureLimit ?? DEFAULT_FAILURE_LIMIT;
  const sweep = { signal: o.signal, graceMs: o.graceMs, env };
  // Plugins watching workers get who ran a task the sweeps take back (the sweeps clear it).
  const workers = s.observed(WORKER_HOOKS) ? runningWorkers(s) : null;
  r.reclaimed = await releaseStaleClaims(s, sweep);
  r.reconciled = reconcileOrphans(s);
  r.stale = await detectStale(s, o.staleTimeoutSeconds ?? 0, sweep);
  const crash = detectCrashed(s, { failureLimit, env });
  r.crashed = crash.crashed;
  r.autoBlocked.push(...crash.autoBlocked);
  r.rateLimited = crash.rateLimited;
  if (workers) observeSweeps(s, workers, r);
  r.timedOut = await enforceMaxRuntime(s, { ...sweep, failureLimit });
  r.promoted = s.recomputeReady(failureLimit);

  let budget: number | null = null;
  if (o.maxSpawn !== undefined && o.maxSpawn !== null) {
    const running = countRunning(s);
    if (running >= o.maxSpawn) return r;
    budget = o.maxSpawn - running;
  }
  if (o.maxInProgress !== undefined && o.maxInProgress !== null) {
    const total = countRunning(s) + runningElsewhere(s.board, env);
    if (total >= o.maxInProgress) return r;
    const left = o.maxInProgress - total;
    budget = budget === null ? left : Math.min(budget, left);
  }
  const perProfileCap = o.maxInProgressPerProfile && o.maxInProgressPerProfile > 0 ? o.maxInProgressPerProfile : null;
  const perProfile = new Map<string, number>();
  for (const row of s.q("SELECT assignee, COUNT(*) AS n FROM tasks WHERE status = 'running' AND assignee IS NOT NULL GROUP BY assignee").all() as { assignee: string; n: number }[])
    perProfile.set(row.assignee, Number(row.n));

  const lane = (status: 'ready' | 'review') =>
    s.q(`SELECT id, assignee FROM tasks WHERE status = ? AND claim_lock IS NULL ORDER BY priority DESC, created_at ASC`).all(status) as { id: string; assignee: string | null }[];
  const ready = lane('ready');
  const review = o.reviewDispatch === false ? [] : lane('review');
  let spawned = 0;

  const dispatchOne = async (id: string, assignee: string, from: 'ready' | 'review'): Promise<boolean> => {
    const running = perProfile.get(assignee) ?? 0;
    if (perProfileCap !== null && running >= perProfileCap) {
      r.skippedPerProfileCapped.push({ taskId: id, assignee, running });
      return false;
    }
    if (o.dryRun) {
      r.spawned.push({ taskId: id, assignee, workspace: '' });
      perProfile.set(assignee, running + 1);
      return true;
    }
    const t = claim(s, id, { ttlSeconds: o.ttlSeconds, from });
    if (!t) return false;
    let ws: { path: string; branch: string | null };
    try {
      ws = resolveWorkspace(t, s.board, env);
    } catch (e) {
      if (recordFailure(s, id, `workspace: ${(e as Error).message}`, { outcome: 'spawn_failed', failureLimit, releaseClaim: true })) r.autoBlocked.push(id);
      return false;
    }
    setWorkspace(s, id, ws.path, ws.branch);
    const claimed: Task = { ...t, workspace_path: ws.path, branch_name: ws.branch ?? t.branch_name };
    try {
      const pid = await (o.spawn ?? ((task, w, b) => spawnWorker(task, w, b, { env })))(claimed, ws.path, s.board);
      if (pid)
        s.txn(() => {
          s.q('UPDATE tasks SET worker_pid = ? WHERE id = ?').run(pid, id);
          if (t.current_run_id !== null) s.q('UPDATE task_runs SET worker_pid = ? WHERE id = ?').run(pid, t.current_run_id);
          s.event(id, 'spawned', { pid }, t.current_run_id);
        });
      s.observe('on_kanban_worker_spawned', () => ({ task_id: id, assignee, run_id: t.current_run_id, worker_pid: pid || null, workspace_path: ws.path }));
      r.spawned.push({ taskId: id, assignee, workspace: ws.path });
      perProfile.set(assignee, running + 1);
      return true;
    } catch (e) {
      if (recordFailure(s, id, (e as Error).message, { outcome: 'spawn_failed', failureLimit, releaseClaim: true })) r.autoBlocked.push(id);
      return false;
    }
  };

  // One slot is held back for review work so a ready backlog cannot starve reviewers.
  const readyBudget = budget !== null && budget > 0 && review.some((x) => x.assignee) ? budget - 1 : budget;
  const defaultAssignee = o.defaultAssignee?.trim() && profileExists(o.defaultAssignee, env) ? normalizeProfileName(o.defaultAssignee) : null;
  for (const row of ready) {
    if (readyBudget !== null && spawned >= readyBudget) break;
    let who = row.assignee;
    if (!who) {
      if (!defaultAssignee) {
        r.skippedUnassigned.push(row.id);
        continue;
      }
      if (!o.dryRun)
        s.txn(() => {
          s.q("UPDATE tasks SET assignee = ? WHERE id = ? AND (assignee IS NULL OR assignee = '')").run(defaultAssignee, row.id);
          s.event(row.id, 'assigned', { assignee: defaultAssignee, source: 'kanban.default_assignee' });
        });
      r.autoAssignedDefault.push(row.id);
      who = defaultAssignee;
    }
    if (await dispatchOne(row.id, who, 'ready')) spawned++;
  }
  for (const row of review) {
    if (budget !== null && spawned >= budget) break;
    if (!row.assignee) {
      r.skippedUnassigned.push(row.id);
      continue;
    }
    if (await dispatchOne(row.id, row.assignee, 'review')) spawned++;
  }
  return r;
}

/** One dispatcher pass over one board. */
export async function dispatchOnce(s: KanbanStore, o: DispatchOptions = {}): Promise<DispatchResult> {
  if (o.lockHeld) return dispatchLocked(s, o);
  const lock = tryDispatchLock(s.db, s.board, s.path || dbPath(s.board, o.env));
  let r: DispatchResult;
  if (!lock) r = { ...emptyResult(), skippedLocked: true };
  else
    try {
      r = await dispatchLocked(s, o);
    } finally {
      lock.release();
    }
  // After the lock is released; idle and contended ticks too.
  const outcome = r.skippedLocked ? 'contended' : tickDidWork(r) ? 'dispatched' : 'idle';
  s.observe('on_kanban_dispatch_tick', () => ({ dry_run: !!o.dryRun, outcome, result: r }));
  return r;
}

/** A profile a worker can run as: `default` (the root HERMES_HOME) or an existing profiles/<name>. */
function profileExists(name: string, env: NodeJS.ProcessEnv): boolean {
  try {
    const n = normalizeProfileName(name);
    return n === 'default' || existsSync(join(defaultHermesRoot(env), 'profiles', n));
  } catch {
    return false;
  }
}

/** kanban.default_assignee when config.yaml does not say: the default profile (the root HERMES_HOME). */
export const DEFAULT_ASSIGNEE = 'default';

const WORKER_HOOKS = ['on_kanban_worker_exited', 'on_kanban_worker_stale_claim'];

interface RunningWorker {
  id: string;
  assignee: string | null;
  worker_pid: number | null;
  current_run_id: number | null;
}

function runningWorkers(s: KanbanStore): Map<string, RunningWorker> {
  const rows = s.q("SELECT id, assignee, worker_pid, current_run_id FROM tasks WHERE status = 'running'").all() as unknown as RunningWorker[];
  return new Map(rows.map((w) => [w.id, w]));
}

/** `on_kanban_worker_exited` for dead workers, `on_kanban_worker_stale_claim` for silent ones. */
function observeSweeps(s: KanbanStore, workers: Map<string, RunningWorker>, r: DispatchResult): void {
  const base = (id: string) => {
    const w = workers.get(id);
    return { task_id: id, assignee: w?.assignee ?? null, run_id: w?.current_run_id ?? null, worker_pid: w?.worker_pid ?? null, retry_status: r.autoBlocked.includes(id) ? 'blocked' : 'retry' };
  };
  for (const id of r.crashed) s.observe('on_kanban_worker_exited', () => ({ ...base(id), exit_kind: 'crashed', exit_code: null, outcome: 'crashed' }));
  for (const id of r.stale) s.observe('on_kanban_worker_stale_claim', () => ({ ...base(id), heartbeat_stale: true }));
}

/** Did the tick do anything worth a log line. */
export function tickDidWork(r: DispatchResult): boolean {
  return !!(r.reclaimed || r.promoted || r.reconciled.length || r.crashed.length || r.timedOut.length || r.stale.length || r.autoBlocked.length || r.spawned.length);
}

const positive = (v: unknown): number | null => {
  const n = Number(v);
  return v !== null && v !== undefined && v !== '' && Number.isInteger(n) && n > 0 ? n : null;
};

/** Dispatch settings from config.yaml's `kanban:` section (the same for the gateway and the CLI). */
export function dispatchOptionsFrom(k: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): DispatchOptions {
  const stale = Number(k.dispatch_stale_timeout_seconds ?? 14_400);
  return {
    failureLimit: positive(k.failure_limit) ?? DEFAULT_FAILURE_LIMIT,
    maxInProgress: resolveMaxInProgress(k.max_in_progress),
    maxInProgressPerProfile: positive(k.max_in_progress_per_profile),
    maxSpawn: positive(k.max_spawn),
    // Missing: the default profile; '' (or null): unassigned tasks wait for `hermes kanban assign`.
    defaultAssignee: k.default_assignee === undefined ? DEFAULT_ASSIGNEE : typeof k.default_assignee === 'string' ? k.default_assignee : null,
    staleTimeoutSeconds: Number.isFinite(stale) && stale > 0 ? stale : 0,
    reviewDispatch: k.review_dispatch !== false,
    env,
  };
}
