// kanban_request_changes (reviewer worker): send the task you are reviewing back to its implementer.
import type { Zod } from './zod.ts';
import { BOARD_DESCRIPTION, clean, foreignTask, isWorker, okResult, ownRunId, TASK_ID_DESCRIPTION, withBoard, workerTask } from './kanban-common.ts';
import { defineTool } from './registry.ts';
import { fail } from './result.ts';

export default defineTool({
  name: 'kanban_request_changes',
  toolset: 'kanban',
  emoji: '↩',
  description:
    'As the reviewer of a kanban task: send it back to the worker who implemented it, with the concrete changes needed. (To approve it, ' +
    'use kanban_complete.)',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
      reason: z.string().describe('The concrete changes required before it is reviewed again.'),
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
    if (!a.reason?.trim()) return fail('reason is required: describe the changes needed');
    return withBoard(s, a.board, 'kanban_request_changes', async (store) => {
      const { requestChanges } = await import('../kanban/lifecycle.ts');
      const r = requestChanges(store, id, { reason: clean(a.reason), expectedRunId: ownRunId(s, id) });
      if (!r.ok) return fail(`could not request changes for ${id}: ${r.detail}`);
      return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id), implementer: r.detail });
    });
  },
});
