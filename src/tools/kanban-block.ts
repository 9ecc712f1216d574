// kanban_block (worker): stop and ask a person; the reason shows on the board and in the chat that
// created the task.
import type { Zod } from './zod.ts';
import { BOARD_DESCRIPTION, clean, foreignTask, isWorker, okResult, ownRunId, TASK_ID_DESCRIPTION, withBoard, workerTask } from './kanban-common.ts';
import { defineTool } from './registry.ts';
import { fail } from './result.ts';

export default defineTool({
  name: 'kanban_block',
  toolset: 'kanban',
  emoji: '⏸',
  description:
    'Mark your kanban task blocked because you need a person to answer something before you can go on. `reason` is shown to them on ' +
    'the board and given back to you when they unblock the task. Use it for real blockers only, not for things you can resolve yourself.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
      reason: z.string().describe('What you need answered, in one or two sentences.'),
      kind: z
        .enum(['dependency', 'needs_input', 'capability', 'transient'])
        .optional()
        .describe("Why: 'dependency' waits (in todo) for other tasks and resumes by itself; the others wait for a person."),
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
    if (!a.reason?.trim()) return fail('reason is required: say what input you need');
    return withBoard(s, a.board, 'kanban_block', async (store) => {
      const { block } = await import('../kanban/lifecycle.ts');
      if (!block(store, id, { reason: clean(a.reason), kind: a.kind ?? null, expectedRunId: ownRunId(s, id) }))
        return fail(`could not block ${id} (unknown id, or not running/ready)`);
      return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id) });
    });
  },
});
