// kanban_show (worker): the task, its parents' handoffs, earlier attempts, comments, recent events,
// and the pre-formatted worker context.
import { workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_show',
  emoji: '📋',
  description:
    "Read your kanban task's full state: title, body, assignee, the results your parent tasks handed over, your earlier attempts " +
    'on this task, the comment thread and recent events. Call it first, and again on a retry. `worker_context` is a ready-made summary.',
  fields: () => ({}),
  parallelSafe: true,
  anyTask: true,
  async run(_a, { store: s, id }) {
    const t = s.get(id);
    if (!t) return fail(`task ${id} not found`);
    const [{ buildWorkerContext }, { taskBrief }] = await Promise.all([import('../../kanban/context.ts'), import('../../kanban/store.ts')]);
    return JSON.stringify({
      task: { ...taskBrief(t), body: t.body, result: t.result },
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
  },
});
