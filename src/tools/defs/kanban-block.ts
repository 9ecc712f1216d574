// kanban_block (worker): stop and ask a person; the reason shows on the board and in the chat that
// created the task.
import type { Zod } from '../zod.ts';
import { clean, okResult, ownRunId, workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_block',
  emoji: '⏸',
  description:
    'Mark your kanban task blocked because you need a person to answer something before you can go on. `reason` is shown to them on ' +
    'the board and given back to you when they unblock the task. Use it for real blockers only, not for things you can resolve yourself.',
  fields: (z: Zod) => ({
    reason: z.string().describe('What you need answered, in one or two sentences.'),
    kind: z
      .enum(['dependency', 'needs_input', 'capability', 'transient'])
      .optional()
      .describe("Why: 'dependency' waits (in todo) for other tasks and resumes by itself; the others wait for a person."),
  }),
  async run(a, { store, id, services }) {
    if (!a.reason?.trim()) return fail('reason is required: say what input you need');
    const { block } = await import('../../kanban/lifecycle.ts');
    if (!block(store, id, { reason: clean(a.reason), kind: a.kind ?? null, expectedRunId: ownRunId(services, id) })) return fail(`could not block ${id} (unknown id, or not running/ready)`);
    return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id) });
  },
});
