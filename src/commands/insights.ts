// /insights [days] [source]: tokens, cost, sessions and tool calls from the session store (src/state/insights.ts).
import { estimateCostUsd } from '../llm/pricing.ts';
import { formatInsights, formatInsightsShort, generateInsights } from '../state/insights.ts';
import { withDb } from './state.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';

export function insightsCommand(): CommandDef {
  return {
    name: 'insights',
    args: '[days] [source]',
    description: 'usage over the last days: tokens, cost, models, tools (default 30 days)',
    category: 'info',
    surfaces: ALL_SURFACES,
    midTurn: true,
    async run(ctx, args) {
      const words = args.split(/\s+/).filter(Boolean);
      let days = 30;
      let source: string | null = null;
      for (const w of words) {
        if (/^\d+d?$/.test(w)) days = Number(w.replace(/d$/, ''));
        else source = w;
      }
      if (!(days >= 1 && days <= 3650)) return { output: 'Usage: /insights [days] [source], e.g. /insights 7 or /insights 30 telegram' };
      const report = await withDb(ctx.session, (db) => generateInsights(db, { days, source, price: estimateCostUsd }));
      return { output: ctx.surface === 'gateway' ? formatInsightsShort(report) : formatInsights(report) };
    },
  };
}
