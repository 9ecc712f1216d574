// Where gateway conversations are kept. The gateway needs a little more than what a session
// writes: reading a conversation back (a restart, an evicted warm session) and its frozen
// system prompt. The session store provides all of it (HERMES_HOME/state.db, or PostgreSQL for a
// gateway cluster: the daemon opens that one); when state.db cannot be opened the gateway falls back to Hermes's legacy per-session JSONL transcripts in
// HERMES_HOME/sessions/<session_id>.jsonl (and says so in the log).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../llm/types.ts';
import { SessionDB, type CreateSessionMeta } from '../state/db.ts';
import { GroupCommit } from './group-commit.ts';
import { paths } from '../state/paths.ts';
import type { Awaitable, SessionStore, UsageRecord } from '../state/store/index.ts';

export interface StoredSession {
  id: string;
  source?: string;
  systemPrompt?: string | null;
  endedAt?: number | null;
  endReason?: string | null;
}

/**
 * The gateway's conversations: the session store (`db`), or, when state.db cannot be opened, the
 * JSONL files (synchronous, so its answers may be plain values). A Session writes to `db` when there
 * is one, else through the runner's writer over this.
 */
export interface TranscriptStore {
  createSession(meta: CreateSessionMeta): Awaitable<void>;
  appendMessage(sessionId: string, message: Message): Awaitable<unknown>;
  appendMessages(sessionId: string, messages: Message[]): Awaitable<unknown>;
  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Awaitable<void>;
  endSession(sessionId: string, reason: string): Awaitable<void>;
  getMessages(sessionId: string): Awaitable<Message[]>;
  getStoredSession(sessionId: string): Awaitable<StoredSession | null>;
  /** Both at once (one read where the store allows it). */
  load?(sessionId: string): Awaitable<{ session: StoredSession; messages: Message[] } | null>;
  /** Makes an ended session current again (a restored conversation continues in it). */
  reopenSession?(sessionId: string): Awaitable<void>;
  close(): Awaitable<void>;
  readonly kind: string;
  /** The session store behind this one, when there is one (sessions get it for session_search). */
  readonly db?: SessionStore;
}

/** The session store (state.db through SessionDB, or PostgreSQL). */
export class SessionDbTranscripts implements TranscriptStore {
  readonly kind: string;
  readonly db: SessionStore;

  constructor(db: SessionStore) {
    this.db = db;
    this.kind = db.backend === 'sqlite' ? 'state.db' : 'postgres';
  }

  createSession(meta: CreateSessionMeta): Promise<void> {
    return this.db.createSession(meta);
  }

  appendMessage(sessionId: string, message: Message): Promise<number> {
    return this.db.appendMessage(sessionId, message);
  }

  /** A loop step's messages in one transaction where the store has one (one commit, not one per message). */
  appendMessages(sessionId: string, messages: Message[]): Promise<number[]> {
    return this.db.appendMessages(sessionId, messages);
  }

  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Promise<void> {
    return this.db.recordUsage(sessionId, r, model, provider, baseUrl);
  }

  endSession(sessionId: string, reason: string): Promise<void> {
    return this.db.endSession(sessionId, reason);
  }

  reopenSession(sessionId: string): Promise<void> {
    return this.db.reopenSession(sessionId);
  }

  getMessages(sessionId: string): Promise<Message[]> {
    return this.db.getMessages(sessionId);
  }

  async getStoredSession(sessionId: string): Promise<StoredSession | null> {
    const row = await this.db.getSession(sessionId);
    return row ? { id: row.id, source: row.source, systemPrompt: row.system_prompt, endedAt: row.ended_at, endReason: row.end_reason } : null;
  }

  async load(sessionId: string): Promise<{ session: StoredSession; messages: Message[] } | null> {
    const session = await this.getStoredSession(sessionId);
    return session ? { session, messages: await this.db.getMessages(sessionId) } : null;
  }

  async close(): Promise<void> {
    if (this.db.isOpen) await this.db.close();
  }
}

type MetaLine = { role: 'session_meta'; session_id: string; source: string; model?: string; system_prompt?: string; created_at: number; parent_session_id?: string; cwd?: string };
type EndLine = { role: 'session_end'; reason: string; ended_at: number };
type ReopenLine = { role: 'session_reopen'; at: number };

/** Hermes's legacy JSONL transcripts: one file per session, one JSON object per line. */
export class JsonlTranscripts implements TranscriptStore {
  readonly kind = 'jsonl';
  readonly dir: string;
  /** Open append descriptors of recently written sessions (least recently used closed first). */
  private readonly fds = new Map<string, number>();
  private static readonly MAX_FDS = 256;

  constructor(home: string) {
    this.dir = join(home, 'sessions');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  private file(id: string): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(id) || id.includes('..')) throw new Error(`invalid session id "${id}"`);
    return join(this.dir, `${id}.jsonl`);
  }

  private line(id: string, obj: unknown): void {
    this.lines(id, [obj]);
  }

  private lines(id: string, objs: unknown[]): void {
    let fd = this.fds.get(id);
    if (fd === undefined) {
      fd = openSync(this.file(id), 'a', 0o600);
      if (this.fds.size >= JsonlTranscripts.MAX_FDS) {
        const [oldId, oldFd] = this.fds.entries().next().value as [string, number];
        this.fds.delete(oldId);
        closeSync(oldFd);
      }
    } else this.fds.delete(id);
    this.fds.set(id, fd);
    writeSync(fd, objs.map((o) => JSON.stringify(o) + '\n').join(''));
  }

  createSession(meta: CreateSessionMeta): void {
    if (existsSync(this.file(meta.id))) {
      this.reopenSession(meta.id);
      return;
    }
    const m: MetaLine = { role: 'session_meta', session_id: meta.id, source: meta.source, model: meta.model, system_prompt: meta.systemPrompt, created_at: Date.now() / 1000, parent_session_id: meta.parentId, cwd: meta.cwd };
    this.line(meta.id, m);
  }

  appendMessage(sessionId: string, message: Message): void {
    this.line(sessionId, { ...message, timestamp: message.timestamp ?? Date.now() / 1000 });
  }

  /** A loop step's messages in one write. */
  appendMessages(sessionId: string, messages: Message[]): void {
    if (!messages.length) return;
    const now = Date.now() / 1000;
    this.lines(sessionId, messages.map((m) => ({ ...m, timestamp: m.timestamp ?? now })));
  }

  recordUsage(_sessionId: string, _r: UsageRecord, _model: string, _provider: string): void {
    /* usage totals live in state.db; the JSONL fallback keeps only the conversation */
  }

  endSession(sessionId: string, reason: string): void {
    if (!existsSync(this.file(sessionId))) return;
    const e: EndLine = { role: 'session_end', reason, ended_at: Date.now() / 1000 };
    this.line(sessionId, e);
  }

  reopenSession(sessionId: string): void {
    const s = this.getStoredSession(sessionId);
    if (s?.endedAt) this.line(sessionId, { role: 'session_reopen', at: Date.now() / 1000 } satisfies ReopenLine);
  }

  private read(id: string): Record<string, unknown>[] {
    const f = this.file(id);
    if (!existsSync(f)) return [];
    const out: Record<string, unknown>[] = [];
    for (const l of readFileSync(f, 'utf8').split('\n')) {
      if (!l) continue;
      try {
        out.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* torn line */
      }
    }
    return out;
  }

  getMessages(sessionId: string): Message[] {
    return this.read(sessionId).filter(isMessage) as unknown as Message[];
  }

  load(sessionId: string): { session: StoredSession; messages: Message[] } | null {
    const lines = this.read(sessionId);
    const session = this.summarize(sessionId, lines);
    return session ? { session, messages: lines.filter(isMessage) as unknown as Message[] } : null;
  }

  getStoredSession(sessionId: string): StoredSession | null {
    return this.summarize(sessionId, this.read(sessionId));
  }

  private summarize(sessionId: string, lines: Record<string, unknown>[]): StoredSession | null {
    if (!lines.length) return null;
    const meta = lines.find((l) => l.role === 'session_meta') as MetaLine | undefined;
    let endedAt: number | null = null;
    let endReason: string | null = null;
    for (const l of lines) {
      if (l.role === 'session_end') {
        endedAt = (l as EndLine).ended_at;
        endReason = (l as EndLine).reason;
      } else if (l.role === 'session_reopen') {
        endedAt = null;
        endReason = null;
      }
    }
    return { id: sessionId, source: meta?.source, systemPrompt: meta?.system_prompt ?? null, endedAt, endReason };
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

const isMessage = (l: Record<string, unknown>) => l.role === 'user' || l.role === 'assistant' || l.role === 'tool' || l.role === 'system';

/** state.db, or the JSONL fallback when it cannot be opened. */
export function openTranscriptStore(home: string, log: (line: string) => void = () => undefined): TranscriptStore {
  try {
    // Writes of one tick, of every chat, in one transaction (group-commit.ts).
    const db = new GroupCommit(SessionDB.open(paths.stateDb(home)), (e) => log(`sessions: a write to state.db failed: ${(e as Error).message}`)).store;
    return new SessionDbTranscripts(db);
  } catch (e) {
    log(`sessions: cannot open ${paths.stateDb(home)} (${(e as Error).message}); keeping conversations in ${home}/sessions/*.jsonl instead`);
    return new JsonlTranscripts(home);
  }
}
