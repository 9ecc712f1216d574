// SessionDB on PostgreSQL: the same methods, rules and answers as the SQLite SessionDB (db.ts),
// over tables with state.db's columns (schema.ts). Writes go through PgDb's ordered queue, so the
// agent loop's unawaited appends land in order and a later read sees them; each message is
// committed on its own, as on SQLite, so a killed process loses nothing it already produced.
import { DelegationRows } from '../delegations.ts';
import type { Message } from '../../../llm/types.ts';
import {
  contentToText,
  json,
  likeEscape,
  messagePageSql,
  type MessagePage,
  listWhere,
  findSessionsSql,
  REWIND_SQL,
  ACTIVE_SINCE_SQL,
  usageSql,
  type FindFilter,
  type UsageData,
  MAX_TITLE_LENGTH,
  mergeModelConfig,
  nextInLineage,
  normalizeSessionRow,
  parseModelConfig,
  pickTitled,
  rowToMessage,
  sanitizeTitle,
  sessionModelConfig,
  splitLineageTitle,
  TitleConflictError,
  TITLE_LOOKUP_SQL,
  type CreateSessionMeta,
  type DbStats,
  type SearchHit,
  type SearchOptions,
  type SessionListItem,
  type SessionRow,
  billingBaseUrl,
  MODEL_USAGE_SELECT,
  MODEL_USAGE_UPSERT,
  modelUsageArgs,
  type ModelUsageRow,
  sessionProfileName,
  toModelUsageRow,
  toModelUsagePart,
  usageCounts,
} from '../../db-rows.ts';
import { MESSAGE_COLUMNS, SCHEMA_VERSION } from '../../db-schema.ts';
import type { ListOptions, SessionStore, UsageRecord } from '../types.ts';
import { cjkSource, ftsSource, tsvectorLiteral } from './fts.ts';
import { PgDb, redactUrl, type Param, type Queryable, type Row } from './pool.ts';
import { migratePg } from './schema.ts';
import { listPlan, runPlan } from '../../recent-sessions.ts';
import { searchPg } from './search.ts';

const now = () => Date.now() / 1000;
const LIVE = '(active = 1 OR active IS NULL)';
const SHOWN = '(active = 1 OR active IS NULL OR compacted = 1)';
/** The state.db columns of `messages` (not the search columns). */
const MESSAGE_SELECT = MESSAGE_COLUMNS.map(([n]) => n).join(', ');

function isUniqueViolation(e: unknown, index: string): boolean {
  const err = e as { code?: string; constraint?: string };
  return err?.code === '23505' && err.constraint === index;
}

export class PgSessionStore implements SessionStore {
  readonly backend = 'postgres' as const;
  readonly file = null;
  readonly db: PgDb;
  readonly location: string;
  readonly compatNote: string | null;
  readonly delegations: DelegationRows = new DelegationRows(this);
  private closed = false;

  private constructor(db: PgDb, schemaVersion: number) {
    this.db = db;
    this.location = redactUrl(db.url);
    this.compatNote =
      schemaVersion > SCHEMA_VERSION
        ? `${this.location} was written by a newer Hermes (schema v${schemaVersion}; this version knows v${SCHEMA_VERSION}). It is used as it is.`
        : null;
  }

  /** Connects, creating or upgrading the tables. */
  static async open(url: string, opts: { max?: number } = {}): Promise<PgSessionStore> {
    const db = await PgDb.connect(url, opts);
    try {
      const { schemaVersion } = await migratePg(db);
      return new PgSessionStore(db, schemaVersion);
    } catch (e) {
      await db.close();
      throw e;
    }
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  flush(): Promise<void> {
    return this.db.settled();
  }

  /** A write, waiting through a database restart (up to 90 s) in its place in the order of writes. */
  private w<T>(fn: (q: Queryable) => Promise<T>, tx = false): Promise<T> {
    return this.db.write(fn, { tx, retryForMs: 90_000 });
  }

  async getMeta(key: string): Promise<string | null> {
    const r = await this.db.get('SELECT value FROM state_meta WHERE key = ?', [key]);
    return (r?.value as string | null | undefined) ?? null;
  }

  setMeta(key: string, value: string | null): Promise<void> {
    return this.w(async (q) => {
      if (value === null) await q.run('DELETE FROM state_meta WHERE key = ?', [key]);
      else await q.run('INSERT INTO state_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
    });
  }

  // ------------------------------------------------------------------------------------------
  // sessions

  createSession(meta: CreateSessionMeta): Promise<void> {
    const title = sanitizeTitle(meta.title);
    const modelConfig = sessionModelConfig(meta);
    return this.w(async (q) => {
      await q.run(
        `INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at, cwd, title, profile_name)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET ended_at = NULL, end_reason = NULL, model = COALESCE(EXCLUDED.model, sessions.model),
           profile_name = COALESCE(sessions.profile_name, EXCLUDED.profile_name)`,
        [meta.id, meta.source, meta.userId ?? null, meta.model ?? null, modelConfig ? JSON.stringify(modelConfig) : null, meta.systemPrompt ?? null, meta.parentId ?? null, meta.startedAt ?? now(), meta.cwd ?? null, title, sessionProfileName(meta)],
      );
    });
  }

  endSession(sessionId: string, reason: string): Promise<void> {
    return this.w(async (q) => void (await q.run('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL', [now(), reason, sessionId])));
  }

  reopenSession(sessionId: string): Promise<void> {
    return this.w(async (q) => void (await q.run('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?', [sessionId])));
  }

  updateSystemPrompt(sessionId: string, prompt: string): Promise<void> {
    return this.w(async (q) => void (await q.run('UPDATE sessions SET system_prompt = ? WHERE id = ?', [prompt, sessionId])));
  }

  async getModelConfig(sessionId: string): Promise<Record<string, unknown>> {
    return parseModelConfig((await this.db.get('SELECT model_config FROM sessions WHERE id = ?', [sessionId]))?.model_config);
  }

  patchModelConfig(sessionId: string, patch: Record<string, unknown>): Promise<void> {
    return this.w(async (q) => {
      const row = await q.get('SELECT model_config FROM sessions WHERE id = ? FOR UPDATE', [sessionId]);
      await q.run('UPDATE sessions SET model_config = ? WHERE id = ?', [mergeModelConfig(parseModelConfig(row?.model_config), patch), sessionId]);
    }, true);
  }

  async getSession(id: string): Promise<SessionRow | null> {
    const row = await this.db.get('SELECT * FROM sessions WHERE id = ?', [id]);
    return row ? normalizeSessionRow(row) : null;
  }

  async listSessions(opts: ListOptions & { limit?: number; offset?: number } = {}): Promise<SessionListItem[]> {
    const { where, args } = listWhere(opts, true);
    const rows = await runPlan(listPlan(where, args, opts.limit ?? 20, opts.offset ?? 0), (q) => this.db.all(q.sql, q.args));
    return rows.map((r) => ({ ...normalizeSessionRow(r), preview: String(r.preview ?? ''), last_active: Number(r.last_active) }));
  }

  async countSessions(opts: ListOptions | string = {}): Promise<number> {
    const o = typeof opts === 'string' ? { source: opts, includeTool: true } : opts;
    const { where, args } = listWhere(o, true);
    return Number((await this.db.get(`SELECT COUNT(*) AS n FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`, args))?.n ?? 0);
  }

  async facets(): Promise<{ sources: { value: string; count: number }[]; models: { value: string; count: number }[] }> {
    const q = async (col: 'source' | 'model') =>
      (await this.db.all(`SELECT ${col} AS value, COUNT(*) AS count FROM sessions WHERE ${col} IS NOT NULL AND ${col} <> '' GROUP BY ${col} ORDER BY count DESC LIMIT 200`)).map((r) => ({
        value: String(r.value),
        count: Number(r.count),
      }));
    return { sources: await q('source'), models: await q('model') };
  }

  setArchived(id: string, archived: boolean): Promise<boolean> {
    return this.w(async (q) => (await q.run('UPDATE sessions SET archived = ? WHERE id = ?', [archived ? 1 : 0, id])) > 0);
  }

  async mostRecentSession(source?: string, cwdUnder?: string): Promise<SessionRow | null> {
    const item = (await this.listSessions({ source, cwdUnder, limit: 1 }))[0];
    return item ? this.getSession(item.id) : null;
  }

  async resolveSession(idOrTitle: string): Promise<string | null> {
    const key = idOrTitle.trim();
    if (!key) return null;
    if (await this.db.get('SELECT 1 FROM sessions WHERE id = ?', [key])) return key;
    const { base } = splitLineageTitle(key);
    for (const exact of [true, false]) {
      const rows = (await this.db.all(exact ? TITLE_LOOKUP_SQL.exact : TITLE_LOOKUP_SQL.folded, [key, base, `${likeEscape(base)} #%`])) as { id: string; title: string }[];
      const hit = pickTitled(rows, key, exact);
      if (hit) return hit;
    }
    if (key.length >= 4) {
      const rows = await this.db.all(`SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2`, [`${likeEscape(key)}%`]);
      if (rows.length === 1) return String(rows[0].id);
    }
    return null;
  }

  setTitle(id: string, title: string | null): Promise<void> {
    const t = sanitizeTitle(title);
    return this.w(async (q) => {
      if (t) {
        const clash = await q.get('SELECT id FROM sessions WHERE title = ? AND id <> ?', [t, id]);
        if (clash) throw new TitleConflictError(`The title "${t}" is already used by session ${String(clash.id)}. Pick another one.`);
      }
      let changed: number;
      try {
        changed = await q.run('UPDATE sessions SET title = ? WHERE id = ?', [t, id]);
      } catch (e) {
        // Another process took the title between the check and the update.
        if (isUniqueViolation(e, 'idx_sessions_title_unique')) throw new TitleConflictError(`The title "${t}" is already used by another session. Pick another one.`);
        throw e;
      }
      if (!changed) throw new Error(`No session ${id}.`);
    });
  }

  async nextTitleInLineage(title: string): Promise<string> {
    const { base } = splitLineageTitle(title);
    const rows = await this.db.all(`SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'`, [base, `${likeEscape(base)} #%`]);
    return nextInLineage(
      base,
      rows.map((r) => String(r.title)),
    );
  }

  async uniqueTitle(wanted: string): Promise<string | null> {
    const t = sanitizeTitle(wanted.slice(0, MAX_TITLE_LENGTH));
    if (!t) return null;
    if (!(await this.db.get('SELECT 1 FROM sessions WHERE title = ?', [t]))) return t;
    return this.nextTitleInLineage(t);
  }

  async descendants(id: string): Promise<SessionRow[]> {
    const rows = await this.db.all(
      `WITH RECURSIVE d(id) AS (SELECT id FROM sessions WHERE parent_session_id = ?
         UNION SELECT s.id FROM sessions s JOIN d ON s.parent_session_id = d.id)
       SELECT s.* FROM sessions s JOIN d ON s.id = d.id ORDER BY s.started_at`,
      [id],
    );
    return rows.map((r) => normalizeSessionRow(r));
  }

  async ancestors(id: string): Promise<SessionRow[]> {
    const rows = await this.db.all(
      `WITH RECURSIVE a(id, depth) AS (SELECT parent_session_id, 1 FROM sessions WHERE id = ? AND parent_session_id IS NOT NULL
         UNION SELECT s.parent_session_id, a.depth + 1 FROM sessions s JOIN a ON s.id = a.id WHERE s.parent_session_id IS NOT NULL AND a.depth < 1000)
       SELECT s.* FROM sessions s JOIN a ON s.id = a.id ORDER BY a.depth`,
      [id],
    );
    return rows.map((r) => normalizeSessionRow(r));
  }

  private static async deleteOne(q: Queryable, id: string): Promise<number> {
    await q.run('DELETE FROM messages WHERE session_id = ?', [id]);
    await q.run('UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?', [id]);
    return q.run('DELETE FROM sessions WHERE id = ?', [id]);
  }

  deleteSession(id: string): Promise<boolean> {
    return this.w(async (q) => (await PgSessionStore.deleteOne(q, id)) > 0, true);
  }

  async pruneSessions(olderThanDays: number, source?: string): Promise<number> {
    const cutoff = now() - olderThanDays * 86_400;
    const rows = await this.db.all(
      `SELECT id FROM sessions WHERE ended_at IS NOT NULL AND started_at < ?${source ? ' AND source = ?' : ''}`,
      source ? [cutoff, source] : [cutoff],
    );
    if (!rows.length) return 0;
    await this.w(async (q) => {
      for (const r of rows) await PgSessionStore.deleteOne(q, String(r.id));
    }, true);
    return rows.length;
  }

  async findSessions(f: FindFilter): Promise<string[]> {
    const { sql, args } = findSessionsSql(f, true);
    return (await this.db.all(sql, args)).map((r) => String(r.id));
  }

  async activeSince(since: number): Promise<number> {
    return Number((await this.db.get(ACTIVE_SINCE_SQL, [since]))?.n ?? 0);
  }

  async usageSince(cutoff: number, source: string | null): Promise<UsageData> {
    const q = usageSql(source);
    const args: Param[] = source ? [cutoff, source] : [cutoff];
    const [sessions, tools, users, models] = [await this.db.all(q.sessions, args), await this.db.all(q.tools, args), await this.db.get(q.userMessages, args), await this.db.all(q.models, args)];
    return {
      sessions: sessions.map((r) => normalizeSessionRow(r)),
      tools: tools.map((t) => ({ tool: String(t.tool), count: Number(t.count) })),
      userMessages: Number(users?.n ?? 0),
      models: models.map(toModelUsagePart),
    };
  }

  // ------------------------------------------------------------------------------------------
  // messages

  /** One write each, in order (each retried through a restart in its place, as appendMessage). */
  appendMessages(sessionId: string, ms: Message[]): Promise<number[]> {
    return Promise.all(ms.map((m) => this.appendMessage(sessionId, m)));
  }

  appendMessage(sessionId: string, m: Message): Promise<number> {
    return this.w((q) => PgSessionStore.insertMessage(q, sessionId, m));
  }

  /** One message row and the session's counters, in one statement (one round trip). */
  private static async insertMessage(q: Queryable, sessionId: string, m: Message): Promise<number> {
    const calls = m.tool_calls?.length ? m.tool_calls : undefined;
    const content = contentToText(m.content);
    const toolCalls = json(calls);
    const toolName = m.tool_name ?? null;
    const params: Param[] = [
      sessionId,
      m.role,
      content,
      m.tool_call_id ?? null,
      toolCalls,
      toolName,
      m.timestamp ?? now(),
      m.finish_reason ?? null,
      m.reasoning ?? null,
      json(m.reasoning_details),
      json(m.codex_reasoning_items),
      m.platform_message_id ?? null,
      m.observed ? 1 : 0,
      tsvectorLiteral(ftsSource(content, toolName, toolCalls)),
      cjkSource(m.role, content, toolName, toolCalls),
      calls?.length ?? 0,
    ];
    const r = await q.get(
      `WITH ins AS (
         INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason,
           reasoning, reasoning_details, codex_reasoning_items, platform_message_id, observed, active, fts, cjk)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?::tsvector, ?) RETURNING id, session_id)
       , upd AS (UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ? FROM ins WHERE sessions.id = ins.session_id)
       SELECT id FROM ins`,
      params,
    );
    return Number(r?.id);
  }

  recordUsage(sessionId: string, r: UsageRecord, model: string, provider: string, baseUrl?: string): Promise<void> {
    const u = r.usage;
    const url = baseUrl ? billingBaseUrl(baseUrl) : null;
    return this.w(async (q) => {
      await q.run(
        `UPDATE sessions SET
           input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
           cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
           reasoning_tokens = reasoning_tokens + ?, api_call_count = api_call_count + ?,
           estimated_cost_usd = CASE WHEN ?::float8 IS NULL THEN estimated_cost_usd ELSE COALESCE(estimated_cost_usd, 0) + ?::float8 END,
           cost_status = CASE WHEN ?::float8 IS NULL THEN cost_status ELSE 'estimated' END,
           model = ?, billing_provider = ?, billing_base_url = COALESCE(?::text, billing_base_url)
         WHERE id = ?`,
        [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens, r.apiCalls, r.costUsd, r.costUsd, r.costUsd, model, provider, url, sessionId],
      );
      if (!usageCounts(r)) return;
      const route = await q.get('SELECT billing_base_url, billing_mode FROM sessions WHERE id = ?', [sessionId]);
      if (route) await q.run(MODEL_USAGE_UPSERT, modelUsageArgs(sessionId, r, model, provider, String(route.billing_base_url ?? ''), String(route.billing_mode ?? ''), now()));
    });
  }

  async modelUsage(sessionId: string): Promise<ModelUsageRow[]> {
    return (await this.db.all(MODEL_USAGE_SELECT, [sessionId])).map(toModelUsageRow);
  }

  async getMessageRows(sessionId: string, which: 'live' | 'shown' | 'all' = 'live'): Promise<Row[]> {
    const cond = which === 'all' ? '' : which === 'shown' ? SHOWN : LIVE;
    return this.db.all(`SELECT ${MESSAGE_SELECT} FROM messages WHERE session_id = ?${cond ? ` AND ${cond}` : ''} ORDER BY id`, [sessionId]);
  }

  async getMessages(sessionId: string): Promise<Message[]> {
    return (await this.getMessageRows(sessionId)).map(rowToMessage);
  }

  async getTranscript(sessionId: string): Promise<Message[]> {
    return (await this.getMessageRows(sessionId, 'shown')).map(rowToMessage);
  }

  rewindLast(sessionId: string, count: number): Promise<number> {
    if (count <= 0) return Promise.resolve(0);
    return this.w(async (q) => {
      const n = await q.run(REWIND_SQL.rows, [sessionId, count]);
      if (n) await q.run(REWIND_SQL.session, [sessionId]);
      return n;
    }, true);
  }

  async messageCount(sessionId: string): Promise<number> {
    return Number((await this.db.get('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?', [sessionId]))?.n ?? 0);
  }

  async messagePage(sessionId: string, page: MessagePage): Promise<Row[]> {
    const q = messagePageSql(LIVE, page);
    const rows = await this.db.all(q.sql.replace('SELECT *', `SELECT ${MESSAGE_SELECT}`), [sessionId, ...q.args]);
    return q.reverse ? rows.reverse() : rows;
  }

  async liveMessageCount(sessionId: string): Promise<number> {
    return Number((await this.db.get(`SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND ${LIVE}`, [sessionId]))?.n ?? 0);
  }

  // ------------------------------------------------------------------------------------------
  // in-place compression (the same lease and archive as SessionDB: compression_locks, active=0/compacted=1)

  /** The layout always has the `compacted` column and the lock table. */
  get canCompactInPlace(): boolean {
    return true;
  }

  /** Takes a session's compression lease; false while another live holder has it (an expired one is reclaimed). */
  async tryAcquireCompressionLock(sessionId: string, holder: string, ttlSeconds = 300): Promise<boolean> {
    const t = now();
    try {
      return await this.w(async (q) => {
        await q.run('DELETE FROM compression_locks WHERE session_id = ? AND expires_at <= ?', [sessionId, t]);
        // Two machines racing: the primary key lets one insert win; the other reads the winner.
        await q.run('INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING', [sessionId, holder, t, t + ttlSeconds]);
        const held = await q.get('SELECT holder FROM compression_locks WHERE session_id = ?', [sessionId]);
        return held?.holder === holder;
      }, true);
    } catch {
      return false;
    }
  }

  async getCompressionLockHolder(sessionId: string): Promise<string | null> {
    const row = await this.db.get('SELECT holder FROM compression_locks WHERE session_id = ? AND expires_at > ?', [sessionId, now()]);
    return row ? String(row.holder) : null;
  }

  async releaseCompressionLock(sessionId: string, holder: string): Promise<boolean> {
    try {
      return (await this.w((q) => q.run('DELETE FROM compression_locks WHERE session_id = ? AND holder = ?', [sessionId, holder]))) > 0;
    } catch {
      return false;
    }
  }

  /**
   * In one transaction: the live rows become `active = 0, compacted = 1` and `messages` become the
   * new live rows under the same id; counts follow the live rows. With `lockHolder`, refused unless
   * that holder still has an unexpired lease (the lock row is held FOR UPDATE until the commit).
   */
  archiveAndCompact(sessionId: string, messages: Message[], opts: { lockHolder?: string } = {}): Promise<number> {
    return this.w(async (q) => {
      if (opts.lockHolder !== undefined) {
        const lock = await q.get('SELECT holder, expires_at FROM compression_locks WHERE session_id = ? FOR UPDATE', [sessionId]);
        if (!lock || lock.holder !== opts.lockHolder || Number(lock.expires_at) <= now()) {
          throw new Error(`the compression lease for session ${sessionId} was lost before the commit; the compaction was not saved`);
        }
      }
      await q.run(`UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND ${LIVE}`, [sessionId]);
      await q.run('UPDATE sessions SET message_count = 0, tool_call_count = 0 WHERE id = ?', [sessionId]);
      for (const m of messages) await PgSessionStore.insertMessage(q, sessionId, m);
      return messages.length;
    }, true);
  }

  setCompressionCooldown(sessionId: string, untilS: number | null, error: string | null): Promise<void> {
    return this.w(async (q) => void (await q.run('UPDATE sessions SET compression_failure_cooldown_until = ?, compression_failure_error = ? WHERE id = ?', [untilS, error, sessionId])));
  }

  async getCompressionCooldown(sessionId: string): Promise<{ untilS: number; error: string | null } | null> {
    const r = await this.db.get('SELECT compression_failure_cooldown_until AS u, compression_failure_error AS e FROM sessions WHERE id = ?', [sessionId]);
    return r && r.u !== null && r.u !== undefined ? { untilS: Number(r.u), error: (r.e as string | null) ?? null } : null;
  }

  async searchMessages(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    await this.db.settled();
    return searchPg(this.db, query, opts);
  }

  // ------------------------------------------------------------------------------------------
  // export, stats

  async exportSession(id: string): Promise<Record<string, unknown> | null> {
    const s = await this.getSession(id);
    if (!s) return null;
    return { ...s, messages: await this.getMessageRows(id, 'all') };
  }

  async sessionIds(source?: string): Promise<string[]> {
    const rows = await this.db.all(`SELECT id FROM sessions${source ? ' WHERE source = ?' : ''} ORDER BY started_at`, source ? [source] : []);
    return rows.map((r) => String(r.id));
  }

  sqlRun(sql: string, params: Param[]): Promise<number> {
    return this.db.run(sql, params);
  }

  sqlAll(sql: string, params: Param[]): Promise<Row[]> {
    return this.db.all(sql, params);
  }

  async stats(): Promise<DbStats> {
    const s = (await this.db.get(
      'SELECT COUNT(*) AS n, COALESCE(SUM(input_tokens),0) AS inp, COALESCE(SUM(output_tokens),0) AS outp, COALESCE(SUM(cache_read_tokens),0) AS cr, COALESCE(SUM(cache_write_tokens),0) AS cw, COALESCE(SUM(reasoning_tokens),0) AS rsn, COALESCE(SUM(estimated_cost_usd),0) AS cost, MIN(started_at) AS oldest, MAX(started_at) AS newest, COALESCE(SUM(archived),0) AS archived FROM sessions',
    ))!;
    const m = await this.db.get('SELECT COUNT(*) AS n FROM messages');
    const bySource: Record<string, number> = {};
    for (const r of await this.db.all('SELECT source, COUNT(*) AS n FROM sessions GROUP BY source ORDER BY n DESC')) bySource[String(r.source)] = Number(r.n);
    const v = await this.db.get('SELECT version FROM schema_version LIMIT 1');
    const size = await this.db.get("SELECT pg_total_relation_size('messages') + pg_total_relation_size('sessions') AS n");
    return {
      sessions: Number(s.n),
      archived: Number(s.archived),
      messages: Number(m?.n ?? 0),
      bySource,
      inputTokens: Number(s.inp),
      outputTokens: Number(s.outp),
      cacheReadTokens: Number(s.cr),
      cacheWriteTokens: Number(s.cw),
      reasoningTokens: Number(s.rsn),
      costUsd: Number(s.cost),
      oldest: s.oldest === null ? null : Number(s.oldest),
      newest: s.newest === null ? null : Number(s.newest),
      dbBytes: Number(size?.n ?? 0),
      walBytes: 0,
      schemaVersion: Number(v?.version ?? 0),
    };
  }
}
