// Analytics tab: the `hermes insights` report (src/state/insights.ts) as JSON for the charts.
import type { Hono } from 'hono';
import { estimateCostUsd } from '../../llm/pricing.ts';
import { generateInsights } from '../../state/insights.ts';
import { fail, type DashboardContext } from '../context.ts';
import type { AnalyticsReport } from '../api-types.ts';

export function registerAnalytics(app: Hono, ctx: DashboardContext): void {
  app.get('/api/analytics', async (c) => {
    const days = Number(c.req.query('days') ?? 30);
    if (!Number.isInteger(days) || days < 1 || days > 3650) return fail(c, 400, 'days must be a whole number from 1 to 3650.');
    return c.json((await generateInsights(await ctx.store(), { days, source: c.req.query('source') || null, price: estimateCostUsd })) satisfies AnalyticsReport);
  });
}
