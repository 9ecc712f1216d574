// Shared by the kanban_* tools. Worker tools exist only in a session the dispatcher started
// (HERMES_KANBAN_TASK set) and join it on their own; orchestrator tools only outside one, and only
// when the `kanban` toolset is asked for by name (never through `all`). Neither reaches subagents.
// The board code loads on the first call.
import type { ToolOutcome } from '../../agent/types.ts';
import type { KanbanStore } from '../../kanban/store.ts';
import { redactSecrets } from '../../policy/redact.ts';
import { fail } from '../result.ts';
import type { z } from 'zod';
import { defineTool } from '../registry.ts';
import type { ToolDefinition, ToolSession } from '../types.ts';
import type { Zod } from '../zod.ts';

export const workerTask = (s: ToolSession): string => s.env.HERMES_KANBAN_TASK?.trim() ?? '';

/** Worker tools: under the dispatcher, in the top-level session only. */
export const isWorker = (s: ToolSession) => !!workerTask(s) && (s.depth ?? 0) === 0;
/** Orchestrator tools: never inside a worker, never in a subagent. */
export const isOrchestrator = (s: ToolSession) => !workerTask(s) && (s.depth ?? 0) === 0;

export const BOARD_DESCRIPTION =
  'Board slug. Omit it to use the active board (HERMES_KANBAN_DB / HERMES_KANBAN_BOARD, then the current board, then "default").';
export const TASK_ID_DESCRIPTION = 'Task id. Omit it to use your own task ($HERMES_KANBAN_TASK).';

export const okResult = (fields: Record<string, unknown>): string => JSON.stringify({ ok: true, ...fields });

/** Secrets never go into the board (it is shared across profiles and shown to people). */
export const clean = (text: string): string => redactSecrets(text);

export function cleanMetadata(m: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!m) return m;
  try {
    return JSON.parse(redactSecrets(JSON.stringify(m))) as Record<string, unknown>;
  } catch {
    return m;
  }
}

/** Runs `fn` against the board (opened for this call); board errors become tool errors. */
export async function withBoard(s: ToolSession, board: string | undefined, tool: string, fn: (store: KanbanStore) => string | ToolOutcome | Promise<string | ToolOutcome>): Promise<string | ToolOutcome> {
  const { openBoard } = await import('../../kanban/store.ts');
  let store: KanbanStore;
  try {
    store = openBoard({ board: board ?? null, env: s.env });
  } catch (e) {
    return fail(`${tool}: ${(e as Error).message}`);
  }
  try {
    return await fn(store);
  } catch (e) {
    return fail(`${tool}: ${(e as Error).message}`);
  } finally {
    store.close();
  }
}

/** A worker acts only on its own task (others get comments, or a new task). */
export function foreignTask(s: ToolSession, taskId: string): ToolOutcome | null {
  const own = workerTask(s);
  if (!own || own === taskId) return null;
  return fail(`worker is scoped to task ${own}; refusing to change ${taskId}. Use kanban_comment to hand information to other tasks.`);
}

/** The task a worker tool acts on: the argument, else the worker's own — never another task. */
export function targetTask(s: ToolSession, arg: string | undefined): string | ToolOutcome {
  const id = arg || workerTask(s);
  if (!id) return fail('task_id is required (or set HERMES_KANBAN_TASK)');
  return foreignTask(s, id) ?? id;
}

/** The `task_id` and `board` parameters every worker tool takes. */
export const taskAndBoard = (z: Zod) => ({
  task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
  board: z.string().optional().describe(BOARD_DESCRIPTION),
});

/** The dispatcher's run id for this worker's own task (so a reclaimed run cannot be closed twice). */
export function ownRunId(s: ToolSession, taskId: string): number | null {
  if (workerTask(s) !== taskId) return null;
  const n = Number(s.env.HERMES_KANBAN_RUN_ID);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The author of a worker's comments: its profile, never a name the model picks. */
export const authorOf = (s: ToolSession): string => s.env.HERMES_PROFILE?.trim() || 'worker';

type WorkerArgs<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>> & { task_id?: string; board?: string };

/**
 * A worker tool: `task_id` (default: the worker's own task; another task only for reads) and
 * `board` come with it; `run` gets the task id and the opened board.
 */
export function workerTool<S extends z.ZodRawShape>(o: {
  name: string;
  emoji: string;
  description: string;
  fields: (z: Zod) => S;
  parallelSafe?: boolean;
  /** Reads may look at any task; changes only the worker's own. */
  anyTask?: boolean;
  run: (a: WorkerArgs<S>, c: { store: KanbanStore; id: string; services: ToolSession }) => string | ToolOutcome | Promise<string | ToolOutcome>;
}): ToolDefinition {
  return defineTool({
    name: o.name,
    toolset: 'kanban',
    emoji: o.emoji,
    description: o.description,
    schema: (z: Zod) => z.object({ ...taskAndBoard(z), ...o.fields(z) }),
    autoInclude: isWorker,
    check: isWorker,
    parallelSafe: o.parallelSafe,
    async handler(a, ctx) {
      const args = a as WorkerArgs<S>;
      const id = o.anyTask && args.task_id ? args.task_id : targetTask(ctx, args.task_id);
      if (typeof id !== 'string') return id;
      return withBoard(ctx, args.board, o.name, (store) => o.run(args, { store, id, services: ctx }));
    },
  }) as ToolDefinition;
}
