// Durable background delegations (Hermes's async_delegations in state.db): the row's state machine
// through the tool, delivery exactly once, a dead owner's row reported as 'unknown' on the next
// start, a row Hermes (Python) wrote delivered here, and the live-subagent controls (list, steer,
// stop) of delegate_task and /agents.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Inbox } from '../../src/session/inbox.ts';
import { restoreDelegations, watchDelegations } from '../../src/session/delegations.ts';
import { openSqliteStore } from '../../src/state/store/index.ts';
import type { SessionStore } from '../../src/state/store/types.ts';
import delegateTask from '../../src/tools/defs/delegate.ts';
import { deliverCompletion } from '../../src/tools/impl/delegation.ts';
import { subagentsSlot } from '../../src/tools/subagents.ts';
import type { ChildResult, ChildSpec, ToolSession } from '../../src/tools/types.ts';
import { call, makeServices } from './helpers.ts';

async function until(fn: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await fn())) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function setup(over: Partial<ToolSession> = {}): { s: ToolSession; store: SessionStore; inbox: Inbox } {
  const inbox = new Inbox();
  inbox.listening = true;
  const s = makeServices({ notifier: inbox, ...over });
  const store = openSqliteStore(join(s.home, 'state.db'));
  s.sessionDb = store;
  return { s, store, inbox };
}

const row = async (store: SessionStore, id: string) => (await store.sqlAll('SELECT * FROM async_delegations WHERE delegation_id = ?', [id]))[0] as Record<string, any>;

/** A pid that no process has now (a child that already exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('durable background delegations', () => {
  it('writes the row as Hermes does, finishes it, and marks it delivered when the surface takes the notice', async () => {
    const { s, store, inbox } = setup();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    s.spawnChild = async (spec: ChildSpec): Promise<ChildResult> => {
      await gate;
      spec.onEvent?.({ type: 'tool_start', callId: 'c1', name: 'read_file', args: { path: 'CHANGELOG.md' } });
      return { status: 'completed', summary: '3 fixes', apiCalls: 2, iterations: 2, toolTrace: ['read_file'], model: 'child-model' };
    };
    const r = await call(delegateTask, { goal: 'count the fixes', context: 'in CHANGELOG.md', background: true }, s);
    const id = r.json.delegation_id as string;
    assert.match(r.json.subagent_id, /^sa-0-[0-9a-f]{8}$/);
    let w = await row(store, id);
    assert.equal(w.state, 'running');
    assert.equal(w.delivery_state, 'pending');
    assert.equal(w.origin_session, 'test-session');
    assert.equal(w.parent_session_id, 'test-session');
    assert.equal(Number(w.owner_pid), process.pid);
    assert.deepEqual(JSON.parse(w.task_json), { goal: 'count the fixes', context: 'in CHANGELOG.md', toolsets: null, role: 'leaf', model: null });
    assert.equal(w.completed_at, null);
    open();
    await inbox.settle(5000);
    w = await row(store, id);
    assert.equal(w.state, 'completed');
    assert.equal(w.delivery_state, 'pending', 'delivered only once the conversation takes it');
    assert.equal(Number(w.delivery_attempts), 1);
    assert.ok(w.delivery_claim);
    const ev = JSON.parse(w.event_json);
    assert.equal(ev.type, 'async_delegation');
    assert.equal(ev.summary, '3 fixes');
    assert.equal(JSON.parse(w.result_json).status, 'completed');
    const [n] = inbox.take();
    assert.match(n.text, /--- RESULT ---\n3 fixes$/);
    await store.flush();
    await new Promise((r) => setTimeout(r, 10));
    w = await row(store, id);
    assert.equal(w.delivery_state, 'delivered');
    assert.ok(Number(w.delivered_at) > 0);
    assert.equal(w.delivery_claim, null);
    // Exactly once: a later start of the session finds nothing to deliver, and a second delivery is refused.
    assert.equal(await restoreDelegations(s), 0);
    assert.equal(await deliverCompletion(store, inbox, ev, 'other'), false);
    assert.equal(inbox.size, 0);
    await store.close();
  });

  it('a row whose owner died is reported as unknown on the next start, once', async () => {
    const { s, store, inbox } = setup();
    const pid = deadPid();
    await store.delegations.dispatched({ id: 'deleg_0badf00d', originSession: 'test-session', parentSessionId: 'test-session', dispatchedAt: Date.now() / 1000 - 60, task: { goal: 'index the repo', role: 'leaf' }, ownerPid: pid, ownerStartedAt: 12345 });
    // Another session's row stays where it is.
    await store.delegations.dispatched({ id: 'deleg_0ther000', originSession: 'someone-else', parentSessionId: 'someone-else', dispatchedAt: Date.now() / 1000, task: { goal: 'x' }, ownerPid: pid, ownerStartedAt: null });
    assert.equal(await restoreDelegations(s), 1);
    const [n] = inbox.take();
    assert.match(n.text, /^\[ASYNC DELEGATION COMPLETE — deleg_0badf00d\]/);
    assert.match(n.text, /Original goal: index the repo/);
    assert.match(n.text, /Status: unknown[\s\S]*--- RESULT ---\nThe subagent did not finish \(status unknown\)\.\nDelegation owner exited before recording a terminal result; outcome unknown\./);
    await new Promise((r) => setTimeout(r, 10));
    const w = await row(store, 'deleg_0badf00d');
    assert.equal(w.state, 'unknown');
    assert.equal(w.delivery_state, 'delivered');
    assert.equal((await row(store, 'deleg_0ther000')).state, 'unknown', 'recovered too, but not delivered here');
    assert.equal((await row(store, 'deleg_0ther000')).delivery_state, 'pending');
    assert.equal(await restoreDelegations(s), 0);
    // A live owner's running row is left alone.
    await store.delegations.dispatched({ id: 'deleg_a11ve000', originSession: 'test-session', parentSessionId: 'test-session', dispatchedAt: Date.now() / 1000, task: { goal: 'y' }, ownerPid: process.pid, ownerStartedAt: null });
    assert.equal(await restoreDelegations(s), 0);
    assert.equal((await row(store, 'deleg_a11ve000')).state, 'running');
    await store.close();
  });

  it('delivers a completion Hermes (Python) recorded, and takes over a claim of a dead process', async () => {
    const { s, store, inbox } = setup();
    const ev = {
      type: 'async_delegation', delegation_id: 'deleg_9a9a9a9a', session_key: 'test-session', origin_ui_session_id: '', origin_session_id: '', parent_session_id: 'test-session',
      goal: 'summarise the logs', context: null, toolsets: ['file'], role: 'leaf', model: 'gpt-x', status: 'completed', summary: 'All green.', error: null, api_calls: 3, duration_seconds: 12.5, dispatched_at: 1_700_000_000, completed_at: 1_700_000_012, exit_reason: null,
    };
    // Hermes's _persist_dispatch then _persist_completion, and a claim by a CLI process that died before delivering.
    await store.sqlRun(
      `INSERT INTO async_delegations (delegation_id, origin_session, origin_ui_session_id, parent_session_id, state, dispatched_at, updated_at, delivery_state, delivery_attempts, owner_pid, owner_started_at, task_json)
       VALUES (?, ?, '', ?, 'running', ?, ?, 'pending', 0, ?, ?, ?)`,
      ['deleg_9a9a9a9a', 'test-session', 'test-session', 1_700_000_000, 1_700_000_000, deadPid(), 1, JSON.stringify({ goal: 'summarise the logs', context: null, toolsets: ['file'], role: 'leaf', model: null })],
    );
    await store.sqlRun(`UPDATE async_delegations SET state=?, completed_at=?, updated_at=?, event_json=?, result_json=?, delivery_state='pending' WHERE delegation_id=?`, ['completed', 1_700_000_012, 1_700_000_012, JSON.stringify(ev), JSON.stringify({ status: 'completed', summary: 'All green.' }), 'deleg_9a9a9a9a']);
    await store.sqlRun(`UPDATE async_delegations SET delivery_claim=?, delivery_claimed_at=?, delivery_attempts=1 WHERE delegation_id=?`, [`cli:${deadPid()}:0123abcd`, Date.now() / 1000, 'deleg_9a9a9a9a']);
    assert.equal(await restoreDelegations(s), 1);
    const [n] = inbox.take();
    assert.match(n.text, /Toolsets: file\nRole: leaf   Model: gpt-x\nStatus: completed   API calls: 3   Duration: 12.5s\n--- RESULT ---\nAll green\.$/);
    await new Promise((r) => setTimeout(r, 10));
    const w = await row(store, 'deleg_9a9a9a9a');
    assert.equal(w.delivery_state, 'delivered');
    assert.equal(Number(w.delivery_attempts), 2);
    await store.close();
  });

  it('restores when a surface starts listening and at each new conversation, on that conversation\'s id', async () => {
    const inbox = new Inbox();
    const s = makeServices();
    s.notifier = inbox.channel();
    const store = openSqliteStore(join(s.home, 'state.db'));
    s.sessionDb = store;
    const finish = async (id: string, session: string) => {
      await store.delegations.dispatched({ id, originSession: session, parentSessionId: session, dispatchedAt: 1, task: { goal: `goal of ${id}` }, ownerPid: process.pid, ownerStartedAt: null });
      await store.delegations.finished(id, 'completed', { type: 'async_delegation', delegation_id: id, status: 'completed', goal: `goal of ${id}`, summary: 'done' }, { status: 'completed' });
    };
    await finish('deleg_11111111', 'test-session');
    await finish('deleg_22222222', 'other-session');
    watchDelegations(inbox, s);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(inbox.size, 0, 'nobody listens yet');
    inbox.listening = true;
    await new Promise((r) => setTimeout(r, 10));
    await inbox.settle(2000);
    assert.deepEqual(inbox.take().map((n) => n.id), ['deleg_11111111']);
    s.notifier = inbox.newConversation();
    s.sessionId = 'other-session';
    await new Promise((r) => setTimeout(r, 10));
    await inbox.settle(2000);
    assert.deepEqual(inbox.take().map((n) => n.id), ['deleg_22222222']);
    await store.close();
  });
});

describe('a delegation that outlives its conversation', () => {
  it('stays pending after /new and is delivered when that session is resumed', async () => {
    const inbox = new Inbox();
    inbox.listening = true;
    const s = makeServices({ notifier: inbox.channel() });
    const store = openSqliteStore(join(s.home, 'state.db'));
    s.sessionDb = store;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    s.spawnChild = async (): Promise<ChildResult> => {
      await gate;
      return { status: 'completed', summary: 'late result', apiCalls: 1, iterations: 1, toolTrace: [] };
    };
    watchDelegations(inbox, s);
    const id = (await call(delegateTask, { goal: 'slow job', background: true }, s)).json.delegation_id as string;
    // /new: a new conversation with its own id.
    s.notifier = inbox.newConversation();
    s.sessionId = 'next-session';
    open();
    await until(async () => (await row(store, id)).state === 'completed');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(inbox.size, 0, 'not in the new conversation');
    assert.equal((await row(store, id)).delivery_claim, null, 'not claimed: it waits for its own conversation');
    // /resume of the first session.
    s.notifier = inbox.newConversation();
    s.sessionId = 'test-session';
    await new Promise((r) => setTimeout(r, 10));
    await inbox.settle(2000);
    const notes = inbox.take();
    assert.deepEqual(notes.map((n) => n.id), [id]);
    assert.match(notes[0].text, /late result$/);
    await store.close();
  });
});

describe('live subagents: list, steer, stop', () => {
  it('delegate_task(action=...) lists, steers and stops the session\'s running children; the transcript is written as Hermes does', async () => {
    const { s, store, inbox } = setup();
    const steered: string[] = [];
    let stopped = 0;
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    s.spawnChild = async (spec: ChildSpec): Promise<ChildResult> => {
      spec.onStart?.({ sessionId: 'child-1', steer: (t) => steered.push(t), interrupt: () => stopped++ });
      spec.onEvent?.({ type: 'text_delta', text: 'Looking at the tests.' });
      spec.onEvent?.({ type: 'tool_start', callId: 'c', name: 'terminal', args: { command: 'npm test' } });
      spec.onEvent?.({ type: 'tool_end', callId: 'c', name: 'terminal', content: '12 passing', isError: false, durationMs: 1500 });
      await gate;
      return { status: 'completed', summary: 'ok', apiCalls: 1, iterations: 1, toolTrace: [] };
    };
    const r = await call(delegateTask, { goal: 'run the tests', background: true }, s);
    const sid = r.json.subagent_id as string;
    const list = await call(delegateTask, { action: 'list' }, s);
    assert.equal(list.json.count, 1);
    assert.equal(list.json.subagents[0].subagent_id, sid);
    assert.equal(list.json.subagents[0].session_id, 'child-1');
    assert.equal(list.json.subagents[0].tool_count, 1);
    assert.equal((await call(delegateTask, { action: 'steer', subagent_id: sid, message: 'only the unit tests' }, s)).json.status, 'queued');
    assert.deepEqual(steered, ['only the unit tests']);
    assert.match((await call(delegateTask, { action: 'steer', subagent_id: sid }, s)).json.error, /non-empty 'message'/);
    assert.match((await call(delegateTask, { action: 'steer', subagent_id: 'sa-9-nothere', message: 'x' }, s)).json.error, /No live subagent 'sa-9-nothere'/);
    assert.equal((await call(delegateTask, { action: 'stop', subagent_id: sid }, s)).json.status, 'interrupt_requested');
    assert.equal(stopped, 1);
    const sa = s.slots.peek(subagentsSlot)!.get(sid)!;
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(sa.path!, 'utf8');
    assert.match(text, /^=== Hermes subagent live transcript ===\ndelegation: deleg_[0-9a-f]{8}   task: 0\ngoal: run the tests\n/);
    assert.match(text, /\d\d:\d\d:\d\d user     \| kickoff: run the tests\n/);
    assert.match(text, /assistant\| Looking at the tests\.\n.*tool     \| -> terminal\(\{"command":"npm test"\}\)\n.*result   \| terminal ok 1\.5s: 12 passing\n.*steer    \| only the unit tests\n/);
    finish();
    await inbox.settle(5000);
    assert.equal((await call(delegateTask, { action: 'list' }, s)).json.count, 0);
    assert.match(readFileSync(sa.path!, 'utf8'), /final    \| end status=completed summary: ok\n$/);
    assert.match((await call(delegateTask, { action: 'steer', subagent_id: sid, message: 'late' }, s)).json.error, /No live subagent/);
    await store.close();
  });
});
