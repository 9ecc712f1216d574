// Spawning a worker: `hermes chat -q "work kanban task <id>"` under the assignee's profile home
// (Hermes's `hermes -p <assignee>`), in the task's workspace, detached from the dispatcher, with
// stdout/stderr appended to the board's per-task log. The child learns its task, run, claim and board
// from HERMES_KANBAN_* variables; the dispatcher's own .env secrets are not passed down (the worker
// loads its profile's .env itself).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readEnvFile } from '../state/env.ts';
import { hermesHome, normalizeProfileName, packageRoot, paths, profileHome } from '../state/paths.ts';
import { dbPath, kanbanHome, logsDir, workspacesRoot } from './boards.ts';
import { recordExit } from './procs.ts';
import type { Task } from './store.ts';

export const LOG_ROTATE_BYTES = 2 * 1024 * 1024;

export interface SpawnOptions {
  /** The dispatcher's environment (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Node binary (default process.execPath) and the hermes launcher it runs. */
  node?: string;
  launcher?: string;
}

/** The launcher the user runs: $HERMES_BIN when it is a path, else this install's bin/hermes.mjs. */
export function hermesLauncher(env: NodeJS.ProcessEnv = process.env): string {
  const b = env.HERMES_BIN?.trim();
  if (b && isAbsolute(b) && existsSync(b)) return b;
  return join(packageRoot(), 'bin', 'hermes.mjs');
}

export function workerArgv(t: Task): string[] {
  const argv = ['chat', '-q', `work kanban task ${t.id}`, '--source', 'kanban'];
  for (const s of t.skills ?? []) argv.push('--skills', s);
  if (t.model_override) {
    argv.push('--model', t.model_override);
    if (t.provider_override) argv.push('--provider', t.provider_override);
  }
  return argv;
}

/** The worker's environment: its profile home, the HERMES_KANBAN_* pins, minus the dispatcher's .env. */
export function workerEnv(t: Task, workspace: string, board: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!t.assignee) throw new Error(`task ${t.id} has no assignee`);
  const profile = normalizeProfileName(t.assignee);
  const env: NodeJS.ProcessEnv = { ...base };
  let dotenvNames: string[] = [];
  try {
    dotenvNames = [...readEnvFile(paths.env(hermesHome(base))).keys()];
  } catch {
    /* no .env */
  }
  for (const k of dotenvNames) delete env[k];
  for (const k of Object.keys(env)) if (k.startsWith('HERMES_KANBAN_') || k === 'HERMES_TENANT') delete env[k];
  delete env.HERMES_TUI;
  Object.assign(env, {
    HERMES_HOME: profileHome(profile, base),
    HERMES_PROFILE: profile,
    HERMES_KANBAN_HOME: kanbanHome(base),
    HERMES_KANBAN_DB: dbPath(board, base),
    HERMES_KANBAN_BOARD: board,
    HERMES_KANBAN_WORKSPACES_ROOT: workspacesRoot(board, base),
    HERMES_KANBAN_TASK: t.id,
    HERMES_KANBAN_WORKSPACE: workspace,
    TERMINAL_CWD: workspace,
  });
  if (t.current_run_id !== null) env.HERMES_KANBAN_RUN_ID = String(t.current_run_id);
  if (t.claim_lock) env.HERMES_KANBAN_CLAIM_LOCK = t.claim_lock;
  if (t.tenant) env.HERMES_TENANT = t.tenant;
  if (t.branch_name) env.HERMES_KANBAN_BRANCH = t.branch_name;
  return env;
}

function openLog(board: string, taskId: string, env: NodeJS.ProcessEnv): number {
  const dir = logsDir(board, env);
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${taskId}.log`);
  try {
    if (statSync(p).size > LOG_ROTATE_BYTES) renameSync(p, `${p}.1`);
  } catch {
    /* no log yet */
  }
  return openSync(p, 'a', 0o600);
}

/** Starts the worker and returns its PID; the exit status is recorded for the crash sweep. */
export function spawnWorker(t: Task, workspace: string, board: string, o: SpawnOptions = {}): number {
  const base = o.env ?? process.env;
  const env = workerEnv(t, workspace, board, base);
  const fd = openLog(board, t.id, base);
  try {
    const child = spawn(o.node ?? process.execPath, [o.launcher ?? hermesLauncher(base), ...workerArgv(t)], {
      cwd: existsSync(workspace) ? workspace : undefined,
      env,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    if (!child.pid) throw new Error(`could not start the worker for ${t.id} (${o.node ?? process.execPath})`);
    const pid = child.pid;
    child.on('error', () => recordExit(pid, 127, null));
    child.on('exit', (code, signal) => recordExit(pid, code, signal));
    child.unref();
    return pid;
  } finally {
    closeSync(fd);
  }
}
