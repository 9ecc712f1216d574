// kanban_link (orchestrator): add a parent → child dependency between existing tasks (cycles refused).
import type { Zod } from '../zod.ts';
import { BOARD_DESCRIPTION, isOrchestrator, okResult, withBoard } from './kanban-common.ts';
import { defineTool } from '../registry.ts';

export default defineTool({
  name: 'kanban_link',
  toolset: 'kanban',
  emoji: '🔗',
  description: "Make one existing kanban task depend on another: the child does not start until the parent is done. Cycles and self-links are refused.",
  schema: (z: Zod) =>
    z.object({
      parent_id: z.string().describe('The task that must finish first.'),
      child_id: z.string().describe('The task that waits for it.'),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  check: isOrchestrator,
  async handler(a, ctx) {
    return withBoard(ctx, a.board, 'kanban_link', (s) => okResult({ parent_id: a.parent_id, child_id: a.child_id, gated: s.link(a.parent_id, a.child_id) }));
  },
});
