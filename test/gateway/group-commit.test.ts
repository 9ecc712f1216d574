// The gateway's group commit over state.db: the writes of one tick, of every chat, are one
// transaction; reads and other calls see every write made before them; a bad write fails alone.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TurnResult } from '../../src/agent/types.ts';
import { GroupCommit } from '../../src/gateway/group-commit.ts';
import { openTranscriptStore } from '../../src/gateway/transcripts.ts';
import { SessionDB } from '../../src/state/db.ts';

const open = () => {
  const path = join(mkdtempSync(join(tmpdir(), 'hermes-gc-')), 'state.db');
  const db = SessionDB.open(path);
  for (const id of ['a', 'b']) db.createSession({ id, source: 'telegram', model: 'm', systemPrompt: 'sys' });
  return { db, path };
};
const usage = { usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, apiCalls: 1, costUsd: null } as unknown as TurnResult;

test('the writes of one tick, of several sessions, are one transaction, committed on the next tick', async () => {
  const { db, path } = open();
  const batches: number[] = [];
  const batch = db.batch.bind(db);
  db.batch = <T>(fn: () => T): T => {
    const r = batch(fn);
    batches.push((r as unknown[]).length);
    return r;
  };
  const g = new GroupCommit(db);
  const other = SessionDB.open(path); // another process's view
  const writes = [g.store.appendMessages('a', [{ role: 'user', content: 'hi from a' }]), g.store.appendMessage('b', { role: 'user', content: 'hi from b' }), g.store.recordUsage('a', usage, 'm', 'p')];
  assert.equal(other.getMessages('a').length, 0, 'nothing is committed within the tick');
  await Promise.all(writes);
  assert.deepEqual(batches, [3]);
  assert.equal(other.getMessages('a')[0].content, 'hi from a');
  assert.equal(other.getMessages('b')[0].content, 'hi from b');
  assert.equal(other.getSession('a')?.input_tokens, 10);
  // A turn awaits flush(): it resolves once what was queued is committed.
  void g.store.appendMessage('b', { role: 'assistant', content: 'answer' });
  await g.store.flush();
  assert.equal(other.getMessages('b').length, 2);
  other.close();
  db.close();
});

test('any other call (a read, a session created, close) commits what is queued first, in order', async () => {
  const { db } = open();
  const g = new GroupCommit(db);
  void g.store.appendMessage('a', { role: 'user', content: 'one' });
  void g.store.appendMessage('a', { role: 'assistant', content: 'two' });
  assert.deepEqual(
    (await g.store.getMessages('a')).map((m) => m.content),
    ['one', 'two'],
  );
  void g.store.appendMessage('b', { role: 'user', content: 'three' });
  void g.store.close();
  const again = SessionDB.open(db.location);
  assert.equal(again.getMessages('b')[0].content, 'three');
  again.close();
});

test('a write that fails fails alone: the rest of its batch is kept and the error is reported', async () => {
  const { db } = open();
  const errors: string[] = [];
  const g = new GroupCommit(db, (e) => errors.push((e as Error).message));
  const good = g.store.appendMessage('a', { role: 'user', content: 'kept' });
  // No such session: the foreign key refuses the row.
  const bad = g.store.appendMessage('nope', { role: 'user', content: 'refused' });
  const good2 = g.store.appendMessage('b', { role: 'user', content: 'kept too' });
  await assert.doesNotReject(good);
  await assert.rejects(bad);
  await assert.doesNotReject(good2);
  assert.equal(errors.length, 1);
  assert.deepEqual(
    [...(await g.store.getMessages('a')), ...(await g.store.getMessages('b'))].map((m) => m.content),
    ['kept', 'kept too'],
  );
  db.close();
});

test("the gateway's state.db store groups its writes (openTranscriptStore)", async () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-gc-home-'));
  const t = openTranscriptStore(home);
  assert.equal(t.kind, 'state.db');
  t.createSession({ id: 's', source: 'telegram', model: 'm', systemPrompt: 'sys' });
  const w = t.appendMessage('s', { role: 'user', content: 'queued' });
  assert.ok(w instanceof Promise, 'an append is queued for the group commit');
  await w;
  assert.equal((await t.getMessages('s'))[0].content, 'queued');
  await t.close();
});

test('checkpoints run on a worker thread: the rows reach state.db itself, not only its WAL', async () => {
  const { db, path } = open();
  let onThisThread = 0;
  const checkpoint = db.checkpoint.bind(db);
  const g = new GroupCommit(db);
  db.checkpoint = () => {
    if (!db.checkpointer) onThisThread++;
    checkpoint();
  };
  // 60 group commits: a checkpoint is due after 50 writes.
  for (let i = 0; i < 60; i++) await g.store.appendMessage('a', { role: 'user', content: `row ${i}` });
  assert.equal(onThisThread, 0);
  // state.db alone (a copy without its -wal file) has the rows once the worker's checkpoint ran.
  const copy = join(mkdtempSync(join(tmpdir(), 'hermes-gc-copy-')), 'state.db');
  let rows = 0;
  for (let tries = 0; tries < 100 && rows < 50; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    copyFileSync(path, copy);
    const c = SessionDB.open(copy);
    rows = c.getMessages('a').length;
    c.close();
    rmSync(`${copy}-wal`, { force: true });
    rmSync(`${copy}-shm`, { force: true });
  }
  assert.ok(rows >= 50, `state.db has ${rows} rows`);
  await g.store.close();
});
