// Group commit for the gateway's state.db. Every warm session appends its messages and records its
// usage on its own; with many chats at once that is one SQLite transaction (a WAL commit and an
// FTS index segment) per write, on the event loop. Here the appends and usage records of one
// event-loop tick, of all sessions, go in one transaction (SessionDB.batch), committed on the next
// tick: a fraction of the cost per message, and far fewer checkpoints.
//
// Nothing changes for the sessions: a queued write returns a promise settled when it is committed
// (as an asynchronous store does), `flush()` resolves once everything queued so far is committed
// (a turn awaits it before it ends), and any other call on the store (reads, createSession,
// compression…) commits the queue first, so it sees every write made before it, in order.
// A batch that fails is rolled back and its writes are retried one by one, so one bad write
// fails alone. The WAL checkpoints run on a worker thread (checkpointer.ts) unless told otherwise.
import type { SessionDB } from '../state/db.ts';
import { SqliteSessionStore } from '../state/store/sqlite.ts';
import type { UsageRecord } from '../state/store/types.ts';
import type { Message } from '../llm/types.ts';
import { WalCheckpointer } from './checkpointer.ts';

interface Op {
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** The session store the gateway hands out: SQLite's, with the queued writes and the commit-first rule. */
class GroupedStore extends SqliteSessionStore {
  private readonly group: GroupCommit;

  constructor(db: SessionDB, group: GroupCommit) {
    super(db);
    this.group = group;
  }

  protected override before(): void {
    this.group.commit();
  }

  override appendMessage(sessionId: string, m: Message): Promise<number> {
    return this.group.queue(() => this.db.appendMessage(sessionId, m)) as Promise<number>;
  }

  override appendMessages(sessionId: string, ms: Message[]): Promise<number[]> {
    return this.group.queue(() => this.db.appendMessages(sessionId, ms)) as Promise<number[]>;
  }

  override recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Promise<void> {
    return this.group.queue(() => this.db.recordUsage(sessionId, r, model, provider, baseUrl)) as Promise<void>;
  }

  override flush(): Promise<void> {
    return this.group.flush();
  }

  override async close(): Promise<void> {
    this.group.commit();
    this.db.close();
    void this.group.closeCheckpointer();
  }
}

export class GroupCommit {
  private ops: Op[] = [];
  private waiting: (() => void)[] = [];
  private scheduled = false;
  private readonly db: SessionDB;
  private readonly onError: (e: unknown) => void;
  /** The store the gateway hands out: `db` with the queued methods and the commit-first rule. */
  readonly store: SqliteSessionStore;

  private readonly checkpointer: WalCheckpointer | null = null;

  constructor(db: SessionDB, onError: (e: unknown) => void = () => undefined, opts: { checkpointOffThread?: boolean } = {}) {
    this.db = db;
    this.onError = onError;
    if (opts.checkpointOffThread !== false && db.location !== ':memory:') {
      const cp = new WalCheckpointer(db.location, () => {
        db.checkpointer = null;
        db.checkpoint();
      });
      db.checkpointer = () => cp.run();
      this.checkpointer = cp;
    }
    this.store = new GroupedStore(db, this);
  }

  closeCheckpointer(): Promise<unknown> | undefined {
    return this.checkpointer?.close();
  }

  /** Queues a write for this tick's transaction. */
  queue(run: () => unknown): Promise<unknown> {
    const p = new Promise<unknown>((resolve, reject) => this.ops.push({ run, resolve, reject }));
    // A caller that does not wait for the write must not get an unhandled rejection: the error is
    // still reported to those that do, and to onError.
    p.catch(() => undefined);
    this.schedule();
    return p;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.commit());
  }

  /** Resolves when everything queued so far is committed (with the next group commit). */
  flush(): Promise<void> {
    if (!this.ops.length) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Commits the queue now, in one transaction. */
  commit(): void {
    this.scheduled = false;
    const ops = this.ops;
    const waiting = this.waiting;
    this.ops = [];
    this.waiting = [];
    if (ops.length) {
      let results: unknown[] | null = null;
      if (this.db.isOpen)
        try {
          results = this.db.batch(() => ops.map((o) => o.run()));
        } catch {
          results = null; // rolled back: one by one below
        }
      if (results) ops.forEach((o, i) => o.resolve(results[i]));
      else
        for (const o of ops)
          try {
            o.resolve(o.run());
          } catch (e) {
            this.onError(e);
            o.reject(e);
          }
    }
    for (const w of waiting) w();
  }
}
