// `hermes state migrate --to postgres`: copies HERMES_HOME/state.db into the PostgreSQL database
// (`--url`, else HERMES_DATABASE_URL or state.url), row for row: the same session ids, message ids,
// titles, counters and timestamps, with the search columns computed on the way. Running it again
// copies only what is not there yet. state.db is read, never changed; switch with
// `hermes config set state.backend postgres` afterwards.
import { existsSync } from 'node:fs';
import { SessionDB } from '../state/db.ts';
import { MESSAGE_COLUMNS, MODEL_USAGE_COLUMNS, SESSION_COLUMNS } from '../state/db-schema.ts';
import { paths } from '../state/paths.ts';
import { cjkSource, ftsSource, tsvectorLiteral } from '../state/store/postgres/fts.ts';
import { redactUrl, type Param } from '../state/store/postgres/pool.ts';
import { PgSessionStore } from '../state/store/postgres/sessions.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { configSetting } from '../state/config-env.ts';

export async function stateMigrate(opts: { to?: string; url?: string }): Promise<void> {
  if ((opts.to ?? '').toLowerCase() !== 'postgres') throw new CliError('Only `--to postgres` is supported: hermes state migrate --to postgres [--url postgres://…].', 2);
  const ctx = loadContext({ strict: true });
  const url = String(opts.url || configSetting(ctx.loaded.config, 'state.url', ctx.env) || '').trim();
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new CliError('Name the database: --url postgres://user@host:5432/db (or HERMES_DATABASE_URL, or state.url in config.yaml).', 2);
  const file = paths.stateDb(ctx.home);
  const { copyBoardToPg, localBoardFiles } = await import('../kanban/pg/copy.ts');
  const boards = localBoardFiles(ctx.env);
  if (!existsSync(file)) {
    if (!boards.length) throw new CliError(`There is no ${file} to copy.`, 2);
    copyBoards(boards, url, copyBoardToPg);
    return;
  }
  const src = SessionDB.open(file);
  let pg: PgSessionStore;
  try {
    pg = await PgSessionStore.open(url);
  } catch (e) {
    src.close();
    throw new CliError((e as Error).message);
  }
  try {
    const raw = src.raw;
    const have = (table: string) => new Set((raw.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    const sCols = SESSION_COLUMNS.map(([n]) => n).filter((n) => have('sessions').has(n));
    const mCols = MESSAGE_COLUMNS.map(([n]) => n).filter((n) => have('messages').has(n));
    const sessions = raw.prepare(`SELECT ${sCols.join(', ')} FROM sessions ORDER BY started_at`).all() as Record<string, Param>[];
    let newSessions = 0;
    let newMessages = 0;
    await pg.db.tx(async (q) => {
      // Parents are linked after every session is in (a child may have started first).
      const cols = sCols.map((c) => (c === 'parent_session_id' ? 'NULL' : '?'));
      for (const s of sessions) {
        const vals = sCols.filter((c) => c !== 'parent_session_id').map((c) => s[c] ?? null);
        newSessions += await q.run(`INSERT INTO sessions (${sCols.join(', ')}) VALUES (${cols.join(', ')}) ON CONFLICT (id) DO NOTHING`, vals);
      }
      if (sCols.includes('parent_session_id'))
        for (const s of sessions) if (s.parent_session_id) await q.run('UPDATE sessions SET parent_session_id = ? WHERE id = ? AND parent_session_id IS NULL AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = ?)', [s.parent_session_id, s.id, s.parent_session_id]);
      const stmt = raw.prepare(`SELECT ${mCols.join(', ')} FROM messages WHERE id > ? ORDER BY id LIMIT 1000`);
      let last = 0;
      for (;;) {
        const rows = stmt.all(last) as Record<string, Param>[];
        if (!rows.length) break;
        for (const m of rows) {
          last = Number(m.id);
          const content = (m.content as string | null) ?? null;
          const toolName = (m.tool_name as string | null) ?? null;
          const toolCalls = (m.tool_calls as string | null) ?? null;
          newMessages += await q.run(
            `INSERT INTO messages (${mCols.join(', ')}, fts, cjk) SELECT ${mCols.map(() => '?').join(', ')}, ?::tsvector, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) ON CONFLICT (id) DO NOTHING`,
            [...mCols.map((c) => m[c] ?? null), tsvectorLiteral(ftsSource(content, toolName, toolCalls)), cjkSource(String(m.role), content, toolName, toolCalls), m.session_id],
          );
        }
      }
      await q.run("SELECT setval(pg_get_serial_sequence('messages', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM messages), 1))");
      // Usage per model (v23): rows already there (the migration's seeding) are kept.
      const uCols = MODEL_USAGE_COLUMNS.map(([n]) => n).filter((n) => have('session_model_usage').has(n));
      if (uCols.length)
        for (const u of raw.prepare(`SELECT ${uCols.join(', ')} FROM session_model_usage`).all() as Record<string, Param>[])
          await q.run(
            `INSERT INTO session_model_usage (${uCols.join(', ')}) SELECT ${uCols.map(() => '?').join(', ')} WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) ON CONFLICT DO NOTHING`,
            [...uCols.map((c) => u[c] ?? null), u.session_id],
          );
    });
    process.stdout.write(
      `Copied ${newSessions} session${newSessions === 1 ? '' : 's'} and ${newMessages} message${newMessages === 1 ? '' : 's'} from ${file} to ${redactUrl(url)}` +
        `${newSessions < sessions.length ? ` (${sessions.length - newSessions} sessions were there already)` : ''}.\n` +
        `state.db is unchanged. To use PostgreSQL: hermes config set state.backend postgres (and state.url, or HERMES_DATABASE_URL).\n`,
    );
    copyBoards(boards, url, copyBoardToPg);
  } finally {
    src.close();
    await pg.close();
  }
}

/** Copies this home's kanban.db boards into the database (one line per board). */
function copyBoards(boards: [string, string][], url: string, copy: (file: string, url: string, board: string) => number): void {
  for (const [board, file] of boards) {
    try {
      const n = copy(file, url, board);
      process.stdout.write(`Kanban board '${board}': copied ${n} new row${n === 1 ? '' : 's'} from ${file} (the file is kept).\n`);
    } catch (e) {
      throw new CliError(`Copying the kanban board '${board}' (${file}) failed: ${(e as Error).message}`);
    }
  }
}
