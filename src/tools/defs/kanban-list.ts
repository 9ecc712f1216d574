// kanban_list (orchestrator): task summaries with the CLI's filters, bounded.
import type { Zod } from '../zod.ts';
import { BOARD_DESCRIPTION, isOrchestrator, withBoard } from './kanban-common.ts';
import { defineTool } from '../registry.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

export default defineTool({
  name: 'kanban_list',
  toolset: 'kanban',
  emoji: '📋',
  description:
    'List kanban tasks to find work to route: filter by assignee, status or tenant. Returns compact rows (id, title, status, assignee, ' +
    `priority, parent and child ids); ${DEFAULT_LIMIT} rows by default, ${MAX_LIMIT} at most, with a truncation flag.`,
  schema: (z: Zod) =>
    z.object({
      assignee: z.string().optional().describe('Only tasks of this profile.'),
      status: z.enum(['triage', 'todo', 'scheduled', 'ready', 'running', 'blocked', 'review', 'done', 'archived']).optional().describe('Only tasks in this status.'),
      tenant: z.string().optional().describe('Only tasks of this tenant.'),
      include_archived: z.boolean().optional().describe('Include archived tasks (default false).'),
      limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Maximum rows (default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}).`),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  check: isOrchestrator,
  parallelSafe: true,
  async handler(a, ctx) {
    const limit = a.limit ?? DEFAULT_LIMIT;
    const { taskBrief } = await import('../../kanban/store.ts');
    return withBoard(ctx, a.board, 'kanban_list', (s) => {
      const promoted = s.recomputeReady();
      const rows = s.list({ assignee: a.assignee, status: a.status, tenant: a.tenant, includeArchived: a.include_archived, limit: limit + 1 });
      const truncated = rows.length > limit;
      const tasks = rows.slice(0, limit).map((t) => {
        const parents = s.parents(t.id);
        const children = s.children(t.id);
        return { ...taskBrief(t), parents, children, parent_count: parents.length, child_count: children.length };
      });
      return JSON.stringify({ tasks, count: tasks.length, limit, truncated, next_limit: truncated && limit < MAX_LIMIT ? Math.min(limit * 2, MAX_LIMIT) : null, promoted });
    });
  },
});
