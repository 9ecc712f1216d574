// kanban_unblock (orchestrator): return a blocked task to ready (todo while a parent is open).
import type { Zod } from '../zod.ts';
import { BOARD_DESCRIPTION, isOrchestrator, okResult, withBoard } from './kanban-common.ts';
import { defineTool } from '../registry.ts';
import { fail } from '../result.ts';

export default defineTool({
  name: 'kanban_unblock',
  toolset: 'kanban',
  emoji: '▶',
  description: 'Unblock a kanban task: it goes back to ready (or todo while one of its parents is unfinished) and is picked up again.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().describe('The blocked task.'),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  check: isOrchestrator,
  async handler(a, ctx) {
    return withBoard(ctx, a.board, 'kanban_unblock', async (s) => {
      const { unblock } = await import('../../kanban/lifecycle.ts');
      if (!unblock(s, a.task_id)) return fail(`could not unblock ${a.task_id} (not blocked, or unknown)`);
      return okResult({ task_id: a.task_id, status: s.status(a.task_id) });
    });
  },
});
