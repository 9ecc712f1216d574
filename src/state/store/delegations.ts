// Background delegations in state.db's `async_delegations` (Hermes's tools/async_delegation.py),
// the same SQL on SQLite and PostgreSQL (SessionStore.sqlRun/sqlAll). A row's life, as Hermes
// writes it, so rows of either program read in the other:
//
//   dispatch    state 'running', delivery_state 'pending', owner_pid/owner_started_at, task_json
//   finish      state = the child's status (completed, failed, interrupted, error…), completed_at,
//               event_json (the completion event), result_json; delivery_state stays 'pending'
//   owner gone  a 'running' row whose owner process is dead becomes state 'unknown' with an event
//               saying so (recoverAbandoned): Hermes does not re-run a lost child, neither do we
//   deliver     a consumer claims the row (delivery_claim, delivery_claimed_at, attempts + 1), puts
//               the event in the conversation, then marks it 'delivered' (delivered_at); a failed
//               delivery releases the claim, and after 8 attempts the row is 'dropped'
//
// A claim older than five minutes may be taken over (Hermes); so may a claim of a dead process of
// this machine (claim ids are `consumer:pid:uuid`), which Hermes leaves for the five minutes.
import { randomUUID } from 'node:crypto';

/** What the row SQL runs through: the session store's portable SQL. */
export interface SqlPort {
  sqlRun(sql: string, params: (string | number | null)[]): Promise<number>;
  sqlAll(sql: string, params: (string | number | null)[]): Promise<Record<string, unknown>[]>;
}

/** The task as Hermes keeps it in task_json. */
export interface DelegationTask {
  goal: string;
  goals?: string[];
  context?: string | null;
  toolsets?: string[] | null;
  role?: string;
  model?: string | null;
  is_batch?: boolean;
}

export interface DelegationRow {
  delegationId: string;
  /** origin_session: the routing key (a CLI session's id; a gateway chat's session key). */
  originSession: string;
  parentSessionId: string | null;
  state: string;
  dispatchedAt: number;
  completedAt: number | null;
  updatedAt: number;
  deliveryState: string;
  deliveryAttempts: number;
  deliveredAt: number | null;
  ownerPid: number | null;
  ownerStartedAt: number | null;
  task: DelegationTask;
  /** The completion event (Hermes's `type: async_delegation` dict), once finished. */
  event: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  deliveryClaim: string | null;
}

/** Attempts before an undeliverable completion is dropped (Hermes's _MAX_DELIVERY_ATTEMPTS). */
export const MAX_DELIVERY_ATTEMPTS = 8;
/** Seconds after which another consumer may take a claim over. */
export const CLAIM_TTL_S = 300;
const RETENTION_S = 7 * 24 * 3600;
const MAX_RETAINED = 50;

const now = () => Date.now() / 1000;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
function json<T>(v: unknown): T | null {
  if (typeof v !== 'string' || !v) return null;
  try {
    return JSON.parse(v) as T;
  } catch {
    return null;
  }
}

const COLS =
  'delegation_id, origin_session, parent_session_id, state, dispatched_at, completed_at, updated_at, delivery_state, delivery_attempts, delivered_at, owner_pid, owner_started_at, task_json, event_json, result_json, delivery_claim';

function rowOf(r: Record<string, unknown>): DelegationRow {
  return {
    delegationId: String(r.delegation_id),
    originSession: String(r.origin_session ?? ''),
    parentSessionId: (r.parent_session_id as string | null) ?? null,
    state: String(r.state),
    dispatchedAt: Number(r.dispatched_at),
    completedAt: num(r.completed_at),
    updatedAt: Number(r.updated_at),
    deliveryState: String(r.delivery_state ?? 'pending'),
    deliveryAttempts: Number(r.delivery_attempts ?? 0),
    deliveredAt: num(r.delivered_at),
    ownerPid: num(r.owner_pid),
    ownerStartedAt: num(r.owner_started_at),
    task: json<DelegationTask>(r.task_json) ?? { goal: '' },
    event: json<Record<string, unknown>>(r.event_json),
    result: json<Record<string, unknown>>(r.result_json),
    deliveryClaim: (r.delivery_claim as string | null) ?? null,
  };
}

/** The pid in a claim id (`consumer:pid:uuid`), or null. */
export function claimPid(claim: string): number | null {
  const m = /:(\d+):[0-9a-f]+$/.exec(claim);
  return m ? Number(m[1]) : null;
}

export class DelegationRows {
  private readonly sql: SqlPort;
  constructor(sql: SqlPort) {
    this.sql = sql;
  }

  /** A background delegation starts (Hermes's _persist_dispatch). */
  async dispatched(d: { id: string; originSession: string; parentSessionId: string | null; dispatchedAt: number; task: DelegationTask; ownerPid: number; ownerStartedAt: number | null }): Promise<void> {
    const t = now();
    await this.sql.sqlRun(
      `INSERT INTO async_delegations (delegation_id, origin_session, origin_ui_session_id, parent_session_id, state, dispatched_at, updated_at, delivery_state, delivery_attempts, owner_pid, owner_started_at, task_json)
       VALUES (?, ?, '', ?, 'running', ?, ?, 'pending', 0, ?, ?, ?)`,
      [d.id, d.originSession, d.parentSessionId, d.dispatchedAt, t, d.ownerPid, d.ownerStartedAt, JSON.stringify(d.task)],
    );
    await this.prune();
  }

  /** The child ended (Hermes's _persist_completion): the event waits for delivery. */
  async finished(id: string, status: string, event: Record<string, unknown>, result: Record<string, unknown>): Promise<void> {
    const t = now();
    await this.sql.sqlRun(
      `UPDATE async_delegations SET state = ?, completed_at = ?, updated_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending' WHERE delegation_id = ?`,
      [status, Number(event.completed_at ?? t), t, JSON.stringify(event), JSON.stringify(result), id],
    );
  }

  /**
   * Rows whose owner process died while the child ran become 'unknown', with an event saying so
   * (Hermes's recover_abandoned_delegations); claims held by dead processes are let go. `alive`
   * judges an owner (pid, start ticks). Returns how many rows were recovered.
   */
  async recoverAbandoned(alive: (pid: number, startedAt: number | null) => boolean): Promise<number> {
    const t = now();
    let n = 0;
    const rows = (await this.sql.sqlAll(`SELECT ${COLS} FROM async_delegations WHERE state IN ('running', 'finalizing')`, [])).map(rowOf);
    for (const r of rows) {
      if (r.ownerPid && alive(r.ownerPid, r.ownerStartedAt)) continue;
      const error = 'Delegation owner exited before recording a terminal result; outcome unknown.';
      const event = {
        type: 'async_delegation',
        delegation_id: r.delegationId,
        session_key: r.originSession,
        origin_ui_session_id: '',
        origin_session_id: '',
        parent_session_id: r.parentSessionId,
        goal: r.task.goal ?? '',
        goals: r.task.goals ?? null,
        context: r.task.context ?? null,
        toolsets: r.task.toolsets ?? null,
        role: r.task.role ?? null,
        model: r.task.model ?? null,
        is_batch: !!r.task.is_batch,
        status: 'unknown',
        summary: null,
        error,
        dispatched_at: r.dispatchedAt,
        completed_at: t,
      };
      const changed = await this.sql.sqlRun(
        `UPDATE async_delegations SET state = 'unknown', completed_at = ?, updated_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending'
         WHERE delegation_id = ? AND state IN ('running', 'finalizing')`,
        [t, t, JSON.stringify(event), JSON.stringify({ status: 'unknown', summary: null, error }), r.delegationId],
      );
      n += changed;
    }
    const claimed = (await this.sql.sqlAll(`SELECT delegation_id, delivery_claim FROM async_delegations WHERE delivery_state = 'pending' AND delivery_claim IS NOT NULL`, [])) as {
      delegation_id: string;
      delivery_claim: string;
    }[];
    for (const c of claimed) {
      const pid = claimPid(String(c.delivery_claim));
      if (pid !== null && pid !== process.pid && !alive(pid, null)) {
        await this.sql.sqlRun(`UPDATE async_delegations SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_claim = ?`, [
          t,
          c.delegation_id,
          c.delivery_claim,
        ]);
      }
    }
    return n;
  }

  /** Finished rows of these sessions (parent or routing key) still waiting for delivery, oldest first. */
  async pending(sessionIds: string[]): Promise<DelegationRow[]> {
    if (!sessionIds.length) return [];
    const marks = sessionIds.map(() => '?').join(', ');
    const rows = await this.sql.sqlAll(
      `SELECT ${COLS} FROM async_delegations
       WHERE state NOT IN ('running', 'finalizing') AND delivery_state = 'pending' AND event_json IS NOT NULL
         AND (parent_session_id IN (${marks}) OR origin_session IN (${marks}))
       ORDER BY completed_at, delegation_id`,
      [...sessionIds, ...sessionIds],
    );
    return rows.map(rowOf);
  }

  /** The rows of these sessions, newest first (what /agents and the dashboard list). */
  async list(sessionIds: string[], limit = 50): Promise<DelegationRow[]> {
    if (!sessionIds.length) return [];
    const marks = sessionIds.map(() => '?').join(', ');
    const rows = await this.sql.sqlAll(`SELECT ${COLS} FROM async_delegations WHERE parent_session_id IN (${marks}) OR origin_session IN (${marks}) ORDER BY dispatched_at DESC LIMIT ?`, [
      ...sessionIds,
      ...sessionIds,
      limit,
    ]);
    return rows.map(rowOf);
  }

  async get(id: string): Promise<DelegationRow | null> {
    const r = (await this.sql.sqlAll(`SELECT ${COLS} FROM async_delegations WHERE delegation_id = ?`, [id]))[0];
    return r ? rowOf(r) : null;
  }

  /** A new claim id for a consumer of this process (Hermes's `consumer:pid:uuid`). */
  claimId(consumer: string): string {
    return `${consumer}:${process.pid}:${randomUUID().replace(/-/g, '')}`;
  }

  /** Takes the delivery of one pending completion; false when another consumer holds it or it is done. */
  async claim(id: string, claim: string): Promise<boolean> {
    const t = now();
    return (
      (await this.sql.sqlRun(
        `UPDATE async_delegations SET delivery_claim = ?, delivery_claimed_at = ?, delivery_attempts = delivery_attempts + 1, updated_at = ?
         WHERE delegation_id = ? AND delivery_state = 'pending' AND (delivery_claim IS NULL OR delivery_claimed_at < ?)`,
        [claim, t, t, id, t - CLAIM_TTL_S],
      )) === 1
    );
  }

  /** The claimed completion is in the conversation. */
  async delivered(id: string, claim: string): Promise<boolean> {
    const t = now();
    return (
      (await this.sql.sqlRun(
        `UPDATE async_delegations SET delivery_state = 'delivered', delivered_at = ?, updated_at = ?, delivery_claim = NULL, delivery_claimed_at = NULL
         WHERE delegation_id = ? AND delivery_state = 'pending' AND delivery_claim = ?`,
        [t, t, id, claim],
      )) === 1
    );
  }

  /** The delivery failed: another consumer may try; after MAX_DELIVERY_ATTEMPTS the row is dropped. */
  async release(id: string, claim: string): Promise<void> {
    const t = now();
    const capped = await this.sql.sqlRun(
      `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ?
       WHERE delegation_id = ? AND delivery_state = 'pending' AND delivery_claim = ? AND delivery_attempts >= ?`,
      [t, id, claim, MAX_DELIVERY_ATTEMPTS],
    );
    if (capped) return;
    await this.sql.sqlRun(`UPDATE async_delegations SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending' AND delivery_claim = ?`, [
      t,
      id,
      claim,
    ]);
  }

  /** The conversation it was for is gone (/new): never delivered, never replayed (Hermes's drop_completion_delivery). */
  async drop(id: string, claim: string): Promise<boolean> {
    return (
      (await this.sql.sqlRun(
        `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending' AND delivery_claim = ?`,
        [now(), id, claim],
      )) === 1
    );
  }

  /** Bounds the history as Hermes does: delivered rows after a week; at most 50 finished rows, delivered ones first. */
  private async prune(): Promise<void> {
    await this.sql.sqlRun(`DELETE FROM async_delegations WHERE delivery_state = 'delivered' AND updated_at < ?`, [now() - RETENTION_S]);
    const done = await this.sql.sqlAll(
      `SELECT delegation_id FROM async_delegations WHERE state NOT IN ('running', 'finalizing')
       ORDER BY CASE delivery_state WHEN 'delivered' THEN 0 ELSE 1 END, updated_at ASC`,
      [],
    );
    const excess = done.length - MAX_RETAINED;
    for (const r of done.slice(0, Math.max(0, excess))) await this.sql.sqlRun(`DELETE FROM async_delegations WHERE delegation_id = ?`, [String(r.delegation_id)]);
  }
}
