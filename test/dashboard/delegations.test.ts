// The dashboard's subagent routes over a real state.db and real live transcripts: a session's
// background delegations (async_delegations), the transcripts on disk, and reading one while it
// grows (offset polling).
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { registerDelegations } from '../../src/dashboard/api/delegations.ts';
import type { DashboardContext } from '../../src/dashboard/context.ts';
import { openSqliteStore } from '../../src/state/store/index.ts';
import { line, startSubagent, type LiveSubagent } from '../../src/tools/subagents.ts';
import { tempHome } from '../helpers/cli.ts';

describe('dashboard: subagents', () => {
  it('lists a session\'s delegations with their transcripts and reads a transcript from an offset', async () => {
    const home = tempHome();
    const store = openSqliteStore(join(home, 'state.db'));
    const app = new Hono();
    registerDelegations(app, { home, store: async () => store } as unknown as DashboardContext);
    const live = new Map<string, LiveSubagent>();
    const sa = startSubagent(live, home, { delegationId: 'deleg_00c0ffee', index: 0, goal: 'index the repo', background: true });
    await store.delegations.dispatched({ id: 'deleg_00c0ffee', originSession: 's1', parentSessionId: 's1', dispatchedAt: 100, task: { goal: 'index the repo', role: 'leaf' }, ownerPid: process.pid, ownerStartedAt: null });

    const list = (await (await app.request('/api/sessions/s1/delegations')).json()) as { delegations: Record<string, unknown>[] };
    assert.equal(list.delegations.length, 1);
    assert.deepEqual({ ...list.delegations[0] }, { delegation_id: 'deleg_00c0ffee', state: 'running', delivery_state: 'pending', dispatched_at: 100, completed_at: null, delivered_at: null, goal: 'index the repo', role: 'leaf', summary: null, error: null, transcripts: [0] });
    assert.deepEqual(((await (await app.request('/api/sessions/other/delegations')).json()) as { delegations: unknown[] }).delegations, []);

    const first = (await (await app.request('/api/delegations/deleg_00c0ffee/transcript')).json()) as { text: string; next: number };
    assert.match(first.text, /^=== Hermes subagent live transcript ===\ndelegation: deleg_00c0ffee   task: 0\ngoal: index the repo\n[\s\S]*\| kickoff: index the repo\n$/);
    line(sa, 'tool', '-> search_files({"pattern":"TODO"})');
    const more = (await (await app.request(`/api/delegations/deleg_00c0ffee/transcript?offset=${first.next}`)).json()) as { text: string; next: number };
    assert.match(more.text, /^\d\d:\d\d:\d\d tool     \| -> search_files\(\{"pattern":"TODO"\}\)\n$/);
    appendFileSync(sa.path!, 'x\n');
    const live2 = (await (await app.request('/api/delegations/live')).json()) as { transcripts: { delegationId: string; goal: string; ended: string | null }[] };
    assert.deepEqual(live2.transcripts.map((t) => [t.delegationId, t.goal, t.ended]), [['deleg_00c0ffee', 'index the repo', null]]);
    assert.equal((await app.request('/api/delegations/deleg_00c0ffee/transcript?task=3')).status, 404);
    assert.equal((await app.request('/api/delegations/..%2F..%2Fetc/transcript')).status, 404);
    await store.close();
  });
});
