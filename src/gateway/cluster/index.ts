// Several gateways on one PostgreSQL (`state.backend: postgres`): every `hermes gateway run` pointed
// at the same database may start, on any machine. Each platform connection has one owner at a time,
// elected by a session-level advisory lock held on a dedicated connection: the others stand by and
// poll the lock, so when the owner dies (its connection closes, which releases the lock) one of them
// connects that platform and carries on. Inbound dedupe lives in the database too (see dedupe.ts),
// so a message redelivered after a failover is taken over, not answered twice.
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { PgDb } from '../../state/store/postgres/pool.ts';
import { PgSessionStore } from '../../state/store/postgres/sessions.ts';
import { PgInboundDedupe } from './dedupe.ts';
import { PgRouting } from './routing.ts';

export interface Cluster {
  readonly owner: string;
  readonly dedupe: PgInboundDedupe;
  /** Which session each chat is in, shared (a chat taken over goes on in the same session). */
  readonly routing: PgRouting;
  /** The shared session store (conversations, for the gateway's transcripts). */
  readonly store: PgSessionStore;
  /** Calls `start` for each platform once this process owns it (now, or after a failover). */
  lead(platforms: string[], start: (name: string) => Promise<void>, log: (line: string) => void): Promise<void>;
  close(): Promise<void>;
}

const lockId = (name: string): string => {
  // A signed 64-bit key from the platform name (one database = one set of platform connections).
  const h = createHash('sha256').update(`hermes-gateway:${name}`).digest();
  return h.readBigInt64BE(0).toString();
};

export async function joinCluster(url: string, owner: string, opts: { pollMs?: number; log?: (line: string) => void } = {}): Promise<Cluster> {
  const store = await PgSessionStore.open(url);
  let db: PgDb | undefined;
  let dedupe: PgInboundDedupe;
  let routing: PgRouting;
  let conn: PoolClient | null;
  try {
    db = await PgDb.connect(url, { max: 4, application: 'hermes-gateway' });
    dedupe = await PgInboundDedupe.open(db, owner);
    routing = await PgRouting.open(db, { log: opts.log });
    conn = await db.connection();
  } catch (e) {
    await db?.close().catch(() => undefined);
    await store.close();
    throw e;
  }
  const pool = db;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const pollMs = opts.pollMs ?? 2000;
  const log0 = opts.log ?? (() => undefined);
  /** Platforms whose lock this process holds (re-taken after the database comes back). */
  const held = new Set<string>();
  let reconnecting: Promise<void> | null = null;
  /**
   * The lock connection died (the database restarted, a network cut): a session-level advisory lock
   * goes with its connection, so a new one is opened with backoff and the locks this gateway held
   * are taken again. The process never exits over it; its platforms keep running meanwhile (a
   * standby cannot take them while this gateway reconnects first: it waits a poll interval more).
   */
  const watch = (c: PoolClient) => {
    c.on('error', (e: Error) => {
      if (closed || conn !== c) return;
      log0(`cluster: the database connection was lost (${e.message}); reconnecting`);
      conn = null;
      try {
        c.release(e);
      } catch {
        /* already gone */
      }
      void reconnect();
    });
  };
  const reconnect = (): Promise<void> =>
    (reconnecting ??= (async () => {
      for (let attempt = 0; !closed; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 5000)));
        if (closed) break;
        let c: PoolClient | null = null;
        try {
          c = await pool.connection();
          watch(c);
          for (const name of held) {
            const r = await c.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockId(name)]);
            if (!r.rows[0]?.ok) log0(`cluster: ${name}: another gateway took it while the database was away; this one keeps answering what it had taken`);
          }
          conn = c;
          log0(`cluster: reconnected to the database${held.size ? ` (holding ${[...held].join(', ')})` : ''}`);
          break;
        } catch (e) {
          c?.release(e as Error);
          if (attempt % 5 === 0) log0(`cluster: the database is still unreachable (${(e as Error).message}); retrying`);
        }
      }
    })().finally(() => (reconnecting = null)));
  if (conn) watch(conn);
  return {
    owner,
    dedupe,
    routing,
    store,
    async lead(platforms, start, log) {
      const waiting = new Set(platforms);
      const attempt = async () => {
        for (const name of [...waiting]) {
          if (closed || !conn || reconnecting) return;
          const r = await conn.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockId(name)]);
          if (!r.rows[0]?.ok) continue;
          waiting.delete(name);
          held.add(name);
          log(`cluster: ${name}: this gateway (${owner}) owns it now`);
          await start(name);
        }
      };
      await attempt();
      for (const name of waiting) log(`cluster: ${name}: another gateway owns it; standing by to take over`);
      const tick = () => {
        timer = setTimeout(() => {
          if (closed || !waiting.size) return;
          attempt().then(tick, (e: unknown) => {
            log(`cluster: lock check failed: ${(e as Error).message}`);
            tick();
          });
        }, pollMs);
        timer.unref();
      };
      if (waiting.size) tick();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      conn?.release();
      conn = null;
      await pool.close();
      await store.close();
    },
  };
}
