// StoreWrites: a session's appends are committed together — at once after a quiet spell, grouped
// while a fast loop appends step after step — and every queued one before a turn ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../src/llm/types.ts';
import type { SessionStore } from '../../src/session/session-types.ts';
import { GROUP_MS, StoreWrites } from '../../src/session/store-writes.ts';

function recordingStore() {
  const commits: string[][] = [];
  const store = { appendMessages: (_id: string, ms: Message[]) => void commits.push(ms.map((m) => String(m.content))) } as unknown as SessionStore;
  return { store, commits };
}

const msg = (content: string): Message => ({ role: 'user', content });
const tick = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

test('the first append commits on the next tick; the following ones are committed together, later', async () => {
  const { store, commits } = recordingStore();
  const w = new StoreWrites(() => store, () => {});
  w.queueAppend('s', msg('a'));
  w.queueAppend('s', msg('b'));
  assert.deepEqual(commits, [], 'nothing is written synchronously');
  await tick();
  assert.deepEqual(commits, [['a', 'b']]);
  // A fast loop's next steps, right after that commit: grouped into one commit.
  w.queueAppend('s', msg('c'));
  w.queueAppend('s', msg('d'));
  await sleep(GROUP_MS * 4);
  assert.deepEqual(commits, [['a', 'b'], ['c', 'd']]);
});

test('flushAppends commits what is queued at once (turn end, compression, close), and nothing twice', async () => {
  const { store, commits } = recordingStore();
  const w = new StoreWrites(() => store, () => {});
  w.queueAppend('s', msg('a'));
  w.flushAppends();
  w.queueAppend('s', msg('b'));
  w.flushAppends();
  assert.deepEqual(commits, [['a'], ['b']]);
  await sleep(GROUP_MS * 4);
  assert.deepEqual(commits, [['a'], ['b']], 'the cancelled timer and the stale tick write nothing more');
});

test('appends of two sessions are committed per session, in order', async () => {
  const seen: [string, string[]][] = [];
  const store = { appendMessages: (id: string, ms: Message[]) => void seen.push([id, ms.map((m) => String(m.content))]) } as unknown as SessionStore;
  const w = new StoreWrites(() => store, () => {});
  w.queueAppend('s1', msg('a'));
  w.queueAppend('s2', msg('b'));
  w.queueAppend('s2', msg('c'));
  w.flushAppends();
  assert.deepEqual(seen, [['s1', ['a']], ['s2', ['b', 'c']]]);
});

test('a write that fails is reported once, naming the store file, and kept as the session failure', async () => {
  const warnings: string[] = [];
  const full = Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13, errstr: 'database or disk is full' });
  const store = {
    file: '/data/hermes/state.db',
    appendMessages: () => {
      throw full;
    },
  } as unknown as SessionStore;
  const w = new StoreWrites(() => store, (m) => warnings.push(m));
  assert.equal(w.failure, null);
  w.queueAppend('s', msg('a'));
  w.flushAppends();
  w.queueAppend('s', msg('b'));
  w.flushAppends();
  assert.equal(warnings.length, 1, 'one warning, not one per write');
  assert.match(warnings[0], /^Could not save to the session store: \/data\/hermes\/state\.db: the disk is full \(SQLITE_FULL\)/);
  const failure = w.failure as StoreWrites['failure'];
  assert.equal(failure?.error, full);
  assert.equal(failure?.warning, warnings[0]);
  assert.match(String(failure?.message), /hermes sessions repair --check-only/);
});
