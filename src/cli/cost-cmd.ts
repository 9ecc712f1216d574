// `hermes cost why [today|yesterday|YYYY-MM-DD|<session id>] [--json]`: where the money and tokens of
// a day or a session went, from the spend ledger (HERMES_HOME/spend/), with the budgets beside it
// and the tool results that were largest (from the session store).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { budgetLines, readBudgets } from '../session/budgets.ts';
import { entryTokens, localDay, readDay, SPEND_DIR, type SpendEntry } from '../state/spend-ledger.ts';
import { formatSpendReport, spendReport, type BigResult } from '../state/spend-report.ts';
import { paths } from '../state/paths.ts';
import { openStore } from './store-open.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export async function why(target: string | undefined, o: { json?: boolean }): Promise<void> {
  const ctx = loadContext();
  const home = ctx.home;
  const t = (target ?? 'today').trim();
  let entries: SpendEntry[];
  let scope: { day?: string; session?: string };
  if (t === 'today' || t === 'yesterday' || DAY_RE.test(t)) {
    const day = t === 'today' ? localDay() : t === 'yesterday' ? localDay(Date.now() - 86_400_000) : t;
    if (DAY_RE.test(t) && Number.isNaN(Date.parse(`${t}T00:00:00`))) throw new CliError(`"${t}" is not a date: give YYYY-MM-DD, today, yesterday or a session id.`, 2);
    entries = readDay(home, day);
    scope = { day };
  } else {
    if (!/^[\w.:-]+$/.test(t)) throw new CliError(`"${t}" is neither a day (YYYY-MM-DD, today, yesterday) nor a session id (see hermes sessions list).`, 2);
    const dir = join(home, SPEND_DIR);
    const days = existsSync(dir) ? readdirSync(dir).filter((f) => /^\d{4}-\d{2}-\d{2}\.jsonl$/.test(f)).map((f) => f.slice(0, 10)).sort().reverse().slice(0, 60) : [];
    entries = days.flatMap((d) => readDay(home, d)).filter((e) => e.session === t);
    scope = { session: t };
  }
  const largest = await largestResults(ctx, entries, scope.day);
  const report = spendReport(entries, scope, largest);
  const { budgets } = readBudgets(ctx.loaded.config);
  const today = scope.day === localDay() ? entries : readDay(home, localDay());
  const sum = (es: SpendEntry[]) => ({ usd: es.reduce((n, e) => n + (e.usd ?? 0), 0), tokens: es.reduce((n, e) => n + entryTokens(e), 0) });
  const day = sum(today);
  // For a day: the costliest session of it against the session caps.
  const sess = scope.session ? sum(entries) : report.bySession.length ? { usd: Math.max(...report.bySession.map((g) => g.usd ?? 0)), tokens: Math.max(...report.bySession.map((g) => g.tokens)) } : undefined;
  const lines = budgetLines(budgets, { dayUsd: day.usd, dayTokens: day.tokens, sessionUsd: sess?.usd, sessionTokens: sess?.tokens });
  if (o.json) process.stdout.write(`${JSON.stringify({ ...report, budgets: budgets ? { ...budgets.caps, action: budgets.action } : null, budget_lines: lines }, null, 2)}\n`);
  else process.stdout.write(`${formatSpendReport(report, lines)}\n`);
}

/** The five largest tool results of the sessions in the report (of that day, for a day). */
async function largestResults(ctx: ReturnType<typeof loadContext>, entries: SpendEntry[], day: string | undefined): Promise<BigResult[]> {
  const sessions = [...new Set(entries.map((e) => e.session))].slice(0, 50);
  if (!sessions.length || !existsSync(paths.stateDb(ctx.home))) return [];
  let db: Awaited<ReturnType<typeof openStore>>;
  try {
    db = await openStore(ctx);
  } catch {
    return [];
  }
  try {
    const out: BigResult[] = [];
    for (const id of sessions) {
      const rows = (await db.getMessageRows(id, 'all')) as { role?: string; tool_name?: string | null; content?: string | null; timestamp?: number }[];
      for (const r of rows) {
        if (r.role !== 'tool' || typeof r.content !== 'string') continue;
        if (day && typeof r.timestamp === 'number' && localDay(r.timestamp * 1000) !== day) continue;
        out.push({ session: id, tool: r.tool_name || 'tool', chars: r.content.length, tokens: Math.ceil(r.content.length / 4) });
      }
    }
    return out.sort((a, b) => b.chars - a.chars).slice(0, 5);
  } catch {
    return [];
  } finally {
    await db.close();
  }
}
