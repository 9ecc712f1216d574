// Cross-platform handoff, on state.db's own columns (Hermes's): sessions.handoff_state goes
// NULL → pending (the CLI asks) → running (a gateway claimed it) → completed | failed, with
// handoff_platform and handoff_error. The claim is one conditional UPDATE, so of several gateways
// sharing the store exactly one takes a request. Works on SQLite (state.db) and PostgreSQL alike.
import type { SessionStoreApi } from './store/types.ts';

export type HandoffState = 'pending' | 'running' | 'completed' | 'failed';

interface Q {
  run(sql: string, params: (string | null)[]): Promise<number>;
  all(sql: string, params: (string | null)[]): Promise<Record<string, unknown>[]>;
}

function queries(store: SessionStoreApi): Q {
  const s = store as unknown as { raw?: { prepare(sql: string): { run(...p: unknown[]): { changes: number | bigint }; all(...p: unknown[]): unknown[] } }; db?: { run(sql: string, p: unknown[]): Promise<number>; all(sql: string, p: unknown[]): Promise<Record<string, unknown>[]> } };
  if (store.backend === 'sqlite' && s.raw) {
    const raw = s.raw;
    return {
      run: async (sql, p) => Number(raw.prepare(sql).run(...p).changes),
      all: async (sql, p) => raw.prepare(sql).all(...p) as Record<string, unknown>[],
    };
  }
  if (s.db) {
    const db = s.db;
    return { run: (sql, p) => db.run(sql, p), all: (sql, p) => db.all(sql, p) };
  }
  throw new Error(`handoff is not available on this session store (${store.backend})`);
}

/** Marks a session for handoff to `platform`; false when the session is not in the store. */
export async function requestHandoff(store: SessionStoreApi, sessionId: string, platform: string): Promise<boolean> {
  await store.flush();
  return (await queries(store).run(`UPDATE sessions SET handoff_state = 'pending', handoff_platform = ?, handoff_error = NULL WHERE id = ?`, [platform, sessionId])) > 0;
}

/** Pending requests, oldest first. */
export async function pendingHandoffs(store: SessionStoreApi): Promise<{ id: string; platform: string; title: string | null }[]> {
  const rows = await queries(store).all(`SELECT id, handoff_platform, title FROM sessions WHERE handoff_state = 'pending' ORDER BY started_at`, []);
  return rows.map((r) => ({ id: String(r.id), platform: String(r.handoff_platform ?? ''), title: (r.title as string | null) ?? null }));
}

/** Atomically takes a pending request; false when another gateway took it first. */
export async function claimHandoff(store: SessionStoreApi, sessionId: string): Promise<boolean> {
  return (await queries(store).run(`UPDATE sessions SET handoff_state = 'running' WHERE id = ? AND handoff_state = 'pending'`, [sessionId])) === 1;
}

export async function finishHandoff(store: SessionStoreApi, sessionId: string, error: string | null, onlyIf: HandoffState = 'running'): Promise<boolean> {
  return (await queries(store).run(`UPDATE sessions SET handoff_state = ?, handoff_error = ? WHERE id = ? AND handoff_state = ?`, [error ? 'failed' : 'completed', error, sessionId, onlyIf])) > 0;
}

export async function handoffState(store: SessionStoreApi, sessionId: string): Promise<{ state: HandoffState | null; platform: string | null; error: string | null }> {
  const r = (await queries(store).all(`SELECT handoff_state, handoff_platform, handoff_error FROM sessions WHERE id = ?`, [sessionId]))[0];
  return { state: (r?.handoff_state as HandoffState | null) ?? null, platform: (r?.handoff_platform as string | null) ?? null, error: (r?.handoff_error as string | null) ?? null };
}
