// The board store: tasks, parent/child links (a DAG, cycle-checked), comments, the append-only
// event log and attempt runs, over one kanban.db connection. State transitions that involve claims
// and runs live in lifecycle.ts; the dispatcher's sweeps in sweeps.ts. Time comes from an injected
// clock (epoch seconds) so tests can move it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { normalizeProfileName } from '../state/paths.ts';
import { KanbanError, resolveBoard } from './boards.ts';
import { openBoardDb } from './backend.ts';
import { stmt, writeTxn, type KanbanDb } from './db.ts';
import { notifyPluginHook, pluginHooksWant } from '../plugins/state.ts';

export const STATUSES = ['triage', 'todo', 'scheduled', 'ready', 'running', 'blocked', 'review', 'done', 'archived'] as const;
export type TaskStatus = (typeof STATUSES)[number];
export const WORKSPACE_KINDS = ['scratch', 'worktree', 'dir'] as const;
export const BLOCK_KINDS = ['dependency', 'needs_input', 'capability', 'transient'] as const;
export const DEFAULT_CLAIM_TTL_SECONDS = 15 * 60;
export const DEFAULT_FAILURE_LIMIT = 2;

export interface Task {
  id: string;
  title: string;
  body: string | null;
  assignee: string | null;
  status: TaskStatus;
  priority: number;
  created_by: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  workspace_kind: string;
  workspace_path: string | null;
  branch_name: string | null;
  claim_lock: string | null;
  claim_expires: number | null;
  tenant: string | null;
  result: string | null;
  idempotency_key: string | null;
  consecutive_failures: number;
  worker_pid: number | null;
  last_failure_error: string | null;
  max_runtime_seconds: number | null;
  last_heartbeat_at: number | null;
  current_run_id: number | null;
  skills: string[] | null;
  model_override: string | null;
  provider_override: string | null;
  max_retries: number | null;
  session_id: string | null;
  block_kind: string | null;
  block_recurrences: number;
}

export interface Run {
  id: number;
  task_id: string;
  profile: string | null;
  step_key: string | null;
  status: string;
  claim_lock: string | null;
  claim_expires: number | null;
  worker_pid: number | null;
  max_runtime_seconds: number | null;
  last_heartbeat_at: number | null;
  started_at: number;
  ended_at: number | null;
  outcome: string | null;
  summary: string | null;
  metadata: Record<string, unknown> | null;
  error: string | null;
}

export interface Comment {
  id: number;
  task_id: string;
  author: string;
  body: string;
  created_at: number;
}

export interface TaskEvent {
  id: number;
  task_id: string;
  run_id: number | null;
  kind: string;
  payload: Record<string, unknown> | null;
  created_at: number;
}

type Row = Record<string, unknown>;

export function parseJson<T = unknown>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || !v) return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** Text columns where "" means "not set" (Hermes's _TASK_EMPTY_IS_NULL_COLUMNS). */
const strOrNull = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));

export function taskFromRow(r: Row): Task {
  const skills = parseJson<unknown>(r.skills, null);
  return {
    id: String(r.id),
    title: String(r.title),
    body: str(r.body),
    assignee: str(r.assignee),
    status: String(r.status) as TaskStatus,
    priority: Number(r.priority ?? 0),
    created_by: str(r.created_by),
    created_at: Number(r.created_at),
    started_at: num(r.started_at),
    completed_at: num(r.completed_at),
    workspace_kind: String(r.workspace_kind ?? 'scratch'),
    workspace_path: str(r.workspace_path),
    branch_name: str(r.branch_name),
    claim_lock: str(r.claim_lock),
    claim_expires: num(r.claim_expires),
    tenant: str(r.tenant),
    result: str(r.result),
    idempotency_key: str(r.idempotency_key),
    consecutive_failures: Number(r.consecutive_failures ?? r.spawn_failures ?? 0),
    worker_pid: num(r.worker_pid),
    last_failure_error: str(r.last_failure_error ?? r.last_spawn_error),
    max_runtime_seconds: num(r.max_runtime_seconds),
    last_heartbeat_at: num(r.last_heartbeat_at),
    current_run_id: num(r.current_run_id),
    skills: Array.isArray(skills) ? skills.filter(Boolean).map(String) : null,
    model_override: strOrNull(r.model_override),
    provider_override: strOrNull(r.provider_override),
    max_retries: num(r.max_retries),
    session_id: str(r.session_id),
    block_kind: strOrNull(r.block_kind),
    block_recurrences: Number(r.block_recurrences ?? 0),
  };
}

/** The compact task shape the kanban tools return (Hermes's). */
export function taskBrief(t: Task): Record<string, unknown> {
  return {
    id: t.id,
    title: t.title,
    assignee: t.assignee,
    status: t.status,
    priority: t.priority,
    tenant: t.tenant,
    workspace_kind: t.workspace_kind,
    workspace_path: t.workspace_path,
    created_by: t.created_by,
    created_at: t.created_at,
    started_at: t.started_at,
    completed_at: t.completed_at,
    current_run_id: t.current_run_id,
    model_override: t.model_override,
  };
}

export function runFromRow(r: Row): Run {
  return {
    id: Number(r.id),
    task_id: String(r.task_id),
    profile: str(r.profile),
    step_key: str(r.step_key),
    status: String(r.status),
    claim_lock: str(r.claim_lock),
    claim_expires: num(r.claim_expires),
    worker_pid: num(r.worker_pid),
    max_runtime_seconds: num(r.max_runtime_seconds),
    last_heartbeat_at: num(r.last_heartbeat_at),
    started_at: Number(r.started_at),
    ended_at: num(r.ended_at),
    outcome: str(r.outcome),
    summary: str(r.summary),
    metadata: parseJson<Record<string, unknown> | null>(r.metadata, null),
    error: str(r.error),
  };
}

export function eventFromRow(r: Row): TaskEvent {
  return {
    id: Number(r.id),
    task_id: String(r.task_id),
    run_id: num(r.run_id),
    kind: String(r.kind),
    payload: parseJson<Record<string, unknown> | null>(r.payload, null),
    created_at: Number(r.created_at),
  };
}

/** JSON for a payload/metadata column; an empty value is NULL (as Hermes stores it). */
export function jsonOrNull(v: unknown): string | null {
  if (!v || (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v as object).length)) return null;
  return JSON.stringify(v);
}

export const firstLine = (text: string | null | undefined, limit: number): string => (text ?? '').trim().split('\n')[0]?.slice(0, limit) ?? '';

/** `host:pid`: who holds a claim. */
export function claimerId(pid = process.pid): string {
  let host = 'unknown';
  try {
    host = hostname() || 'unknown';
  } catch {
    /* keep unknown */
  }
  return `${host}:${pid}`;
}
export const hostPrefix = () => claimerId().split(':')[0] + ':';

export const newTaskId = () => 't_' + randomBytes(4).toString('hex');

/** Lower-cased, validated assignee (a profile name); null stays null. */
export function canonicalAssignee(a: string | null | undefined): string | null {
  if (a === null || a === undefined) return null;
  const t = a.trim();
  if (!t || ['none', '-', 'null'].includes(t.toLowerCase())) return null;
  try {
    return normalizeProfileName(t);
  } catch (e) {
    throw new KanbanError((e as Error).message);
  }
}

export type LifecycleHook = 'kanban_task_claimed' | 'kanban_task_completed' | 'kanban_task_blocked';
export type LifecycleListener = (hook: LifecycleHook, payload: { task_id: string; board: string; assignee: string | null; run_id: number | null; [k: string]: unknown }) => void;

export interface CreateTaskInput {
  title: string;
  body?: string | null;
  assignee?: string | null;
  createdBy?: string | null;
  workspaceKind?: string | null;
  workspacePath?: string | null;
  branchName?: string | null;
  tenant?: string | null;
  priority?: number;
  parents?: string[];
  triage?: boolean;
  idempotencyKey?: string | null;
  maxRuntimeSeconds?: number | null;
  skills?: string[] | null;
  maxRetries?: number | null;
  modelOverride?: string | null;
  providerOverride?: string | null;
  /** 'blocked' parks the task for a person; anything else is the normal flow. */
  initialStatus?: 'running' | 'blocked';
  sessionId?: string | null;
}

export const SORT_ORDERS: Record<string, string> = {
  created: 'created_at ASC, id ASC',
  'created-desc': 'created_at DESC, id DESC',
  priority: 'priority DESC, created_at ASC',
  'priority-desc': 'priority ASC, created_at ASC',
  status: 'status ASC, created_at ASC',
  assignee: 'assignee ASC, created_at ASC',
  title: 'title ASC, id ASC',
  updated: 'started_at DESC NULLS LAST, created_at DESC',
};

export interface ListFilter {
  assignee?: string | null;
  status?: string | null;
  tenant?: string | null;
  sessionId?: string | null;
  includeArchived?: boolean;
  limit?: number;
  sort?: string;
}

export class KanbanStore<D extends KanbanDb = KanbanDb> {
  readonly db: D;
  readonly board: string;
  readonly now: () => number;
  /** The database file (for the board's lock files). */
  readonly path: string;
  /** The environment board paths resolve in (workspaces, logs). */
  readonly env: NodeJS.ProcessEnv;
  private readonly listeners = new Set<LifecycleListener>();

  constructor(db: D, o: { board: string; now?: () => number; env?: NodeJS.ProcessEnv }) {
    this.db = db;
    this.board = o.board;
    this.now = o.now ?? (() => Math.floor(Date.now() / 1000));
    this.path = db.location() ?? '';
    this.env = o.env ?? process.env;
  }

  q(sql: string) {
    return stmt(this.db, sql);
  }

  txn<T>(fn: () => T, o?: { allowNested?: boolean }): T {
    return writeTxn(this.db, fn, o);
  }

  close(): void {
    this.db.close();
  }

  /** In-process lifecycle observers (kanban_task_claimed/completed/blocked); fired after commit. */
  onLifecycle(fn: LifecycleListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  fire(hook: LifecycleHook, task: Task | null, taskId: string, runId: number | null, extra: Record<string, unknown> = {}): void {
    const payload = { task_id: taskId, board: this.board, assignee: task?.assignee ?? null, run_id: runId, ...extra };
    for (const l of this.listeners) {
      try {
        l(hook, payload);
      } catch {
        /* an observer never breaks a transition */
      }
    }
    notifyPluginHook(this.env.HERMES_HOME, hook, () => payload);
  }

  /** Fires a plugin observer hook (`on_kanban_*`) with this board; nothing when no plugin wants it. */
  observe(event: string, payload: () => Record<string, unknown>): void {
    notifyPluginHook(this.env.HERMES_HOME, event, () => ({ board: this.board, ...payload() }));
  }

  /** Whether a loaded plugin registered any of these events (to skip work done only for them). */
  observed(events: readonly string[]): boolean {
    return pluginHooksWant(this.env.HERMES_HOME, events);
  }

  /** Appends an event inside the caller's transaction. */
  event(taskId: string, kind: string, payload?: Record<string, unknown> | null, runId: number | null = null): number {
    const r = this.q('INSERT INTO task_events (task_id, run_id, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)').run(taskId, runId, kind, jsonOrNull(payload), this.now());
    return Number(r.lastInsertRowid);
  }

  // ---- tasks -----------------------------------------------------------------------------------

  get(id: string): Task | null {
    const r = this.q('SELECT * FROM tasks WHERE id = ?').get(id) as Row | undefined;
    return r ? taskFromRow(r) : null;
  }

  /** The task, or a KanbanError naming the unknown id. */
  require(id: string): Task {
    const t = this.get(id);
    if (!t) throw new KanbanError(`unknown task ${id}`);
    return t;
  }

  status(id: string): TaskStatus | null {
    const r = this.q('SELECT status FROM tasks WHERE id = ?').get(id) as { status: TaskStatus } | undefined;
    return r?.status ?? null;
  }

  missing(ids: string[]): string[] {
    return ids.filter((id) => !this.q('SELECT 1 FROM tasks WHERE id = ?').get(id));
  }

  create(input: CreateTaskInput): string {
    const title = input.title?.trim();
    if (!title) throw new KanbanError('title is required');
    const assignee = canonicalAssignee(input.assignee);
    const kind = input.workspaceKind || 'scratch';
    if (!(WORKSPACE_KINDS as readonly string[]).includes(kind)) throw new KanbanError(`workspace_kind must be one of ${WORKSPACE_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
    const branch = input.branchName?.trim() || null;
    if (branch && kind !== 'worktree') throw new KanbanError('branch_name is only valid for worktree workspaces');
    const model = input.modelOverride?.trim() || null;
    const provider = input.providerOverride?.trim() || null;
    if (provider && !model) throw new KanbanError('provider_override requires a model_override');
    const parents = [...new Set((input.parents ?? []).filter(Boolean))];
    const skills = input.skills ? [...new Set(input.skills.map((s) => s.trim()).filter(Boolean))] : null;
    for (const s of skills ?? []) if (s.includes(',')) throw new KanbanError(`skill name cannot contain a comma: ${JSON.stringify(s)}`);
    if (input.idempotencyKey) {
      const hit = this.q("SELECT id FROM tasks WHERE idempotency_key = ? AND status != 'archived' ORDER BY created_at DESC LIMIT 1").get(input.idempotencyKey) as { id: string } | undefined;
      if (hit) return hit.id;
    }
    const now = this.now();
    return this.txn(
      () => {
        const missing = this.missing(parents);
        if (missing.length) throw new KanbanError(`unknown parent task(s): ${missing.join(', ')}`);
        let tenant = input.tenant ?? null;
        let status: TaskStatus = 'ready';
        for (const p of parents) {
          const pt = this.get(p)!;
          if (pt.status !== 'done' && pt.status !== 'archived') status = 'todo';
          if (tenant === null && pt.tenant) tenant = pt.tenant;
        }
        if (input.triage) status = 'triage';
        else if (input.initialStatus === 'blocked') status = 'blocked';
        let id = newTaskId();
        while (this.get(id)) id = newTaskId();
        this.q(
          `INSERT INTO tasks (id, title, body, assignee, status, priority, created_by, created_at, workspace_kind, workspace_path,
             branch_name, tenant, idempotency_key, max_runtime_seconds, skills, max_retries, model_override, provider_override, session_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          title,
          input.body ?? null,
          assignee,
          status,
          input.priority ?? 0,
          input.createdBy ?? null,
          now,
          kind,
          input.workspacePath ?? null,
          branch,
          tenant,
          input.idempotencyKey ?? null,
          input.maxRuntimeSeconds ?? null,
          skills ? JSON.stringify(skills) : null,
          input.maxRetries ?? null,
          model,
          provider,
          input.sessionId ?? null,
        );
        for (const p of parents) this.q('INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)').run(p, id);
        this.event(id, 'created', {
          assignee,
          status,
          parents,
          tenant,
          workspace_kind: kind,
          workspace_path: input.workspacePath ?? null,
          branch_name: branch,
          skills: skills?.length ? skills : null,
          model_override: model,
          provider_override: provider,
        });
        if (status === 'blocked') this.event(id, 'blocked', { reason: 'initial_status', status: 'blocked', actor: input.createdBy || 'user' });
        this.inheritSubs(id, parents, now);
        return id;
      },
      { allowNested: true },
    );
  }

  list(f: ListFilter = {}): Task[] {
    if (f.status && !(STATUSES as readonly string[]).includes(f.status)) throw new KanbanError(`status must be one of ${STATUSES.join(', ')}`);
    let sql = 'SELECT * FROM tasks WHERE 1=1';
    const params: (string | number)[] = [];
    const assignee = f.assignee ? canonicalAssignee(f.assignee) : null;
    for (const [col, val] of [
      ['assignee', assignee],
      ['status', f.status],
      ['tenant', f.tenant],
      ['session_id', f.sessionId],
    ] as const) {
      if (val) {
        sql += ` AND ${col} = ?`;
        params.push(val);
      }
    }
    if (!f.includeArchived && f.status !== 'archived') sql += " AND status != 'archived'";
    if (f.sort) {
      const order = SORT_ORDERS[f.sort.trim().toLowerCase()];
      if (!order) throw new KanbanError(`sort must be one of ${Object.keys(SORT_ORDERS).sort().join(', ')}`);
      sql += ` ORDER BY ${order}`;
    } else sql += ' ORDER BY priority DESC, created_at ASC';
    if (f.limit) sql += ` LIMIT ${Math.floor(f.limit)}`;
    return (this.db.prepare(sql).all(...params) as Row[]).map(taskFromRow);
  }

  /** Assigns (null unassigns); refused while the task is running under a claim. */
  assign(id: string, profile: string | null): boolean {
    const who = canonicalAssignee(profile);
    let changed = false;
    const ok = this.txn(() => {
      const row = this.q('SELECT status, claim_lock, assignee FROM tasks WHERE id = ?').get(id) as Row | undefined;
      if (!row) return false;
      if (row.claim_lock !== null && row.status === 'running')
        throw new KanbanError(`cannot reassign ${id}: it is running (claimed). Wait for it to finish, or \`hermes kanban reclaim ${id}\` first.`);
      changed = row.assignee !== who;
      if (changed) this.q('UPDATE tasks SET assignee = ?, consecutive_failures = 0, last_failure_error = NULL WHERE id = ?').run(who, id);
      this.event(id, 'assigned', { assignee: who, from: row.assignee ?? null });
      return true;
    });
    if (changed) this.observe('on_kanban_task_updated', () => ({ task_id: id, assignee: who, run_id: null, changed_fields: ['assignee'] }));
    return ok;
  }

  // ---- links -----------------------------------------------------------------------------------

  parents(id: string): string[] {
    return (this.q('SELECT parent_id FROM task_links WHERE child_id = ? ORDER BY parent_id').all(id) as { parent_id: string }[]).map((r) => r.parent_id);
  }

  children(id: string): string[] {
    return (this.q('SELECT child_id FROM task_links WHERE parent_id = ? ORDER BY child_id').all(id) as { child_id: string }[]).map((r) => r.child_id);
  }

  /** True when `parentId` is already a descendant of `childId` (the link would close a cycle). */
  wouldCycle(parentId: string, childId: string): boolean {
    const seen = new Set<string>();
    const stack = [childId];
    while (stack.length) {
      const n = stack.pop()!;
      if (n === parentId) return true;
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...this.children(n));
    }
    return false;
  }

  /** Adds parent → child; returns true when the child went back from ready to todo (gated). */
  link(parentId: string, childId: string): boolean {
    if (parentId === childId) throw new KanbanError('a task cannot depend on itself');
    return this.txn(() => {
      const missing = this.missing([parentId, childId]);
      if (missing.length) throw new KanbanError(`unknown task(s): ${missing.join(', ')}`);
      if (this.wouldCycle(parentId, childId)) throw new KanbanError(`linking ${parentId} -> ${childId} would create a cycle`);
      this.q('INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)').run(parentId, childId);
      let gated = false;
      const ps = this.status(parentId);
      if (ps !== 'done' && ps !== 'archived') gated = Number(this.q("UPDATE tasks SET status = 'todo' WHERE id = ? AND status = 'ready'").run(childId).changes) === 1;
      this.event(childId, 'linked', { parent: parentId, child: childId });
      this.inheritSubs(childId, [parentId], this.now());
      return gated;
    });
  }

  unlink(parentId: string, childId: string): boolean {
    const removed = this.txn(() => {
      const n = Number(this.q('DELETE FROM task_links WHERE parent_id = ? AND child_id = ?').run(parentId, childId).changes);
      if (n) this.event(childId, 'unlinked', { parent: parentId, child: childId });
      return n > 0;
    });
    if (removed) this.recomputeReady();
    return removed;
  }

  /** Every direct parent is done or archived. */
  parentsSatisfied(id: string): boolean {
    return !this.q("SELECT 1 FROM task_links l JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ? AND p.status NOT IN ('done', 'archived') LIMIT 1").get(id);
  }

  // ---- comments, events, runs ------------------------------------------------------------------

  comment(id: string, author: string, body: string): number {
    if (!body?.trim()) throw new KanbanError('comment body is required');
    if (!author?.trim()) throw new KanbanError('comment author is required');
    return this.txn(
      () => {
        this.require(id);
        const r = this.q('INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)').run(id, author.trim(), body.trim(), this.now());
        this.event(id, 'commented', { author, len: body.length });
        return Number(r.lastInsertRowid);
      },
      { allowNested: true },
    );
  }

  comments(id: string): Comment[] {
    return (this.q('SELECT * FROM task_comments WHERE task_id = ? ORDER BY created_at ASC, id ASC').all(id) as Row[]).map((r) => ({
      id: Number(r.id),
      task_id: String(r.task_id),
      author: String(r.author),
      body: String(r.body),
      created_at: Number(r.created_at),
    }));
  }

  events(id: string): TaskEvent[] {
    return (this.q('SELECT * FROM task_events WHERE task_id = ? ORDER BY created_at ASC, id ASC').all(id) as Row[]).map(eventFromRow);
  }

  /** Events of the whole board with id > afterId, oldest first (live tails and the notifier). */
  eventsAfter(afterId: number, limit = 500): TaskEvent[] {
    return (this.q('SELECT * FROM task_events WHERE id > ? ORDER BY id ASC LIMIT ?').all(afterId, limit) as Row[]).map(eventFromRow);
  }

  lastEventId(): number {
    return Number((this.q('SELECT COALESCE(MAX(id), 0) AS m FROM task_events').get() as { m: number }).m);
  }

  runs(id: string): Run[] {
    return (this.q('SELECT * FROM task_runs WHERE task_id = ? ORDER BY started_at ASC, id ASC').all(id) as Row[]).map(runFromRow);
  }

  latestRun(id: string): Run | null {
    const r = this.q('SELECT * FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, id DESC LIMIT 1').get(id) as Row | undefined;
    return r ? runFromRow(r) : null;
  }

  /** Newest non-empty run summary (workers hand off through summaries, not tasks.result). */
  latestSummary(id: string): string | null {
    const r = this.q("SELECT summary FROM task_runs WHERE task_id = ? AND summary IS NOT NULL AND summary != '' ORDER BY COALESCE(ended_at, started_at) DESC, id DESC LIMIT 1").get(id) as
      | { summary: string }
      | undefined;
    return r?.summary ?? null;
  }

  // ---- dependency promotion --------------------------------------------------------------------

  /** The newest blocked/unblocked event is an explicit block that only an unblock may end. */
  private stickyBlock(id: string): boolean {
    const r = this.q("SELECT kind, payload FROM task_events WHERE task_id = ? AND kind IN ('blocked', 'unblocked', 'gave_up') ORDER BY id DESC LIMIT 1").get(id) as Row | undefined;
    if (!r) return false;
    if (r.kind === 'gave_up') return !!parseJson<Record<string, unknown>>(r.payload, {}).sticky;
    return r.kind === 'blocked';
  }

  /**
   * Promotes todo tasks (and non-sticky blocked ones under the failure limit) whose parents are
   * all done/archived to ready; returns how many moved.
   */
  recomputeReady(failureLimit = DEFAULT_FAILURE_LIMIT): number {
    return this.txn(() => {
      let promoted = 0;
      const rows = this.q("SELECT id, status, consecutive_failures, max_retries FROM tasks WHERE status IN ('todo', 'blocked')").all() as Row[];
      for (const r of rows) {
        const id = String(r.id);
        if (!this.parentsSatisfied(id)) continue;
        if (r.status === 'blocked') {
          if (this.stickyBlock(id)) continue;
          const limit = r.max_retries !== null ? Number(r.max_retries) : failureLimit;
          if (Number(r.consecutive_failures ?? 0) >= limit) continue;
          if (!Number(this.q("UPDATE tasks SET status = 'ready' WHERE id = ? AND status = 'blocked'").run(id).changes)) continue;
        } else if (!Number(this.q("UPDATE tasks SET status = 'ready' WHERE id = ? AND status = 'todo'").run(id).changes)) continue;
        this.event(id, 'promoted', null);
        promoted++;
      }
      return promoted;
    });
  }

  // ---- notification subscriptions ---------------------------------------------------------------

  private inheritSubs(childId: string, parents: string[], now: number): void {
    if (!parents.length) return;
    const cursor = Number((this.q('SELECT COALESCE(MAX(id), 0) AS c FROM task_events WHERE task_id = ?').get(childId) as { c: number }).c);
    for (const p of parents)
      this.q(
        `INSERT OR IGNORE INTO kanban_notify_subs (task_id, platform, chat_id, thread_id, user_id, user_id_alt, chat_type, notifier_profile, delivery_mode, delivery_metadata, created_at, last_event_id)
         SELECT ?, platform, chat_id, thread_id, user_id, user_id_alt, COALESCE(chat_type, 'dm'), notifier_profile, COALESCE(delivery_mode, 'notify'), delivery_metadata, ?, ?
         FROM kanban_notify_subs WHERE task_id = ?`,
      ).run(childId, now, cursor, p);
  }

  /** Subscribes a chat to a task's events; new subscriptions start caught up (no history replay). */
  subscribe(s: { taskId: string; platform: string; chatId: string; threadId?: string | null; userId?: string | null; chatType?: string | null; notifierProfile?: string | null }): void {
    this.txn(() => {
      this.require(s.taskId);
      this.q(
        `INSERT OR IGNORE INTO kanban_notify_subs (task_id, platform, chat_id, thread_id, user_id, chat_type, notifier_profile, delivery_mode, created_at, last_event_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'notify', ?, COALESCE((SELECT MAX(id) FROM task_events WHERE task_id = ?), 0))`,
      ).run(s.taskId, s.platform, s.chatId, s.threadId ?? '', s.userId ?? null, s.chatType ?? 'dm', s.notifierProfile ?? null, this.now(), s.taskId);
    });
  }

  unsubscribe(s: { taskId: string; platform: string; chatId: string; threadId?: string | null }): boolean {
    return this.txn(() => Number(this.q('DELETE FROM kanban_notify_subs WHERE task_id = ? AND platform = ? AND chat_id = ? AND thread_id = ?').run(s.taskId, s.platform, s.chatId, s.threadId ?? '').changes) > 0);
  }

  subscriptions(taskId?: string): Row[] {
    return (taskId ? this.q('SELECT * FROM kanban_notify_subs WHERE task_id = ?').all(taskId) : this.q('SELECT * FROM kanban_notify_subs').all()) as Row[];
  }

  /**
   * Claims one subscription's unseen events of the given kinds: the cursor moves inside the write
   * transaction, so two notifiers on one board never deliver the same event twice.
   */
  claimUnseen(sub: { task_id: string; platform: string; chat_id: string; thread_id: string }, kinds: readonly string[]): TaskEvent[] {
    return this.txn(() => {
      const cur = this.q('SELECT last_event_id FROM kanban_notify_subs WHERE task_id = ? AND platform = ? AND chat_id = ? AND thread_id = ?').get(sub.task_id, sub.platform, sub.chat_id, sub.thread_id) as
        | { last_event_id: number }
        | undefined;
      if (!cur) return [];
      const rows = (this.q('SELECT * FROM task_events WHERE task_id = ? AND id > ? ORDER BY id ASC').all(sub.task_id, cur.last_event_id) as Row[]).map(eventFromRow);
      if (!rows.length) return [];
      this.q('UPDATE kanban_notify_subs SET last_event_id = ? WHERE task_id = ? AND platform = ? AND chat_id = ? AND thread_id = ? AND last_event_id = ?').run(
        rows[rows.length - 1].id,
        sub.task_id,
        sub.platform,
        sub.chat_id,
        sub.thread_id,
        cur.last_event_id,
      );
      return rows.filter((e) => kinds.includes(e.kind));
    });
  }

  // ---- stats and retention ---------------------------------------------------------------------

  stats(): { by_status: Record<string, number>; by_assignee: Record<string, Record<string, number>>; oldest_ready_age_seconds: number | null; now: number } {
    const by_status: Record<string, number> = {};
    for (const r of this.q("SELECT status, COUNT(*) AS n FROM tasks WHERE status != 'archived' GROUP BY status").all() as Row[]) by_status[String(r.status)] = Number(r.n);
    const by_assignee: Record<string, Record<string, number>> = {};
    for (const r of this.q("SELECT assignee, status, COUNT(*) AS n FROM tasks WHERE status != 'archived' AND assignee IS NOT NULL GROUP BY assignee, status").all() as Row[])
      (by_assignee[String(r.assignee)] ??= {})[String(r.status)] = Number(r.n);
    const oldest = (this.q("SELECT MIN(created_at) AS ts FROM tasks WHERE status = 'ready'").get() as { ts: number | null }).ts;
    const now = this.now();
    return { by_status, by_assignee, oldest_ready_age_seconds: oldest === null ? null : now - Number(oldest), now };
  }

  /** Deletes events older than the cutoff of done/archived tasks; returns how many. */
  gcEvents(olderThanSeconds: number): number {
    const cutoff = this.now() - olderThanSeconds;
    return this.txn(() =>
      Number(
        this.q("DELETE FROM task_events WHERE created_at < ? AND kind != 'decomposed' AND task_id IN (SELECT id FROM tasks WHERE status IN ('done', 'archived'))").run(cutoff).changes,
      ),
    );
  }
}

/** Opens a board's store: the given board (validated), else the active one. */
export function openBoard(o: { board?: string | null; env?: NodeJS.ProcessEnv; now?: () => number } = {}): KanbanStore {
  const env = o.env ?? process.env;
  const board = resolveBoard(o.board, env);
  return new KanbanStore(openBoardDb(board, env), { board, now: o.now, env });
}
