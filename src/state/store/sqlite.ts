// The session store on SQLite: the SessionStore interface over SessionDB (src/state/db.ts, Hermes's
// state.db through node:sqlite). Each method runs SessionDB's synchronous call at once, when it is
// made (so writes keep the order they were issued in, and nothing waits for a round trip); only the
// answer, or the error, comes back as a promise, one microtask later.
//
// SessionDB itself stays synchronous for the few places that need a transaction or a connection of
// their own, not a session-store call: the gateway's group commit (one transaction per event-loop
// tick, `SessionDB.batch`), the maintenance commands that work on the file (`hermes sessions
// repair|vacuum|recover`, `hermes state migrate`), and the SessionDB dashboard plugins are given.
import type { Message } from '../../llm/types.ts';
import type { CreateSessionMeta, FindFilter, MessagePage, SearchOptions } from '../db-rows.ts';
import type { SessionDB } from '../db.ts';
import { DelegationRows } from './delegations.ts';
import type { ListOptions, SessionStore, UsageRecord } from './types.ts';

export class SqliteSessionStore implements SessionStore {
  readonly backend = 'sqlite' as const;
  /** The state.db connection the calls run on. */
  readonly db: SessionDB;
  readonly delegations: DelegationRows = new DelegationRows(this);

  constructor(db: SessionDB) {
    this.db = db;
  }

  /** Runs before every call on the store (GroupCommit commits its queued writes here, so each call sees them). */
  protected before(): void {}

  get location(): string {
    return this.db.location;
  }
  get file(): string | null {
    return this.db.path === ':memory:' ? null : this.db.path;
  }
  get isOpen(): boolean {
    return this.db.isOpen;
  }
  get compatNote(): string | null {
    return this.db.compatNote;
  }
  get canCompactInPlace(): boolean {
    return this.db.canCompactInPlace;
  }

  async close(): Promise<void> {
    this.before();
    this.db.close();
  }
  /** Every write is committed when its call returns. */
  async flush(): Promise<void> {
    this.before();
  }

  async getMeta(key: string) {
    this.before();
    return this.db.getMeta(key);
  }
  async setMeta(key: string, value: string | null) {
    this.before();
    this.db.setMeta(key, value);
  }

  async createSession(meta: CreateSessionMeta) {
    this.before();
    this.db.createSession(meta);
  }
  async endSession(sessionId: string, reason: string) {
    this.before();
    this.db.endSession(sessionId, reason);
  }
  async reopenSession(sessionId: string) {
    this.before();
    this.db.reopenSession(sessionId);
  }
  async updateSystemPrompt(sessionId: string, prompt: string) {
    this.before();
    this.db.updateSystemPrompt(sessionId, prompt);
  }
  async getModelConfig(sessionId: string) {
    this.before();
    return this.db.getModelConfig(sessionId);
  }
  async patchModelConfig(sessionId: string, patch: Record<string, unknown>) {
    this.before();
    this.db.patchModelConfig(sessionId, patch);
  }
  async getSession(id: string) {
    this.before();
    return this.db.getSession(id);
  }
  async listSessions(opts?: ListOptions & { limit?: number; offset?: number }) {
    this.before();
    return this.db.listSessions(opts);
  }
  async countSessions(opts?: ListOptions | string) {
    this.before();
    return this.db.countSessions(opts);
  }
  async facets() {
    this.before();
    return this.db.facets();
  }
  async setArchived(id: string, archived: boolean) {
    this.before();
    return this.db.setArchived(id, archived);
  }
  async mostRecentSession(source?: string, cwdUnder?: string) {
    this.before();
    return this.db.mostRecentSession(source, cwdUnder);
  }
  async resolveSession(idOrTitle: string) {
    this.before();
    return this.db.resolveSession(idOrTitle);
  }
  async setTitle(id: string, title: string | null) {
    this.before();
    this.db.setTitle(id, title);
  }
  async nextTitleInLineage(title: string) {
    this.before();
    return this.db.nextTitleInLineage(title);
  }
  async uniqueTitle(wanted: string) {
    this.before();
    return this.db.uniqueTitle(wanted);
  }
  async descendants(id: string) {
    this.before();
    return this.db.descendants(id);
  }
  async ancestors(id: string) {
    this.before();
    return this.db.ancestors(id);
  }
  async deleteSession(id: string) {
    this.before();
    return this.db.deleteSession(id);
  }
  async pruneSessions(olderThanDays: number, source?: string) {
    this.before();
    return this.db.pruneSessions(olderThanDays, source);
  }
  async findSessions(f: FindFilter) {
    this.before();
    return this.db.findSessions(f);
  }
  async usageSince(cutoff: number, source: string | null) {
    this.before();
    return this.db.usageSince(cutoff, source);
  }
  async activeSince(since: number) {
    this.before();
    return this.db.activeSince(since);
  }

  async appendMessage(sessionId: string, m: Message) {
    this.before();
    return this.db.appendMessage(sessionId, m);
  }
  async appendMessages(sessionId: string, ms: Message[]) {
    this.before();
    return this.db.appendMessages(sessionId, ms);
  }
  async recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string) {
    this.before();
    this.db.recordUsage(sessionId, r, model, provider, baseUrl);
  }
  async modelUsage(sessionId: string) {
    this.before();
    return this.db.modelUsage(sessionId);
  }
  async getMessageRows(sessionId: string, which?: 'live' | 'shown' | 'all') {
    this.before();
    return this.db.getMessageRows(sessionId, which);
  }
  async getMessages(sessionId: string) {
    this.before();
    return this.db.getMessages(sessionId);
  }
  async getTranscript(sessionId: string) {
    this.before();
    return this.db.getTranscript(sessionId);
  }
  async messageCount(sessionId: string) {
    this.before();
    return this.db.messageCount(sessionId);
  }
  async messagePage(sessionId: string, page: MessagePage) {
    this.before();
    return this.db.messagePage(sessionId, page);
  }
  async liveMessageCount(sessionId: string) {
    this.before();
    return this.db.liveMessageCount(sessionId);
  }
  async rewindLast(sessionId: string, count: number) {
    this.before();
    return this.db.rewindLast(sessionId, count);
  }

  async tryAcquireCompressionLock(sessionId: string, holder: string, ttlSeconds?: number) {
    this.before();
    return this.db.tryAcquireCompressionLock(sessionId, holder, ttlSeconds);
  }
  async releaseCompressionLock(sessionId: string, holder: string) {
    this.before();
    return this.db.releaseCompressionLock(sessionId, holder);
  }
  async getCompressionLockHolder(sessionId: string) {
    this.before();
    return this.db.getCompressionLockHolder(sessionId);
  }
  async archiveAndCompact(sessionId: string, messages: Message[], opts?: { lockHolder?: string }) {
    this.before();
    return this.db.archiveAndCompact(sessionId, messages, opts);
  }
  async setCompressionCooldown(sessionId: string, untilS: number | null, error: string | null) {
    this.before();
    this.db.setCompressionCooldown(sessionId, untilS, error);
  }
  async getCompressionCooldown(sessionId: string) {
    this.before();
    return this.db.getCompressionCooldown(sessionId);
  }

  async searchMessages(query: string, opts?: SearchOptions) {
    this.before();
    return this.db.searchMessages(query, opts);
  }
  async exportSession(id: string) {
    this.before();
    return this.db.exportSession(id);
  }
  async sessionIds(source?: string) {
    this.before();
    return this.db.sessionIds(source);
  }
  async stats() {
    this.before();
    return this.db.stats();
  }

  async sqlRun(sql: string, params: (string | number | null)[]) {
    this.before();
    return Number(this.db.raw.prepare(sql).run(...params).changes);
  }
  async sqlAll(sql: string, params: (string | number | null)[]) {
    this.before();
    return this.db.raw.prepare(sql).all(...params) as Record<string, unknown>[];
  }
}
