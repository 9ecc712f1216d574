// Where a board's rows live: kanban.db (the default, Hermes's file) or, when config.yaml says
// `state.backend: postgres`, the shared PostgreSQL database (state.url / HERMES_DATABASE_URL), so
// several gateways and CLIs on several homes share one board and its claims. Every surface opens a
// board through `openBoardDb`; the store above it is the same for both.
import { existsSync, statSync } from 'node:fs';
import { tryLock } from '../state/process-lock.ts';
import { loadConfig } from '../state/config.ts';
import { hermesHome, paths } from '../state/paths.ts';
import { storeChoice, type StoreChoice } from '../state/store/index.ts';
import { dbPath, kanbanHome } from './boards.ts';
import { openKanbanDb, type KanbanDb } from './db.ts';
import { listPgBoards, PgKanbanDb, pgBoardLocation, removePgBoard } from './pg/db.ts';

let cached: { key: string; choice: StoreChoice } | undefined;

const mtimeOf = (file: string): number => {
  try {
    return existsSync(file) ? statSync(file).mtimeMs : 0;
  } catch {
    return 0; /* unreadable: loadConfig says why */
  }
};

type StateSection = { state?: { backend?: unknown; url?: unknown } };

/**
 * The backend boards use in this environment: the profile's `state` settings when its config.yaml
 * names a backend, else the kanban root's (boards are shared by every profile, so a worker running
 * as a profile finds the board its dispatcher used). config.yaml is re-read only when it changes.
 */
export function kanbanBackend(env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const home = hermesHome(env);
  const root = kanbanHome(env);
  const key = [paths.config(home), mtimeOf(paths.config(home)), paths.config(root), mtimeOf(paths.config(root)), env.HERMES_DATABASE_URL ?? ''].join('\0');
  if (cached?.key === key) return cached.choice;
  const own = loadConfig(home, env);
  let config = own.config as StateSection;
  if ((own.user as StateSection).state?.backend === undefined && root !== home && existsSync(paths.config(root))) config = loadConfig(root, env).config as StateSection;
  const choice = storeChoice(config, env);
  cached = { key, choice };
  return choice;
}

/** Opens (creating on first use) a board's database: kanban.db, or its PostgreSQL schema. */
export function openBoardDb(board: string, env: NodeJS.ProcessEnv = process.env): KanbanDb {
  const c = kanbanBackend(env);
  if (c.backend === 'postgres') return PgKanbanDb.open(c.url!, board);
  return openKanbanDb(dbPath(board, env));
}

/** Whether the board's database exists (a PostgreSQL board's schema is made on first open). */
export function boardHasDb(board: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return kanbanBackend(env).backend === 'postgres' || existsSync(dbPath(board, env));
}

/** Where the board lives, for messages: the kanban.db path, or the database and schema. */
export function boardLocation(board: string, env: NodeJS.ProcessEnv = process.env): string {
  const c = kanbanBackend(env);
  return c.backend === 'postgres' ? pgBoardLocation(c.url!, board) : dbPath(board, env);
}

/**
 * The board's dispatcher lock, taken without waiting: a PostgreSQL session advisory lock (one
 * dispatcher per board across every process on the database), else the file lock next to kanban.db.
 */
export function tryDispatchLock(db: KanbanDb, board: string, path: string): { release(): void } | null {
  if (db.tryAdvisoryLock) return db.tryAdvisoryLock(`hermes_kanban_dispatch:${board}`);
  return tryLock(`${path}.dispatch.lock`);
}

/** The boards in the PostgreSQL database (made by any home on it); null on kanban.db. */
export function pgBoardSlugs(env: NodeJS.ProcessEnv = process.env): string[] | null {
  const c = kanbanBackend(env);
  return c.backend === 'postgres' ? listPgBoards(c.url!) : null;
}

/** Removes (or archives) a board's rows from the database; null on kanban.db or when it has none. */
export function removeBoardRows(board: string, archive: boolean, env: NodeJS.ProcessEnv = process.env): string | null {
  const c = kanbanBackend(env);
  return c.backend === 'postgres' ? removePgBoard(c.url!, board, archive) : null;
}
