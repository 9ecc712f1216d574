// kanban_show (worker): the task, its parents' handoffs, earlier attempts, comments, recent events,
// and the pre-formatted worker context.
import type { Zod } from './zod.ts';
import { BOARD_DESCRIPTION, isWorker, TASK_ID_DESCRIPTION, withBoard, workerTask } from './kanban-common.ts';
import { defineTool } from './registry.ts';
import { fail } from './result.ts';

export default defineTool({
  name: 'kanban_show',
  toolset: 'kanban',
  emoji: '📋',
  description:
    "Read your kanban task's full state: title, body, assignee, the results your parent tasks handed over, your earlier attempts " +
    'on this task, the comment thread and recent events. Call it first, and again on a retry. `worker_context` is a ready-made summary.',
  schema: (z: Zod) =>
    z.object({
      task_id: z.string().optional().describe(TASK_ID_DESCRIPTION),
      board: z.string().optional().describe(BOARD_DESCRIPTION),
    }),
  autoInclude: isWorker,
  check: isWorker,
  parallelSafe: true,
  async handler(a, ctx) {
    const id = a.task_id || workerTask(ctx.services);
    if (!id) return fail('task_id is required (or set HERMES_KANBAN_TASK)');
    return withBoard(ctx.services, a.board, 'kanban_show', async (s) => {
      const t = s.get(id);
      if (!t) return fail(`task ${id} not found`);
      const { buildWorkerContext } = await import('../kanban/context.ts');
      return JSON.stringify({
        task: {
          id: t.id,
          title: t.title,
          body: t.body,
          assignee: t.assignee,
          status: t.status,
          tenant: t.tenant,
          priority: t.priority,
          workspace_kind: t.workspace_kind,
          workspace_path: t.workspace_path,
          created_by: t.created_by,
          created_at: t.created_at,
          started_at: t.started_at,
          completed_at: t.completed_at,
          result: t.result,
          current_run_id: t.current_run_id,
          model_override: t.model_override,
        },
        parents: s.parents(id),
        children: s.children(id),
        comments: s.comments(id).map((c) => ({ author: c.author, body: c.body, created_at: c.created_at })),
        events: s
          .events(id)
          .slice(-50)
          .map((e) => ({ kind: e.kind, payload: e.payload, created_at: e.created_at, run_id: e.run_id })),
        runs: s.runs(id).map((r) => ({ id: r.id, profile: r.profile, status: r.status, outcome: r.outcome, summary: r.summary, error: r.error, metadata: r.metadata, started_at: r.started_at, ended_at: r.ended_at })),
        worker_context: buildWorkerContext(s, id),
      });
    });
  },
});
