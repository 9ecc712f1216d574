// kanban_request_review (worker): hand your finished work to a reviewer (the task moves to review).
import type { Zod } from './zod.ts';
import { BOARD_DESCRIPTION, clean, cleanMetadata, foreignTask, isWorker, okResult, ownRunId, TASK_ID_DESCRIPTION, withBoard, workerTask } from './kanban-common.ts';
import { defineTool } from './registry.ts';
import { fail } from './result.ts';

export default defineTool({
  name: 'kanban_request_review',
  toolset: 'kanban',
  emoji: '🔎',
  description:
    'Hand your kanban task to a reviewer instead of completing it: the task moves to the review column and the dispatcher starts the ' +
    'reviewer, who approves it or sends it back with requested changes. `summary`: what you did and how you checked it.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
      summary: z.string().describe('What was implemented and how it was verified; the reviewer reads it first.'),
      metadata: z.record(z.string(), z.unknown()).optional().describe('Structured facts for the reviewer.'),
      reviewer: z.string().optional().describe('Profile that reviews (default: the one who reviewed it last, else the current assignee).'),
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
    if (!a.summary?.trim()) return fail('summary is required: say what was implemented and how it was verified');
    return withBoard(s, a.board, 'kanban_request_review', async (store) => {
      const { requestReview } = await import('../kanban/lifecycle.ts');
      const r = requestReview(store, id, { summary: clean(a.summary), metadata: cleanMetadata(a.metadata) ?? null, reviewer: a.reviewer ?? null, expectedRunId: ownRunId(s, id) });
      if (!r.ok) return fail(`could not request review for ${id}: ${r.reason}`);
      return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id) });
    });
  },
});
