// `hermes insights [--days 30] [--source …] [--json]`
import { existsSync } from 'node:fs';
import { estimateCostUsd } from '../llm/pricing.ts';
import { SessionDB } from '../state/db.ts';
import { formatInsights, generateInsights } from '../state/insights.ts';
import { hermesHome, paths } from '../state/paths.ts';
import { CliError } from './errors.ts';

export function insights(o: { days?: string; source?: string; json?: boolean }): void {
  const days = o.days === undefined ? 30 : Number(o.days);
  if (!Number.isInteger(days) || days < 1) throw new CliError(`--days needs a whole number of days, 1 or more (got "${o.days}").`, 2);
  const path = paths.stateDb(hermesHome());
  if (!existsSync(path)) {
    if (o.json) process.stdout.write(`${JSON.stringify({ days, source: o.source ?? null, empty: true })}\n`);
    else process.stdout.write(`No sessions yet (${path} does not exist). Chat with \`hermes\` first.\n`);
    return;
  }
  const db = SessionDB.open(path);
  try {
    const report = generateInsights(db, { days, source: o.source, price: estimateCostUsd });
    process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatInsights(report)}\n`);
  } finally {
    db.close();
  }
}
