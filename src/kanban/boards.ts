// Where boards live, as in Hermes: the `default` board's DB is `<root>/kanban.db`; other boards are
// `<root>/kanban/boards/<slug>/` (kanban.db, board.json, workspaces/, logs/). The root is shared by
// every profile (HERMES_KANBAN_HOME, else the default Hermes root). The active board: an explicit
// board → HERMES_KANBAN_BOARD → `<root>/kanban/current` → `default`; HERMES_KANBAN_DB pins the file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultHermesRoot, expandHome } from '../state/paths.ts';
import { boardLocation, pgBoardSlugs, removeBoardRows } from './backend.ts';

export const DEFAULT_BOARD = 'default';
const SLUG = /^[a-z0-9][a-z0-9\-_]{0,63}$/;

export class KanbanError extends Error {}

/** Lower-cased, validated slug; null for an empty one. */
export function normalizeSlug(slug: string | null | undefined): string | null {
  const s = (slug ?? '').trim().toLowerCase();
  if (!s) return null;
  if (!SLUG.test(s)) throw new KanbanError(`invalid board slug ${JSON.stringify(slug)}: use 1-64 lowercase letters, digits, "-" or "_", not starting with "-" or "_"`);
  return s;
}

export function kanbanHome(env: NodeJS.ProcessEnv = process.env): string {
  const o = env.HERMES_KANBAN_HOME?.trim();
  return o ? expandHome(o) : defaultHermesRoot(env);
}

export const boardsRoot = (env: NodeJS.ProcessEnv = process.env) => join(kanbanHome(env), 'kanban', 'boards');
export const currentBoardFile = (env: NodeJS.ProcessEnv = process.env) => join(kanbanHome(env), 'kanban', 'current');
export const boardDir = (slug: string, env: NodeJS.ProcessEnv = process.env) => join(boardsRoot(env), slug);

function holdsBoard(dir: string): boolean {
  return existsSync(join(dir, 'board.json')) || existsSync(join(dir, 'kanban.db'));
}

export function boardExists(slug: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const s = normalizeSlug(slug) ?? DEFAULT_BOARD;
  if (s === DEFAULT_BOARD) return true;
  // On PostgreSQL the database says which boards exist (a home's board.json only holds display settings).
  const remote = pgBoardSlugs(env);
  return remote ? remote.includes(s) : holdsBoard(boardDir(s, env));
}

/** The active board slug (a stale or malformed pointer falls through to the next source). */
export function currentBoard(env: NodeJS.ProcessEnv = process.env): string {
  const existing = (raw: string | undefined) => {
    try {
      const s = normalizeSlug(raw);
      return s && boardExists(s, env) ? s : null;
    } catch {
      return null;
    }
  };
  const fromEnv = existing(env.HERMES_KANBAN_BOARD);
  if (fromEnv) return fromEnv;
  try {
    const f = currentBoardFile(env);
    if (existsSync(f)) {
      const fromFile = existing(readFileSync(f, 'utf8').replace(/^\uFEFF/, '').trim());
      if (fromFile) return fromFile;
    }
  } catch {
    /* unreadable pointer */
  }
  return DEFAULT_BOARD;
}

/** Resolves the board to use: the given one (validated, must exist unless `default`), else the active one. */
export function resolveBoard(board: string | null | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const s = normalizeSlug(board);
  if (!s) return currentBoard(env);
  if (!boardExists(s, env)) throw new KanbanError(`board ${JSON.stringify(s)} does not exist. Create it with \`hermes kanban boards create ${s}\`.`);
  return s;
}

function boardPath(envVar: string | null, board: string, defaultParts: string[], leaf: string, env: NodeJS.ProcessEnv): string {
  const o = envVar ? env[envVar]?.trim() : '';
  if (o) return expandHome(o);
  if (board === DEFAULT_BOARD) return join(kanbanHome(env), ...defaultParts);
  return join(boardDir(board, env), leaf);
}

export const dbPath = (board: string, env: NodeJS.ProcessEnv = process.env) => boardPath('HERMES_KANBAN_DB', board, ['kanban.db'], 'kanban.db', env);
export const workspacesRoot = (board: string, env: NodeJS.ProcessEnv = process.env) =>
  boardPath('HERMES_KANBAN_WORKSPACES_ROOT', board, ['kanban', 'workspaces'], 'workspaces', env);
export const logsDir = (board: string, env: NodeJS.ProcessEnv = process.env) => boardPath(null, board, ['kanban', 'logs'], 'logs', env);
export const workerLogPath = (board: string, taskId: string, env: NodeJS.ProcessEnv = process.env) => join(logsDir(board, env), `${taskId}.log`);

export interface BoardMeta {
  slug: string;
  name: string;
  description: string;
  icon: string;
  color: string;
  default_workdir: string | null;
  project_id: string | null;
  created_at: number | null;
  archived: boolean;
  db_path: string;
  [k: string]: unknown;
}

const displayName = (slug: string) =>
  slug
    .replace(/_/g, '-')
    .split('-')
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join(' ') || slug;

export function readBoardMeta(slug: string, env: NodeJS.ProcessEnv = process.env): BoardMeta {
  const meta: BoardMeta = {
    slug,
    name: displayName(slug),
    description: '',
    icon: '',
    color: '',
    default_workdir: null,
    project_id: null,
    created_at: null,
    archived: false,
    db_path: '',
  };
  try {
    const p = join(boardDir(slug, env), 'board.json');
    if (existsSync(p)) {
      const raw = JSON.parse(readFileSync(p, 'utf8').replace(/^\uFEFF/, '')) as unknown;
      if (raw && typeof raw === 'object' && !Array.isArray(raw)) Object.assign(meta, raw, { slug });
    }
  } catch {
    /* malformed board.json: the synthesized entry */
  }
  meta.db_path = boardLocation(slug, env);
  return meta;
}

export function writeBoardMeta(
  slug: string,
  changes: { name?: string; description?: string; icon?: string; color?: string; archived?: boolean; default_workdir?: string | null },
  env: NodeJS.ProcessEnv = process.env,
): BoardMeta {
  const meta: Record<string, unknown> = { ...readBoardMeta(slug, env) };
  delete meta.db_path;
  if (changes.name !== undefined) meta.name = changes.name.trim() || displayName(slug);
  for (const k of ['description', 'icon', 'color'] as const) if (changes[k] !== undefined) meta[k] = String(changes[k]);
  if (changes.archived !== undefined) meta.archived = changes.archived;
  if (changes.default_workdir !== undefined) meta.default_workdir = changes.default_workdir || null;
  if (!meta.created_at) meta.created_at = Math.floor(Date.now() / 1000);
  const dir = boardDir(slug, env);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'board.json'), JSON.stringify(meta, null, 2) + '\n');
  return { ...(meta as BoardMeta), db_path: boardLocation(slug, env) };
}

/** `default` first, then every `boards/<slug>/` holding a board (on PostgreSQL: every board in the database), sorted. */
export function listBoards(opts: { includeArchived?: boolean } = {}, env: NodeJS.ProcessEnv = process.env): BoardMeta[] {
  const out = [readBoardMeta(DEFAULT_BOARD, env)];
  const root = boardsRoot(env);
  const remote = pgBoardSlugs(env);
  const slugs = new Set<string>(remote ?? []);
  if (!remote)
    for (const name of existsSync(root) ? readdirSync(root) : []) {
      const dir = join(root, name);
      if (statSync(dir).isDirectory() && holdsBoard(dir)) slugs.add(name);
    }
  for (const name of [...slugs].sort((a, b) => a.localeCompare(b))) {
    let slug: string | null = null;
    try {
      slug = normalizeSlug(name);
    } catch {
      continue;
    }
    if (!slug || slug === DEFAULT_BOARD || slug !== name) continue;
    const meta = readBoardMeta(slug, env);
    if (meta.archived && opts.includeArchived === false) continue;
    out.push(meta);
  }
  return out;
}

export function setCurrentBoard(slug: string, env: NodeJS.ProcessEnv = process.env): void {
  const s = normalizeSlug(slug);
  if (!s) throw new KanbanError('board slug is required');
  const f = currentBoardFile(env);
  mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(f, s + '\n');
}

export function clearCurrentBoard(env: NodeJS.ProcessEnv = process.env): void {
  rmSync(currentBoardFile(env), { force: true });
}

/** Archives (to `boards/_archived/<slug>-<ts>/`) or deletes a board; `default` cannot be removed. */
export function removeBoard(slug: string, archive: boolean, env: NodeJS.ProcessEnv = process.env): { slug: string; action: 'archived' | 'deleted'; newPath: string } {
  const s = normalizeSlug(slug);
  if (!s) throw new KanbanError('board slug is required');
  if (s === DEFAULT_BOARD) throw new KanbanError("the 'default' board cannot be removed");
  const dir = boardDir(s, env);
  // On PostgreSQL the rows go (or are archived) in the database; the home may hold no folder for it.
  const rows = removeBoardRows(s, archive, env);
  if (!existsSync(dir)) {
    if (rows === null) throw new KanbanError(`board ${JSON.stringify(s)} does not exist`);
    return { slug: s, action: archive ? 'archived' : 'deleted', newPath: rows };
  }
  if (currentBoard(env) === s) clearCurrentBoard(env);
  if (!archive) {
    rmSync(dir, { recursive: true, force: true });
    return { slug: s, action: 'deleted', newPath: '' };
  }
  const archiveRoot = join(boardsRoot(env), '_archived');
  mkdirSync(archiveRoot, { recursive: true });
  const ts = Math.floor(Date.now() / 1000);
  let target = join(archiveRoot, `${s}-${ts}`);
  for (let i = 1; existsSync(target); i++) target = join(archiveRoot, `${s}-${ts}-${i}`);
  renameSync(dir, target);
  return { slug: s, action: 'archived', newPath: target };
}
