// Conversations for `hermes mcp serve`, read from HERMES_HOME/state.db (Hermes's on-disk format:
// `sessions` and `messages` tables) through a read-only connection, so the server never competes
// with the sessions writing to it — or from PostgreSQL's tables of the same shape when
// `state.backend: postgres`. New messages become events (polled by row id).
import { existsSync, readFileSync } from 'node:fs';
import { paths } from '../state/paths.ts';
import { storeChoice } from '../state/store/index.ts';

type Row = Record<string, unknown>;

/** Read-only SQL on the sessions and messages (`?` placeholders on both backends). */
interface Reader {
  all(sql: string, args?: (string | number)[]): Promise<Row[]>;
  /** Changes when another connection commits (SQLite's data_version); null where unknown (poll anyway). */
  version(): Promise<number | null>;
  readonly columns: Set<string>;
  close(): Promise<void>;
}

async function sqliteReader(path: string): Promise<Reader | null> {
  if (!existsSync(path)) return null;
  const { DatabaseSync: Db } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  const db = new Db(path, { readOnly: true, timeout: 1000 });
  const info = db.prepare('PRAGMA table_info(sessions)').all() as { name: string }[];
  if (!info.length) {
    db.close();
    return null;
  }
  return {
    columns: new Set(info.map((c) => c.name)),
    all: async (sql, args = []) => db.prepare(sql).all(...args) as Row[],
    version: async () => Number((db.prepare('PRAGMA data_version').get() as { data_version: number } | undefined)?.data_version ?? -1),
    close: async () => db.close(),
  };
}

async function pgReader(url: string): Promise<Reader> {
  const { PgDb } = await import('../state/store/postgres/pool.ts');
  const db = await PgDb.connect(url, { max: 2, application: 'hermes-mcp' });
  const cols = await db.all("SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'sessions' AND table_schema = current_schema()");
  return { columns: new Set(cols.map((c) => String(c.name))), all: (sql, args = []) => db.all(sql, args), version: async () => null, close: () => db.close() };
}

export interface Conversation {
  session_key: string;
  session_id: string;
  platform: string;
  chat_type: string;
  display_name: string;
  chat_name: string;
  user_name: string;
  chat_id: string;
  thread_id: string | null;
  title: string | null;
  created_at: string;
  updated_at: string;
  message_count: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ConversationMessage {
  id: string;
  role: string;
  content: string;
  timestamp: number;
}

export interface ConversationEvent {
  cursor: number;
  type: 'message';
  session_key: string;
  session_id: string;
  role: string;
  content: string;
  timestamp: number;
  message_id: string;
}

/** Sessions that are machinery, not conversations. */
const HIDDEN_SOURCES = ['subagent', 'tool'];
const iso = (t: unknown) => {
  const n = Number(t);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000).toISOString() : '';
};

/** Text of a stored message's content (plain text, or a JSON list of parts). */
export function storedText(content: unknown): string {
  if (typeof content !== 'string') return '';
  const t = content.trim();
  if (t.startsWith('[') && t.endsWith(']')) {
    try {
      const parts = JSON.parse(t) as unknown;
      if (Array.isArray(parts))
        return parts
          .filter((p): p is { type: string; text: string } => !!p && typeof p === 'object' && (p as { type?: string }).type === 'text')
          .map((p) => p.text)
          .join('\n');
    } catch {
      /* plain text that happens to look like JSON */
    }
  }
  return content;
}

/** Non-text parts of a stored message: images and `MEDIA:` references. */
export function storedAttachments(content: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (typeof content !== 'string') return out;
  const t = content.trim();
  if (t.startsWith('[')) {
    try {
      const parts = JSON.parse(t) as { type?: string; image_url?: { url?: string } }[];
      if (Array.isArray(parts))
        for (const p of parts) {
          if (p?.type === 'image_url' && p.image_url?.url) out.push({ type: 'image', url: p.image_url.url.startsWith('data:') ? `${p.image_url.url.slice(0, 40)}…` : p.image_url.url });
          else if (p && p.type && p.type !== 'text') out.push({ type: p.type, data: p });
        }
    } catch {
      /* not JSON */
    }
  }
  for (const m of storedText(content).matchAll(/MEDIA:\s*(\S+)/g)) out.push({ type: 'media', path: m[1] });
  return out;
}

export class ConversationStore {
  readonly home: string;
  private readonly config: Parameters<typeof storeChoice>[0];
  private readonly env: NodeJS.ProcessEnv;
  private reader: Promise<Reader | null> | null = null;
  private cols: Set<string> | null = null;
  private lastVersion: number | null = -1;
  private lastId = 0;
  private cursor = 0;
  private events: ConversationEvent[] = [];
  private waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private keyCache = new Map<string, string>();

  /** `config` (state.backend, state.url) picks the store; without it, HERMES_HOME/state.db. */
  constructor(home: string, config?: Parameters<typeof storeChoice>[0], env: NodeJS.ProcessEnv = process.env) {
    this.home = home;
    this.config = config;
    this.env = env;
  }

  private async open(): Promise<Reader | null> {
    this.reader ??= (async () => {
      try {
        const choice = storeChoice(this.config, this.env);
        const r = choice.backend === 'postgres' ? await pgReader(choice.url!) : await sqliteReader(paths.stateDb(this.home));
        this.cols = r?.columns ?? null;
        return r;
      } catch {
        return null;
      }
    })();
    const r = await this.reader;
    // No state.db yet (or the database was unreachable): look again next time.
    if (!r) this.reader = null;
    return r;
  }

  private has(col: string): boolean {
    return !!this.cols?.has(col);
  }

  private toConversation(r: Record<string, unknown>): Conversation {
    let origin: Record<string, unknown> = {};
    if (typeof r.origin_json === 'string') {
      try {
        origin = JSON.parse(r.origin_json) as Record<string, unknown>;
      } catch {
        /* ignore */
      }
    }
    const id = String(r.id);
    const key = (typeof r.session_key === 'string' && r.session_key) || id;
    this.keyCache.set(id, key);
    const input = Number(r.input_tokens ?? 0);
    const output = Number(r.output_tokens ?? 0);
    const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
    return {
      session_key: key,
      session_id: id,
      platform: s(r.source),
      chat_type: s(r.chat_type ?? origin.chat_type),
      display_name: s(r.display_name ?? origin.chat_name ?? r.title ?? r.preview),
      chat_name: s(origin.chat_name),
      user_name: s(origin.user_name),
      chat_id: s(r.chat_id ?? origin.chat_id),
      thread_id: r.thread_id !== undefined && r.thread_id !== null ? String(r.thread_id) : origin.thread_id ? String(origin.thread_id) : null,
      title: r.title ? String(r.title) : null,
      created_at: iso(r.started_at),
      updated_at: iso(r.last_active ?? r.started_at),
      message_count: Number(r.message_count ?? 0),
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
    };
  }

  private async select(where: string, args: (string | number)[], limit: number): Promise<Conversation[]> {
    const db = await this.open();
    if (!db) return [];
    const sql = `
      SELECT s.*,
        COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id), s.started_at) AS last_active,
        COALESCE((SELECT substr(replace(m.content, '
', ' '), 1, 60) FROM messages m
                  WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL ORDER BY m.id LIMIT 1), '') AS preview
      FROM sessions s WHERE s.source NOT IN (${HIDDEN_SOURCES.map(() => '?').join(',')}) ${where}
      ORDER BY last_active DESC LIMIT ?`;
    return (await db.all(sql, [...HIDDEN_SOURCES, ...args, limit])).map((r) => this.toConversation(r));
  }

  async list(opts: { platform?: string; search?: string; limit?: number } = {}): Promise<Conversation[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (opts.platform) {
      where.push('AND lower(s.source) = lower(?)');
      args.push(opts.platform);
    }
    let rows = await this.select(where.join(' '), args, opts.search ? 1000 : (opts.limit ?? 50));
    if (opts.search) {
      const q = opts.search.toLowerCase();
      rows = rows.filter((c) => [c.display_name, c.chat_name, c.session_key, c.title ?? ''].some((x) => x.toLowerCase().includes(q)));
    }
    return rows.slice(0, opts.limit ?? 50);
  }

  /** A conversation by session key (gateway key or session id; a unique id prefix works too). */
  async get(key: string): Promise<Conversation | null> {
    if (!(await this.open())) return null;
    const args: string[] = [key];
    let where = 'AND (s.id = ?';
    if (this.has('session_key')) {
      where += ' OR s.session_key = ?';
      args.push(key);
    }
    where += ')';
    const exact = (await this.select(where, args, 1))[0];
    if (exact) return exact;
    if (key.length >= 6) {
      const byPrefix = await this.select('AND s.id LIKE ?', [`${key.replace(/[%_]/g, '')}%`], 2);
      if (byPrefix.length === 1) return byPrefix[0];
    }
    return null;
  }

  async messages(sessionId: string): Promise<(ConversationMessage & { raw: unknown })[]> {
    const db = await this.open();
    if (!db) return [];
    const rows = await db.all("SELECT id, role, content, timestamp FROM messages WHERE session_id = ? AND role IN ('user', 'assistant') ORDER BY id", [sessionId]);
    return rows.map((r) => ({ id: String(r.id), role: String(r.role), content: storedText(r.content), timestamp: Number(r.timestamp), raw: r.content }));
  }

  /** Channels to send to: channel_directory.json when the gateway wrote one, else conversations with chat ids. */
  async channels(platform?: string): Promise<{ target: string; platform: string; name: string; chat_type: string }[]> {
    const dir = `${this.home}/channel_directory.json`;
    if (existsSync(dir)) {
      try {
        const data = JSON.parse(readFileSync(dir, 'utf8')) as { platforms?: Record<string, { id?: string; chat_id?: string; name?: string; display_name?: string; type?: string }[]> };
        const out: { target: string; platform: string; name: string; chat_type: string }[] = [];
        for (const [p, list] of Object.entries(data.platforms ?? {})) {
          if (platform && p.toLowerCase() !== platform.toLowerCase()) continue;
          for (const ch of Array.isArray(list) ? list : []) {
            const id = ch.id ?? ch.chat_id ?? '';
            out.push({ target: id ? `${p}:${id}` : p, platform: p, name: ch.name ?? ch.display_name ?? '', chat_type: ch.type ?? '' });
          }
        }
        return out;
      } catch {
        /* fall through to conversations */
      }
    }
    const seen = new Set<string>();
    const out: { target: string; platform: string; name: string; chat_type: string }[] = [];
    for (const c of await this.list({ platform, limit: 500 })) {
      if (!c.chat_id) continue;
      const target = `${c.platform}:${c.chat_id}`;
      if (seen.has(target)) continue;
      seen.add(target);
      out.push({ target, platform: c.platform, name: c.display_name, chat_type: c.chat_type });
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // events

  /** Starts watching for new messages (existing history is not replayed). */
  async start(intervalMs = 250): Promise<void> {
    const db = await this.open();
    if (db) {
      this.lastId = Number((await db.all('SELECT COALESCE(MAX(id), 0) AS n FROM messages'))[0]?.n ?? 0);
      this.lastVersion = await db.version();
    }
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const w of this.waiters) w();
    this.waiters.clear();
    const r = this.reader;
    this.reader = null;
    await (await r?.catch(() => null))?.close();
  }

  /** Picks up messages written since the last poll (one poll at a time). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = null));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    const fresh = !this.reader;
    const db = await this.open().catch(() => null);
    if (!db) return;
    if (fresh) this.lastVersion = -1;
    const v = await db.version().catch(() => -1);
    if (v !== null && v === this.lastVersion && v !== -1) return;
    this.lastVersion = v;
    const rows = await db.all("SELECT m.id, m.session_id, m.role, m.content, m.timestamp FROM messages m WHERE m.id > ? AND m.role IN ('user', 'assistant') ORDER BY m.id LIMIT 1000", [this.lastId]);
    const max = Number((await db.all('SELECT COALESCE(MAX(id), 0) AS n FROM messages'))[0]?.n ?? 0);
    for (const r of rows) {
      const text = storedText(r.content);
      if (!text) continue;
      const sid = String(r.session_id);
      this.push({
        cursor: 0,
        type: 'message',
        session_key: await this.keyOf(sid),
        session_id: sid,
        role: String(r.role),
        content: text.slice(0, 500),
        timestamp: Number(r.timestamp),
        message_id: String(r.id),
      });
    }
    this.lastId = Math.max(this.lastId, max);
  }

  private async keyOf(sessionId: string): Promise<string> {
    const cached = this.keyCache.get(sessionId);
    if (cached) return cached;
    if (this.has('session_key')) {
      const r = (await (await this.open())?.all('SELECT session_key FROM sessions WHERE id = ?', [sessionId]))?.[0] as { session_key?: string } | undefined;
      if (r?.session_key) {
        this.keyCache.set(sessionId, r.session_key);
        return r.session_key;
      }
    }
    return sessionId;
  }

  private push(e: ConversationEvent): void {
    e.cursor = ++this.cursor;
    this.events.push(e);
    if (this.events.length > 1000) this.events.splice(0, this.events.length - 1000);
    for (const w of this.waiters) w();
  }

  async pollEvents(after: number, sessionKey: string | undefined, limit: number): Promise<{ events: ConversationEvent[]; next_cursor: number }> {
    await this.poll();
    const events = this.events.filter((e) => e.cursor > after && (!sessionKey || e.session_key === sessionKey || e.session_id === sessionKey)).slice(0, limit);
    return { events, next_cursor: events.length ? events[events.length - 1].cursor : Math.max(after, 0) };
  }

  /** Waits for the next matching event, up to `timeoutMs`. */
  async waitEvent(after: number, sessionKey: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<ConversationEvent | null> {
    const find = () => this.events.find((e) => e.cursor > after && (!sessionKey || e.session_key === sessionKey || e.session_id === sessionKey)) ?? null;
    await this.poll();
    const now = find();
    if (now || timeoutMs <= 0) return now;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', done);
        resolve(find());
      };
      const check = () => {
        if (find() || !this.timer) done();
      };
      const t = setTimeout(done, timeoutMs);
      this.waiters.add(check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
