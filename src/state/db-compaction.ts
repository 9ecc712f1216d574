// Compression in place in state.db, as Hermes commits it (SessionDB delegates here): the
// per-session lease in `compression_locks` (one row per session, `holder`, unix-second times; an
// expired lease is reclaimed), `archive_and_compact` (the live rows become `active = 0,
// compacted = 1` — still searchable and shown in transcripts, never replayed — and the compressed
// conversation goes in as new live rows under the same session id), and the persisted
// summary-failure cooldown. src/session/compaction-store.ts decides when; this file writes it.
import type { Message } from '../llm/types.ts';
import type { StatementSync } from './sqlite.ts';

/** What these functions need of the open SessionDB (its statement cache and write transaction). */
export interface CompactionContext {
  stmt(sql: string): StatementSync;
  write<T>(fn: () => T): T;
  tableExists(name: string): boolean;
  insertMessage(sessionId: string, m: Message): number;
  /** The live-rows condition (empty on files without the `active` column). */
  liveRows: string;
  /** The sessions table has Hermes's cooldown columns (older files do not). */
  hasCooldown: boolean;
}

const now = () => Date.now() / 1000;

/** Takes a session's compression lease. False when another live holder has it. */
export function tryAcquireLock(c: CompactionContext, sessionId: string, holder: string, ttlSeconds: number): boolean {
  const t = now();
  try {
    return c.write(() => {
      c.stmt('DELETE FROM compression_locks WHERE session_id = ? AND expires_at <= ?').run(sessionId, t);
      const held = c.stmt('SELECT holder FROM compression_locks WHERE session_id = ?').get(sessionId) as { holder: string } | undefined;
      if (held) return held.holder === holder;
      c.stmt('INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)').run(sessionId, holder, t, t + ttlSeconds);
      return true;
    });
  } catch {
    return false;
  }
}

export function releaseLock(c: CompactionContext, sessionId: string, holder: string): boolean {
  try {
    return c.write(() => Number(c.stmt('DELETE FROM compression_locks WHERE session_id = ? AND holder = ?').run(sessionId, holder).changes) > 0);
  } catch {
    return false;
  }
}

export function lockHolder(c: CompactionContext, sessionId: string): string | null {
  if (!c.tableExists('compression_locks')) return null;
  const row = c.stmt('SELECT holder FROM compression_locks WHERE session_id = ? AND expires_at > ?').get(sessionId, now()) as { holder: string } | undefined;
  return row?.holder ?? null;
}

/**
 * Archives the live rows and inserts `messages` as the new live conversation, in one transaction;
 * the counts follow the live rows. With `lockHolder`, the commit is refused unless that holder
 * still has the lease. Returns the live row count.
 */
export function archiveAndCompact(c: CompactionContext, sessionId: string, messages: Message[], opts: { lockHolder?: string }): number {
  return c.write(() => {
    if (opts.lockHolder !== undefined) {
      const lock = c.stmt('SELECT holder, expires_at FROM compression_locks WHERE session_id = ?').get(sessionId) as { holder: string; expires_at: number } | undefined;
      if (!lock || lock.holder !== opts.lockHolder || Number(lock.expires_at) <= now()) {
        throw new Error(`the compression lease for session ${sessionId} was lost before the commit; the compaction was not saved`);
      }
    }
    c.stmt(`UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND ${c.liveRows}`).run(sessionId);
    for (const m of messages) c.insertMessage(sessionId, m);
    const calls = messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    c.stmt('UPDATE sessions SET message_count = ?, tool_call_count = ? WHERE id = ?').run(messages.length, calls, sessionId);
    return messages.length;
  });
}

/** Hermes's persisted summary-failure cooldown (unix seconds; null clears it). Older files: ignored. */
export function setCooldown(c: CompactionContext, sessionId: string, untilS: number | null, error: string | null): void {
  if (!c.hasCooldown) return;
  c.write(() => c.stmt('UPDATE sessions SET compression_failure_cooldown_until = ?, compression_failure_error = ? WHERE id = ?').run(untilS, error, sessionId));
}

export function getCooldown(c: CompactionContext, sessionId: string): { untilS: number; error: string | null } | null {
  if (!c.hasCooldown) return null;
  const r = c.stmt('SELECT compression_failure_cooldown_until AS u, compression_failure_error AS e FROM sessions WHERE id = ?').get(sessionId) as { u: number | null; e: string | null } | undefined;
  return r && typeof r.u === 'number' ? { untilS: r.u, error: r.e } : null;
}
