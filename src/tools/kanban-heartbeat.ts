// kanban_heartbeat (worker): "still alive" during a long operation; extends the claim's TTL.
import type { Zod } from './zod.ts';
import { BOARD_DESCRIPTION, foreignTask, isWorker, okResult, ownRunId, TASK_ID_DESCRIPTION, withBoard, workerTask } from './kanban-common.ts';
import { defineTool } from './registry.ts';
import { fail } from './result.ts';

export default defineTool({
  name: 'kanban_heartbeat',
  toolset: 'kanban',
  emoji: '💓',
  description:
    'Signal that you are still working during a long operation (a build, a large crawl, training). Call it every few minutes: it keeps ' +
    'your claim on the task from expiring and shows progress on the board. Changes nothing else.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
      note: z.string().optional().describe('Short progress note, shown in the event log.'),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  autoInclude: isWorker,
  check: isWorker,
  async handler(a, ctx) {
    const s = ctx.services;
    const id = a.task_id || workerTask(s);
    if (!id) return fail('task_id is required (or set HERMES_KANBAN_TASK)');
    const denied = foreignTask(s, id);
    if (denied) return denied;
    return withBoard(s, a.board, 'kanban_heartbeat', async (store) => {
      const { heartbeat, heartbeatClaim } = await import('../kanban/lifecycle.ts');
      heartbeatClaim(store, id, { claimer: s.env.HERMES_KANBAN_CLAIM_LOCK || undefined });
      if (!heartbeat(store, id, { note: a.note ?? null, expectedRunId: ownRunId(s, id) })) return fail(`could not heartbeat ${id} (unknown id or not running)`);
      return okResult({ task_id: id });
    });
  },
});
