// `hermes kanban` board-level verbs: init, boards …, dispatch, daemon, tail, watch, log, notify-*
// and gc.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import {
  boardExists,
  currentBoard,
  dbPath,
  listBoards,
  logsDir,
  normalizeSlug,
  readBoardMeta,
  removeBoard,
  resolveBoard,
  setCurrentBoard,
  workerLogPath,
  workspacesRoot,
  writeBoardMeta,
} from './boards.ts';
import { CommandFailed, counts, fmtTs, json, withStore, type KanbanIO } from './cli-io.ts';
import { boardHasDb, boardLocation, openBoardDb } from './backend.ts';
import { dispatchOnce, dispatchOptionsFrom, tickDidWork, type DispatchResult } from './dispatcher.ts';
import { KanbanStore, type TaskEvent } from './store.ts';
import { defaultHermesRoot } from '../state/paths.ts';

type Opts = Record<string, unknown>;

export async function init(io: KanbanIO): Promise<number> {
  const board = resolveBoard(io.board, io.env);
  openBoardDb(board, io.env).close();
  io.out(`Kanban DB initialized at ${boardLocation(board, io.env)}`);
  const root = join(defaultHermesRoot(io.env), 'profiles');
  const profiles = existsSync(root) ? readdirSync(root).filter((n) => statSync(join(root, n)).isDirectory()) : [];
  io.out('');
  if (profiles.length) {
    io.out(`Discovered ${profiles.length + 1} profile(s) on disk; any of these can be an --assignee:`);
    for (const p of ['default', ...profiles.sort()]) io.out(`  ${p}`);
  } else io.out('No profiles found under profiles/: tasks assigned to any name run with the default home.');
  io.out(
    "\nNext step: start the gateway so ready tasks get picked up.\n  hermes gateway start\n\nThe gateway runs the dispatcher every 60 seconds by default (config: kanban.dispatch_interval_seconds).\nWithout a running gateway, tasks stay in 'ready' (or run one pass with `hermes kanban dispatch`).",
  );
  return 0;
}

// ---- boards ------------------------------------------------------------------------------------

function boardCounts(slug: string, env: NodeJS.ProcessEnv): Record<string, number> {
  try {
    if (!boardHasDb(slug, env)) return {};
    const db = openBoardDb(slug, env);
    try {
      return Object.fromEntries((db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as { status: string; n: number }[]).map((r) => [r.status, Number(r.n)]));
    } finally {
      db.close();
    }
  } catch {
    return {};
  }
}

export async function boardsList(io: KanbanIO, o: Opts): Promise<number> {
  const current = currentBoard(io.env);
  const boards = listBoards({ includeArchived: !!o.all }, io.env).map((b) => {
    const c = boardCounts(b.slug, io.env);
    return { ...b, is_current: b.slug === current, counts: c, total: Object.values(c).reduce((a, x) => a + x, 0) };
  });
  if (o.json) return json(io, boards), 0;
  io.out(`${''.padEnd(2)}  ${'SLUG'.padEnd(24)}  ${'NAME'.padEnd(28)}  COUNTS`);
  for (const b of boards) io.out(`${(b.is_current ? '●' : ' ').padEnd(2)}  ${b.slug.padEnd(24)}  ${(b.name + (b.archived ? ' [archived]' : '')).padEnd(28)}  ${counts(b.counts, '(empty)')}`);
  io.out(`\nCurrent board: ${current}`);
  if (boards.length > 1) io.out('Switch boards with `hermes kanban boards switch <slug>`.');
  return 0;
}

const requireSlug = (slug: string) => {
  const s = normalizeSlug(slug);
  if (!s) throw new CommandFailed('a board slug is required', 2);
  return s;
};

export async function boardsCreate(io: KanbanIO, slug: string, o: Opts): Promise<number> {
  const s = requireSlug(slug);
  const already = boardExists(s, io.env) && s !== 'default';
  const meta = writeBoardMeta(
    s,
    { name: o.name as string | undefined, description: o.description as string | undefined, icon: o.icon as string | undefined, color: o.color as string | undefined, default_workdir: (o.defaultWorkdir as string | undefined) ?? undefined },
    io.env,
  );
  openBoardDb(s, io.env).close();
  io.out(`Board '${s}' ${already ? 'already exists' : 'created'}.\n  Display name: ${meta.name}\n  DB path:      ${meta.db_path}`);
  if (o.switch) {
    setCurrentBoard(s, io.env);
    io.out(`  Switched to '${s}'.`);
  } else io.out(`  Use \`hermes kanban boards switch ${s}\` to make it current.`);
  return 0;
}

export async function boardsRm(io: KanbanIO, slug: string, o: Opts): Promise<number> {
  const r = removeBoard(slug, !o.delete, io.env);
  io.out(r.action === 'archived' ? `Board '${r.slug}' archived → ${r.newPath}\nRecover it by moving the directory back to kanban/boards/${r.slug}/.` : `Board '${r.slug}' deleted.`);
  return 0;
}

export async function boardsSwitch(io: KanbanIO, slug: string): Promise<number> {
  const s = requireSlug(slug);
  if (!boardExists(s, io.env)) throw new CommandFailed(`board '${s}' does not exist. Create it with \`hermes kanban boards create ${s}\`.`);
  setCurrentBoard(s, io.env);
  io.out(`Active board is now '${s}'.`);
  return 0;
}

export async function boardsShow(io: KanbanIO): Promise<number> {
  const current = currentBoard(io.env);
  const meta = readBoardMeta(current, io.env);
  const c = boardCounts(current, io.env);
  const total = Object.values(c).reduce((a, x) => a + x, 0);
  io.out(`Current board: ${current}\n  Display name: ${meta.name}`);
  if (meta.description) io.out(`  Description:  ${meta.description}`);
  io.out(`  DB path:      ${meta.db_path}\n  Tasks:        ${total} total${total ? ` (${counts(c)})` : ''}`);
  return 0;
}

export async function boardsRename(io: KanbanIO, slug: string, name: string): Promise<number> {
  const s = requireSlug(slug);
  if (!boardExists(s, io.env)) throw new CommandFailed(`board '${s}' does not exist`);
  io.out(`Board '${s}' renamed to '${writeBoardMeta(s, { name }, io.env).name}'.`);
  return 0;
}

export async function boardsWorkdir(io: KanbanIO, slug: string, path: string | undefined): Promise<number> {
  const s = requireSlug(slug);
  if (!boardExists(s, io.env)) throw new CommandFailed(`board '${s}' does not exist`);
  if (path && !isAbsolute(path)) throw new CommandFailed('the default workdir must be an absolute path', 2);
  const v = writeBoardMeta(s, { default_workdir: path ?? null }, io.env).default_workdir;
  io.out(v ? `Board '${s}' default workdir set to '${v}'.` : `Board '${s}' default workdir cleared.`);
  return 0;
}

// ---- dispatcher ----------------------------------------------------------------------------------

function printDispatch(io: KanbanIO, r: DispatchResult, dry: boolean): void {
  io.out(`Reclaimed:    ${r.reclaimed}`);
  for (const [label, items] of [
    ['Crashed:     ', r.crashed],
    ['Timed out:   ', r.timedOut],
    ['Stale:       ', r.stale],
    ['Auto-blocked:', r.autoBlocked],
  ] as const) {
    io.out(`${label} ${items.length}`);
    if (items.length) io.out(`  ${items.join(', ')}`);
  }
  io.out(`Promoted:     ${r.promoted}`);
  io.out(`Spawned:      ${r.spawned.length}`);
  for (const x of r.spawned) io.out(`  - ${x.taskId}  ->  ${x.assignee}  @ ${x.workspace || '-'}${dry ? ' (dry)' : ''}`);
  if (r.autoAssignedDefault.length) io.out(`Auto-assigned to kanban.default_assignee: ${r.autoAssignedDefault.join(', ')}`);
  if (r.skippedUnassigned.length) io.out(`Skipped (unassigned): ${r.skippedUnassigned.join(', ')} (kanban.default_assignee is empty or not a profile: assign them with \`hermes kanban assign <id> <profile>\`, or \`hermes config set kanban.default_assignee default\`)`);
  for (const x of r.skippedPerProfileCapped) io.out(`Deferred (${x.assignee} at per-profile cap, ${x.running} running): ${x.taskId}`);
  if (r.skippedLocked) io.out('Skipped: another dispatcher is ticking this board right now.');
}

export async function dispatch(io: KanbanIO, o: Opts): Promise<number> {
  const base = dispatchOptionsFrom(io.kanbanConfig, io.env);
  return withStore(io, async (s) => {
    const r = await dispatchOnce(s, {
      ...base,
      dryRun: !!o.dryRun,
      maxSpawn: (o.max as number | undefined) ?? base.maxSpawn,
      failureLimit: (o.failureLimit as number | undefined) ?? base.failureLimit,
    });
    if (o.json) {
      json(io, {
        reclaimed: r.reclaimed,
        crashed: r.crashed,
        timed_out: r.timedOut,
        stale: r.stale,
        auto_blocked: r.autoBlocked,
        promoted: r.promoted,
        spawned: r.spawned.map((x) => ({ task_id: x.taskId, assignee: x.assignee, workspace: x.workspace })),
        skipped_unassigned: r.skippedUnassigned,
        skipped_per_profile_capped: r.skippedPerProfileCapped.map((x) => ({ task_id: x.taskId, assignee: x.assignee, current: x.running })),
        auto_assigned_default: r.autoAssignedDefault,
        skipped_locked: r.skippedLocked,
      });
    } else printDispatch(io, r, !!o.dryRun);
    return 0;
  });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The standalone dispatcher loop (the gateway's embedded one is the usual way). */
export async function daemon(io: KanbanIO, o: Opts): Promise<number> {
  if (!o.force)
    throw new CommandFailed(
      'the dispatcher runs inside the gateway: start it with `hermes gateway start` (kanban.dispatch_in_gateway, every kanban.dispatch_interval_seconds). Running both races them for claims; if this machine cannot run the gateway, rerun with --force.',
      2,
    );
  const interval = Math.max(1, Number(o.interval) || 60);
  io.warn(`Kanban dispatcher running standalone (interval ${interval}s, pid ${process.pid}). Ctrl-C to stop.`);
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    while (!ac.signal.aborted) {
      try {
        const base = dispatchOptionsFrom(io.kanbanConfig, io.env);
        await withStore(io, async (s) => {
          const r = await dispatchOnce(s, { ...base, maxSpawn: (o.max as number | undefined) ?? base.maxSpawn, failureLimit: (o.failureLimit as number | undefined) ?? base.failureLimit });
          if (o.verbose && tickDidWork(r))
            io.out(`[${fmtTs(s.now())}] reclaimed=${r.reclaimed} crashed=${r.crashed.length} timed_out=${r.timedOut.length} promoted=${r.promoted} spawned=${r.spawned.length} auto_blocked=${r.autoBlocked.length}`);
        });
      } catch (e) {
        io.warn(`dispatch tick failed: ${(e as Error).message}`);
      }
      await sleep(interval * 1000, ac.signal);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  io.out('(dispatcher stopped)');
  return 0;
}

// ---- following events ---------------------------------------------------------------------------

const eventLine = (e: TaskEvent) => `[${fmtTs(e.created_at)}] ${e.kind}${e.payload ? ` ${JSON.stringify(e.payload)}` : ''}`;

/** Polls `tick` until interrupted (the CLI), or runs it once (a chat). */
async function follow(io: KanbanIO, intervalS: number, tick: () => void): Promise<number> {
  tick();
  if (!io.follow) return 0;
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  io.signal?.addEventListener('abort', stop, { once: true });
  try {
    while (!ac.signal.aborted) {
      await sleep(Math.max(100, intervalS * 1000), ac.signal);
      if (!ac.signal.aborted) tick();
    }
  } finally {
    process.off('SIGINT', stop);
  }
  io.out('\n(stopped)');
  return 0;
}

export async function tail(io: KanbanIO, id: string, o: Opts): Promise<number> {
  const board = resolveBoard(io.board, io.env);
  const s = new KanbanStore(openBoardDb(board, io.env), { board, env: io.env });
  try {
    if (!s.get(id)) throw new CommandFailed(`no such task: ${id}`);
    let last = 0;
    if (io.follow) io.out(`Tailing events for ${id}. Ctrl-C to stop.`);
    return await follow(io, Number(o.interval) || 1, () => {
      for (const e of s.events(id))
        if (e.id > last) {
          io.out(eventLine(e));
          last = e.id;
        }
    });
  } finally {
    s.close();
  }
}

export async function watch(io: KanbanIO, o: Opts): Promise<number> {
  const kinds = o.kinds ? new Set(String(o.kinds).split(',').map((k) => k.trim()).filter(Boolean)) : null;
  const board = resolveBoard(io.board, io.env);
  const s = new KanbanStore(openBoardDb(board, io.env), { board, env: io.env });
  try {
    let cursor = io.follow ? s.lastEventId() : Math.max(0, s.lastEventId() - 50);
    if (io.follow) io.out('Watching kanban events. Ctrl-C to stop.');
    return await follow(io, Number(o.interval) || 0.5, () => {
      for (const e of s.eventsAfter(cursor, 200)) {
        cursor = Math.max(cursor, e.id);
        const t = s.get(e.task_id);
        if ((kinds && !kinds.has(e.kind)) || (o.assignee && t?.assignee !== o.assignee) || (o.tenant && t?.tenant !== o.tenant)) continue;
        io.out(`[${fmtTs(e.created_at)}] ${e.task_id.padEnd(10)} ${e.kind.padEnd(18)} (@${t?.assignee ?? '-'})${e.payload ? ` ${JSON.stringify(e.payload)}` : ''}`);
      }
    });
  } finally {
    s.close();
  }
}

export async function log(io: KanbanIO, id: string, o: Opts): Promise<number> {
  const board = resolveBoard(io.board, io.env);
  const p = workerLogPath(board, id, io.env);
  if (!existsSync(p)) throw new CommandFailed(`(no log for ${id} — the task may not have started yet)`);
  let text = readFileSync(p, 'utf8');
  const n = o.tail as number | undefined;
  if (n && Buffer.byteLength(text) > n) text = Buffer.from(text).subarray(-n).toString('utf8');
  io.out(text.replace(/\n$/, ''));
  return 0;
}

// ---- notifications ------------------------------------------------------------------------------

export async function notifySubscribe(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    s.subscribe({ taskId: id, platform: String(o.platform), chatId: String(o.chatId), threadId: (o.threadId as string | undefined) ?? null, userId: (o.userId as string | undefined) ?? null, notifierProfile: io.env.HERMES_PROFILE ?? null });
    io.out(`Subscribed ${o.platform}:${o.chatId}${o.threadId ? `:${o.threadId}` : ''} to ${id}`);
    return 0;
  });
}

export async function notifyList(io: KanbanIO, id: string | undefined, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    const subs = s.subscriptions(id);
    if (o.json) return json(io, subs), 0;
    if (!subs.length) return io.out('(no subscriptions)'), 0;
    for (const x of subs) io.out(`  ${String(x.task_id).padEnd(10)}  ${x.platform}:${x.chat_id}${x.thread_id ? `:${x.thread_id}` : ''}  (since event ${x.last_event_id})`);
    return 0;
  });
}

export async function notifyUnsubscribe(io: KanbanIO, id: string, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    if (!s.unsubscribe({ taskId: id, platform: String(o.platform), chatId: String(o.chatId), threadId: (o.threadId as string | undefined) ?? null })) throw new CommandFailed('(no such subscription)');
    io.out(`Unsubscribed from ${id}`);
    return 0;
  });
}

// ---- garbage collection -------------------------------------------------------------------------

export async function gc(io: KanbanIO, o: Opts): Promise<number> {
  return withStore(io, (s) => {
    const root = workspacesRoot(s.board, io.env);
    let removedWs = 0;
    for (const r of s.q("SELECT id, workspace_kind, workspace_path FROM tasks WHERE status = 'archived' AND workspace_kind = 'scratch'").all() as { id: string; workspace_path: string | null }[]) {
      const p = r.workspace_path ?? join(root, r.id);
      const rel = relative(root, p);
      if (!rel || rel.startsWith('..') || isAbsolute(rel) || !existsSync(p)) continue;
      rmSync(p, { recursive: true, force: true });
      removedWs++;
    }
    const events = s.gcEvents(Number(o.eventRetentionDays ?? 30) * 86400);
    let logs = 0;
    const dir = logsDir(s.board, io.env);
    const cutoff = Date.now() - Number(o.logRetentionDays ?? 30) * 86_400_000;
    if (existsSync(dir))
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        try {
          if (statSync(p).isFile() && statSync(p).mtimeMs < cutoff) {
            rmSync(p);
            logs++;
          }
        } catch {
          /* vanished */
        }
      }
    io.out(`GC complete: ${removedWs} workspace(s), ${events} event row(s), ${logs} log file(s) removed`);
    return 0;
  });
}
