// kanban_request_changes (reviewer worker): send the task you are reviewing back to its implementer.
import type { Zod } from '../zod.ts';
import { clean, okResult, ownRunId, workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_request_changes',
  emoji: '↩',
  description: 'As the reviewer of a kanban task: send it back to the worker who implemented it, with the concrete changes needed. (To approve it, use kanban_complete.)',
  fields: (z: Zod) => ({ reason: z.string().describe('The concrete changes required before it is reviewed again.') }),
  async run(a, { store, id, services }) {
    if (!a.reason?.trim()) return fail('reason is required: describe the changes needed');
    const { requestChanges } = await import('../../kanban/lifecycle.ts');
    const r = requestChanges(store, id, { reason: clean(a.reason), expectedRunId: ownRunId(services, id) });
    if (!r.ok) return fail(`could not request changes for ${id}: ${r.detail}`);
    return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id), implementer: r.detail });
  },
});
