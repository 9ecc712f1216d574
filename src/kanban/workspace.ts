// A task's workspace: `scratch` (a fresh directory under the board's workspaces/, removed when the
// task is done), `dir` (an absolute directory, shared and kept) or `worktree` (a git worktree,
// `<repo>/.worktrees/<id>` on branch `wt/<id>`, removed only when it holds no unpushed work).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { expandHome } from '../state/paths.ts';
import { KanbanError, readBoardMeta, workspacesRoot } from './boards.ts';
import type { KanbanStore, Task } from './store.ts';

/**
 * Git here runs in the dispatcher, on repositories a task (possibly one an agent created) names,
 * outside any sandbox or approval: it must run nothing of the repository's own. Hooks and the
 * fsmonitor are switched off, and so are the content filters (smudge/clean/process) the
 * repository's own config defines (filters from the person's global config, e.g. git-lfs, stay).
 */
const NO_PROGRAMS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

function rawGit(cwd: string, args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...NO_PROGRAMS, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 }).trim();
}

/** `-c` settings that disable the filter drivers defined in the repository's own config. */
export function repoFilterOverrides(cwd: string): string[] {
  let out = '';
  try {
    out = rawGit(cwd, ['config', '--local', '--includes', '--get-regexp', '^filter\\..*\\.(smudge|clean|process)$']);
  } catch {
    return []; // none (exit 1) or not a repository
  }
  const names = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /^filter\.(.+)\.(?:smudge|clean|process)\s/.exec(line);
    if (m) names.add(m[1]);
  }
  return [...names].flatMap((n) => ['-c', `filter.${n}.smudge=`, '-c', `filter.${n}.clean=`, '-c', `filter.${n}.process=`, '-c', `filter.${n}.required=false`]);
}

function git(cwd: string, args: string[]): string | null {
  try {
    return rawGit(cwd, [...repoFilterOverrides(cwd), ...args]);
  } catch {
    return null;
  }
}

function gitToplevel(p: string): string | null {
  let dir = p;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  return top ? resolve(top) : null;
}

function ensureWorktree(repo: string, target: string, branch: string): void {
  if (existsSync(target) && git(target, ['rev-parse', '--git-common-dir'])) return;
  mkdirSync(dirname(target), { recursive: true });
  const exists = git(repo, ['show-ref', '--verify', `refs/heads/${branch}`]) !== null;
  const args = exists ? ['worktree', 'add', target, branch] : ['worktree', 'add', '-b', branch, target, 'HEAD'];
  try {
    rawGit(repo, [...repoFilterOverrides(repo), ...args]);
  } catch (e) {
    const err = (e as { stderr?: Buffer }).stderr?.toString().trim() ?? (e as Error).message;
    throw new KanbanError(`git worktree add failed for ${target} on branch ${branch}: ${err}`);
  }
}

/** Resolves (and creates) the workspace directory; returns its path and, for worktrees, the branch. */
export function resolveWorkspace(t: Task, board: string, env: NodeJS.ProcessEnv = process.env): { path: string; branch: string | null } {
  const kind = t.workspace_kind || 'scratch';
  if (kind === 'worktree') {
    const branch = t.branch_name?.trim() || `wt/${t.id}`;
    let anchor = t.workspace_path ? expandHome(t.workspace_path) : readBoardMeta(board, env).default_workdir;
    if (!anchor) throw new KanbanError(`task ${t.id} is a worktree task without a path, and board ${board} has no default workdir. Create it with --workspace worktree:<absolute repo path>.`);
    anchor = expandHome(anchor);
    if (!isAbsolute(anchor)) throw new KanbanError(`task ${t.id} has a relative worktree path ${JSON.stringify(anchor)}; use an absolute path`);
    const repo = gitToplevel(anchor);
    if (!repo) throw new KanbanError(`task ${t.id}: ${anchor} is not inside a git repository`);
    const target = resolve(anchor) === repo ? join(repo, '.worktrees', t.id) : resolve(anchor);
    ensureWorktree(repo, target, branch);
    return { path: target, branch };
  }
  let p: string;
  if (kind === 'scratch' && !t.workspace_path) p = join(workspacesRoot(board, env), t.id);
  else if (kind === 'scratch' || kind === 'dir') {
    if (!t.workspace_path) throw new KanbanError(`task ${t.id} has workspace_kind=dir but no workspace_path`);
    p = expandHome(t.workspace_path);
    if (!isAbsolute(p)) throw new KanbanError(`task ${t.id} has a relative workspace path ${JSON.stringify(t.workspace_path)}; use an absolute path`);
  } else throw new KanbanError(`unknown workspace_kind: ${kind}`);
  mkdirSync(p, { recursive: true });
  return { path: p, branch: null };
}

export function setWorkspace(s: KanbanStore, id: string, path: string, branch: string | null): void {
  s.txn(() => {
    s.q('UPDATE tasks SET workspace_path = ? WHERE id = ?').run(path, id);
    if (branch) s.q('UPDATE tasks SET branch_name = ? WHERE id = ?').run(branch, id);
  });
}

/** Strictly inside a kanban-managed workspaces root (never the root itself, never elsewhere). */
export function isManagedScratch(p: string, board: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const real = (x: string) => {
    try {
      return realpathSync(x);
    } catch {
      return resolve(x);
    }
  };
  const root = real(workspacesRoot(board, env));
  const rel = relative(root, real(p));
  return !!rel && !rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}

const activeChildren = (s: KanbanStore, id: string) =>
  !!s.q("SELECT 1 FROM task_links l JOIN tasks t ON t.id = l.child_id WHERE l.parent_id = ? AND t.status NOT IN ('done', 'archived') LIMIT 1").get(id);

function removeOne(s: KanbanStore, id: string, env: NodeJS.ProcessEnv): void {
  const t = s.get(id);
  if (!t?.workspace_path || (t.status !== 'done' && t.status !== 'archived') || activeChildren(s, id)) return;
  if (t.workspace_kind === 'scratch') {
    if (existsSync(t.workspace_path) && isManagedScratch(t.workspace_path, s.board, env)) rmSync(t.workspace_path, { recursive: true, force: true });
  } else if (t.workspace_kind === 'worktree') {
    const wp = t.workspace_path;
    const common = git(wp, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    if (!common || !common.endsWith(`${sep}.git`)) return;
    const repo = dirname(common);
    if (resolve(wp) === resolve(repo)) return;
    const dirty = git(wp, ['status', '--porcelain']);
    const unpushed = git(wp, ['rev-list', 'HEAD', '--not', '--remotes']);
    if (dirty === null || dirty !== '' || unpushed === null || unpushed !== '') return;
    if (git(repo, ['worktree', 'remove', wp]) === null) return;
    const branch = t.branch_name || `wt/${t.id}`;
    if (branch.startsWith('wt/')) git(repo, ['branch', '-D', branch]);
  }
}

/**
 * Removes a finished task's workspace (best effort, never throws): scratch always, a worktree only
 * when clean and pushed, a `dir` never. Deferred while a child still needs it; a parent waiting on
 * this task's completion is cleaned up now.
 */
export function cleanupWorkspace(s: KanbanStore, id: string, env: NodeJS.ProcessEnv = s.env): void {
  try {
    removeOne(s, id, env);
    for (const p of s.parents(id)) removeOne(s, p, env);
  } catch {
    /* cleanup never blocks a transition */
  }
}
