// `hermes insights [--days 30] [--source …] [--json]`: from state.db, or PostgreSQL (state.backend).
import { existsSync } from 'node:fs';
import { estimateCostUsd } from '../llm/pricing.ts';
import { budgetLines, readBudgets, usd } from '../session/budgets.ts';
import { DayTotals } from '../state/spend-ledger.ts';
import { formatInsights, generateInsights } from '../state/insights.ts';
import { paths } from '../state/paths.ts';
import { storeChoice } from '../state/store/index.ts';
import { openStore } from './store-open.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

/** Today's spend (every process of this home, from the spend ledger) against config.yaml budgets:. */
function budgetSection(home: string, config: unknown): { text: string; json: Record<string, unknown> | null } {
  const { budgets } = readBudgets(config);
  const day = new DayTotals(home).refresh().close();
  if (!budgets && !day.calls) return { text: '', json: null };
  const lines = budgetLines(budgets, { dayUsd: day.usd, dayTokens: day.tokens });
  const text = [`\n\nToday: ${usd(day.usd)} · ${day.tokens.toLocaleString('en-US')} tokens · ${day.calls} model call(s) (every process of this home; hermes cost why for where it went)`, ...(lines.length ? ['Budgets', ...lines.map((l) => `  ${l}`)] : [])].join('\n');
  return { text, json: { today: { usd: day.usd, tokens: day.tokens, calls: day.calls }, caps: budgets ? { ...budgets.caps, action: budgets.action } : null, lines } };
}

export async function insights(o: { days?: string; source?: string; json?: boolean }): Promise<void> {
  const days = o.days === undefined ? 30 : Number(o.days);
  if (!Number.isInteger(days) || days < 1) throw new CliError(`--days needs a whole number of days, 1 or more (got "${o.days}").`, 2);
  const ctx = loadContext();
  const path = paths.stateDb(ctx.home);
  let sqlite = true;
  try {
    sqlite = storeChoice(ctx.loaded.config, ctx.env).backend === 'sqlite';
  } catch {
    /* openStore says what is wrong */
  }
  if (sqlite && !existsSync(path)) {
    if (o.json) process.stdout.write(`${JSON.stringify({ days, source: o.source ?? null, empty: true })}\n`);
    else process.stdout.write(`No sessions yet (${path} does not exist). Chat with \`hermes\` first.\n`);
    return;
  }
  const db = await openStore(ctx);
  try {
    const report = await generateInsights(db, { days, source: o.source, price: estimateCostUsd });
    const budgets = budgetSection(ctx.home, ctx.loaded.config);
    process.stdout.write(o.json ? `${JSON.stringify({ ...report, budgets: budgets.json }, null, 2)}\n` : `${formatInsights(report)}${budgets.text}\n`);
  } finally {
    await db.close();
  }
}
