// The kanban service a long-running process hosts (the gateway): the dispatcher ticking every board
// every `kanban.dispatch_interval_seconds` (when `kanban.dispatch_in_gateway`), and a watcher over
// the boards' event logs that tells subscribed chats what became of their tasks and fires the
// kanban_task_claimed / completed / blocked hooks — whichever process made the change.
import { existsSync } from 'node:fs';
import { dbPath, listBoards } from './boards.ts';
import { boardHasDb, openBoardDb } from './backend.ts';
import { dispatchOnce, dispatchOptionsFrom, tickDidWork, type SpawnFn } from './dispatcher.ts';
import { KanbanStore, type TaskEvent } from './store.ts';
import { watchEvents, type EventWatch } from './watch.ts';

/** Event kinds a subscribed chat hears about. */
export const NOTIFY_KINDS = ['completed', 'blocked', 'gave_up', 'crashed', 'timed_out', 'block_loop_detected', 'review_requested', 'changes_requested', 'protocol_violation'] as const;
const HOOK_OF: Record<string, string> = { claimed: 'kanban_task_claimed', completed: 'kanban_task_completed', blocked: 'kanban_task_blocked' };

export interface KanbanServiceOptions {
  env: NodeJS.ProcessEnv;
  /** config.yaml's `kanban:` section, read again for every tick (edits apply without a restart). */
  config: () => Record<string, unknown>;
  log: (line: string) => void;
  /** Sends a notification to `platform:chat_id[:thread_id]`. */
  notify?: (target: string, text: string) => Promise<{ ok: boolean; error?: string }>;
  /** Gateway hooks (kanban_task_claimed, kanban_task_completed, kanban_task_blocked). */
  hook?: (event: string, context: Record<string, unknown>) => void;
  /** Poll period of the event watcher (default 2 s). */
  watchIntervalMs?: number;
  spawn?: SpawnFn;
}

export interface KanbanService {
  /** Runs a dispatcher tick on every board now. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export function dispatchInGateway(cfg: Record<string, unknown>, env: NodeJS.ProcessEnv): boolean {
  const e = env.HERMES_KANBAN_DISPATCH_IN_GATEWAY?.trim();
  if (e) return !/^(0|false|no|off)$/i.test(e);
  return cfg.dispatch_in_gateway !== false;
}

function boardsWithDb(env: NodeJS.ProcessEnv): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const b of listBoards({ includeArchived: false }, env)) {
    const p = dbPath(b.slug, env);
    if (!boardHasDb(b.slug, env) || seen.has(p)) continue;
    seen.add(p);
    out.push(b.slug);
  }
  return out;
}

function withBoard<T>(board: string, env: NodeJS.ProcessEnv, fn: (s: KanbanStore) => T): T {
  const s = new KanbanStore(openBoardDb(board, env), { board, env });
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** The text a chat receives for an event of its task. */
export function notificationText(s: KanbanStore, e: TaskEvent): string {
  const t = s.get(e.task_id);
  const title = t?.title ?? '';
  const p = e.payload ?? {};
  const line = (x: unknown) => String(x ?? '').trim();
  switch (e.kind) {
    case 'completed': {
      const summary = line(p.summary) || line(s.latestSummary(e.task_id)) || line(t?.result);
      return `✅ Kanban task ${e.task_id} done: ${title}${summary ? `\n${summary}` : ''}`;
    }
    case 'blocked':
      return `⏸ Kanban task ${e.task_id} is blocked: ${title}${p.reason ? `\nReason: ${line(p.reason)}` : ''}\nAnswer with /kanban comment ${e.task_id} <text>, then /kanban unblock ${e.task_id}.`;
    case 'block_loop_detected':
      return `⚠ Kanban task ${e.task_id} was blocked again for the same reason and moved to triage: ${title}${p.reason ? `\nReason: ${line(p.reason)}` : ''}`;
    case 'gave_up':
      return `⛔ Kanban task ${e.task_id} gave up after ${line(p.failures)} failed attempt(s): ${title}${p.error ? `\n${line(p.error).slice(0, 300)}` : ''}\nFix the cause, then /kanban unblock ${e.task_id}.`;
    case 'crashed':
    case 'protocol_violation':
      return `⚠ Kanban task ${e.task_id}: the worker stopped without finishing (${e.kind === 'crashed' ? 'crashed' : 'no kanban_complete'}); it will be retried: ${title}`;
    case 'timed_out':
      return `⏱ Kanban task ${e.task_id}: the worker ran past its time limit and was stopped; it will be retried: ${title}`;
    case 'review_requested':
      return `🔎 Kanban task ${e.task_id} is ready for review: ${title}${p.summary ? `\n${line(p.summary)}` : ''}`;
    case 'changes_requested':
      return `↩ Kanban task ${e.task_id}: changes requested: ${title}${p.reason ? `\n${line(p.reason)}` : ''}`;
    default:
      return `Kanban task ${e.task_id}: ${e.kind}`;
  }
}

const targetOf = (sub: Record<string, unknown>) => `${sub.platform}:${sub.chat_id}${sub.thread_id ? `:${sub.thread_id}` : ''}`;

/** Delivers the unseen events of every subscription with news on this board. */
async function deliverBoard(s: KanbanStore, notify: NonNullable<KanbanServiceOptions['notify']>, log: (l: string) => void): Promise<void> {
  const pending = s
    .q('SELECT s.task_id, s.platform, s.chat_id, s.thread_id FROM kanban_notify_subs s WHERE EXISTS (SELECT 1 FROM task_events e WHERE e.task_id = s.task_id AND e.id > s.last_event_id)')
    .all() as { task_id: string; platform: string; chat_id: string; thread_id: string }[];
  for (const sub of pending) {
    for (const e of s.claimUnseen(sub, NOTIFY_KINDS)) {
      const r = await notify(targetOf(sub), notificationText(s, e)).catch((err: Error) => ({ ok: false, error: err.message }));
      if (!r.ok) log(`kanban: could not notify ${targetOf(sub)} about ${e.task_id} ${e.kind}: ${r.error}`);
    }
  }
}

export function startKanbanService(o: KanbanServiceOptions): KanbanService {
  const env = o.env;
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;

  /** The boards, or none this time when they cannot be listed (a database restarting): never a crash. */
  const boards = (what: string): string[] => {
    try {
      return boardsWithDb(env);
    } catch (e) {
      o.log(`kanban: ${what} skipped: the boards cannot be listed (${(e as Error).message})`);
      return [];
    }
  };

  const tickOnce = async () => {
    const cfg = o.config();
    for (const board of boards('dispatch tick')) {
      try {
        const s = new KanbanStore(openBoardDb(board, env), { board, env });
        try {
          const r = await dispatchOnce(s, { ...dispatchOptionsFrom(cfg, env), spawn: o.spawn });
          if (tickDidWork(r))
            o.log(
              `kanban: ${board}: spawned ${r.spawned.length}${r.spawned.length ? ` (${r.spawned.map((x) => `${x.taskId}→${x.assignee}`).join(', ')})` : ''}, promoted ${r.promoted}, reclaimed ${r.reclaimed}, crashed ${r.crashed.length}, timed out ${r.timedOut.length}, auto-blocked ${r.autoBlocked.length}`,
            );
        } finally {
          s.close();
        }
      } catch (e) {
        o.log(`kanban: ${board}: dispatch tick failed: ${(e as Error).message}`);
      }
    }
  };

  const tick = async () => {
    if (ticking) return ticking;
    ticking = tickOnce().finally(() => (ticking = null));
    return ticking;
  };

  const schedule = () => {
    if (stopped) return;
    const cfg = o.config();
    if (!dispatchInGateway(cfg, env)) return;
    const s = Number(cfg.dispatch_interval_seconds ?? 60);
    const ms = (Number.isFinite(s) && s > 0 ? s : 60) * 1000;
    timer = setTimeout(() => void tick().finally(schedule), ms);
  };
  if (dispatchInGateway(o.config(), env)) {
    o.log(`kanban: dispatcher running in the gateway (every ${Number(o.config().dispatch_interval_seconds ?? 60) || 60}s)`);
    setImmediate(() => void tick().finally(schedule));
  }

  // The default board always exists: make its file now so its watcher starts with the gateway.
  try {
    openBoardDb('default', env).close();
  } catch (e) {
    o.log(`kanban: cannot open the default board: ${(e as Error).message}`);
  }
  // One watcher per board: hooks for every lifecycle event, notifications for subscribed chats.
  const watches = new Map<string, EventWatch>();
  let delivering = false;
  const onEvents = async (board: string, events: TaskEvent[]) => {
    for (const e of events) {
      const hook = HOOK_OF[e.kind];
      if (hook && o.hook) {
        let assignee: string | null = null;
        try {
          assignee = withBoard(board, env, (s) => s.get(e.task_id))?.assignee ?? null;
        } catch {
          /* the board cannot be read right now (a database restarting): the hook goes without it */
        }
        o.hook(hook, { task_id: e.task_id, board, assignee, run_id: e.run_id, ...(e.payload ?? {}) });
      }
    }
    if (!o.notify || delivering) return;
    delivering = true;
    try {
      const s = new KanbanStore(openBoardDb(board, env), { board, env });
      try {
        await deliverBoard(s, o.notify, o.log);
      } finally {
        s.close();
      }
    } catch (e) {
      o.log(`kanban: ${board}: notifications failed: ${(e as Error).message}`);
    } finally {
      delivering = false;
    }
  };
  const watchBoards = () => {
    for (const board of boards('board scan')) {
      if (watches.has(board)) continue;
      try {
        watches.set(board, watchEvents(openBoardDb(board, env), board, { intervalMs: o.watchIntervalMs ?? 2000, fromNow: true }, (events) => onEvents(board, events)));
      } catch (e) {
        o.log(`kanban: ${board}: cannot watch it yet (${(e as Error).message}); trying again later`);
        continue;
      }
      // Notifications the gateway missed while it was down go out now.
      void onEvents(board, []);
    }
  };
  watchBoards();
  const rescan = setInterval(watchBoards, 30_000);
  rescan.unref?.();

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(rescan);
      for (const w of watches.values()) w.stop();
      if (ticking) await ticking;
    },
  };
}
