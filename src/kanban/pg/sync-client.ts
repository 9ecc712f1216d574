// A synchronous PostgreSQL connection for the kanban store, whose code (like node:sqlite's) is
// synchronous: one `pg` client lives in a worker thread; each query is posted to it and the calling
// thread blocks (Atomics.wait) until the worker answers, then takes the answer off the port
// (receiveMessageOnPort). One connection, so BEGIN … COMMIT and session advisory locks behave as
// they do on a normal client. The worker is plain CommonJS given as source text (no extra file in
// the bundle); it loads `pg` from the path resolved here.
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

export type SyncParam = string | number | null | bigint;
export interface SyncResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const flag = new Int32Array(workerData.shared);
const port = workerData.port;
const toNum = (v) => (v === null ? null : Number(v));
const types = { getTypeParser: (oid, format) => (oid === 20 || oid === 1700 ? toNum : pg.types.getTypeParser(oid, format)) };
// A connection that died (the database restarted) is replaced before the next query: the worker
// never stops serving, and a query during the outage fails with the server's error. The session
// advisory locks the old connection held (a board's dispatcher lock) are taken again on the new
// one; one another session took meanwhile fails the query that found it out (its holder must stop).
let client, ready, dead = false, reopened = false;
const locks = new Set();
// The session's search_path (the board's schema) is set again on a new connection too.
let searchPath = null;
const open = () => {
  dead = false;
  client = new pg.Client({ connectionString: workerData.url, types, application_name: workerData.application });
  client.on('error', () => { dead = true; });
  client.on('end', () => { dead = true; });
  ready = client.connect();
  ready.catch(() => { dead = true; });
};
open();
let queue = Promise.resolve();
const answer = (m) => { port.postMessage(m); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
port.on('message', (m) => {
  queue = queue.then(async () => {
    if (m.close) { try { await client.end(); } catch {} answer({ closed: true }); port.close(); return; }
    try {
      if (dead) { const old = client; old.end().catch(() => undefined); open(); reopened = locks.size > 0; }
      await ready;
      if (client.hermesPath !== searchPath && searchPath) { await client.query(searchPath); client.hermesPath = searchPath; }
      if (reopened) {
        reopened = false;
        const lost = [];
        for (const k of locks) {
          const got = await client.query('SELECT pg_try_advisory_lock(hashtext($1::text)) AS ok', [k]);
          if (!(got.rows[0] && got.rows[0].ok)) { locks.delete(k); lost.push(k); }
        }
        if (lost.length) { answer({ error: 'the database restarted and another process took the lock ' + lost.join(', ') + ' meanwhile', code: 'HERMES_LOCK_LOST' }); return; }
      }
      const r = await client.query(m.sql, m.params);
      if (m.sql.trimStart().toUpperCase().startsWith('SET SEARCH_PATH ')) { searchPath = m.sql; client.hermesPath = m.sql; }
      if (m.lock && r.rows[0] && r.rows[0].ok === true) locks.add(m.lock);
      if (m.unlock) locks.delete(m.unlock);
      if (m.unlockAll) locks.clear();
      const last = Array.isArray(r) ? r[r.length - 1] : r;
      answer({ rows: last.rows || [], rowCount: last.rowCount || 0 });
    } catch (e) {
      answer({ error: String((e && e.message) || e), code: e && e.code });
    }
  });
});
`;

export class PgSyncError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

export class PgSyncClient {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag: Int32Array;
  private readonly timeoutMs: number;
  private closed = false;

  constructor(url: string, o: { timeoutMs?: number; application?: string } = {}) {
    const pgPath = createRequire(import.meta.url).resolve('pg');
    const shared = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    this.flag = new Int32Array(shared);
    this.port = port1;
    this.timeoutMs = o.timeoutMs ?? 120_000;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pgPath, url, shared, port: port2, application: o.application ?? 'hermes-kanban' }, transferList: [port2] });
    // The worker never keeps the process alive on its own (a CLI exits when its work is done).
    this.worker.unref();
    // A worker that dies never crashes the process; the next query fails when its wait times out.
    this.worker.on('error', () => undefined);
    this.port.unref();
  }

  private call(msg: Record<string, unknown>): Record<string, unknown> {
    if (this.closed) throw new PgSyncError('kanban: the PostgreSQL connection is closed');
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(msg);
    if (Atomics.wait(this.flag, 0, 0, this.timeoutMs) === 'timed-out') {
      this.close();
      throw new PgSyncError(`kanban: PostgreSQL did not answer within ${Math.round(this.timeoutMs / 1000)} s`);
    }
    const got = receiveMessageOnPort(this.port);
    if (!got) throw new PgSyncError('kanban: the PostgreSQL worker answered nothing');
    return got.message as Record<string, unknown>;
  }

  /**
   * Runs one statement (or, without params, several separated by `;`) and returns its rows. `track`
   * names a session advisory lock this statement takes (`lock`: kept when it answers `ok = true`) or
   * gives up, so the worker takes it again on a new connection after a database restart.
   */
  query(sql: string, params: SyncParam[] = [], track: { lock?: string; unlock?: string; unlockAll?: boolean } = {}): SyncResult {
    const m = this.call({ sql, params: params.map((p) => (typeof p === 'bigint' ? p.toString() : p)), ...track });
    if (m.error !== undefined) throw new PgSyncError(String(m.error), m.code as string | undefined);
    return { rows: (m.rows as Record<string, unknown>[]) ?? [], rowCount: Number(m.rowCount ?? 0) };
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  close(): void {
    if (this.closed) return;
    try {
      Atomics.store(this.flag, 0, 0);
      this.port.postMessage({ close: true });
      Atomics.wait(this.flag, 0, 0, 5_000);
    } finally {
      this.closed = true;
      this.port.close();
      void this.worker.terminate();
    }
  }
}
