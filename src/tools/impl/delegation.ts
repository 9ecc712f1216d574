// Background delegations kept in state.db (`async_delegations`, Hermes's rows: src/state/store/
// delegations.ts): the completion event in Hermes's shape, the message it becomes, and its delivery
// into the conversation exactly once (claim → notice taken by the surface → delivered). A session
// that starts again delivers what finished while it was away (src/session/delegations.ts).
import { processStartTicks } from '../../state/delivery-ledger.ts';
import type { DelegationTask } from '../../state/store/delegations.ts';
import type { SessionStore } from '../../state/store/types.ts';
import type { BackgroundNotice, Notifier } from '../types.ts';

/** Hermes's completion event (`type: async_delegation`), what event_json holds. */
export type DelegationEvent = Record<string, unknown> & { delegation_id: string; status: string; goal: string };

/** Records the dispatch; false when the store is absent or the write failed (the child still runs, in memory only). */
export async function recordDispatch(
  store: SessionStore | undefined,
  d: { id: string; sessionId: string; dispatchedAt: number; task: DelegationTask },
): Promise<boolean> {
  if (!store?.delegations) return false;
  try {
    await store.delegations.dispatched({
      id: d.id,
      originSession: d.sessionId,
      parentSessionId: d.sessionId,
      dispatchedAt: d.dispatchedAt / 1000,
      task: d.task,
      ownerPid: process.pid,
      ownerStartedAt: processStartTicks(),
    });
    return true;
  } catch {
    return false;
  }
}

/** The completion event of a finished child, from its result entry (resultEntry in delegate.ts). */
export function completionEvent(id: string, sessionId: string, task: DelegationTask, e: Record<string, unknown>, dispatchedAt: number): DelegationEvent {
  return {
    type: 'async_delegation',
    delegation_id: id,
    session_key: sessionId,
    origin_ui_session_id: '',
    origin_session_id: '',
    parent_session_id: sessionId,
    goal: task.goal,
    context: task.context ?? null,
    toolsets: task.toolsets ?? null,
    role: task.role ?? null,
    model: (e.model as string | undefined) ?? task.model ?? null,
    status: String(e.status ?? 'completed'),
    summary: (e.summary as string | undefined) || null,
    error: (e.error as string | undefined) ?? null,
    api_calls: Number(e.api_calls ?? 0),
    duration_seconds: Number(e.duration_seconds ?? Math.round((Date.now() - dispatchedAt) / 10) / 100),
    dispatched_at: dispatchedAt / 1000,
    completed_at: Date.now() / 1000,
    exit_reason: null,
  };
}

/** The message a finished background subagent sends into the conversation (Hermes's _format_async_delegation). */
export function delegationNotice(ev: Record<string, unknown>): BackgroundNotice {
  const id = String(ev.delegation_id ?? 'unknown');
  const status = String(ev.status ?? 'completed');
  const ok = status === 'completed' || status === 'partial' || status === 'success';
  const toolsets = Array.isArray(ev.toolsets) ? (ev.toolsets as string[]) : [];
  const dispatched = typeof ev.dispatched_at === 'number' ? new Date(ev.dispatched_at * 1000).toISOString().replace(/\.\d+Z$/, 'Z') : null;
  const summary = typeof ev.summary === 'string' ? ev.summary : '';
  const error = typeof ev.error === 'string' ? ev.error : '';
  const lines = [
    `[ASYNC DELEGATION COMPLETE — ${id}]`,
    'A subagent you started in the background earlier has finished. You may have moved on since; the task is repeated below so you can act on the result or start it again.',
    '',
    ...(dispatched ? [`Dispatched: ${dispatched}`] : []),
    `Original goal: ${String(ev.goal ?? '')}`,
    ...(ev.context ? [`Context you provided: ${String(ev.context)}`] : []),
    ...(toolsets.length ? [`Toolsets: ${toolsets.join(', ')}`] : []),
    `Role: ${String(ev.role ?? 'leaf')}   Model: ${String(ev.model ?? '?')}`,
    `Status: ${status}   API calls: ${String(ev.api_calls ?? 0)}   Duration: ${String(ev.duration_seconds ?? '?')}s`,
    '--- RESULT ---',
  ];
  if (ok && summary) lines.push(summary);
  else {
    lines.push(
      status === 'interrupted'
        ? `The subagent was interrupted before it finished${error ? `: ${error}` : '.'}`
        : `The subagent did not finish (status ${status}).${error ? `\n${error}` : ''}`,
    );
    if (summary) lines.push('Partial output:', summary);
  }
  const goal = String(ev.goal ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return { kind: 'delegation', id, title: `Subagent ${ok ? 'finished' : status}: ${goal.length > 70 ? `${goal.slice(0, 67)}...` : goal}`, text: lines.join('\n') };
}

/**
 * Puts a finished delegation's event into the conversation once: claims the row, hands the notice
 * to the inbox, and marks it delivered when the surface takes it (the next turn). Without a store
 * (or a row) the notice goes in as it is. Returns false when another consumer has it.
 */
export async function deliverCompletion(store: SessionStore | undefined, notifier: Notifier, ev: Record<string, unknown>, consumer: string): Promise<boolean> {
  const notice = delegationNotice(ev);
  const rows = store?.delegations;
  if (!rows) {
    notifier.notify(notice);
    return true;
  }
  // A conversation that is over would drop it: the row stays pending for when that session is resumed.
  if (notifier.active === false || notifier.signal.aborted) return false;
  const id = notice.id;
  const claim = rows.claimId(consumer);
  let claimed: boolean;
  try {
    claimed = (await rows.get(id)) === null ? true : await rows.claim(id, claim);
  } catch {
    claimed = true; // the store failed: the result still reaches the conversation
  }
  if (!claimed) return false;
  notice.onTaken = () => {
    void rows.delivered(id, claim).catch(() => undefined);
  };
  notifier.notify(notice);
  return true;
}
