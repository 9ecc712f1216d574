// Background delegations a conversation is owed from before: when a surface starts listening to a
// session (the REPL, a gateway chat's session, a one-shot run with -c/-r) and at each /new or
// /resume, the finished delegations of that session (or of the sessions compression continued it
// from) still waiting in state.db are delivered as the next turns, once each (claimed, then marked
// delivered when the surface takes them). First the rows whose owner process died while the child
// ran become 'unknown' and report so: as in Hermes (recover_abandoned_delegations), a child lost
// with its process is not run again; the model reads the task and decides whether to start it anew.
import { processStartTicks } from '../state/delivery-ledger.ts';
import type { SessionStore } from '../state/store/types.ts';
import { deliverCompletion } from '../tools/impl/delegation.ts';
import type { ToolSession } from '../tools/types.ts';
import type { Inbox } from './inbox.ts';

/** True when the process `pid` runs and (when known) started at `startedAt` ticks, so a reused pid is not taken for it. */
export function ownerAlive(pid: number, startedAt: number | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (startedAt === null) return true;
  const now = processStartTicks(pid);
  return now === null || now === startedAt;
}

/** This session and the ones compression continued it from (their delegations are its own). */
async function lineage(store: SessionStore, id: string): Promise<string[]> {
  const ids = [id];
  try {
    for (const a of await store.ancestors(id)) {
      if (a.id === id) continue;
      if (a.end_reason !== 'compression') break;
      ids.push(a.id);
    }
  } catch {
    /* the session alone */
  }
  return ids;
}

/**
 * Delivers what the session's conversation is owed; returns how many notices went in. The
 * session's current channel is used, so a /new while this runs drops them (they stay pending for
 * the old conversation).
 */
export async function restoreDelegations(services: ToolSession): Promise<number> {
  const store = services.sessionDb;
  const notifier = services.notifier;
  if (!store?.delegations || !notifier || (services.depth ?? 0) > 0) return 0;
  await store.delegations.recoverAbandoned(ownerAlive);
  const rows = await store.delegations.pending(await lineage(store, services.sessionId));
  let n = 0;
  for (const r of rows) {
    if (!r.event) continue;
    if (await deliverCompletion(store, notifier, r.event, 'restore')) n++;
  }
  return n;
}

/** Wires a top-level session's inbox: restore on every conversation a surface listens to. */
export function watchDelegations(inbox: Inbox, services: ToolSession): () => void {
  return inbox.onConversation(() => {
    if ((services.depth ?? 0) > 0 || !services.sessionDb?.delegations || !services.notifier) return;
    services.notifier.expect(restoreDelegations(services).catch(() => 0));
  });
}
