// Cross-platform handoff, on state.db's own columns (Hermes's): sessions.handoff_state goes
// NULL → pending (the CLI asks) → running (a gateway claimed it) → completed | failed, with
// handoff_platform and handoff_error. The claim is one conditional UPDATE, so of several gateways
// sharing the store exactly one takes a request. The same SQL on SQLite (state.db) and PostgreSQL
// (SessionStore.sqlRun/sqlAll).
import type { SessionStore } from './store/types.ts';

export type HandoffState = 'pending' | 'running' | 'completed' | 'failed';

/** Marks a session for handoff to `platform`; false when the session is not in the store. */
export async function requestHandoff(store: SessionStore, sessionId: string, platform: string): Promise<boolean> {
  await store.flush();
  return (await store.sqlRun(`UPDATE sessions SET handoff_state = 'pending', handoff_platform = ?, handoff_error = NULL WHERE id = ?`, [platform, sessionId])) > 0;
}

/** Pending requests, oldest first. */
export async function pendingHandoffs(store: SessionStore): Promise<{ id: string; platform: string; title: string | null }[]> {
  const rows = await store.sqlAll(`SELECT id, handoff_platform, title FROM sessions WHERE handoff_state = 'pending' ORDER BY started_at`, []);
  return rows.map((r) => ({ id: String(r.id), platform: String(r.handoff_platform ?? ''), title: (r.title as string | null) ?? null }));
}

/** Atomically takes a pending request; false when another gateway took it first. */
export async function claimHandoff(store: SessionStore, sessionId: string): Promise<boolean> {
  return (await store.sqlRun(`UPDATE sessions SET handoff_state = 'running' WHERE id = ? AND handoff_state = 'pending'`, [sessionId])) === 1;
}

export async function finishHandoff(store: SessionStore, sessionId: string, error: string | null, onlyIf: HandoffState = 'running'): Promise<boolean> {
  return (await store.sqlRun(`UPDATE sessions SET handoff_state = ?, handoff_error = ? WHERE id = ? AND handoff_state = ?`, [error ? 'failed' : 'completed', error, sessionId, onlyIf])) > 0;
}

export async function handoffState(store: SessionStore, sessionId: string): Promise<{ state: HandoffState | null; platform: string | null; error: string | null }> {
  const r = (await store.sqlAll(`SELECT handoff_state, handoff_platform, handoff_error FROM sessions WHERE id = ?`, [sessionId]))[0];
  return { state: (r?.handoff_state as HandoffState | null) ?? null, platform: (r?.handoff_platform as string | null) ?? null, error: (r?.handoff_error as string | null) ?? null };
}
