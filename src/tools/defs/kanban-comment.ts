// kanban_comment (worker): a durable note on a task's thread (yours or another's); the author is
// your profile.
import type { Zod } from '../zod.ts';
import { authorOf, BOARD_DESCRIPTION, clean, isWorker, okResult, withBoard } from './kanban-common.ts';
import { defineTool } from '../registry.ts';
import { fail } from '../result.ts';

export default defineTool({
  name: 'kanban_comment',
  toolset: 'kanban',
  emoji: '💬',
  description:
    "Add a comment to a kanban task's thread: durable notes that should outlive this run (questions for the next worker, partial " +
    'findings, reasons for a decision). The next worker on that task reads the thread. Not for ephemeral thinking.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().describe('The task to comment on (your own or another).'),
      body: z.string().describe('The comment (Markdown).'),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  autoInclude: isWorker,
  check: isWorker,
  async handler(a, ctx) {
    if (!a.task_id?.trim()) return fail('task_id is required');
    if (!a.body?.trim()) return fail('body is required');
    return withBoard(ctx, a.board, 'kanban_comment', (store) => okResult({ task_id: a.task_id, comment_id: store.comment(a.task_id, authorOf(ctx), clean(a.body)) }));
  },
});
