// The kanban board's dispatcher lock on PostgreSQL through a database restart: the connection's
// worker thread reconnects and takes the lock back, so no other process can dispatch the board
// meanwhile; if another process took it first, the holder's next query says so instead of going on
// as if it still held it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PgSyncClient } from '../../src/kanban/pg/sync-client.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';

const skip = postgresUnavailable();
if (skip) console.log(`# skipped: ${skip}`);

let cluster: PgCluster | null = null;
before(async () => {
  if (!skip) cluster = await startPostgres();
});
after(() => cluster?.stop());

const take = (c: PgSyncClient, key: string) => c.query('SELECT pg_try_advisory_lock(hashtext($1::text)) AS ok', [key], { lock: key }).rows[0]?.ok === true;

/** A query that retries while the server is still starting (as a caller's next tick would). */
function next(c: PgSyncClient, sql: string): { rows: Record<string, unknown>[] } {
  for (let i = 0; ; i++) {
    try {
      return c.query(sql);
    } catch (e) {
      if (i > 200 || !/ECONNREFUSED|starting up|not yet accepting|terminat|Connection/i.test((e as Error).message)) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

describe('kanban dispatcher lock through a PostgreSQL restart', { skip: skip ?? false }, () => {
  it('the lock is taken back on the new connection; lost to another process, the holder is told', { timeout: 90_000 }, async () => {
    const url = await cluster!.createDatabase('kanlocks');
    const holder = new PgSyncClient(url, { timeoutMs: 30_000 });
    const other = new PgSyncClient(url, { timeoutMs: 30_000 });
    try {
      assert.equal(take(holder, 'hermes_kanban_dispatch:b1'), true);
      assert.equal(take(other, 'hermes_kanban_dispatch:b1'), false, 'held by the first');

      await cluster!.restart();
      // The holder's next query reconnects and re-takes its lock before anything else.
      next(holder, 'SELECT 1');
      assert.equal(take(other, 'hermes_kanban_dispatch:b1'), false, 'still held by the first after the restart');

      // Now the other process wins the race: the holder's next query reports the loss.
      await cluster!.restart();
      assert.equal(
        (() => {
          for (let i = 0; i < 200; i++) {
            try {
              return take(other, 'hermes_kanban_dispatch:b1');
            } catch {
              Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
            }
          }
          return false;
        })(),
        true,
        'the other takes the free lock first',
      );
      assert.throws(() => next(holder, 'SELECT 1'), /another process took the lock hermes_kanban_dispatch:b1/);
      assert.equal(holder.query('SELECT 1 AS one').rows[0]?.one, 1, 'the connection goes on serving');
    } finally {
      holder.close();
      other.close();
    }
  });
});
