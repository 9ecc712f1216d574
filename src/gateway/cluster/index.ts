// Several gateways on one PostgreSQL (`state.backend: postgres`): every `hermes gateway run` pointed
// at the same database may start, on any machine. Each platform connection has one owner at a time,
// elected by a session-level advisory lock held on a dedicated connection: the others stand by and
// poll the lock, so when the owner dies (its connection closes, which releases the lock) one of them
// connects that platform and carries on.
//
// The delivery ledger lives in the database too (src/state/store/postgres/ledger.ts) with a
// heartbeat per gateway: the gateway that owns a platform answers what a gone owner left of it (the
// same rules as after a restart, src/gateway/ledger.ts), and never a message in flight on a live one.
//
// A database restart releases every lock. The owner takes its own back as soon as it reconnects, and
// a standby leaves a platform alone while its owner's beat is fresh (or while it cannot tell yet,
// having just reconnected itself). Should a standby win anyway (the owner was cut off longer than the
// staleness limit), the old owner finds its lock gone on reconnect, stops taking that platform's
// messages (it keeps sending the replies of turns it has running) and stands by.
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { processOwner } from '../../state/delivery-ledger.ts';
import { PgLedger } from '../../state/store/postgres/ledger.ts';
import { PgDb } from '../../state/store/postgres/pool.ts';
import { PgSessionStore } from '../../state/store/postgres/sessions.ts';
import { GatewayLedger } from '../ledger.ts';
import { PgInboundFiles } from './files.ts';
import { PgRouting } from './routing.ts';

export interface LeadHooks {
  /** This process owns `name` now (at start, after a failover, or taken back): connect it. */
  start(name: string): Promise<void>;
  /** Another gateway holds `name`'s lock now: stop taking its messages. */
  lost(name: string): Promise<void>;
  /** Every beat, for each platform this process owns: answer what gone owners left. */
  sweep(name: string): void;
}

export interface Cluster {
  readonly owner: string;
  /** The delivery ledger shared by the cluster (also the runner's inbound dedupe). */
  readonly ledger: GatewayLedger;
  /** Which session each chat is in, shared (a chat taken over goes on in the same session). */
  readonly routing: PgRouting;
  /** The shared session store (conversations, for the gateway's transcripts). */
  readonly store: PgSessionStore;
  /** Elects this process for the platforms it can own now and stands by for the others. */
  lead(platforms: string[], hooks: LeadHooks, log: (line: string) => void): Promise<void>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  home: string;
  /** How often a standby checks the platform locks (ms). */
  pollMs?: number;
  /** How often this gateway writes its beat (ms); a beat older than 5 of these means the gateway is gone. */
  heartbeatMs?: number;
  log?: (line: string) => void;
}

const lockId = (name: string): string => {
  // A signed 64-bit key from the platform name (one database = one set of platform connections).
  const h = createHash('sha256').update(`hermes-gateway:${name}`).digest();
  return h.readBigInt64BE(0).toString();
};

export async function joinCluster(url: string, opts: ClusterOptions): Promise<Cluster> {
  const owner = processOwner();
  const log0 = opts.log ?? (() => undefined);
  const heartbeatMs = opts.heartbeatMs ?? 2000;
  const store = await PgSessionStore.open(url);
  let db: PgDb | undefined;
  let ledgerStore: PgLedger;
  let ledger: GatewayLedger;
  let routing: PgRouting;
  let conn: PoolClient | null;
  try {
    db = await PgDb.connect(url, { max: 4, application: 'hermes-gateway' });
    ledgerStore = await PgLedger.open(db, { owner, staleMs: heartbeatMs * 5, log: log0 });
    ledger = new GatewayLedger(ledgerStore, log0, { files: await PgInboundFiles.open(db, opts.home) });
    routing = await PgRouting.open(db, { log: opts.log });
    conn = await db.connection();
  } catch (e) {
    await db?.close().catch(() => undefined);
    await store.close();
    throw e;
  }
  const pool = db;
  const pollMs = opts.pollMs ?? 2000;
  let pollTimer: NodeJS.Timeout | null = null;
  let beatTimer: NodeJS.Timeout | null = null;
  let closed = false;
  /** Platforms whose lock this process holds (re-taken after the database comes back). */
  const held = new Set<string>();
  /** Platforms this process may own and does not (standing by). */
  const waiting = new Set<string>();
  let hooks: LeadHooks | null = null;
  let logLead = log0;
  let reconnecting: Promise<void> | null = null;

  const lose = (name: string) => {
    if (!held.delete(name)) return;
    waiting.add(name);
    logLead(`cluster: ${name}: another gateway took it while the database was away; this one stops taking its messages (replies of running turns still go out) and stands by`);
    void hooks?.lost(name).catch((e: unknown) => log0(`cluster: ${name}: could not stop it: ${(e as Error).message}`));
    schedule();
  };

  /**
   * The lock connection died (the database restarted, a network cut): a session-level advisory lock
   * goes with its connection, so a new one is opened with backoff and the locks this gateway held
   * are taken again — or given up, when a standby has taken one meanwhile. The process never exits
   * over it.
   */
  const dropConn = (c: PoolClient, e: Error) => {
    if (closed || conn !== c) return;
    log0(`cluster: the database connection was lost (${e.message}); reconnecting`);
    conn = null;
    try {
      c.release(e);
    } catch {
      /* already gone */
    }
    void reconnect();
  };
  const watch = (c: PoolClient) => c.on('error', (e: Error) => dropConn(c, e));
  const reconnect = (): Promise<void> =>
    (reconnecting ??= (async () => {
      for (let attempt = 0; !closed; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2000)));
        if (closed) break;
        let c: PoolClient | null = null;
        try {
          c = await pool.connection();
          watch(c);
          const lost: string[] = [];
          for (const name of held) {
            const r = await c.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockId(name)]);
            if (!r.rows[0]?.ok) lost.push(name);
          }
          conn = c;
          for (const name of lost) lose(name);
          log0(`cluster: reconnected to the database${held.size ? ` (holding ${[...held].join(', ')})` : ''}`);
          void beat();
          break;
        } catch (e) {
          c?.release(e as Error);
          if (attempt % 10 === 0) log0(`cluster: the database is still unreachable (${(e as Error).message}); retrying`);
        }
      }
    })().finally(() => (reconnecting = null)));
  if (conn) watch(conn);

  /** Writes this gateway's beat, checks its lock connection, and answers what gone owners left. */
  const beat = async () => {
    if (closed) return;
    const c = conn;
    if (c && !reconnecting) {
      // A query on the lock connection: a dead one fails here if it did not say so already.
      await c.query('SELECT 1').catch((e: Error) => dropConn(c, e));
    }
    const ok = await ledgerStore.beat([...held]);
    if (ok && hooks && !reconnecting) for (const name of held) hooks.sweep(name);
  };
  const beatLoop = () => {
    beatTimer = setTimeout(() => {
      void beat().finally(() => !closed && beatLoop());
    }, heartbeatMs);
    beatTimer.unref();
  };

  /** Takes the locks of the platforms standing by that nobody alive owns. */
  const attempt = async () => {
    for (const name of [...waiting]) {
      if (closed || !conn || reconnecting || !hooks) return;
      const other = await ledgerStore.liveOwnerOf(name);
      if (other) continue; // alive (or not known yet): its owner keeps it or takes it back
      const c = conn;
      const r = await c.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockId(name)]);
      if (!r.rows[0]?.ok) continue;
      waiting.delete(name);
      held.add(name);
      void ledgerStore.beat([...held]);
      logLead(`cluster: ${name}: this gateway (${owner}) owns it now`);
      await hooks.start(name);
    }
  };
  const schedule = () => {
    if (pollTimer || closed || !waiting.size) return;
    pollTimer = setTimeout(() => {
      pollTimer = null;
      if (closed || !waiting.size) return;
      attempt().then(schedule, (e: unknown) => {
        logLead(`cluster: lock check failed: ${(e as Error).message}`);
        schedule();
      });
    }, pollMs);
    pollTimer.unref();
  };

  await ledgerStore.beat([]);
  beatLoop();
  return {
    owner,
    ledger,
    routing,
    store,
    async lead(platforms, h, log) {
      hooks = h;
      logLead = log;
      for (const p of platforms) waiting.add(p);
      await attempt();
      for (const name of waiting) log(`cluster: ${name}: another gateway owns it; standing by to take over`);
      schedule();
    },
    async close() {
      closed = true;
      if (pollTimer) clearTimeout(pollTimer);
      if (beatTimer) clearTimeout(beatTimer);
      // A clean stop: the turns are done, so nothing of this gateway is in flight any more.
      await ledgerStore.forget();
      conn?.release();
      conn = null;
      await pool.close();
      await store.close();
    },
  };
}
