// Task transitions that move claims and runs: claim (ready → running, a compare-and-set), heartbeat,
// complete, block, unblock, review handoffs, archive and the operator's reclaim. Each is one write
// transaction; lifecycle observers fire after the commit.
import { KanbanError } from './boards.ts';
import { cleanupWorkspace } from './workspace.ts';
import { BLOCK_KINDS, canonicalAssignee, claimerId, DEFAULT_CLAIM_TTL_SECONDS, firstLine, jsonOrNull, parseJson, type KanbanStore, type Task } from './store.ts';

/** Same-kind block → unblock → re-block cycles before the task goes to triage for a person. */
export const BLOCK_RECURRENCE_LIMIT = 2;

/** HERMES_KANBAN_CLAIM_TTL_SECONDS, else 15 minutes. */
export function claimTtl(ttl?: number | null, env: NodeJS.ProcessEnv = process.env): number {
  if (ttl !== undefined && ttl !== null) return Math.max(1, Math.floor(ttl));
  const n = Number(env.HERMES_KANBAN_CLAIM_TTL_SECONDS);
  return Number.isInteger(n) && n >= 1 ? n : DEFAULT_CLAIM_TTL_SECONDS;
}

function currentRunId(s: KanbanStore, id: string): number | null {
  const r = s.q('SELECT current_run_id FROM tasks WHERE id = ?').get(id) as { current_run_id: number | null } | undefined;
  return r?.current_run_id ? Number(r.current_run_id) : null;
}

/** Closes the active run (inside the caller's transaction); null when none was open. */
export function endRun(
  s: KanbanStore,
  id: string,
  o: { outcome: string; status?: string; summary?: string | null; error?: string | null; metadata?: Record<string, unknown> | null },
): number | null {
  const runId = currentRunId(s, id);
  if (runId === null) return null;
  s.q(
    'UPDATE task_runs SET status = ?, outcome = ?, summary = ?, error = ?, metadata = ?, ended_at = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND ended_at IS NULL',
  ).run(o.status ?? o.outcome, o.outcome, o.summary ?? null, o.error ?? null, jsonOrNull(o.metadata), s.now(), runId);
  s.q('UPDATE tasks SET current_run_id = NULL WHERE id = ?').run(id);
  return runId;
}

/** A zero-length closed run, so a handoff on a never-claimed task is not lost. */
function synthesizeRun(s: KanbanStore, id: string, o: { outcome: string; summary?: string | null; metadata?: Record<string, unknown> | null }): number {
  const t = s.q('SELECT assignee, current_step_key FROM tasks WHERE id = ?').get(id) as { assignee: string | null; current_step_key: string | null } | undefined;
  const now = s.now();
  const r = s
    .q('INSERT INTO task_runs (task_id, profile, step_key, status, outcome, summary, metadata, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, t?.assignee ?? null, t?.current_step_key ?? null, o.outcome, o.outcome, o.summary ?? null, jsonOrNull(o.metadata), now, now);
  return Number(r.lastInsertRowid);
}

/** The status a retried run goes back to: review when the run was claimed from review. */
export function retryStatus(s: KanbanStore, id: string, runId: number | null = currentRunId(s, id)): 'ready' | 'review' {
  if (runId === null) return 'ready';
  const e = s.q("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'claimed' AND run_id = ? ORDER BY id DESC LIMIT 1").get(id, runId) as { payload: string | null } | undefined;
  return parseJson<Record<string, unknown>>(e?.payload, {}).source_status === 'review' ? 'review' : 'ready';
}

/**
 * Claims a ready (or, for reviewers, review) task: status → running with a claim lock that
 * expires after the TTL, and a new run. Null when someone else got it, or it is not claimable.
 */
export function claim(s: KanbanStore, id: string, o: { ttlSeconds?: number | null; claimer?: string; from?: 'ready' | 'review' } = {}): Task | null {
  const from = o.from ?? 'ready';
  const now = s.now();
  const lock = o.claimer ?? claimerId();
  const expires = now + claimTtl(o.ttlSeconds);
  const claimed = s.txn(() => {
    if (!s.parentsSatisfied(id)) {
      // Never run ahead of an unfinished parent, whoever set `ready`.
      if (Number(s.q(`UPDATE tasks SET status = 'todo' WHERE id = ? AND status = ? AND claim_lock IS NULL`).run(id, from).changes))
        s.event(id, from === 'review' ? 'dependency_wait' : 'claim_rejected', { reason: 'parents_not_done', source_status: from });
      return null;
    }
    // A run leaked open by a crash mid-transition is closed before the new one starts.
    const stale = s.q('SELECT current_run_id FROM tasks WHERE id = ? AND status = ?').get(id, from) as { current_run_id: number | null } | undefined;
    if (stale?.current_run_id)
      s.q("UPDATE task_runs SET status = 'reclaimed', outcome = 'reclaimed', ended_at = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND ended_at IS NULL").run(
        now,
        stale.current_run_id,
      );
    const cas = s.q(`UPDATE tasks SET status = 'running', claim_lock = ?, claim_expires = ?, started_at = COALESCE(started_at, ?) WHERE id = ? AND status = ? AND claim_lock IS NULL`).run(
      lock,
      expires,
      now,
      id,
      from,
    );
    if (Number(cas.changes) !== 1) return null;
    const t = s.get(id)!;
    const run = s
      .q("INSERT INTO task_runs (task_id, profile, step_key, status, claim_lock, claim_expires, max_runtime_seconds, started_at) VALUES (?, ?, NULL, 'running', ?, ?, ?, ?)")
      .run(id, t.assignee, lock, expires, t.max_runtime_seconds, now);
    const runId = Number(run.lastInsertRowid);
    s.q('UPDATE tasks SET current_run_id = ? WHERE id = ?').run(runId, id);
    s.event(id, 'claimed', { lock, expires, run_id: runId, ...(from === 'review' ? { source_status: 'review' } : {}) }, runId);
    return { ...t, current_run_id: runId };
  });
  if (claimed) s.fire('kanban_task_claimed', claimed, id, claimed.current_run_id);
  return claimed;
}

/** Extends a running claim's TTL; true while `claimer` still owns it. */
export function heartbeatClaim(s: KanbanStore, id: string, o: { ttlSeconds?: number | null; claimer?: string } = {}): boolean {
  const expires = s.now() + claimTtl(o.ttlSeconds);
  return s.txn(() => {
    if (Number(s.q("UPDATE tasks SET claim_expires = ? WHERE id = ? AND status = 'running' AND claim_lock = ?").run(expires, id, o.claimer ?? claimerId()).changes) !== 1) return false;
    const runId = currentRunId(s, id);
    if (runId !== null) s.q('UPDATE task_runs SET claim_expires = ? WHERE id = ?').run(expires, runId);
    return true;
  });
}

/** Records a worker's liveness (`heartbeat` event, last_heartbeat_at); false when not running. */
export function heartbeat(s: KanbanStore, id: string, o: { note?: string | null; expectedRunId?: number | null } = {}): boolean {
  const now = s.now();
  return s.txn(() => {
    let sql = "UPDATE tasks SET last_heartbeat_at = ? WHERE id = ? AND status = 'running'";
    const params: (string | number)[] = [now, id];
    if (o.expectedRunId !== undefined && o.expectedRunId !== null) {
      sql += ' AND current_run_id = ?';
      params.push(o.expectedRunId);
    }
    if (Number(s.q(sql).run(...params).changes) !== 1) return false;
    const runId = o.expectedRunId ?? currentRunId(s, id);
    if (runId !== null) s.q('UPDATE task_runs SET last_heartbeat_at = ? WHERE id = ?').run(now, runId);
    s.event(id, 'heartbeat', o.note ? { note: o.note } : null, runId);
    return true;
  });
}

/**
 * running | ready | blocked | review → done, with the result and the handoff (summary + metadata)
 * on the closing run. Children whose parents are now all done become ready.
 */
export function complete(
  s: KanbanStore,
  id: string,
  o: { result?: string | null; summary?: string | null; metadata?: Record<string, unknown> | null; expectedRunId?: number | null } = {},
): boolean {
  if (!s.parentsSatisfied(id)) return false;
  const summary = o.summary ?? o.result ?? null;
  const done = s.txn(() => {
    if (!s.parentsSatisfied(id)) return null;
    const prior = s.status(id);
    let sql = `UPDATE tasks SET status = 'done', result = ?, completed_at = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, block_kind = NULL, block_recurrences = 0,
               consecutive_failures = 0, last_failure_error = NULL
               WHERE id = ? AND status IN ('running', 'ready', 'blocked', 'review')`;
    const params: (string | number | null)[] = [o.result ?? null, s.now(), id];
    if (o.expectedRunId !== undefined && o.expectedRunId !== null) {
      sql += ' AND current_run_id = ?';
      params.push(o.expectedRunId);
    }
    if (Number(s.q(sql).run(...params).changes) !== 1) return null;
    let runId = endRun(s, id, { outcome: 'completed', status: 'done', summary, metadata: o.metadata });
    if (runId === null && (summary || o.metadata || prior === 'review')) runId = synthesizeRun(s, id, { outcome: 'completed', summary, metadata: o.metadata });
    const payload: Record<string, unknown> = { result_len: o.result ? o.result.length : 0, summary: firstLine(summary, 400) || null };
    const artifacts = Array.isArray(o.metadata?.artifacts) ? (o.metadata!.artifacts as unknown[]).filter((p) => typeof p === 'string' && p.trim()) : [];
    if (artifacts.length) payload.artifacts = artifacts;
    s.event(id, 'completed', payload, runId);
    return { runId };
  });
  if (!done) return false;
  s.recomputeReady();
  cleanupWorkspace(s, id);
  const t = s.get(id);
  s.fire('kanban_task_completed', t, id, done.runId, { summary });
  return true;
}

/**
 * running | ready → blocked (a person must answer `reason`). A `dependency` block waits in todo
 * instead; the same kind blocked again after an unblock, BLOCK_RECURRENCE_LIMIT times, goes to
 * triage so an unblock loop cannot spin forever.
 */
export function block(s: KanbanStore, id: string, o: { reason?: string | null; kind?: string | null; expectedRunId?: number | null } = {}): boolean {
  const kind = o.kind ?? null;
  if (kind !== null && !(BLOCK_KINDS as readonly string[]).includes(kind)) throw new KanbanError(`block kind must be one of ${BLOCK_KINDS.join(', ')}`);
  const r = s.txn(() => {
    const row = s.q('SELECT status, block_kind, block_recurrences FROM tasks WHERE id = ?').get(id) as { status: string; block_kind: string | null; block_recurrences: number } | undefined;
    if (!row) return null;
    const source = row.status === 'running' ? retryStatus(s, id) : 'ready';
    let status = 'blocked';
    let eventKind = 'blocked';
    let recurrences = Number(row.block_recurrences ?? 0);
    const payload: Record<string, unknown> = { reason: o.reason ?? null, kind, source_status: source };
    if (kind === 'dependency') {
      status = 'todo';
      eventKind = 'dependency_wait';
    } else {
      recurrences = (row.block_kind || null) === kind ? recurrences + 1 : 1;
      payload.recurrences = recurrences;
      if (recurrences >= BLOCK_RECURRENCE_LIMIT) {
        status = 'triage';
        eventKind = 'block_loop_detected';
        payload.limit = BLOCK_RECURRENCE_LIMIT;
      }
    }
    let sql = `UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, block_kind = ?, block_recurrences = ? WHERE id = ? AND status IN ('running', 'ready')`;
    const params: (string | number | null)[] = [status, kind, recurrences, id];
    if (o.expectedRunId !== undefined && o.expectedRunId !== null) {
      sql += ' AND current_run_id = ?';
      params.push(o.expectedRunId);
    }
    if (Number(s.q(sql).run(...params).changes) !== 1) return null;
    let runId = endRun(s, id, { outcome: 'blocked', status: 'blocked', summary: o.reason ?? null });
    if (runId === null && o.reason) runId = synthesizeRun(s, id, { outcome: 'blocked', summary: o.reason });
    s.event(id, eventKind, payload, runId);
    return { runId };
  });
  if (!r) return false;
  s.fire('kanban_task_blocked', s.get(id), id, r.runId, { reason: o.reason ?? null });
  return true;
}

/** blocked | scheduled → ready (todo while a parent is open); the retry budget starts afresh. */
export function unblock(s: KanbanStore, id: string): boolean {
  const now = s.now();
  return s.txn(() => {
    const t = s.get(id);
    if (!t || (t.status !== 'blocked' && t.status !== 'scheduled')) return false;
    if (t.current_run_id)
      s.q("UPDATE task_runs SET status = 'reclaimed', outcome = 'reclaimed', ended_at = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND ended_at IS NULL").run(
        now,
        t.current_run_id,
      );
    const landing = s.parentsSatisfied(id) ? 'ready' : 'todo';
    const ok = Number(
      s
        .q("UPDATE tasks SET status = ?, current_run_id = NULL, consecutive_failures = 0, last_failure_error = NULL WHERE id = ? AND status IN ('blocked', 'scheduled')")
        .run(landing, id).changes,
    );
    if (ok !== 1) return false;
    s.event(id, 'unblocked', landing !== 'ready' ? { status: landing, resume_status: 'ready' } : null);
    return true;
  });
}

/** running | ready → review; a live claim is only cleared by its own run or with `force`. */
export function requestReview(
  s: KanbanStore,
  id: string,
  o: { summary?: string | null; metadata?: Record<string, unknown> | null; reviewer?: string | null; expectedRunId?: number | null; force?: boolean } = {},
): { ok: boolean; reason?: string } {
  return s.txn(() => {
    if (!s.parentsSatisfied(id)) return { ok: false, reason: 'parent dependencies are not satisfied' };
    const t = s.get(id);
    if (!t) return { ok: false, reason: 'task not found' };
    if ((o.expectedRunId === undefined || o.expectedRunId === null) && !o.force && t.status === 'running' && t.claim_lock !== null)
      return { ok: false, reason: 'task is running under a live claim; only its own worker (or --force) can hand it to review' };
    const reviewer = canonicalAssignee(o.reviewer ?? null);
    let sql = `UPDATE tasks SET status = 'review', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL${reviewer ? ', assignee = ?' : ''} WHERE id = ? AND status IN ('running', 'ready')`;
    const params: (string | number)[] = [...(reviewer ? [reviewer] : []), id];
    if (o.expectedRunId !== undefined && o.expectedRunId !== null) {
      sql += ' AND current_run_id = ?';
      params.push(o.expectedRunId);
    }
    if (Number(s.q(sql).run(...params).changes) !== 1) return { ok: false, reason: 'task is not running or ready (or the run changed)' };
    let runId = endRun(s, id, { outcome: 'review_requested', status: 'review', summary: o.summary ?? null, metadata: o.metadata });
    if (runId === null && (o.summary || o.metadata)) runId = synthesizeRun(s, id, { outcome: 'review_requested', summary: o.summary, metadata: o.metadata });
    s.event(id, 'review_requested', { summary: firstLine(o.summary, 400) || null, implementer: t.assignee, reviewer }, runId);
    return { ok: true };
  });
}

/**
 * A reviewer's verdict: the active review run (claimed from review) closes and the task goes back
 * to the implementer named in the review handoff. Returns the implementer, or why not.
 */
export function requestChanges(s: KanbanStore, id: string, o: { reason: string; expectedRunId?: number | null }): { ok: boolean; detail: string } {
  const reason = o.reason?.trim();
  if (!reason) return { ok: false, detail: 'reason is required' };
  return s.txn(() => {
    const t = s.get(id);
    if (!t) return { ok: false, detail: 'task not found' };
    if (t.status !== 'running' || t.current_run_id === null) return { ok: false, detail: 'task is not in an active review run' };
    if (o.expectedRunId !== undefined && o.expectedRunId !== null && o.expectedRunId !== t.current_run_id) return { ok: false, detail: 'run_id mismatch' };
    if (retryStatus(s, id, t.current_run_id) !== 'review') return { ok: false, detail: 'active run was not claimed from review' };
    const req = s.q("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'review_requested' ORDER BY id DESC LIMIT 1").get(id) as { payload: string | null } | undefined;
    const implementer = parseJson<Record<string, unknown>>(req?.payload, {}).implementer;
    if (typeof implementer !== 'string' || !implementer.trim()) return { ok: false, detail: 'the review handoff names no implementer' };
    const landing = s.parentsSatisfied(id) ? 'ready' : 'todo';
    const ok = s
      .q("UPDATE tasks SET status = ?, assignee = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND status = 'running' AND current_run_id = ?")
      .run(landing, implementer, id, t.current_run_id);
    if (Number(ok.changes) !== 1) return { ok: false, detail: 'task changed during the review handoff' };
    const runId = endRun(s, id, { outcome: 'changes_requested', status: landing, summary: reason });
    s.event(id, 'changes_requested', { reason, implementer, reviewer: t.assignee, status: landing }, runId);
    return { ok: true, detail: implementer };
  });
}

/** Archives a task (a running one's run closes); children waiting on it are released. */
export function archive(s: KanbanStore, id: string): { ok: boolean; pid: number | null; claimLock: string | null } {
  const r = s.txn(() => {
    const row = s.q('SELECT status, claim_lock, worker_pid FROM tasks WHERE id = ?').get(id) as { status: string; claim_lock: string | null; worker_pid: number | null } | undefined;
    if (!row) return null;
    if (Number(s.q("UPDATE tasks SET status = 'archived', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND status != 'archived'").run(id).changes) !== 1) return null;
    const runId = endRun(s, id, { outcome: 'reclaimed', status: 'reclaimed', summary: 'task archived with run still active' });
    s.event(id, 'archived', null, runId);
    return { pid: row.status === 'running' ? row.worker_pid : null, claimLock: row.claim_lock };
  });
  if (!r) return { ok: false, pid: null, claimLock: null };
  s.recomputeReady();
  cleanupWorkspace(s, id);
  return { ok: true, ...r };
}

/** Hard-deletes an archived task and everything that refers to it. */
export function deleteArchived(s: KanbanStore, id: string): boolean {
  return s.txn(() => {
    if (s.status(id) !== 'archived') return false;
    s.q('DELETE FROM task_links WHERE parent_id = ? OR child_id = ?').run(id, id);
    for (const t of ['task_comments', 'task_events', 'task_runs', 'kanban_notify_subs', 'task_attachments']) s.db.prepare(`DELETE FROM ${t} WHERE task_id = ?`).run(id);
    return Number(s.q('DELETE FROM tasks WHERE id = ?').run(id).changes) === 1;
  });
}

/**
 * Releases a running task's claim regardless of the TTL (an operator's reclaim): the task goes back
 * to where its run came from, with a fresh retry budget. `termination` reports what happened to the
 * worker process (the caller signals it).
 */
export function releaseClaim(s: KanbanStore, id: string, o: { reason?: string | null; prevLock: string | null; termination: Record<string, unknown> }): boolean {
  const ok = s.txn(() => {
    const back = retryStatus(s, id);
    if (Number(s.q("UPDATE tasks SET status = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ? AND status IN ('running', 'ready', 'blocked') AND claim_lock IS ?").run(back, id, o.prevLock).changes) !== 1)
      return false;
    const error = o.reason ? `manual_reclaim: ${o.reason}` : `manual_reclaim lock=${o.prevLock}`;
    const runId = endRun(s, id, { outcome: 'reclaimed', status: 'reclaimed', error, metadata: o.termination });
    s.event(id, 'reclaimed', { manual: true, reason: o.reason ?? null, prev_lock: o.prevLock, retry_status: back, ...o.termination }, runId);
    return true;
  });
  if (ok) s.txn(() => s.q('UPDATE tasks SET consecutive_failures = 0, last_failure_error = NULL WHERE id = ?').run(id));
  return ok;
}
