// The TUI's session picker over an async session store (PostgreSQL's shape: every call a promise):
// the list arrives after the first frame and redraws; a search's message hits arrive later, and an
// answer to a query the user has since changed is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionPicker } from '../../src/tui/pickers/sessions.ts';
import type { SessionStore } from '../../src/state/store/index.ts';

const row = (id: string, title: string) => ({ id, title, preview: `first message of ${id}`, last_active: 1_700_000_000, message_count: 2, source: 'cli' });
const hit = (id: string, snippet: string) => ({ session_id: id, title: null, timestamp: 1_700_000_000, source: 'cli', role: 'user', snippet });

test('the picker fills in when an async store answers, and drops a stale search', async () => {
  const searches: { q: string; resolve: (v: unknown[]) => void }[] = [];
  const store = {
    listSessions: async () => [row('s1', 'Deploy notes'), row('s2', 'Grocery list')],
    searchMessages: (q: string) => new Promise<unknown[]>((resolve) => searches.push({ q, resolve })),
  } as unknown as SessionStore;
  let redraws = 0;
  const p = new SessionPicker(store, 's2', () => redraws++);
  assert.deepEqual(p.list.items.map((i) => i.key), [], 'nothing yet: the store has not answered');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(p.list.items.map((i) => i.key), ['s1', 's2']);
  assert.ok(redraws >= 1, 'the frame is redrawn when the list arrives');

  p.list.query.insert('deploy');
  p.refresh();
  assert.deepEqual(p.list.items.map((i) => i.key), ['s1'], 'title matches show at once');
  p.list.query.insert('x');
  p.refresh();
  searches[1]!.resolve([hit('s7', 'deployx happened here')]);
  await new Promise((r) => setImmediate(r));
  searches[0]!.resolve([hit('s9', 'stale answer')]); // the older query answers last
  await new Promise((r) => setImmediate(r));
  const keys = p.list.items.map((i) => i.key);
  assert.ok(keys.includes('s7'), 'the current query’s message hit is shown');
  assert.ok(!keys.includes('s9'), 'the superseded query’s answer is dropped');
});

test('a store that fails says so in the picker', async () => {
  const store = {
    listSessions: async () => { throw new Error('connection refused'); },
    searchMessages: async () => [],
  } as unknown as SessionStore;
  const p = new SessionPicker(store, 'x');
  await new Promise((r) => setImmediate(r));
  assert.match(p.error, /Could not read the sessions: connection refused/);
});
