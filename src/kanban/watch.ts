// Following a board's event log (task_events is append-only, ids only grow): the gateway's notifier
// and hooks use it, and so can a live view (a dashboard tab subscribes the same way). One read-only
// poll of MAX(id) per interval; new events are handed over in order, a batch at a time.
import { openKanbanDb, type KanbanDb } from './db.ts';
import { KanbanStore, type TaskEvent } from './store.ts';

export interface EventWatch {
  /** The id of the last event handed over. */
  readonly cursor: number;
  stop(): void;
}

export interface WatchOptions {
  intervalMs?: number;
  /** Start after this event id (default: from now, or 0 with `fromNow: false`). */
  afterId?: number;
  fromNow?: boolean;
  /** Events per batch (default 500). */
  batch?: number;
}

/** Watches a board: its kanban.db file, or an open connection (PostgreSQL boards), closed on stop. */
export function watchEvents(db: string | KanbanDb, board: string, o: WatchOptions, listener: (events: TaskEvent[]) => void | Promise<void>): EventWatch {
  const s = new KanbanStore(typeof db === 'string' ? openKanbanDb(db) : db, { board });
  let cursor = o.afterId ?? (o.fromNow === false ? 0 : s.lastEventId());
  let stopped = false;
  let busy = false;
  const poll = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      while (!stopped && s.lastEventId() > cursor) {
        const events = s.eventsAfter(cursor, o.batch ?? 500);
        if (!events.length) break;
        cursor = events[events.length - 1].id;
        await listener(events);
      }
    } catch {
      /* a locked or briefly unreadable board is retried on the next poll */
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void poll(), o.intervalMs ?? 1000);
  timer.unref?.();
  void poll();
  return {
    get cursor() {
      return cursor;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      s.close();
    },
  };
}
