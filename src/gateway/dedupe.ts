// Inbound dedupe, persisted: platforms redeliver (Telegram resends updates a stopped poller never
// confirmed, Slack retries events, IMAP shows a mail again), so every inbound message id is
// recorded before it is processed and a message seen before is never processed twice, across
// restarts too. A message taken (`r`) but never finished (`d`) belongs to a turn a crash cut
// short; on the next start the runner tells that chat instead of re-running its tools.
//
// HERMES_HOME/gateway/inbound.jsonl: one JSON line per state change, compacted on load.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';

interface Seen {
  s: 'r' | 'd';
  t: number;
  p: string;
  c: string;
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

export class InboundDedupe {
  private readonly map = new Map<string, Seen>();
  private appended = 0;
  private fd: number | null = null;
  private readonly path: string;
  private readonly now: () => number;

  constructor(path: string, opts: { now?: () => number } = {}) {
    this.path = path;
    this.now = opts.now ?? Date.now;
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
        const e = JSON.parse(line) as Seen & { k: string };
        if (typeof e.k !== 'string' || e.t < cutoff) continue;
        const prev = this.map.get(e.k);
        this.map.delete(e.k);
        this.map.set(e.k, prev?.s === 'd' ? prev : { s: e.s, t: e.t, p: e.p, c: e.c, th: e.th });
      } catch {
        /* a torn last line after a crash */
      }
    }
    this.compact();
  }

  private compact(): void {
    while (this.map.size > MAX_ENTRIES) this.map.delete(this.map.keys().next().value as string);
    const lines = [...this.map].map(([k, v]) => JSON.stringify({ k, ...v }));
    this.close();
    writeFileAtomic(this.path, lines.length ? lines.join('\n') + '\n' : '', 0o600);
    this.appended = 0;
  }

  private append(k: string, v: Seen): void {
    // One descriptor for the life of the process: no open/close per message.
    if (this.fd === null) this.fd = openSync(this.path, 'a', 0o600);
    writeSync(this.fd, JSON.stringify({ k, ...v }) + '\n');
    if (++this.appended > Math.max(10_000, this.map.size * 2)) this.compact();
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Records the message as taken. False when it was seen before (drop it). */
  claim(platform: string, chatId: string, messageId: string, threadId?: string): boolean {
    const k = InboundDedupe.key(platform, chatId, messageId);
    if (this.map.has(k)) return false;
    const v: Seen = { s: 'r', t: this.now(), p: platform, c: chatId, th: threadId };
    this.map.set(k, v);
    this.append(k, v);
    return true;
  }

  /** Records that the message was handled (answered, ignored on purpose, or reported). */
  finish(platform: string, chatId: string, messageId: string): void {
    const k = InboundDedupe.key(platform, chatId, messageId);
    const prev = this.map.get(k);
    if (prev?.s === 'd') return;
    const v: Seen = { s: 'd', t: this.now(), p: platform, c: chatId, th: prev?.th };
    this.map.set(k, v);
    this.append(k, v);
  }

  has(platform: string, chatId: string, messageId: string): boolean {
    return this.map.has(InboundDedupe.key(platform, chatId, messageId));
  }

  /** Messages taken by an earlier process that never finished them. */
  unfinished(): Unfinished[] {
    const out: Unfinished[] = [];
    for (const [k, v] of this.map) if (v.s === 'r') out.push({ key: k, platform: v.p, chatId: v.c, threadId: v.th });
    return out;
  }

  finishKey(key: string): void {
    const prev = this.map.get(key);
    if (!prev || prev.s === 'd') return;
    const v: Seen = { ...prev, s: 'd', t: this.now() };
    this.map.set(key, v);
    this.append(key, v);
  }

  get size(): number {
    return this.map.size;
  }
}
