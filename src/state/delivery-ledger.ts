// The gateway's delivery ledger in state.db, beside the transcript: every inbound message a gateway
// takes (platform, chat, platform message id, the message itself) and every reply it sends, written
// before the message is processed and right before and right after each send. After a kill the
// next gateway reads it to answer what was taken but not answered, and never to answer twice.
//
// Two tables:
// - `delivery_obligations`: Hermes's own table (gateway/delivery_ledger.py), same columns and state
//   words: `pending` (recorded, nothing sent yet), `attempting` (the request went out: the
//   platform may have it), `delivered`, `failed`, `abandoned`. Python Hermes's start-up sweep reads
//   it too, so a reply this gateway left unsent is sent by Hermes after a switch back.
// - `gateway_inbound_ledger`: ours (Python Hermes does not know it and leaves it alone): one row per
//   inbound message, `received` → `running` (a turn started; `attempts` counts them) → `answered`
//   (a reply went out, with its platform message id), `handled` (commands, strangers, interrupted
//   turns: nothing more is owed) or `given_up` (told to send it again).
//
// The PostgreSQL twin is src/state/store/postgres/ledger.ts; the gateway's side (recovery after a
// restart or failover) is src/gateway/ledger.ts.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { guardConnection } from './db-errors.ts';
import { sqlite } from './sqlite.ts';
import type { Awaitable } from './store/types.ts';
import type { LedgerCounts } from './view-types.ts';

export type InboundState = 'received' | 'running' | 'answered' | 'handled' | 'given_up';
export type ObligationState = 'pending' | 'attempting' | 'delivered' | 'failed' | 'abandoned';

export interface InboundRow {
  key: string;
  platform: string;
  chatId: string;
  threadId: string | null;
  messageId: string;
  sessionKey: string | null;
  sessionId: string | null;
  /** The InboundMessage as JSON (what a replay hands the runner). */
  payload: string | null;
  state: InboundState;
  attempts: number;
  replayed: number;
  owner: string;
  obligationId: string | null;
  /** How the obligation's send was watched: 'wire' (the request reaching the socket is recorded) or 'call'. */
  sendMode: string | null;
  /** Parts of the reply (text chunks, then attachments) whose request went out (wire sends). */
  partsOut: number;
  createdAt: number;
}

export interface ObligationRow {
  id: string;
  sessionKey: string;
  platform: string;
  chatId: string;
  threadId: string | null;
  content: string;
  state: ObligationState;
  attempts: number;
}

export type { LedgerCounts } from './view-types.ts';

export interface NewObligation {
  id: string;
  keys: string[];
  sessionKey: string;
  platform: string;
  chatId: string;
  threadId?: string;
  content: string;
  sendMode: 'wire' | 'call';
}

/** What the gateway needs from a ledger, whichever store keeps it. */
export interface LedgerStore {
  readonly owner: string;
  /** Records a message before it is processed. False when it was recorded before (a redelivery). */
  receive(r: { key: string; platform: string; chatId: string; threadId?: string; messageId: string; payload: string | null }): Awaitable<boolean>;
  /** A turn starts on these messages (attempts + 1). */
  start(keys: string[], sessionKey: string, sessionId: string): Awaitable<void>;
  /** Nothing more is owed for these messages (rows already answered stay so). */
  settle(keys: string[], state: 'handled' | 'given_up'): Awaitable<void>;
  /** Takes a row left by a dead owner over (replayed + 1). False when another owner took it first. */
  adopt(key: string, from: string): Awaitable<boolean>;
  /** A reply about to be sent (pending). */
  obligate(o: NewObligation): Awaitable<void>;
  /**
   * The reply's request is going out now (the platform may have it from here on); `part`: which of
   * its parts (text chunks, then attachments), for a wire send. A store that records it
   * asynchronously returns a promise the send waits for (see wire-hook.ts).
   */
  attempting(id: string, part?: number): Awaitable<void>;
  /** Part `part` failed on the network before reaching the platform and is tried again: it counts as not sent. */
  back(id: string, part: number): Awaitable<void>;
  /** The platform accepted it: the obligation is delivered and its messages answered. */
  delivered(id: string, keys: string[], replyId: string | undefined): Awaitable<void>;
  failed(id: string, error: string): Awaitable<void>;
  /** Rows of `platform` not finished by owners that are gone, oldest first, with their obligations. */
  recoverable(platform: string): Awaitable<{ inbound: InboundRow[]; obligations: Map<string, ObligationRow> }>;
  counts(sinceS?: number): Awaitable<LedgerCounts>;
  close(): Awaitable<void>;
}

const RETENTION_S = 7 * 24 * 3600;

const INBOUND = `CREATE TABLE IF NOT EXISTS gateway_inbound_ledger (
  key TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  message_id TEXT NOT NULL,
  session_key TEXT,
  session_id TEXT,
  payload TEXT,
  state TEXT NOT NULL DEFAULT 'received',
  attempts INTEGER NOT NULL DEFAULT 0,
  replayed INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL,
  obligation_id TEXT,
  send_mode TEXT,
  parts_out INTEGER NOT NULL DEFAULT 0,
  reply_message_id TEXT,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL
)`;

/** Hermes's delivery_obligations, column for column (its migrations add the later ones the same way). */
export const OBLIGATION_COLUMNS: [string, string][] = [
  ['obligation_id', 'TEXT PRIMARY KEY'],
  ['session_key', 'TEXT NOT NULL'],
  ['platform', 'TEXT NOT NULL'],
  ['chat_id', 'TEXT NOT NULL'],
  ['thread_id', 'TEXT'],
  ['content', 'TEXT NOT NULL'],
  ['state', 'TEXT NOT NULL'],
  ['attempts', 'INTEGER NOT NULL DEFAULT 0'],
  ['created_at', 'REAL NOT NULL'],
  ['updated_at', 'REAL NOT NULL'],
  ['owner_pid', 'INTEGER'],
  ['owner_started_at', 'INTEGER'],
  ['last_error', 'TEXT'],
  ['adapter_profile', 'TEXT'],
  ['delivery_fence', 'INTEGER NOT NULL DEFAULT 0'],
  ['owner_installation_id', 'TEXT'],
  ['owner_host', 'TEXT'],
  ['owner_generation', 'TEXT'],
  ['lease_expires_at', 'REAL'],
];

/** This process's start time in clock ticks since boot (/proc), which tells a reused pid apart. */
export function processStartTicks(pid: number = process.pid): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const v = Number(f[19]);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

/** `host:pid:start` — the owner written into rows this process takes. */
export function processOwner(): string {
  return `${hostname()}:${process.pid}:${processStartTicks() ?? 0}`;
}

/** True when the process named by an owner string is still running on this host. */
export function ownerAlive(owner: string): boolean {
  const m = /^(.*):(\d+):(\d+)$/.exec(owner);
  if (!m) return false;
  if (m[1] !== hostname()) return true; // another machine's: not ours to judge
  const pid = Number(m[2]);
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStartTicks(pid);
  return start === null || Number(m[3]) === 0 || start === Number(m[3]);
}

const now = () => Date.now() / 1000;

/** A gateway_inbound_ledger row as read from either store. */
export function inboundRow(r: Record<string, unknown>): InboundRow {
  return {
    key: String(r.key),
    platform: String(r.platform),
    chatId: String(r.chat_id),
    threadId: r.thread_id == null ? null : String(r.thread_id),
    messageId: String(r.message_id),
    sessionKey: r.session_key == null ? null : String(r.session_key),
    sessionId: r.session_id == null ? null : String(r.session_id),
    payload: r.payload == null ? null : typeof r.payload === 'string' ? r.payload : JSON.stringify(r.payload),
    state: String(r.state) as InboundState,
    attempts: Number(r.attempts ?? 0),
    replayed: Number(r.replayed ?? 0),
    owner: String(r.owner),
    obligationId: r.obligation_id == null ? null : String(r.obligation_id),
    sendMode: r.send_mode == null ? null : String(r.send_mode),
    partsOut: Number(r.parts_out ?? 0),
    createdAt: Number(r.created_at),
  };
}

export function obligationRow(r: Record<string, unknown>): ObligationRow {
  return {
    id: String(r.obligation_id),
    sessionKey: String(r.session_key),
    platform: String(r.platform),
    chatId: String(r.chat_id),
    threadId: r.thread_id == null ? null : String(r.thread_id),
    content: String(r.content),
    state: String(r.state) as ObligationState,
    attempts: Number(r.attempts ?? 0),
  };
}

/** state.db's ledger, on its own connection (each write is its own small transaction, committed at once). */
export class SqliteLedger implements LedgerStore {
  readonly owner: string;
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly pid = process.pid;
  private readonly started = processStartTicks();

  private constructor(path: string, db: DatabaseSync, owner: string) {
    this.path = path;
    this.db = db;
    this.owner = owner;
  }

  /** Opens the ledger in `path` (state.db), creating its tables. `readOnly` for status readers. */
  static open(path: string, opts: { owner?: string; readOnly?: boolean } = {}): SqliteLedger {
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(path, { timeout: 5000, readOnly: opts.readOnly === true });
    guardConnection(db, path, 'state');
    if (!opts.readOnly) {
      db.exec('PRAGMA journal_mode=WAL');
      db.exec('PRAGMA synchronous=NORMAL');
      db.exec(`CREATE TABLE IF NOT EXISTS delivery_obligations (\n${OBLIGATION_COLUMNS.map(([n, d]) => `  ${n} ${d}`).join(',\n')}\n)`);
      const have = new Set((db.prepare('PRAGMA table_info(delivery_obligations)').all() as { name: string }[]).map((c) => c.name));
      for (const [n, d] of OBLIGATION_COLUMNS) if (!have.has(n)) db.exec(`ALTER TABLE delivery_obligations ADD COLUMN ${n} ${d.replace(' PRIMARY KEY', '')}`);
      db.exec('CREATE INDEX IF NOT EXISTS idx_delivery_obligations_claim ON delivery_obligations(state, platform, adapter_profile)');
      db.exec(INBOUND);
      if (!(db.prepare('PRAGMA table_info(gateway_inbound_ledger)').all() as { name: string }[]).some((c) => c.name === 'parts_out')) db.exec('ALTER TABLE gateway_inbound_ledger ADD COLUMN parts_out INTEGER NOT NULL DEFAULT 0');
      db.exec('CREATE INDEX IF NOT EXISTS idx_gateway_inbound_ledger_open ON gateway_inbound_ledger(platform, state)');
      db.exec('CREATE INDEX IF NOT EXISTS idx_gateway_inbound_ledger_obligation ON gateway_inbound_ledger(obligation_id)');
      const cutoff = now() - RETENTION_S;
      db.prepare("DELETE FROM gateway_inbound_ledger WHERE created_at < ? AND state IN ('answered', 'handled', 'given_up')").run(cutoff);
      db.prepare("DELETE FROM delivery_obligations WHERE updated_at < ? AND state IN ('delivered', 'abandoned')").run(cutoff);
    }
    return new SqliteLedger(path, db, opts.owner ?? processOwner());
  }

  private stmt(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private tx<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const r = fn();
      this.db.exec('COMMIT');
      return r;
    } catch (e) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      throw e;
    }
  }

  receive(r: { key: string; platform: string; chatId: string; threadId?: string; messageId: string; payload: string | null }): boolean {
    const t = now();
    const res = this.stmt(
      'INSERT OR IGNORE INTO gateway_inbound_ledger (key, platform, chat_id, thread_id, message_id, payload, state, owner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(r.key, r.platform, r.chatId, r.threadId ?? null, r.messageId, r.payload, 'received', this.owner, t, t);
    return Number(res.changes) > 0;
  }

  start(keys: string[], sessionKey: string, sessionId: string): void {
    if (!keys.length) return;
    const t = now();
    const s = this.stmt("UPDATE gateway_inbound_ledger SET state = 'running', attempts = attempts + 1, session_key = ?, session_id = ?, owner = ?, updated_at = ? WHERE key = ? AND state IN ('received', 'running')");
    this.tx(() => {
      for (const k of keys) s.run(sessionKey, sessionId, this.owner, t, k);
    });
  }

  settle(keys: string[], state: 'handled' | 'given_up'): void {
    if (!keys.length) return;
    const t = now();
    const s = this.stmt("UPDATE gateway_inbound_ledger SET state = ?, updated_at = ? WHERE key = ? AND state IN ('received', 'running')");
    this.tx(() => {
      for (const k of keys) s.run(state, t, k);
    });
  }

  adopt(key: string, from: string): boolean {
    const r = this.stmt('UPDATE gateway_inbound_ledger SET owner = ?, replayed = replayed + 1, updated_at = ? WHERE key = ? AND owner = ?').run(this.owner, now(), key, from);
    return Number(r.changes) > 0;
  }

  obligate(o: NewObligation): void {
    const t = now();
    this.tx(() => {
      this.stmt(
        `INSERT OR IGNORE INTO delivery_obligations (obligation_id, session_key, platform, chat_id, thread_id, content, state, attempts, created_at, updated_at, owner_pid, owner_started_at, adapter_profile, delivery_fence, owner_host, owner_generation)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, 'default', 0, ?, ?)`,
      ).run(o.id, o.sessionKey, o.platform, o.chatId, o.threadId ?? null, o.content, t, t, this.pid, this.started, hostname(), `${this.pid}:${this.started ?? 0}`);
      const s = this.stmt('UPDATE gateway_inbound_ledger SET obligation_id = ?, send_mode = ?, updated_at = ? WHERE key = ?');
      for (const k of o.keys) s.run(o.id, o.sendMode, t, k);
    });
  }

  attempting(id: string, part?: number): void {
    const mark = () =>
      this.stmt("UPDATE delivery_obligations SET state = 'attempting', attempts = attempts + 1, delivery_fence = delivery_fence + 1, updated_at = ?, owner_pid = ?, owner_started_at = ? WHERE obligation_id = ? AND state IN ('pending', 'failed')").run(
        now(),
        this.pid,
        this.started,
        id,
      );
    if (part === undefined) return void mark();
    this.tx(() => {
      mark();
      this.stmt('UPDATE gateway_inbound_ledger SET parts_out = MAX(parts_out, ?) WHERE obligation_id = ?').run(part + 1, id);
    });
  }

  back(id: string, part: number): void {
    this.tx(() => {
      this.stmt('UPDATE gateway_inbound_ledger SET parts_out = MIN(parts_out, ?) WHERE obligation_id = ?').run(part, id);
      if (part === 0) this.stmt("UPDATE delivery_obligations SET state = 'pending', updated_at = ? WHERE obligation_id = ? AND state = 'attempting'").run(now(), id);
    });
  }

  delivered(id: string, keys: string[], replyId: string | undefined): void {
    const t = now();
    this.tx(() => {
      this.stmt("UPDATE delivery_obligations SET state = 'delivered', updated_at = ?, last_error = NULL, lease_expires_at = NULL WHERE obligation_id = ?").run(t, id);
      const s = this.stmt("UPDATE gateway_inbound_ledger SET state = 'answered', reply_message_id = ?, updated_at = ? WHERE key = ? AND state <> 'answered'");
      for (const k of keys) s.run(replyId ?? null, t, k);
    });
  }

  failed(id: string, error: string): void {
    this.stmt("UPDATE delivery_obligations SET state = 'failed', last_error = ?, updated_at = ? WHERE obligation_id = ?").run(error.slice(0, 500), now(), id);
  }

  recoverable(platform: string): { inbound: InboundRow[]; obligations: Map<string, ObligationRow> } {
    const rows = (this.stmt("SELECT * FROM gateway_inbound_ledger WHERE platform = ? AND state IN ('received', 'running') AND owner <> ? ORDER BY created_at, rowid").all(platform, this.owner) as Record<string, unknown>[])
      .map(inboundRow)
      .filter((r) => !ownerAlive(r.owner));
    const obligations = new Map<string, ObligationRow>();
    for (const id of new Set(rows.map((r) => r.obligationId).filter((x): x is string => !!x))) {
      const o = this.stmt('SELECT * FROM delivery_obligations WHERE obligation_id = ?').get(id) as Record<string, unknown> | undefined;
      if (o) obligations.set(id, obligationRow(o));
    }
    return { inbound: rows, obligations };
  }

  counts(sinceS = now() - RETENTION_S): LedgerCounts {
    const r = this.stmt(
      `SELECT COUNT(*) AS received,
              COALESCE(SUM(state = 'answered'), 0) AS answered,
              COALESCE(SUM(state IN ('received', 'running')), 0) AS pending,
              COALESCE(SUM(replayed > 0), 0) AS replayed,
              COALESCE(SUM(state = 'given_up'), 0) AS given_up
       FROM gateway_inbound_ledger WHERE created_at >= ?`,
    ).get(sinceS) as Record<string, number>;
    return { received: Number(r.received), answered: Number(r.answered), pending: Number(r.pending), replayed: Number(r.replayed), givenUp: Number(r.given_up) };
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      /* closed */
    }
  }
}

/** The ledger's counts from a state.db, or null when it has no ledger (read-only; for status pages). */
export function readLedgerCounts(path: string): LedgerCounts | null {
  try {
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(path, { readOnly: true, timeout: 2000 });
    try {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gateway_inbound_ledger'").get()) return null;
    } finally {
      db.close();
    }
    const l = SqliteLedger.open(path, { readOnly: true, owner: 'status' });
    try {
      return l.counts();
    } finally {
      l.close();
    }
  } catch {
    return null;
  }
}
