// Where a compressed conversation goes in the session store. Hermes 0.18 compresses in place
// (`compression.in_place`, default true): the session keeps its id, the replaced rows stay on disk as
// `active = 0, compacted = 1` (searchable, shown in transcripts, never replayed) and the compressed
// history becomes the live rows — all under the session's `compression_locks` lease, so two
// processes never compress one session at once (SQLite and PostgreSQL alike). `in_place: false`, or
// an old state.db without the lease table, continues the old way: the session ends ("compression") and a child session
// (parent_session_id, "Title #2") carries the compressed history. Sessions written either way read
// back the same.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Message } from '../llm/types.ts';
import type { SessionStore, SessionWriter } from './session-types.ts';

/** Hermes's lease length for one compression. */
export const COMPRESSION_LOCK_TTL_S = 300;

/** A holder string naming this process (Hermes's structured `host=…:pid=…` form, plus a nonce). */
export function compressionHolder(): string {
  return `host=${hostname()}:pid=${process.pid}:token=${randomBytes(4).toString('hex')}`;
}

export function inPlaceWanted(store: SessionStore | undefined, config: { compression?: { in_place?: boolean } }): boolean {
  return !!store?.canCompactInPlace && config.compression?.in_place !== false;
}

/**
 * Whether a holder string names a process of this host that is gone (its pid no longer exists). A
 * holder of another host, or one without the `host=…:pid=…` form, is never judged dead here: only
 * its lease's expiry frees it.
 */
export function holderIsDead(holder: string, host = hostname(), alive: (pid: number) => boolean = pidAlive): boolean {
  const m = /(?:^|:)host=(.*?):pid=(\d+)(?::|$)/.exec(holder);
  if (!m || m[1] !== host) return false;
  const pid = Number(m[2]);
  return pid > 0 && pid !== process.pid && !alive(pid);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Takes the lease; null when another live process holds it (then nothing is compressed). A lease
 * left by a process of this host that died (killed mid-compression) is taken over at once instead
 * of blocking compression until it expires (300 s): it is released under the dead holder's name
 * (so of two processes taking over, one wins) and taken again.
 */
export async function takeLease(store: SessionStore, sessionId: string): Promise<string | null> {
  const holder = compressionHolder();
  if (await store.tryAcquireCompressionLock(sessionId, holder, COMPRESSION_LOCK_TTL_S)) return holder;
  let current: string | null | undefined;
  try {
    current = await store.getCompressionLockHolder(sessionId);
  } catch {
    return null;
  }
  if (!current || !holderIsDead(current)) return null;
  await dropLease(store, sessionId, current);
  return (await store.tryAcquireCompressionLock(sessionId, holder, COMPRESSION_LOCK_TTL_S)) ? holder : null;
}

export async function dropLease(store: SessionStore, sessionId: string, holder: string): Promise<void> {
  try {
    await store.releaseCompressionLock(sessionId, holder);
  } catch {
    /* the lease expires on its own */
  }
}

export interface RotateHost {
  id: string;
  newId(): string;
  adoptId(id: string): void;
  createMeta: { source: string; model: string; systemPrompt: string; cwd?: string };
}

/**
 * The old way: a child session carries the compressed history; returns the new id. `writer` is where
 * the conversation goes (the session store, or the gateway's JSONL fallback); the child takes the
 * next title of the lineage when there is a session store.
 */
export async function rotateSession(writer: SessionWriter, store: SessionStore | undefined, host: RotateHost, history: Message[]): Promise<string> {
  const oldId = host.id;
  const newId = host.newId();
  await writer.createSession({ id: newId, ...host.createMeta, parentId: oldId });
  if (store) {
    const t = (await store.getSession(oldId))?.title;
    if (t) {
      try {
        await store.setTitle(newId, await store.nextTitleInLineage(t));
      } catch {
        /* a racing writer took the title: stay untitled */
      }
    }
  }
  await writer.appendMessages(newId, history);
  await writer.endSession(oldId, 'compression');
  host.adoptId(newId);
  return newId;
}
