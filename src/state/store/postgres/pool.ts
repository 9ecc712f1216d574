// The PostgreSQL connection: the `pg` client (loaded on first use, so SQLite users never load it),
// a small pool, `?` placeholders (the SQLite spelling, turned into $1…$n here so both backends can
// share query text), transactions, and an ordered write queue: writes a caller issues without
// awaiting (the agent loop's message sink) are applied one after another in the order issued, and
// reads wait for the writes issued before them, so a reader always sees its own writes.
import type * as PgTypes from 'pg';

/** Errors of a database that restarts or is briefly away (not of the query itself). */
export const TRANSIENT_PG = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|timeout exceeded when trying to connect|terminating connection|not queryable|Client was closed|the database system is (starting up|shutting down|in recovery|not yet accepting)|57P0[123]|0800[0-6]/i;

export function transientPg(e: unknown): boolean {
  const err = e as { message?: string; code?: string };
  return TRANSIENT_PG.test(`${err?.code ?? ''} ${err?.message ?? ''}`);
}

export type Row = Record<string, unknown>;
export type Param = string | number | boolean | null | Buffer | Date | string[] | number[];

let pgModule: typeof PgTypes | undefined;

/** The `pg` module, loaded once. */
export async function loadPg(): Promise<typeof PgTypes> {
  if (pgModule) return pgModule;
  try {
    const m = (await import('pg')) as unknown as { default?: typeof PgTypes } & typeof PgTypes;
    pgModule = m.default ?? m;
  } catch (e) {
    throw new Error(`The PostgreSQL backend needs the "pg" package, which could not be loaded (${(e as Error).message}). Reinstall Hermes (npm ci).`);
  }
  return pgModule;
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db` (for logs and messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '';
    return u.toString().replace(/:@/, '@');
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1@');
  }
}

const cache = new Map<string, string>();

/** `?` placeholders (outside quotes) → `$1…$n`. */
export function toPg(sql: string): string {
  const hit = cache.get(sql);
  if (hit !== undefined) return hit;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (quote) {
      if (c === quote) quote = null;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') out += `$${++n}`;
    else out += c;
  }
  if (cache.size < 2000) cache.set(sql, out);
  return out;
}

export interface Queryable {
  all(sql: string, params?: Param[]): Promise<Row[]>;
  get(sql: string, params?: Param[]): Promise<Row | undefined>;
  run(sql: string, params?: Param[]): Promise<number>;
}

function wrap(q: (text: string, values?: unknown[]) => Promise<{ rows: Row[]; rowCount: number | null }>): Queryable {
  return {
    all: async (sql, params = []) => (await q(toPg(sql), params)).rows,
    get: async (sql, params = []) => (await q(toPg(sql), params)).rows[0],
    run: async (sql, params = []) => (await q(toPg(sql), params)).rowCount ?? 0,
  };
}

export class PgDb implements Queryable {
  readonly url: string;
  private readonly pool: PgTypes.Pool;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly q: Queryable;
  private ended = false;

  private constructor(url: string, pool: PgTypes.Pool) {
    this.url = url;
    this.pool = pool;
    this.q = wrap((text, values) => this.pool.query(text, values) as Promise<{ rows: Row[]; rowCount: number | null }>);
  }

  static async connect(url: string, opts: { max?: number; application?: string } = {}): Promise<PgDb> {
    const pg = await loadPg();
    // int8 (ids, counters, COUNT(*)) as numbers, as node:sqlite returns them.
    const types = {
      getTypeParser: (oid: number, format?: string) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')),
    };
    // A connection attempt that hangs (a server in the middle of a crash restart can accept and never
    // answer) gives up after 10 s and is tried again by the caller, instead of holding a pool slot for good.
    const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 4, types, application_name: opts.application ?? 'hermes', idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000, keepAlive: true });
    // An idle client losing its connection (server restart) must not crash the process.
    pool.on('error', () => undefined);
    const db = new PgDb(url, pool);
    try {
      await db.q.get('SELECT 1');
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw new Error(`Cannot connect to PostgreSQL at ${redactUrl(url)}: ${(e as Error).message}. Check state.url / HERMES_DATABASE_URL and that the server is running.`);
    }
    return db;
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  async all(sql: string, params?: Param[]): Promise<Row[]> {
    await this.settled();
    return this.q.all(sql, params);
  }

  async get(sql: string, params?: Param[]): Promise<Row | undefined> {
    await this.settled();
    return this.q.get(sql, params);
  }

  async run(sql: string, params?: Param[]): Promise<number> {
    await this.settled();
    return this.q.run(sql, params);
  }

  /** Runs `fn` in a transaction on one connection (COMMIT on return, ROLLBACK on throw). */
  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    await this.settled();
    return this.txNow(fn);
  }

  private async txNow<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A checked-out client has no pool listener: its connection dying (a database restart) must
    // fail this transaction, not crash the process. A broken client is dropped, not reused.
    let broken: Error | undefined;
    const onError = (e: Error) => (broken = e);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const r = await fn(wrap((text, values) => client.query(text, values) as Promise<{ rows: Row[]; rowCount: number | null }>));
      await client.query('COMMIT');
      return r;
    } catch (e) {
      if (!broken) await client.query('ROLLBACK').catch((x: Error) => (broken = x));
      throw e;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** A dedicated connection (LISTEN, session-level advisory locks); the caller releases it. */
  async connection(): Promise<PgTypes.PoolClient> {
    return this.pool.connect();
  }

  /**
   * An ordered write: starts after every write issued before it, whether or not the caller awaits.
   * Its own failure rejects its promise only; the writes after it still run.
   */
  write<T>(fn: (q: Queryable) => Promise<T>, opts: { tx?: boolean; retryForMs?: number } = {}): Promise<T> {
    const once = () => (opts.tx ? this.txNow(fn) : fn(this.q));
    // With retryForMs, a failure because the server is away (a restart) is tried again with backoff
    // in its place in the queue, so the writes after it still come after it.
    const run = !opts.retryForMs
      ? once
      : async () => {
          const started = performance.now();
          for (let n = 0; ; n++)
            try {
              return await once();
            } catch (e) {
              if (!transientPg(e) || performance.now() - started > opts.retryForMs!) throw e;
              await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** n, 2000)));
            }
        };
    const p = this.tail.then(run, run);
    this.tail = p.catch(() => undefined);
    return p;
  }

  /** Resolves when every write issued so far has finished. */
  async settled(): Promise<void> {
    await this.tail;
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.tail;
    await this.pool.end();
  }
}
