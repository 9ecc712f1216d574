// kanban_request_review (worker): hand your finished work to a reviewer (the task moves to review).
import type { Zod } from '../zod.ts';
import { clean, cleanMetadata, okResult, ownRunId, workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_request_review',
  emoji: '🔎',
  description:
    'Hand your kanban task to a reviewer instead of completing it: the task moves to the review column and the dispatcher starts the ' +
    'reviewer, who approves it or sends it back with requested changes. `summary`: what you did and how you checked it.',
  fields: (z: Zod) => ({
    summary: z.string().describe('What was implemented and how it was verified; the reviewer reads it first.'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Structured facts for the reviewer.'),
    reviewer: z.string().optional().describe('Profile that reviews (default: the current assignee).'),
  }),
  async run(a, { store, id, services }) {
    if (!a.summary?.trim()) return fail('summary is required: say what was implemented and how it was verified');
    const { requestReview } = await import('../../kanban/lifecycle.ts');
    const r = requestReview(store, id, { summary: clean(a.summary), metadata: cleanMetadata(a.metadata) ?? null, reviewer: a.reviewer ?? null, expectedRunId: ownRunId(services, id) });
    if (!r.ok) return fail(`could not request review for ${id}: ${r.reason}`);
    return okResult({ task_id: id, run_id: store.latestRun(id)?.id ?? null, status: store.status(id) });
  },
});
