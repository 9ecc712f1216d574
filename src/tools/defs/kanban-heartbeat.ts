// kanban_heartbeat (worker): "still alive" during a long operation; extends the claim's TTL.
import type { Zod } from '../zod.ts';
import { okResult, ownRunId, workerTool } from './kanban-common.ts';
import { fail } from '../result.ts';

export default workerTool({
  name: 'kanban_heartbeat',
  emoji: '💓',
  description:
    'Signal that you are still working during a long operation (a build, a large crawl, training). Call it every few minutes: it keeps ' +
    'your claim on the task from expiring and shows progress on the board. Changes nothing else.',
  fields: (z: Zod) => ({ note: z.string().optional().describe('Short progress note, shown in the event log.') }),
  async run(a, { store, id, services }) {
    const { heartbeat, heartbeatClaim } = await import('../../kanban/lifecycle.ts');
    heartbeatClaim(store, id, { claimer: services.env.HERMES_KANBAN_CLAIM_LOCK || undefined });
    if (!heartbeat(store, id, { note: a.note ?? null, expectedRunId: ownRunId(services, id) })) return fail(`could not heartbeat ${id} (unknown id or not running)`);
    return okResult({ task_id: id });
  },
});
