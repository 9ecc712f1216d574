// The dispatcher's bookkeeping passes over running tasks: expired claims (extended while our worker
// is alive, reclaimed otherwise), running cards with no claim at all, workers that died, ran past
// their max runtime or stopped heartbeating — and the failure counter with its circuit breaker.
import { claimTtl, endRun, retryStatus } from './lifecycle.ts';
import { classifyExit, pidAlive, survived, terminateWorker, type SignalFn, type Termination } from './procs.ts';
import { DEFAULT_FAILURE_LIMIT, hostPrefix, parseJson, type KanbanStore } from './store.ts';

/** A live worker whose last heartbeat is older than this is wedged, and reclaimed anyway. */
export const HEARTBEAT_MAX_STALE_SECONDS = 60 * 60;
/** A claim whose worker survived termination is held this much longer (no duplicate spawns). */
export const RECLAIM_DEFER_GRACE_SECONDS = 120;
/** A freshly spawned worker is not judged dead before this (the fork → /proc window). */
export const CRASH_GRACE_SECONDS = 30;
/** Clean exits without a terminal board call get this many retries before the breaker trips. */
export const PROTOCOL_VIOLATION_LIMIT = 3;

export interface SweepOptions {
  signal?: SignalFn;
  /** How long a SIGTERMed worker gets before SIGKILL (default 5 s). */
  graceMs?: number;
  env?: NodeJS.ProcessEnv;
}

type Row = Record<string, unknown>;

function crashGrace(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.HERMES_KANBAN_CRASH_GRACE_SECONDS);
  return env.HERMES_KANBAN_CRASH_GRACE_SECONDS !== undefined && Number.isInteger(n) && n >= 0 ? n : CRASH_GRACE_SECONDS;
}

function defer(s: KanbanStore, id: string, lock: string | null, t: Termination, reason: string): void {
  const until = s.now() + RECLAIM_DEFER_GRACE_SECONDS;
  s.txn(() => {
    if (Number(s.q("UPDATE tasks SET claim_expires = ? WHERE id = ? AND status = 'running' AND claim_lock IS ?").run(until, id, lock).changes) !== 1) return;
    const run = s.get(id)?.current_run_id ?? null;
    if (run !== null) s.q('UPDATE task_runs SET claim_expires = ? WHERE id = ?').run(until, run);
    s.event(id, 'reclaim_deferred', { reason, claim_lock: lock, claim_expires_now: until, ...t }, run);
  });
}

/**
 * Running tasks whose claim expired: a live worker of ours (heartbeating within the hour) gets its
 * claim extended; otherwise the worker is ended and the task goes back to where its run came from.
 */
export async function releaseStaleClaims(s: KanbanStore, o: SweepOptions = {}): Promise<number> {
  const now = s.now();
  const host = hostPrefix();
  let reclaimed = 0;
  const rows = s.q("SELECT id, claim_lock, worker_pid, claim_expires, last_heartbeat_at FROM tasks WHERE status = 'running' AND claim_expires IS NOT NULL AND claim_expires < ?").all(now) as Row[];
  for (const r of rows) {
    const id = String(r.id);
    const lock = (r.claim_lock as string | null) ?? null;
    const pid = r.worker_pid === null ? null : Number(r.worker_pid);
    const local = !!lock?.startsWith(host);
    const hb = r.last_heartbeat_at === null ? null : Number(r.last_heartbeat_at);
    const hbStale = hb !== null && now - hb > HEARTBEAT_MAX_STALE_SECONDS;
    if (local && pid && pidAlive(pid) && !hbStale) {
      const until = now + claimTtl(null, o.env);
      s.txn(() => {
        if (Number(s.q("UPDATE tasks SET claim_expires = ? WHERE id = ? AND status = 'running' AND claim_lock IS ? AND claim_expires < ?").run(until, id, lock, now).changes) !== 1) return;
        const run = s.get(id)?.current_run_id ?? null;
        if (run !== null) s.q('UPDATE task_runs SET claim_expires = ? WHERE id = ?').run(until, run);
        s.event(id, 'claim_extended', { reason: 'pid_alive', worker_pid: pid, claim_lock: lock, claim_expires_was: Number(r.claim_expires), claim_expires_now: until, last_heartbeat_at: hb }, run);
      });
      continue;
    }
    const t = await terminateWorker(pid, lock, o);
    if (survived(t)) {
      defer(s, id, lock, t, 'ttl_expired_worker_alive');
      continue;
    }
    s.txn(() => {
      const back = retryStatus(s, id);
      const cas = s
        .q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND status = 'running' AND claim_lock IS ? AND claim_expires IS NOT NULL AND claim_expires < ?")
        .run(back, id, lock, now);
      if (Number(cas.changes) !== 1) return;
      const run = endRun(s, id, { outcome: 'reclaimed', status: 'reclaimed', error: `stale_lock=${lock}`, metadata: t });
      s.event(
        id,
        'reclaimed',
        { stale_lock: lock, worker_pid: pid, claim_expires: Number(r.claim_expires), last_heartbeat_at: hb, now, heartbeat_stale: hbStale, retry_status: back, ...t, host_local: local },
        run,
      );
      reclaimed++;
    });
  }
  return reclaimed;
}

/** `running` cards with no claim (a crash mid-claim, a restored DB) go back to ready. */
export function reconcileOrphans(s: KanbanStore): string[] {
  const out: string[] = [];
  const rows = s.q("SELECT id, claim_lock, claim_expires, worker_pid FROM tasks WHERE status = 'running' AND (claim_lock IS NULL OR claim_expires IS NULL)").all() as Row[];
  for (const r of rows) {
    const id = String(r.id);
    const pid = r.worker_pid === null ? null : Number(r.worker_pid);
    if (pid && pidAlive(pid)) continue;
    s.txn(() => {
      const cas = s.q("UPDATE tasks SET status = 'ready', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, last_heartbeat_at = NULL WHERE id = ? AND status = 'running' AND claim_lock IS ? AND claim_expires IS ?").run(
        id,
        r.claim_lock as string | null,
        r.claim_expires as number | null,
      );
      if (Number(cas.changes) !== 1) return;
      const payload = { reason: 'orphaned_running', claim_lock: r.claim_lock, claim_expires: r.claim_expires, worker_pid: pid, now: s.now() };
      const run = endRun(s, id, { outcome: 'reclaimed', status: 'reclaimed', error: 'orphaned running card (broken claim bookkeeping)', metadata: payload });
      s.q('INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)').run(id, 'dispatcher', "reconciliation: card was 'running' with no valid claim (dead/gone worker) — requeued to ready", s.now());
      s.event(id, 'reconciled', payload, run);
      out.push(id);
    });
  }
  return out;
}

/**
 * Counts a non-success against the task and trips the breaker (→ blocked, `gave_up`) at the
 * limit: the task's max_retries, else `failureLimit`. Returns true when it tripped.
 * `releaseClaim`: the spawn path, where the task is still running with an open run.
 */
export function recordFailure(
  s: KanbanStore,
  id: string,
  error: string,
  o: { outcome: string; failureLimit?: number; forceTrip?: boolean; releaseClaim?: boolean; extra?: Record<string, unknown> },
): boolean {
  const err = error.slice(0, 500);
  return s.txn(() => {
    const row = s.q('SELECT consecutive_failures, status, max_retries, current_run_id FROM tasks WHERE id = ?').get(id) as Row | undefined;
    if (!row) return false;
    const back = o.releaseClaim ? retryStatus(s, id, row.current_run_id === null ? null : Number(row.current_run_id)) : row.status === 'review' ? 'review' : 'ready';
    const failures = Number(row.consecutive_failures ?? 0) + 1;
    const limit = row.max_retries !== null ? Number(row.max_retries) : (o.failureLimit ?? DEFAULT_FAILURE_LIMIT);
    if (!o.forceTrip && failures < limit) {
      if (o.releaseClaim) {
        s.q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, consecutive_failures = ?, last_failure_error = ? WHERE id = ? AND status = 'running'").run(back, failures, err, id);
        const run = endRun(s, id, { outcome: o.outcome, error: err, metadata: { failures, retry_status: back } });
        s.event(id, o.outcome, { error: err, failures, retry_status: back }, run);
      } else s.q('UPDATE tasks SET consecutive_failures = ?, last_failure_error = ? WHERE id = ?').run(failures, err, id);
      return false;
    }
    s.q(
      `UPDATE tasks SET status = 'blocked', ${o.releaseClaim ? 'claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, ' : ''}consecutive_failures = ?, last_failure_error = ? WHERE id = ? AND status IN ('running', 'ready', 'review')`,
    ).run(failures, err, id);
    const payload: Record<string, unknown> = { failures, effective_limit: limit, limit_source: row.max_retries !== null ? 'task' : 'dispatcher', error: err, trigger_outcome: o.outcome, retry_status: back };
    const run = o.releaseClaim ? endRun(s, id, { outcome: 'gave_up', error: err, metadata: payload }) : null;
    if (o.forceTrip) payload.sticky = true;
    s.event(id, 'gave_up', { ...payload, ...o.extra }, run);
    return true;
  });
}

/** Trailing clean-exit protocol violations of a task (rate-limited runs are neutral). */
function violationStreak(s: KanbanStore, id: string): number {
  let streak = 0;
  for (const r of s.q('SELECT outcome, metadata FROM task_runs WHERE task_id = ? AND ended_at IS NOT NULL ORDER BY id DESC LIMIT 50').all(id) as Row[]) {
    if (r.outcome === 'rate_limited') continue;
    if (r.outcome === 'crashed' && parseJson<Record<string, unknown>>(r.metadata, {}).protocol_violation) {
      streak++;
      continue;
    }
    break;
  }
  return streak;
}

/**
 * Host-local running tasks whose worker is gone: back to where the run came from at once (no
 * waiting for the TTL), and counted against the breaker. A clean exit without kanban_complete /
 * kanban_block is a protocol violation with its own small budget; a rate-limit exit is free.
 */
export function detectCrashed(s: KanbanStore, o: { failureLimit?: number; env?: NodeJS.ProcessEnv } = {}): { crashed: string[]; autoBlocked: string[]; rateLimited: string[] } {
  const now = s.now();
  const host = hostPrefix();
  const grace = crashGrace(o.env);
  const out = { crashed: [] as string[], autoBlocked: [] as string[], rateLimited: [] as string[] };
  const rows = s
    .q("SELECT t.id, t.worker_pid, t.claim_lock, COALESCE(r.started_at, t.started_at) AS run_started FROM tasks t LEFT JOIN task_runs r ON r.id = t.current_run_id WHERE t.status = 'running' AND t.worker_pid IS NOT NULL")
    .all() as Row[];
  const failures: [string, number, string, boolean][] = [];
  for (const r of rows) {
    const lock = String(r.claim_lock ?? '');
    if (!lock.startsWith(host)) continue;
    if (r.run_started !== null && now - Number(r.run_started) < grace) continue;
    const pid = Number(r.worker_pid);
    if (pidAlive(pid)) continue;
    const id = String(r.id);
    const exit = classifyExit(pid);
    const violation = exit.kind === 'clean_exit';
    const rateLimited = exit.kind === 'rate_limited';
    const error = violation
      ? 'worker exited cleanly (rc=0) without kanban_complete, kanban_block or kanban_request_review — protocol violation. If the prior run already did the work, verify it and report it with kanban_complete.'
      : rateLimited
        ? `pid ${pid} exited rate-limited — requeued without counting a failure`
        : exit.kind === 'nonzero_exit'
          ? `pid ${pid} exited with code ${exit.code}`
          : exit.kind === 'signaled'
            ? `pid ${pid} killed by signal ${exit.code}`
            : `pid ${pid} not alive`;
    const payload: Record<string, unknown> = { pid, claimer: lock, ...(exit.kind !== 'unknown' ? { exit_kind: exit.kind, exit_code: exit.code } : {}), ...(violation ? { protocol_violation: true } : {}) };
    const outcome = rateLimited ? 'rate_limited' : 'crashed';
    const done = s.txn(() => {
      const back = retryStatus(s, id);
      const cas = s.q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND status = 'running' AND worker_pid = ? AND claim_lock IS ?").run(back, id, pid, lock);
      if (Number(cas.changes) !== 1) return false;
      const run = endRun(s, id, { outcome, error, metadata: { ...payload, retry_status: back } });
      s.event(id, violation ? 'protocol_violation' : outcome, { ...payload, retry_status: back }, run);
      if (violation || rateLimited) s.q('UPDATE tasks SET last_failure_error = ? WHERE id = ?').run(error.slice(0, 500), id);
      return true;
    });
    if (!done) continue;
    if (rateLimited) out.rateLimited.push(id);
    else {
      out.crashed.push(id);
      failures.push([id, pid, error, violation]);
    }
  }
  for (const [id, pid, error, violation] of failures) {
    let tripped: boolean;
    if (violation) {
      const streak = violationStreak(s, id);
      const override = (s.q('SELECT max_retries FROM tasks WHERE id = ?').get(id) as { max_retries: number | null } | undefined)?.max_retries;
      const limit = override !== null && override !== undefined ? Number(override) : PROTOCOL_VIOLATION_LIMIT;
      if (streak < limit) continue;
      tripped = recordFailure(s, id, error, { outcome: 'crashed', failureLimit: limit, forceTrip: true, extra: { pid, protocol_violations: streak } });
    } else tripped = recordFailure(s, id, error, { outcome: 'crashed', failureLimit: o.failureLimit, extra: { pid } });
    if (tripped) out.autoBlocked.push(id);
  }
  return out;
}

/** Ends host-local workers past their task's max_runtime_seconds and requeues the task. */
export async function enforceMaxRuntime(s: KanbanStore, o: SweepOptions & { failureLimit?: number } = {}): Promise<string[]> {
  const now = s.now();
  const host = hostPrefix();
  const out: string[] = [];
  const rows = s
    .q(
      "SELECT t.id, t.worker_pid, t.claim_lock, t.max_runtime_seconds, COALESCE(r.started_at, t.started_at) AS run_started FROM tasks t LEFT JOIN task_runs r ON r.id = t.current_run_id WHERE t.status = 'running' AND t.max_runtime_seconds IS NOT NULL AND t.worker_pid IS NOT NULL",
    )
    .all() as Row[];
  for (const r of rows) {
    const lock = String(r.claim_lock ?? '');
    if (!lock.startsWith(host) || r.run_started === null) continue;
    const elapsed = now - Number(r.run_started);
    const limit = Number(r.max_runtime_seconds);
    if (elapsed < limit) continue;
    const id = String(r.id);
    const pid = Number(r.worker_pid);
    const t = await terminateWorker(pid, lock, o);
    const error = `elapsed ${elapsed}s > limit ${limit}s`;
    const moved = s.txn(() => {
      const back = retryStatus(s, id);
      const cas = s.q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, last_heartbeat_at = NULL WHERE id = ? AND status = 'running' AND worker_pid = ? AND claim_lock IS ?").run(back, id, pid, lock);
      if (Number(cas.changes) !== 1) return false;
      const payload = { pid, elapsed_seconds: elapsed, limit_seconds: limit, sigkill: t.sigkill, retry_status: back };
      const run = endRun(s, id, { outcome: 'timed_out', error, metadata: payload });
      s.event(id, 'timed_out', payload, run);
      return true;
    });
    if (!moved) continue;
    out.push(id);
    recordFailure(s, id, error, { outcome: 'timed_out', failureLimit: o.failureLimit, extra: { pid, sigkill: t.sigkill } });
  }
  return out;
}

/**
 * Running longer than `timeoutSeconds` with no heartbeat in the last hour: reclaimed (not counted
 * as a failure — a missing heartbeat is not a failed worker). 0 disables the check.
 */
export async function detectStale(s: KanbanStore, timeoutSeconds: number, o: SweepOptions = {}): Promise<string[]> {
  if (timeoutSeconds <= 0) return [];
  const now = s.now();
  const out: string[] = [];
  const rows = s
    .q("SELECT t.id, t.worker_pid, t.last_heartbeat_at, t.claim_lock, COALESCE(r.started_at, t.started_at) AS run_started FROM tasks t LEFT JOIN task_runs r ON r.id = t.current_run_id WHERE t.status = 'running'")
    .all() as Row[];
  for (const r of rows) {
    if (r.run_started === null) continue;
    const elapsed = now - Number(r.run_started);
    if (elapsed < timeoutSeconds) continue;
    const hb = r.last_heartbeat_at === null ? null : Number(r.last_heartbeat_at);
    if (hb !== null && now - hb < HEARTBEAT_MAX_STALE_SECONDS) continue;
    const id = String(r.id);
    const lock = (r.claim_lock as string | null) ?? null;
    const pid = r.worker_pid === null ? null : Number(r.worker_pid);
    const t = await terminateWorker(pid, lock, o);
    if (survived(t)) {
      defer(s, id, lock, t, 'heartbeat_stale_worker_alive');
      continue;
    }
    s.txn(() => {
      const back = retryStatus(s, id);
      if (Number(s.q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, last_heartbeat_at = NULL WHERE id = ? AND status = 'running' AND claim_lock IS ?").run(back, id, lock).changes) !== 1)
        return;
      const payload = { elapsed_seconds: elapsed, last_heartbeat_at: hb, heartbeat_age_seconds: hb === null ? null : now - hb, timeout_seconds: timeoutSeconds, pid, retry_status: back, ...t };
      const run = endRun(s, id, { outcome: 'stale', error: `${hb === null ? 'no heartbeat ever' : `no heartbeat for ${now - hb}s`} after ${elapsed}s running`, metadata: payload });
      s.event(id, 'stale', payload, run);
      out.push(id);
    });
  }
  return out;
}
