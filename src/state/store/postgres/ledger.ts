// The delivery ledger in PostgreSQL, for a gateway cluster (several `hermes gateway run` on one
// database): the same two tables and states as state.db's (src/state/delivery-ledger.ts):
// `gateway_inbound_ledger` (one row per inbound message) and `delivery_obligations` (one per reply),
// plus `gateway_heartbeats`: each gateway writes its beat every few seconds (the database's clock,
// so machines' clocks do not matter). A row of a gateway is recoverable by another only when that
// gateway is gone: on this host its process is not running, elsewhere its beat is older than the
// staleness limit — and the judge has itself been beating for that long (after a database restart
// nobody's beat is fresh yet, which says nothing about who is alive). A message in flight on a live
// gateway is never taken.
//
// A write that fails because the server is away (a restart, a failover) is tried again with
// backoff until it is back (up to about 90 s): the gateway waits instead of forgetting a message.
import { hostname } from 'node:os';
import { inboundRow, obligationRow, ownerAlive, processOwner, type InboundRow, type LedgerCounts, type LedgerStore, type NewObligation, type ObligationRow } from '../../delivery-ledger.ts';
import { transientPg, type PgDb, type Queryable, type Row } from './pool.ts';

const RETENTION_S = 7 * 24 * 3600;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS gateway_inbound_ledger (
    key TEXT PRIMARY KEY, platform TEXT NOT NULL, chat_id TEXT NOT NULL, thread_id TEXT, message_id TEXT NOT NULL,
    session_key TEXT, session_id TEXT, payload TEXT, state TEXT NOT NULL DEFAULT 'received',
    attempts INTEGER NOT NULL DEFAULT 0, replayed INTEGER NOT NULL DEFAULT 0, owner TEXT NOT NULL,
    obligation_id TEXT, send_mode TEXT, reply_message_id TEXT,
    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)`,
  // (Checked first: ALTER TABLE would lock the table against the running gateways' writes even when the column is there.)
  `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'gateway_inbound_ledger' AND column_name = 'parts_out') THEN
      ALTER TABLE gateway_inbound_ledger ADD COLUMN parts_out INTEGER NOT NULL DEFAULT 0;
    END IF;
  END $$`,
  'CREATE INDEX IF NOT EXISTS idx_gateway_inbound_ledger_open ON gateway_inbound_ledger(platform, state)',
  'CREATE INDEX IF NOT EXISTS idx_gateway_inbound_ledger_obligation ON gateway_inbound_ledger(obligation_id)',
  `CREATE TABLE IF NOT EXISTS delivery_obligations (
    obligation_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, platform TEXT NOT NULL, chat_id TEXT NOT NULL, thread_id TEXT,
    content TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL, owner_pid INTEGER, owner_started_at BIGINT,
    last_error TEXT, adapter_profile TEXT, delivery_fence INTEGER NOT NULL DEFAULT 0, owner_installation_id TEXT,
    owner_host TEXT, owner_generation TEXT, lease_expires_at DOUBLE PRECISION)`,
  `CREATE TABLE IF NOT EXISTS gateway_heartbeats (
    owner TEXT PRIMARY KEY, platforms TEXT NOT NULL DEFAULT '', beat_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
];

export { TRANSIENT_PG, transientPg } from './pool.ts';

const now = () => Date.now() / 1000;

export interface PgLedgerOptions {
  owner?: string;
  /** A beat older than this (ms) means its gateway is gone (default 15 s). */
  staleMs?: number;
  /** How long a write waits for a database that is away before it fails (default 90 s). */
  retryForMs?: number;
  log?: (line: string) => void;
}

export class PgLedger implements LedgerStore {
  readonly owner: string;
  readonly staleMs: number;
  private readonly db: PgDb;
  private readonly retryForMs: number;
  private readonly log: (line: string) => void;
  private readonly pid = process.pid;
  /** When this gateway's beats started to succeed again (after start or an outage); null while they fail. */
  private beatingSince: number | null = null;
  private everBeat = false;
  private outageSaid = false;

  private constructor(db: PgDb, o: PgLedgerOptions) {
    this.db = db;
    this.owner = o.owner ?? processOwner();
    this.staleMs = o.staleMs ?? 15_000;
    this.retryForMs = o.retryForMs ?? 90_000;
    this.log = o.log ?? (() => undefined);
  }

  static async open(db: PgDb, o: PgLedgerOptions = {}): Promise<PgLedger> {
    await db.tx(async (q) => {
      await q.run("SELECT pg_advisory_xact_lock(hashtext('hermes_gateway_schema'))");
      for (const s of SCHEMA) await q.run(s);
      const cutoff = now() - RETENTION_S;
      await q.run("DELETE FROM gateway_inbound_ledger WHERE created_at < ? AND state IN ('answered', 'handled', 'given_up')", [cutoff]);
      await q.run("DELETE FROM delivery_obligations WHERE updated_at < ? AND state IN ('delivered', 'abandoned')", [cutoff]);
      await q.run("DELETE FROM gateway_heartbeats WHERE beat_at < now() - interval '7 days'");
    });
    return new PgLedger(db, o);
  }

  /** Runs `fn` (in the ordered write queue), again while the server is away. */
  private steady<T>(fn: (q: Queryable) => Promise<T>, opts: { tx?: boolean } = {}): Promise<T> {
    const started = Date.now();
    const attempt = async (n: number): Promise<T> => {
      try {
        const r = await this.db.write(fn, opts);
        if (this.outageSaid) {
          this.outageSaid = false;
          this.log('ledger: the database is back');
        }
        return r;
      } catch (e) {
        if (!transientPg(e) || Date.now() - started > this.retryForMs) throw e;
        if (!this.outageSaid) {
          this.outageSaid = true;
          this.log(`ledger: the database is unreachable (${(e as Error).message}); waiting for it`);
        }
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** n, 2000)));
        return attempt(n + 1);
      }
    };
    return attempt(0);
  }

  // ---- heartbeats ---------------------------------------------------------------------------

  /** This gateway is alive and owns `platforms`; false when the beat could not be written. */
  async beat(platforms: string[]): Promise<boolean> {
    try {
      await this.db.write((q) =>
        q.run('INSERT INTO gateway_heartbeats (owner, platforms, beat_at) VALUES (?, ?, now()) ON CONFLICT (owner) DO UPDATE SET platforms = EXCLUDED.platforms, beat_at = now()', [this.owner, platforms.join(',')]),
      );
      // The first beat of a gateway judges at once (nothing was missed); after an outage it waits.
      this.beatingSince ??= this.everBeat ? Date.now() : Date.now() - this.staleMs;
      this.everBeat = true;
      return true;
    } catch {
      this.beatingSince = null;
      return false;
    }
  }

  /** Removes this gateway's beat (a clean stop: nothing of it is in flight any more). */
  async forget(): Promise<void> {
    await this.db.write((q) => q.run('DELETE FROM gateway_heartbeats WHERE owner = ?', [this.owner])).catch(() => undefined);
  }

  /** True once this gateway has beaten long enough to judge others' beats. */
  private canJudge(): boolean {
    return this.beatingSince !== null && Date.now() - this.beatingSince >= this.staleMs;
  }

  /** Owners (other than this one) of those given whose beat is fresh. */
  private async fresh(owners: string[]): Promise<Set<string>> {
    if (!owners.length) return new Set();
    const rows = await this.db.all('SELECT owner FROM gateway_heartbeats WHERE owner = ANY(?::text[]) AND beat_at > now() - make_interval(secs => ?)', [owners, this.staleMs / 1000]);
    return new Set(rows.map((r) => String(r.owner)));
  }

  /** Is the gateway `owner` gone? Its process on this host; its beat elsewhere (judged only when this one can). */
  private async gone(owners: string[]): Promise<Set<string>> {
    const local = (o: string) => o.slice(0, o.indexOf(':')) === hostname() && /:\d+:\d+$/.test(o);
    const out = new Set<string>();
    const remote: string[] = [];
    for (const o of new Set(owners)) {
      if (local(o)) {
        if (!ownerAlive(o)) out.add(o);
      } else remote.push(o);
    }
    if (remote.length && this.canJudge()) {
      const alive = await this.fresh(remote);
      for (const o of remote) if (!alive.has(o)) out.add(o);
    }
    return out;
  }

  /**
   * A live gateway other than this one that says it owns `platform` (its beat is fresh), if any:
   * a standby leaves the platform to it even when its lock is free (a database restart releases every
   * lock; the owner takes its own back first).
   */
  async liveOwnerOf(platform: string): Promise<string | null> {
    const rows = await this.db.all("SELECT owner FROM gateway_heartbeats WHERE owner <> ? AND (',' || platforms || ',') LIKE ? AND beat_at > now() - make_interval(secs => ?)", [this.owner, `%,${platform},%`, this.staleMs / 1000]);
    const owners = rows.map((r) => String(r.owner));
    if (!owners.length) return this.canJudge() ? null : 'unknown';
    const dead = await this.gone(owners);
    return owners.find((o) => !dead.has(o)) ?? null;
  }

  // ---- the ledger ---------------------------------------------------------------------------

  receive(r: { key: string; platform: string; chatId: string; threadId?: string; messageId: string; payload: string | null }): Promise<boolean> {
    const t = now();
    return this.steady(
      async (q) =>
        (await q.run(
          'INSERT INTO gateway_inbound_ledger (key, platform, chat_id, thread_id, message_id, payload, state, owner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
          [r.key, r.platform, r.chatId, r.threadId ?? null, r.messageId, r.payload, 'received', this.owner, t, t],
        )) > 0,
    );
  }

  async start(keys: string[], sessionKey: string, sessionId: string): Promise<void> {
    if (!keys.length) return;
    const t = now();
    await this.steady(
      (q) => q.run("UPDATE gateway_inbound_ledger SET state = 'running', attempts = attempts + 1, session_key = ?, session_id = ?, owner = ?, updated_at = ? WHERE key = ANY(?::text[]) AND state IN ('received', 'running')", [sessionKey, sessionId, this.owner, t, keys]),
    );
  }

  async settle(keys: string[], state: 'handled' | 'given_up'): Promise<void> {
    if (!keys.length) return;
    await this.steady((q) => q.run("UPDATE gateway_inbound_ledger SET state = ?, updated_at = ? WHERE key = ANY(?::text[]) AND state IN ('received', 'running')", [state, now(), keys]));
  }

  adopt(key: string, from: string): Promise<boolean> {
    return this.steady(async (q) => (await q.run('UPDATE gateway_inbound_ledger SET owner = ?, replayed = replayed + 1, updated_at = ? WHERE key = ? AND owner = ?', [this.owner, now(), key, from])) > 0);
  }

  async obligate(o: NewObligation): Promise<void> {
    const t = now();
    await this.steady(
      async (q) => {
        await q.run(
          `INSERT INTO delivery_obligations (obligation_id, session_key, platform, chat_id, thread_id, content, state, attempts, created_at, updated_at, owner_pid, adapter_profile, delivery_fence, owner_host, owner_generation)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, 'default', 0, ?, ?) ON CONFLICT (obligation_id) DO NOTHING`,
          [o.id, o.sessionKey, o.platform, o.chatId, o.threadId ?? null, o.content, t, t, this.pid, hostname(), this.owner],
        );
        await q.run('UPDATE gateway_inbound_ledger SET obligation_id = ?, send_mode = ?, updated_at = ? WHERE key = ANY(?::text[])', [o.id, o.sendMode, t, o.keys]);
      },
      { tx: true },
    );
  }

  /** The request is going out: resolves once that is recorded (the send waits for it, see wire-hook.ts). */
  attempting(id: string, part?: number): Promise<void> {
    return this.steady(
      async (q) => {
        await q.run("UPDATE delivery_obligations SET state = 'attempting', attempts = attempts + 1, delivery_fence = delivery_fence + 1, updated_at = ?, owner_pid = ? WHERE obligation_id = ? AND state IN ('pending', 'failed')", [now(), this.pid, id]);
        if (part !== undefined) await q.run('UPDATE gateway_inbound_ledger SET parts_out = GREATEST(parts_out, ?) WHERE obligation_id = ?', [part + 1, id]);
      },
      { tx: part !== undefined },
    ).then(
      () => undefined,
      (e: unknown) => this.log(`ledger: could not record a reply as going out: ${(e as Error).message}`),
    );
  }

  async back(id: string, part: number): Promise<void> {
    await this.steady(
      async (q) => {
        await q.run('UPDATE gateway_inbound_ledger SET parts_out = LEAST(parts_out, ?) WHERE obligation_id = ?', [part, id]);
        if (part === 0) await q.run("UPDATE delivery_obligations SET state = 'pending', updated_at = ? WHERE obligation_id = ? AND state = 'attempting'", [now(), id]);
      },
      { tx: true },
    );
  }

  async delivered(id: string, keys: string[], replyId: string | undefined): Promise<void> {
    const t = now();
    await this.steady(
      async (q) => {
        await q.run("UPDATE delivery_obligations SET state = 'delivered', updated_at = ?, last_error = NULL, lease_expires_at = NULL WHERE obligation_id = ?", [t, id]);
        await q.run("UPDATE gateway_inbound_ledger SET state = 'answered', reply_message_id = ?, updated_at = ? WHERE key = ANY(?::text[]) AND state <> 'answered'", [replyId ?? null, t, keys]);
      },
      { tx: true },
    );
  }

  async failed(id: string, error: string): Promise<void> {
    await this.steady((q) => q.run("UPDATE delivery_obligations SET state = 'failed', last_error = ?, updated_at = ? WHERE obligation_id = ?", [error.slice(0, 500), now(), id]));
  }

  async recoverable(platform: string): Promise<{ inbound: InboundRow[]; obligations: Map<string, ObligationRow> }> {
    const all = (await this.db.all("SELECT * FROM gateway_inbound_ledger WHERE platform = ? AND state IN ('received', 'running') AND owner <> ? ORDER BY created_at, key", [platform, this.owner])).map(inboundRow);
    const dead = await this.gone(all.map((r) => r.owner));
    const rows = all.filter((r) => dead.has(r.owner));
    const obligations = new Map<string, ObligationRow>();
    const ids = [...new Set(rows.map((r) => r.obligationId).filter((x): x is string => !!x))];
    if (ids.length) for (const o of await this.db.all('SELECT * FROM delivery_obligations WHERE obligation_id = ANY(?::text[])', [ids])) obligations.set(String(o.obligation_id), obligationRow(o));
    return { inbound: rows, obligations };
  }

  async counts(sinceS = now() - RETENTION_S): Promise<LedgerCounts> {
    const r = (await this.db.get(
      `SELECT COUNT(*) AS received,
              COUNT(*) FILTER (WHERE state = 'answered') AS answered,
              COUNT(*) FILTER (WHERE state IN ('received', 'running')) AS pending,
              COUNT(*) FILTER (WHERE replayed > 0) AS replayed,
              COUNT(*) FILTER (WHERE state = 'given_up') AS given_up
       FROM gateway_inbound_ledger WHERE created_at >= ?`,
      [sinceS],
    ))!;
    return { received: Number(r.received), answered: Number(r.answered), pending: Number(r.pending), replayed: Number(r.replayed), givenUp: Number(r.given_up) };
  }

  close(): void {
    /* the cluster closes the connection */
  }
}
