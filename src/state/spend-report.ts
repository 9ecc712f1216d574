// Where the money and tokens went (`hermes cost why`, the dashboard): the spend ledger's calls of a
// day or a session added up by model and by call kind, with cache reads against cache writes, and
// the tool results that were largest (what the model had to read again on every later call).
import { entryTokens, type SpendEntry } from './spend-ledger.ts';

export interface SpendGroup {
  name: string;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  tokens: number;
  /** null: no call of the group had a known price. */
  usd: number | null;
}

export interface BigResult {
  session: string;
  tool: string;
  chars: number;
  /** ~tokens (4 chars each). */
  tokens: number;
}

export interface SpendReport {
  scope: { day?: string; session?: string };
  total: SpendGroup;
  byModel: SpendGroup[];
  byKind: SpendGroup[];
  bySession: SpendGroup[];
  unpricedCalls: number;
  largestResults: BigResult[];
}

function group(name: string, es: SpendEntry[]): SpendGroup {
  const g: SpendGroup = { name, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, tokens: 0, usd: null };
  for (const e of es) {
    g.calls++;
    g.input += e.input || 0;
    g.output += e.output || 0;
    g.cacheRead += e.cache_read || 0;
    g.cacheWrite += e.cache_write || 0;
    g.tokens += entryTokens(e);
    if (typeof e.usd === 'number') g.usd = (g.usd ?? 0) + e.usd;
  }
  return g;
}

function groups(es: SpendEntry[], key: (e: SpendEntry) => string): SpendGroup[] {
  const by = new Map<string, SpendEntry[]>();
  for (const e of es) {
    const k = key(e);
    const list = by.get(k);
    if (list) list.push(e);
    else by.set(k, [e]);
  }
  return [...by].map(([k, v]) => group(k, v)).sort((a, b) => (b.usd ?? 0) - (a.usd ?? 0) || b.tokens - a.tokens);
}

export function spendReport(entries: SpendEntry[], scope: SpendReport['scope'], largestResults: BigResult[] = []): SpendReport {
  return {
    scope,
    total: group('total', entries),
    byModel: groups(entries, (e) => `${e.provider}:${e.model}`),
    byKind: groups(entries, (e) => e.kind),
    bySession: groups(entries, (e) => e.session),
    unpricedCalls: entries.filter((e) => typeof e.usd !== 'number').length,
    largestResults,
  };
}

const tok = (v: number) => Math.round(v).toLocaleString('en-US');
const money = (v: number | null) => (v === null ? 'price unknown' : `$${v < 0.01 && v > 0 ? v.toFixed(4) : v.toFixed(2)}`);

function row(g: SpendGroup, width: number): string {
  return `  ${g.name.padEnd(width)}  ${money(g.usd).padStart(13)}  ${tok(g.tokens).padStart(11)} tokens  ${String(g.calls).padStart(4)} call(s)  (input ${tok(g.input)} · cache read ${tok(g.cacheRead)} · cache write ${tok(g.cacheWrite)} · output ${tok(g.output)})`;
}

/** The report as text, budgets lines (from the runtime) after the totals. */
export function formatSpendReport(r: SpendReport, budgetLines: string[] = []): string {
  const what = r.scope.session ? `session ${r.scope.session}` : `${r.scope.day}`;
  if (!r.total.calls) return `No model calls recorded for ${what}.${budgetLines.length ? `\n\nBudgets\n${budgetLines.map((l) => `  ${l}`).join('\n')}` : ''}`;
  const out: string[] = [];
  const t = r.total;
  out.push(`Spend for ${what}: ${money(t.usd)} · ${tok(t.tokens)} tokens · ${t.calls} call(s)${r.unpricedCalls ? ` (${r.unpricedCalls} without a known price)` : ''}`);
  if (budgetLines.length) out.push('', 'Budgets', ...budgetLines.map((l) => `  ${l}`));
  const section = (title: string, gs: SpendGroup[], limit = 10) => {
    if (!gs.length) return;
    const w = Math.min(40, Math.max(...gs.slice(0, limit).map((g) => g.name.length)));
    out.push('', title, ...gs.slice(0, limit).map((g) => row(g, w)));
    if (gs.length > limit) out.push(`  … and ${gs.length - limit} more`);
  };
  section('By model', r.byModel);
  section('By call kind', r.byKind);
  if (!r.scope.session) section('By session', r.bySession, 5);
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  out.push(
    '',
    'Prompt cache',
    `  cache read ${tok(t.cacheRead)} tokens (${prompt ? Math.round((t.cacheRead / prompt) * 100) : 0}% of the prompt, billed cheaper) · cache write ${tok(t.cacheWrite)} tokens (billed dearer) · uncached input ${tok(t.input)}`,
  );
  if (r.largestResults.length) {
    out.push('', 'Largest tool results (read again by every later call of their session)');
    for (const b of r.largestResults) out.push(`  ${b.tool.padEnd(18)} ~${tok(b.tokens)} tokens (${tok(b.chars)} chars)  session ${b.session}`);
  }
  return out.join('\n');
}
