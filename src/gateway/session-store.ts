// The gateway's routing index: session key → the current session id (and where it came from, for
// delivery), kept in HERMES_HOME/sessions/sessions.json as Hermes does. The conversations
// themselves live in the transcript store (state.db). Also the automatic reset policy
// (`session_reset`: idle minutes and/or a daily hour).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { newSessionId } from '../session/session.ts';
import { readJsonObject, writeJson, writeJsonInBackground } from './json-file.ts';
import type { SessionSource } from './types.ts';

/** sessions.json entry (Hermes's SessionEntry, the fields this gateway uses). */
export interface SessionEntry {
  session_key: string;
  session_id: string;
  created_at: string;
  updated_at: string;
  display_name: string | null;
  platform: string | null;
  chat_type: string;
  origin?: Record<string, unknown>;
  /** Set on an entry created by a reset, with the reason and the ended session. */
  was_auto_reset?: boolean;
  auto_reset_reason?: string | null;
  prev_session_id?: string | null;
  input_tokens?: number;
  output_tokens?: number;
}

export function sourceToDict(s: SessionSource): Record<string, unknown> {
  const d: Record<string, unknown> = {
    platform: s.platform,
    chat_id: s.chatId,
    chat_name: s.chatName ?? null,
    chat_type: s.chatType,
    user_id: s.userId ?? null,
    user_name: s.userName ?? null,
    thread_id: s.threadId ?? null,
    chat_topic: s.chatTopic ?? null,
  };
  if (s.scopeId) d.scope_id = d.guild_id = s.scopeId;
  if (s.userIdAlt) d.user_id_alt = s.userIdAlt;
  return d;
}

export function sourceFromDict(d: Record<string, unknown>): SessionSource {
  const str = (v: unknown) => (v === null || v === undefined || v === '' ? undefined : String(v));
  return {
    platform: String(d.platform ?? ''),
    chatId: String(d.chat_id ?? ''),
    chatType: (['dm', 'group', 'channel', 'thread'].includes(d.chat_type as string) ? d.chat_type : 'dm') as SessionSource['chatType'],
    chatName: str(d.chat_name),
    userId: str(d.user_id),
    userIdAlt: str(d.user_id_alt),
    userName: str(d.user_name),
    threadId: str(d.thread_id),
    chatTopic: str(d.chat_topic),
    scopeId: str(d.scope_id ?? d.guild_id),
  };
}

export interface ResetPolicy {
  mode: 'both' | 'idle' | 'daily' | 'none';
  idleMinutes: number;
  atHour: number;
}

export function resetPolicyFrom(config: Record<string, unknown>, env: NodeJS.ProcessEnv): ResetPolicy {
  const r = (config.session_reset ?? {}) as Record<string, unknown>;
  const mode = (['both', 'idle', 'daily', 'none'].includes(r.mode as string) ? r.mode : 'both') as ResetPolicy['mode'];
  const idle = Number(env.SESSION_IDLE_MINUTES ?? r.idle_minutes ?? 1440);
  const hour = Number(env.SESSION_RESET_HOUR ?? r.at_hour ?? 4);
  return { mode, idleMinutes: Number.isFinite(idle) && idle > 0 ? idle : 1440, atHour: Number.isInteger(hour) && hour >= 0 && hour <= 23 ? hour : 4 };
}

/** Why a session last active at `lastMs` is reset now, or null. */
export function resetReason(policy: ResetPolicy, lastMs: number, nowMs: number): 'idle' | 'daily' | null {
  if (policy.mode === 'none') return null;
  if ((policy.mode === 'both' || policy.mode === 'idle') && nowMs - lastMs > policy.idleMinutes * 60_000) return 'idle';
  if (policy.mode === 'both' || policy.mode === 'daily') {
    const boundary = new Date(nowMs);
    boundary.setHours(policy.atHour, 0, 0, 0);
    if (boundary.getTime() > nowMs) boundary.setDate(boundary.getDate() - 1);
    if (lastMs < boundary.getTime()) return 'daily';
  }
  return null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Routing shared with other gateways (a cluster on PostgreSQL: cluster/routing.ts). */
export interface RoutingShare {
  get(key: string): Promise<SessionEntry | null>;
  /** Records an entry (in the background; failures are logged). */
  put(entry: SessionEntry): void;
}

export class SessionIndex {
  readonly path: string;
  private entries: Record<string, SessionEntry>;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  private readonly shared: RoutingShare | undefined;

  constructor(home: string, opts: { now?: () => number; shared?: RoutingShare } = {}) {
    this.path = join(home, 'sessions', 'sessions.json');
    this.now = opts.now ?? Date.now;
    this.shared = opts.shared;
    const raw = existsSync(this.path) ? readJsonObject<Record<string, SessionEntry>>(this.path) : {};
    this.entries = {};
    for (const [k, v] of Object.entries(raw)) {
      if (v && typeof v.session_id === 'string' && /^[A-Za-z0-9_.-]+$/.test(v.session_id)) this.entries[k] = v;
    }
  }

  get(key: string): SessionEntry | undefined {
    return this.entries[key];
  }

  /** Takes the shared entry of a key when it is newer than ours (the chat went on at another gateway). */
  async refresh(key: string): Promise<void> {
    if (!this.shared) return;
    const remote = await this.shared.get(key);
    const local = this.entries[key];
    if (!remote || (local && Date.parse(local.updated_at) >= Date.parse(remote.updated_at))) return;
    this.entries[key] = remote;
    this.saveSoon();
  }

  all(): SessionEntry[] {
    return Object.values(this.entries);
  }

  /** The current entry for a key, creating one (with a new session id) when there is none. */
  ensure(key: string, source: SessionSource): { entry: SessionEntry; created: boolean } {
    const e = this.entries[key];
    if (e) return { entry: e, created: false };
    return { entry: this.create(key, source), created: true };
  }

  create(key: string, source: SessionSource, opts: { sessionId?: string; resetReason?: string; prev?: string } = {}): SessionEntry {
    const now = iso(this.now());
    const entry: SessionEntry = {
      session_key: key,
      session_id: opts.sessionId ?? newSessionId(),
      created_at: now,
      updated_at: now,
      display_name: source.chatName ?? source.userName ?? null,
      platform: source.platform,
      chat_type: source.chatType,
      origin: sourceToDict(source),
    };
    if (opts.resetReason) {
      entry.was_auto_reset = opts.resetReason !== 'new_session';
      entry.auto_reset_reason = opts.resetReason;
      entry.prev_session_id = opts.prev ?? null;
    }
    this.entries[key] = entry;
    this.shared?.put(entry);
    this.saveSoon(200);
    return entry;
  }

  /** Points the key at another session id (a /new or reset inside a warm session). */
  setSessionId(key: string, sessionId: string, reason: string, prev?: string): void {
    const e = this.entries[key];
    if (!e || e.session_id === sessionId) return;
    e.prev_session_id = prev ?? e.session_id;
    e.session_id = sessionId;
    e.auto_reset_reason = reason;
    e.was_auto_reset = reason !== 'new_session';
    e.created_at = e.updated_at = iso(this.now());
    this.shared?.put(e);
    this.saveNow();
  }

  touch(key: string, source?: SessionSource, usage?: { input: number; output: number }): void {
    const e = this.entries[key];
    if (!e) return;
    e.updated_at = iso(this.now());
    if (source) e.origin = sourceToDict(source);
    if (usage) {
      e.input_tokens = (e.input_tokens ?? 0) + usage.input;
      e.output_tokens = (e.output_tokens ?? 0) + usage.output;
    }
    this.shared?.put(e);
    this.saveSoon();
  }

  lastActive(key: string): number | null {
    const e = this.entries[key];
    return e ? Date.parse(e.updated_at) : null;
  }

  /** Entries whose chat matches (for delivery mirroring and the channel directory). */
  find(platform: string, chatId: string, threadId?: string): SessionEntry[] {
    return this.all().filter((e) => {
      const o = e.origin as Record<string, unknown> | undefined;
      return o && o.platform === platform && String(o.chat_id) === chatId && (threadId === undefined || String(o.thread_id ?? '') === threadId);
    });
  }

  /**
   * Coalesces writes: many chats touching the index cost one write per interval, made in the
   * background (saveInBackground), one at a time.
   */
  private saveSoon(ms = 1000): void {
    this.dirty = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.dirty) this.saveInBackground();
    }, ms);
    this.timer.unref?.();
  }

  /** Bumped by every save: a background write overtaken by a newer save is dropped. */
  private saves = 0;
  private writing = false;

  private saveInBackground(): void {
    this.dirty = false;
    const mine = ++this.saves;
    this.writing = true;
    void writeJsonInBackground(this.path, this.entries, 0o600, () => this.saves !== mine)
      .catch(() => {
        this.dirty = true; // (retried with the next change or at exit)
      })
      .finally(() => {
        this.writing = false;
        if (this.dirty) this.saveSoon();
      });
  }

  saveNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.dirty = false;
    this.saves++;
    writeJson(this.path, this.entries, 0o600);
  }

  flush(): void {
    if (this.dirty || this.timer || this.writing) this.saveNow();
  }
}
