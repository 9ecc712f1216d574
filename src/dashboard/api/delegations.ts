// Subagents on the dashboard: a session's background delegations as state.db keeps them
// (`async_delegations`, whichever process ran them), and the live transcripts every subagent writes
// (`cache/delegation/live/<delegation>/task-<n>.log`), read while they grow: the page polls
// `/api/delegations/:id/transcript?offset=` with the last `next` it got.
import type { Hono } from 'hono';
import { listTranscripts, readTranscript } from '../../tools/subagents.ts';
import { fail, type DashboardContext } from '../context.ts';

export function registerDelegations(app: Hono, ctx: DashboardContext): void {
  app.get('/api/sessions/:id/delegations', async (c) => {
    const db = await ctx.store();
    const rows = await db.delegations.list([c.req.param('id')], 100);
    const files = listTranscripts(ctx.home, 500);
    return c.json({
      delegations: rows.map((r) => ({
        delegation_id: r.delegationId,
        state: r.state,
        delivery_state: r.deliveryState,
        dispatched_at: r.dispatchedAt,
        completed_at: r.completedAt,
        delivered_at: r.deliveredAt,
        goal: r.task.goal ?? '',
        role: r.task.role ?? null,
        summary: typeof r.event?.summary === 'string' ? r.event.summary : null,
        error: typeof r.event?.error === 'string' ? r.event.error : null,
        transcripts: files.filter((f) => f.delegationId === r.delegationId).map((f) => f.task),
      })),
    });
  });

  app.get('/api/delegations/live', (c) => c.json({ transcripts: listTranscripts(ctx.home) }));

  app.get('/api/delegations/:id/transcript', (c) => {
    const task = Number(c.req.query('task') ?? 0);
    const offset = Number(c.req.query('offset') ?? 0);
    const t = readTranscript(ctx.home, c.req.param('id'), task, Number.isFinite(offset) ? offset : 0);
    if (!t) return fail(c, 404, `No transcript for ${c.req.param('id')} task ${task}.`);
    return c.json(t);
  });
}
