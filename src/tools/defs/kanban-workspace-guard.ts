// A task's workspace folder, named by an agent through kanban_create: the dispatcher creates it and
// runs the worker (and git, for a worktree) there, so it may not be a place the agent's own file
// tools may not write.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { writeDenied } from '../../policy/write-safety.ts';
import { expandHome } from '../../state/paths.ts';
import type { ToolSession } from '../types.ts';

/** Why `path` may not be a task's workspace, or null. */
export async function workspaceDenied(s: ToolSession, path: string): Promise<string | null> {
  const p = expandHome(path.trim());
  if (!isAbsolute(p)) return null; // the store refuses relative paths with its own message
  const ctx = { userHome: s.env.HOME || homedir(), hermesHome: s.home };
  const dir = resolve(p);
  if ([s.home, join(ctx.userHome, '.hermes')].some((h) => resolve(h) === dir)) return `workspace_path ${p} cannot be a task's workspace: it is Hermes's own home. Use a project folder.`;
  // The folder itself, and a file the worker would write at its top.
  const why = writeDenied(dir, ctx) ?? writeDenied(join(dir, '.kanban-workspace'), ctx);
  return why ? `workspace_path ${p} cannot be a task's workspace: ${why.replace(/^Writing \S+ is not allowed: /, '')}` : null;
}
