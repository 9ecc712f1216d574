// How a session writes to its store without the store ever breaking the conversation: a failure is
// reported once and the turn goes on; the loop's appends are committed together, once the step's
// request is on the wire (the commit overlaps the round trip) and at most every GROUP_MS while steps
// come faster than that (a commit per step cost more than the rest of a fast step: FTS pages, WAL
// frames); writes are not awaited one by one — the store applies them in the order they were issued
// (on SQLite at once, when called) — and a turn awaits them all before it ends (flushStore). A turn's end, compression
// and close commit at once, so what may wait is at most GROUP_MS of a running turn's steps.
import type { Message } from '../llm/types.ts';
import { dbErrorFile, describeDbError } from '../state/db-errors.ts';
import type { SessionWriter } from './session-types.ts';

/** The longest a queued append waits for the steps after it (ms). */
export const GROUP_MS = 25;

export class StoreWrites {
  private warned = false;
  /**
   * The first write that failed (a full disk, a damaged state.db, a lost database), and the warning
   * that said so: a one-shot run exits non-zero with it, since its turn is not (all) in the store.
   */
  failure: { error: unknown; message: string; warning: string } | null = null;
  /** A write was issued since the last flush. */
  private unflushed = false;
  /** Messages appended this tick, with the session id they belong to. */
  private appends: [string, Message][] = [];
  private readonly store: () => SessionWriter | undefined;
  private readonly warn: (message: string) => void;

  constructor(store: () => SessionWriter | undefined, warn: (message: string) => void) {
    this.store = store;
    this.warn = warn;
  }

  /** Queues a message; queued messages are committed together, at the turn's end at the latest. */
  queueAppend(sessionId: string, m: Message): void {
    this.appends.push([sessionId, m]);
    if (this.appends.length > 1) return;
    const wait = this.lastCommit + GROUP_MS - performance.now();
    if (wait <= 0) setImmediate(this.flushNow);
    else this.timer = setTimeout(this.flushNow, wait);
  }

  private lastCommit = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushNow = () => this.flushAppends();

  flushAppends(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const store = this.store();
    const queued = this.appends;
    this.appends = [];
    if (queued.length) this.lastCommit = performance.now();
    if (!store || !queued.length) return;
    for (let i = 0; i < queued.length; ) {
      const id = queued[i][0];
      const ms: Message[] = [];
      for (; i < queued.length && queued[i][0] === id; i++) ms.push(queued[i][1]);
      this.persist(() => store.appendMessages(id, ms));
    }
  }

  /** Issues a write (a store call, or nothing: undefined); its failure is reported, never thrown. */
  persist(write: () => Promise<unknown> | undefined): void {
    try {
      const r = write();
      if (!r) return;
      this.unflushed = true;
      r.then(undefined, (e: unknown) => this.failed(e));
    } catch (e) {
      this.failed(e);
    }
  }

  async flushStore(): Promise<void> {
    if (!this.unflushed) return;
    this.unflushed = false;
    try {
      await this.store()?.flush();
    } catch (e) {
      this.failed(e);
    }
  }

  private failed(e: unknown): void {
    if (this.warned) return;
    this.warned = true;
    // The store's error names its file and what to do (state.db: db-errors.ts); a bare one gets the file.
    const store = this.store() as { file?: string | null } | undefined;
    const file = store?.file ?? undefined;
    let message = (e as Error)?.message ?? String(e);
    if (file && dbErrorFile(e) === undefined) message = describeDbError(e, file, 'state');
    if (!/[.!?]$/.test(message)) message += '.';
    const warning = `Could not save to the session store: ${message} The conversation goes on, but what follows may be missing from its history.`;
    this.failure = { error: e, message, warning };
    this.warn(warning);
  }
}
