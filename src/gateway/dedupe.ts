// Inbound dedupe, persisted: platforms redeliver (Telegram resends updates a stopped poller never
// confirmed, Slack retries events, IMAP shows a mail again), so every inbound message id is
// recorded before it is processed and a message seen before is never processed twice, across
// restarts too. A message taken (`r`) but never finished (`d`) belongs to a turn a crash cut
// short; on the next start the runner tells that chat instead of re-running its tools.
//
// HERMES_HOME/gateway/inbound.jsonl: one JSON line per state change, compacted on load.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { writeTempInBackground } from './json-file.ts';

/** A line of the file: `s` 'r' taken, 'd' done; `t` ms; platform, chat and thread (needed while taken). */
interface Line {
  k: string;
  s: 'r' | 'd';
  t: number;
  p?: string;
  c?: string;
  th?: string;
}

export interface Unfinished {
  platform: string;
  chatId: string;
  threadId?: string;
  key: string;
}

const TTL_MS = 7 * 24 * 3600_000;
const MAX_ENTRIES = 100_000;

/**
 * Memory stays small and bounded: every message seen costs one map entry (its key → the second it
 * was taken, a small integer), the few being answered right now keep their chat in `taken`, and
 * entries older than the TTL or past MAX_ENTRIES go as new ones arrive (oldest first: the map is
 * in arrival order), not only at the next start.
 */
export class InboundDedupe {
  /** key → when it was taken (seconds). */
  private readonly seen = new Map<string, number>();
  /** Taken and not finished yet: what unfinished() reports. */
  private readonly taken = new Map<string, Unfinished>();
  private appended = 0;
  private fd: number | null = null;
  private readonly path: string;
  private readonly now: () => number;
  private readonly max: number;

  constructor(path: string, opts: { now?: () => number; maxEntries?: number } = {}) {
    this.path = path;
    this.now = opts.now ?? Date.now;
    this.max = opts.maxEntries ?? MAX_ENTRIES;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.load();
  }

  static key(platform: string, chatId: string, messageId: string): string {
    return `${platform}:${chatId}:${messageId}`;
  }

  private load(): void {
    if (!existsSync(this.path)) return;
    const cutoff = this.now() - TTL_MS;
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as Line;
        if (typeof e.k !== 'string' || e.t < cutoff) continue;
        const known = this.seen.has(e.k);
        if (!known) this.seen.set(e.k, Math.floor(e.t / 1000));
        if (e.s === 'd') this.taken.delete(e.k);
        else if (!known && e.p && e.c !== undefined) this.taken.set(e.k, { key: e.k, platform: e.p, chatId: e.c, threadId: e.th });
      } catch {
        /* a torn last line after a crash */
      }
    }
    this.prune();
    this.compact();
  }

  /** Drops entries past the TTL or the cap, oldest first. */
  private prune(): void {
    const cutoff = Math.floor((this.now() - TTL_MS) / 1000);
    for (const [k, t] of this.seen) {
      if (this.seen.size <= this.max && t >= cutoff) break;
      this.seen.delete(k);
      this.taken.delete(k);
    }
  }

  /** The file's content as the memory says it (one line per id). */
  private snapshot(): string {
    const lines: string[] = [];
    for (const [k, t] of this.seen) {
      const u = this.taken.get(k);
      lines.push(JSON.stringify(u ? { k, s: 'r', t: t * 1000, p: u.platform, c: u.chatId, th: u.threadId } : { k, s: 'd', t: t * 1000 }));
    }
    return lines.length ? lines.join('\n') + '\n' : '';
  }

  private compact(): void {
    this.close();
    writeFileAtomic(this.path, this.snapshot(), 0o600);
    this.appended = 0;
  }

  /** Lines appended while a compaction is written in the background (they go in the new file too). */
  private compacting: string[] | null = null;

  /**
   * Compaction while running: the new file is written and fsynced off the event loop (a big file's
   * fsync can take long); appends go on to the old file meanwhile and are added to the new one
   * right after it replaces the old (no await in between). A crash before leaves the old file whole.
   */
  private compactInBackground(): void {
    const pending: string[] = (this.compacting = []);
    this.appended = 0;
    void writeTempInBackground(this.path, this.snapshot(), 0o600).then(
      (tmp) => {
        if (this.compacting !== pending) return void rmSync(tmp, { force: true }); // closed meanwhile
        this.compacting = null;
        try {
          renameSync(tmp, this.path);
        } catch {
          return void rmSync(tmp, { force: true }); // the old file stays, whole
        }
        try {
          if (this.fd !== null) closeSync(this.fd);
          this.fd = openSync(this.path, 'a', 0o600);
          if (pending.length) writeSync(this.fd, pending.join(''));
        } catch {
          this.fd = null; // the next append opens it again
        }
      },
      () => {
        if (this.compacting === pending) this.compacting = null; // the old file stays, whole
      },
    );
  }

  private append(line: Line): void {
    // One descriptor for the life of the process: no open/close per message.
    if (this.fd === null) this.fd = openSync(this.path, 'a', 0o600);
    const text = JSON.stringify(line) + '\n';
    writeSync(this.fd, text);
    this.compacting?.push(text);
    if (++this.appended > Math.max(10_000, this.seen.size * 2) && !this.compacting) this.compactInBackground();
  }

  close(): void {
    this.compacting = null; // a compaction still being written is dropped: the file has everything
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Records the message as taken. False when it was seen before (drop it). */
  claim(platform: string, chatId: string, messageId: string, threadId?: string): boolean {
    const k = InboundDedupe.key(platform, chatId, messageId);
    if (this.seen.has(k)) return false;
    const t = this.now();
    this.seen.set(k, Math.floor(t / 1000));
    this.taken.set(k, { key: k, platform, chatId, threadId });
    this.prune();
    this.append({ k, s: 'r', t, p: platform, c: chatId, th: threadId });
    return true;
  }

  /** Records that the message was handled (answered, ignored on purpose, or reported). */
  finish(platform: string, chatId: string, messageId: string): void {
    this.finishKey(InboundDedupe.key(platform, chatId, messageId));
  }

  has(platform: string, chatId: string, messageId: string): boolean {
    return this.seen.has(InboundDedupe.key(platform, chatId, messageId));
  }

  /** Messages taken by an earlier process (or this one, still running) that were never finished. */
  unfinished(): Unfinished[] {
    return [...this.taken.values()];
  }

  finishKey(key: string): void {
    if (!this.taken.delete(key)) return;
    this.append({ k: key, s: 'd', t: this.now() });
  }

  get size(): number {
    return this.seen.size;
  }
}
