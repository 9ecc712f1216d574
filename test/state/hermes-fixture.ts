// Builds state.db files in old layouts, for the migration tests only (the compatibility tests use the
// file real Python Hermes 0.18.2 wrote, test/fixtures/hermes-0.18.2-home). The DDL follows Hermes's
// schema as documented (hermes-spec.md §8): v11 = inline FTS over content, tool name and tool calls,
// plus the trigram table (Hermes 0.14, and this project's files before schema v19); v6 = the early
// external-content FTS layout.
import { sqlite } from '../../src/state/sqlite.ts';

const V11_SESSIONS = `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)`;

const V11_MESSAGES = `CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT
)`;

const inline = (t: string) => `COALESCE(${t}.content, '') || ' ' || COALESCE(${t}.tool_name, '') || ' ' || COALESCE(${t}.tool_calls, '')`;

const V11_FTS = `
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${inline('new')});
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${inline('new')});
END;
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${inline('new')});
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, ${inline('new')});
END;
`;

const INDEXES = `
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
`;

export interface FixtureMessage {
  role: string;
  content?: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
  tool_name?: string;
  reasoning?: string;
  reasoning_content?: string;
  finish_reason?: string;
}

function insertConversation(
  db: InstanceType<ReturnType<typeof sqlite>['DatabaseSync']>,
  session: { id: string; source: string; model: string; title?: string; started: number; ended?: number; parent?: string; system?: string },
  messages: FixtureMessage[],
  v11: boolean,
): void {
  db.prepare(
    `INSERT INTO sessions (id, source, model, system_prompt, parent_session_id, started_at, ended_at, end_reason, title, message_count) VALUES (?,?,?,?,?,?,?,?,?,?)`,
  ).run(session.id, session.source, session.model, session.system ?? 'You are Hermes Agent.', session.parent ?? null, session.started, session.ended ?? null, session.ended ? 'cli_close' : null, session.title ?? null, messages.length);
  let t = session.started;
  for (const m of messages) {
    t += 1.5;
    if (v11)
      db.prepare(
        `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_content) VALUES (?,?,?,?,?,?,?,?,?,?)`,
      ).run(session.id, m.role, m.content ?? null, m.tool_call_id ?? null, m.tool_calls ? JSON.stringify(m.tool_calls) : null, m.tool_name ?? null, t, m.finish_reason ?? null, m.reasoning ?? null, m.reasoning_content ?? null);
    else
      db.prepare(`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason) VALUES (?,?,?,?,?,?,?,?)`).run(
        session.id,
        m.role,
        m.content ?? null,
        m.tool_call_id ?? null,
        m.tool_calls ? JSON.stringify(m.tool_calls) : null,
        m.tool_name ?? null,
        t,
        m.finish_reason ?? null,
      );
  }
}

export const PY_CONVERSATION: FixtureMessage[] = [
  { role: 'user', content: 'How big is the nginx access log on the web box?' },
  {
    role: 'assistant',
    content: null,
    reasoning: 'I should check the file size with du.',
    finish_reason: 'tool_calls',
    tool_calls: [{ id: 'call_ab12cd34', type: 'function', function: { name: 'terminal', arguments: '{"command": "du -sh /var/log/nginx/access.log"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_ab12cd34', tool_name: 'terminal', content: '{"output": "1.2G\\t/var/log/nginx/access.log", "exit_code": 0}' },
  { role: 'assistant', content: 'The nginx access log is 1.2 GB. Consider rotating it with logrotate.', finish_reason: 'stop' },
];

/** A state.db as Python Hermes v0.14 (schema v11) left it: two sessions, one titled, CJK content. */
export function buildV11Fixture(path: string): void {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode=WAL');
  db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  db.exec('INSERT INTO schema_version (version) VALUES (11)');
  db.exec(V11_SESSIONS);
  db.exec(V11_MESSAGES);
  db.exec('CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT)');
  db.exec(INDEXES);
  db.exec(V11_FTS);
  const started = Date.now() / 1000 - 3 * 86_400;
  insertConversation(db, { id: '20260510_101500_a1b2c3', source: 'cli', model: 'anthropic/claude-sonnet-4.6', title: 'Nginx log size', started, ended: started + 60 }, PY_CONVERSATION, true);
  insertConversation(
    db,
    { id: '20260511_090000_d4e5f6', source: 'telegram', model: 'anthropic/claude-sonnet-4.6', started: started + 86_400 },
    [
      { role: 'user', content: '帮我总结一下数据库迁移的步骤' },
      { role: 'assistant', content: '数据库迁移的步骤：先备份，再运行迁移脚本，最后验证。', reasoning_content: 'The user wants a summary in Chinese.' },
    ],
    true,
  );
  db.prepare('UPDATE sessions SET input_tokens = 1200, output_tokens = 340, api_call_count = 2, estimated_cost_usd = 0.0087 WHERE id = ?').run('20260510_101500_a1b2c3');
  db.close();
}

/** A state.db from an early Hermes (schema v6): external-content FTS over content only, no trigram. */
export function buildV6Fixture(path: string): void {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode=WAL');
  db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  db.exec('INSERT INTO schema_version (version) VALUES (6)');
  db.exec(`CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT,
    parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id))`);
  db.exec(`CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
    finish_reason TEXT)`);
  db.exec(`CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;`);
  insertConversation(db, { id: '20260301_080000_000001', source: 'cli', model: 'openai/gpt-5', title: 'Old log question', started: Date.now() / 1000 - 200 * 86_400, ended: Date.now() / 1000 - 199 * 86_400 }, PY_CONVERSATION, false);
  db.close();
}
