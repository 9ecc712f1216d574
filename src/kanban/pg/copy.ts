// Copying kanban.db boards into PostgreSQL (part of `hermes state migrate --to postgres`): every
// board of this home with a kanban.db file gets its rows copied into its schema, row for row (the
// same task ids, run/event/comment ids, timestamps); running it again copies only what is missing.
// Opening a kanban.db brings its columns up to date first, as any `hermes kanban` command does.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { boardsRoot, dbPath, DEFAULT_BOARD, normalizeSlug } from '../boards.ts';
import { openKanbanDb, writeTxn, type KanbanParam } from '../db.ts';
import { PgKanbanDb } from './db.ts';

const TABLES = ['tasks', 'task_links', 'task_comments', 'task_events', 'task_runs', 'task_attachments', 'kanban_notify_subs'];
const ID_TABLES = ['task_comments', 'task_events', 'task_runs', 'task_attachments'];

/** This home's boards that have a kanban.db file: [slug, file]. */
export function localBoardFiles(env: NodeJS.ProcessEnv): [string, string][] {
  const out: [string, string][] = [];
  if (existsSync(dbPath(DEFAULT_BOARD, env))) out.push([DEFAULT_BOARD, dbPath(DEFAULT_BOARD, env)]);
  const root = boardsRoot(env);
  for (const name of existsSync(root) ? readdirSync(root).sort() : []) {
    let slug: string | null = null;
    try {
      slug = normalizeSlug(name);
    } catch {
      continue;
    }
    if (!slug || slug !== name || slug === DEFAULT_BOARD) continue;
    const file = join(root, name, 'kanban.db');
    if (existsSync(file)) out.push([slug, file]);
  }
  return out;
}

/** Copies one kanban.db into the board's schema; returns how many rows were new. */
export function copyBoardToPg(file: string, url: string, board: string): number {
  const src = openKanbanDb(file);
  let dst: PgKanbanDb | undefined;
  try {
    dst = PgKanbanDb.open(url, board);
    const to = dst;
    return writeTxn(to, () => {
      let added = 0;
      for (const table of TABLES) {
        const mine = new Set((src.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
        const cols = (to.prepare('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position').all(table) as { name: string }[])
          .map((c) => c.name)
          .filter((c) => mine.has(c));
        const insert = to.prepare(`INSERT OR IGNORE INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
        for (const row of src.prepare(`SELECT ${cols.join(', ')} FROM ${table}`).all() as Record<string, KanbanParam>[]) added += Number(insert.run(...cols.map((c) => row[c] ?? null)).changes);
      }
      for (const t of ID_TABLES) to.exec(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM ${t}), 1))`);
      return added;
    });
  } finally {
    dst?.close();
    src.close();
  }
}
