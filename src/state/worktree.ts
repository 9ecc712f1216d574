// `hermes -w` / `hermes chat --worktree`: the session works in its own git worktree,
// `<repo>/.worktrees/hermes-<id>` on branch `hermes/hermes-<id>` (or `hermes/<name>` for /worktree new
// <name>), as Python Hermes does. On exit the worktree is removed unless it holds work: commits that
// no remote has, or uncommitted changes (Hermes keeps only the first; losing edits is never right).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

export interface Worktree {
  repoRoot: string;
  path: string;
  branch: string;
  /** The commit it started from. */
  base: string;
  /** Where to work inside it (the same sub-folder the person started in). */
  cwd: string;
}

export class WorktreeError extends Error {}

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (r.error) throw new WorktreeError(`git is not available: ${r.error.message}. Install git to use --worktree.`);
  return { ok: r.status === 0, out: (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Creates a worktree for the repository `cwd` is in. */
export function createWorktree(cwd: string, name?: string): Worktree {
  const top = git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new WorktreeError(`--worktree needs a git repository, and ${cwd} is not inside one. Run it from a repository, or leave out -w.`);
  const repoRoot = top.out;
  const head = git(repoRoot, ['rev-parse', '--verify', 'HEAD']);
  if (!head.ok) throw new WorktreeError(`${repoRoot} has no commits yet; a worktree needs one. Commit something first, or leave out -w.`);
  if (name !== undefined && !NAME.test(name)) throw new WorktreeError(`"${name}" cannot be a worktree name: use letters, digits, ".", "_" or "-".`);
  const id = randomBytes(4).toString('hex');
  const dirName = name ? `hermes-${name}` : `hermes-${id}`;
  const path = join(repoRoot, '.worktrees', dirName);
  if (existsSync(path)) throw new WorktreeError(`${path} already exists. Pick another name, or remove it with \`git worktree remove ${path}\`.`);
  const branch = name ? `hermes/${name}` : `hermes/hermes-${id}`;
  mkdirSync(join(repoRoot, '.worktrees'), { recursive: true });
  excludeWorktrees(repoRoot);
  const add = git(repoRoot, ['worktree', 'add', '-b', branch, path, head.out]);
  if (!add.ok) throw new WorktreeError(`git worktree add failed: ${add.err.split('\n').pop() || 'unknown error'}`);
  const sub = relative(repoRoot, resolve(cwd));
  const inner = sub && !sub.startsWith('..') && !isAbsolute(sub) ? join(path, sub) : path;
  return { repoRoot, path, branch, base: head.out, cwd: existsSync(inner) ? inner : path };
}

/** Keeps `.worktrees/` out of `git status` in the main checkout (info/exclude, not .gitignore). */
function excludeWorktrees(repoRoot: string): void {
  const common = git(repoRoot, ['rev-parse', '--git-common-dir']);
  if (!common.ok) return;
  const info = join(resolve(repoRoot, common.out), 'info');
  const file = join(info, 'exclude');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (text.split('\n').some((l) => l.trim() === '.worktrees/')) return;
  mkdirSync(info, { recursive: true });
  appendFileSync(file, `${text && !text.endsWith('\n') ? '\n' : ''}.worktrees/\n`);
}

export interface WorktreeState {
  /** Commits on the branch that no remote branch has and that were not there at the start. */
  unpushed: number;
  /** Changed or new files not committed. */
  dirty: number;
}

export function worktreeState(wt: Worktree): WorktreeState {
  const count = git(wt.path, ['rev-list', '--count', 'HEAD', '--not', wt.base, '--remotes']);
  const status = git(wt.path, ['status', '--porcelain']);
  return { unpushed: count.ok ? Number(count.out) || 0 : 0, dirty: status.ok ? status.out.split('\n').filter(Boolean).length : 0 };
}

/** Removes the worktree and its branch unless it holds work. Returns a line for the person. */
export function finishWorktree(wt: Worktree): string {
  if (!existsSync(wt.path)) return '';
  const st = worktreeState(wt);
  if (st.unpushed || st.dirty) {
    const why = [st.unpushed ? `${st.unpushed} commit(s) not pushed` : '', st.dirty ? `${st.dirty} uncommitted change(s)` : ''].filter(Boolean).join(', ');
    return `Worktree kept: ${wt.path} (branch ${wt.branch}: ${why}). Remove it later with \`git worktree remove ${wt.path}\`.`;
  }
  const rm = git(wt.repoRoot, ['worktree', 'remove', '--force', wt.path]);
  if (!rm.ok) return `Could not remove the worktree ${wt.path}: ${rm.err}`;
  git(wt.repoRoot, ['branch', '-D', wt.branch]);
  return `Worktree removed: ${wt.path} (nothing to keep).`;
}

/** Worktrees Hermes made in this repository (`.worktrees/hermes-*`). */
export function listHermesWorktrees(cwd: string): { path: string; branch: string }[] {
  const r = git(cwd, ['worktree', 'list', '--porcelain']);
  if (!r.ok) return [];
  const out: { path: string; branch: string }[] = [];
  let cur: { path: string; branch: string } | null = null;
  for (const line of r.out.split('\n')) {
    if (line.startsWith('worktree ')) {
      if (cur) out.push(cur);
      cur = { path: line.slice(9), branch: '' };
    } else if (line.startsWith('branch ') && cur) cur.branch = line.slice(7).replace(/^refs\/heads\//, '');
  }
  if (cur) out.push(cur);
  return out.filter((w) => /[/\\]\.worktrees[/\\]hermes-[^/\\]+$/.test(w.path));
}

/** Removes Hermes worktrees of this repository that hold no work (not the one `cwd` is in). */
export function pruneWorktrees(cwd: string): string[] {
  const top = git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return [`${cwd} is not inside a git repository.`];
  const common = resolve(top.out, git(top.out, ['rev-parse', '--git-common-dir']).out || '.git');
  const repoRoot = resolve(common, '..');
  const mainHead = git(repoRoot, ['rev-parse', 'HEAD']).out;
  return listHermesWorktrees(cwd)
    .filter((w) => !resolve(cwd).startsWith(w.path))
    .map((w) => finishWorktree({ repoRoot, path: w.path, branch: w.branch, base: mainHead || 'HEAD', cwd: w.path }));
}
