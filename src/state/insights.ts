// Usage insights from state.db: tokens, cost, sessions and tool calls over the last N days, per day,
// per model and per source, plus the tools used most and when the person works. One
// implementation behind `hermes insights`, `/insights` and the dashboard's Analytics tab.
//
// Sessions count on the day they started (as in Hermes). The per-model rows split each session by
// the model that served its calls (session_model_usage, as Hermes 0.19's insights read it); usage
// from before that table stays with the session's model. Cost is what the session recorded
// (`estimated_cost_usd`, priced at the time of the turn); a session without a recorded cost is
// priced from the model table, and counted as "unknown" when the model has no price. The numbers
// are a lower bound: auxiliary calls (titles, compression, vision) are not all recorded.
// Tokens follow the one definition in src/llm/token-summary.ts (input, cache read, cache write and
// output apart; total = all four) in every row, so the overview, days, models and sources add up.
import { formatTokenSummary, summarizeTokens, TOTAL_TOKENS_LABEL, type TokenSummary } from '../llm/token-summary.ts';
import type { Usage } from '../llm/types.ts';
import type { ModelUsagePart, UsageRow } from './db-rows.ts';
import type { SessionStore } from './store/types.ts';

/** Prices a session's usage (src/llm/pricing.ts `estimateCostUsd`); null when the model has no price. */
export type PriceFn = (model: string, provider: string, usage: Usage) => number | null;

export interface DayRow {
  /** Local date, YYYY-MM-DD. */
  date: string;
  sessions: number;
  messages: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** input + cache read + cache write + output. */
  totalTokens: number;
  toolCalls: number;
  costUsd: number;
}

export interface ModelRow {
  model: string;
  sessions: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** input + cache read + cache write + output. */
  totalTokens: number;
  toolCalls: number;
  apiCalls: number;
  costUsd: number;
  /** A price is known for the model (recorded or from the table). */
  priced: boolean;
}

export interface SourceRow {
  source: string;
  sessions: number;
  messages: number;
  /** input + cache read + cache write + output. */
  totalTokens: number;
  toolCalls: number;
  costUsd: number;
}

export interface InsightsReport {
  days: number;
  source: string | null;
  generatedAt: number;
  empty: boolean;
  overview: {
    sessions: number;
    messages: number;
    userMessages: number;
    toolCalls: number;
    apiCalls: number;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    reasoningTokens: number;
    /** input + cache read + cache write + output. */
    totalTokens: number;
    /** The same four counts, the prompt and the total, as every report shows them. */
    tokens: TokenSummary;
    /** Share of prompt tokens served from the provider's cache (0–100). */
    cacheHitPct: number;
    costUsd: number;
    /** Sessions whose model has no known price (their cost is not in costUsd). */
    unknownCostSessions: number;
    activeHours: number;
    avgMessagesPerSession: number;
    /** Unix seconds of the first and last session in the range. */
    start: number | null;
    end: number | null;
  };
  daily: DayRow[];
  models: ModelRow[];
  sources: SourceRow[];
  tools: { tool: string; count: number; pct: number }[];
  activity: { byDay: { day: string; count: number }[]; byHour: { hour: number; count: number }[]; activeDays: number; maxStreak: number };
  top: { label: string; sessionId: string; value: string; date: string }[];
}

type SessionAgg = UsageRow;

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

export function localDate(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

const shortModel = (m: string | null) => (m || 'unknown').split('/').at(-1) || 'unknown';
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);

/** A session's cost: the recorded one, else from the price table; null when unknown. */
function sessionCost(s: SessionAgg, price?: PriceFn): number | null {
  if (s.estimated_cost_usd !== null && s.estimated_cost_usd !== undefined && (s.estimated_cost_usd > 0 || !s.input_tokens)) return n(s.estimated_cost_usd);
  if (!s.model) return s.input_tokens || s.output_tokens ? null : 0;
  if (!price) return null;
  return price(s.model, s.billing_provider ?? '', {
    input_tokens: n(s.input_tokens),
    output_tokens: n(s.output_tokens),
    cache_read_tokens: n(s.cache_read_tokens),
    cache_write_tokens: n(s.cache_write_tokens),
    reasoning_tokens: n(s.reasoning_tokens),
  });
}

interface ModelPart {
  model: string | null;
  inp: number;
  out: number;
  cr: number;
  cw: number;
  apiCalls: number;
  toolCalls: number;
  /** null: no price known. */
  cost: number | null;
}

/**
 * A session's usage split by model: its session_model_usage rows (each call's tokens under the model
 * that served it, as Hermes 0.19 records them), with whatever the totals hold beyond them (usage
 * recorded before the table existed) under the session's model. Tool calls go to the session's model.
 */
function modelParts(s: SessionAgg, rows: ModelUsagePart[] | undefined, cost: number | null, price?: PriceFn): ModelPart[] {
  const whole: ModelPart = { model: s.model, inp: n(s.input_tokens), out: n(s.output_tokens), cr: n(s.cache_read_tokens), cw: n(s.cache_write_tokens), apiCalls: n(s.api_call_count), toolCalls: n(s.tool_call_count), cost };
  if (!rows?.length) return [whole];
  const parts: ModelPart[] = rows.map((r) => {
    const usage = { input_tokens: r.input_tokens, output_tokens: r.output_tokens, cache_read_tokens: r.cache_read_tokens, cache_write_tokens: r.cache_write_tokens, reasoning_tokens: r.reasoning_tokens };
    const c = r.estimated_cost_usd > 0 || !(r.input_tokens || r.output_tokens) ? r.estimated_cost_usd : price ? price(r.model, r.billing_provider, usage) : null;
    return { model: r.model, inp: r.input_tokens, out: r.output_tokens, cr: r.cache_read_tokens, cw: r.cache_write_tokens, apiCalls: r.api_call_count, toolCalls: 0, cost: c };
  });
  const sum = (k: 'inp' | 'out' | 'cr' | 'cw' | 'apiCalls') => parts.reduce((a, p) => a + p[k], 0);
  const rest: ModelPart = { ...whole, inp: Math.max(0, whole.inp - sum('inp')), out: Math.max(0, whole.out - sum('out')), cr: Math.max(0, whole.cr - sum('cr')), cw: Math.max(0, whole.cw - sum('cw')), apiCalls: Math.max(0, whole.apiCalls - sum('apiCalls')), toolCalls: 0 };
  if (rest.inp || rest.out || rest.cr || rest.cw) {
    const known = parts.reduce((a, p) => a + (p.cost ?? 0), 0);
    rest.cost = cost === null ? null : Math.max(0, cost - known);
    parts.push(rest);
  }
  (parts.find((p) => p.model === s.model) ?? parts[0]).toolCalls = whole.toolCalls;
  return parts;
}

export async function generateInsights(db: Pick<SessionStore, 'usageSince'>, o: { days?: number; source?: string | null; now?: number; price?: PriceFn } = {}): Promise<InsightsReport> {
  const days = Math.max(1, Math.floor(o.days ?? 30));
  const now = o.now ?? Date.now();
  const source = o.source || null;
  // From the start of the day `days - 1` days ago, so "7 days" is today and the six before it.
  const first = new Date(now);
  first.setHours(0, 0, 0, 0);
  first.setDate(first.getDate() - (days - 1));
  const cutoff = first.getTime() / 1000;
  const data = await db.usageSince(cutoff, source);
  const sessions = data.sessions;
  const usageBySession = new Map<string, ModelUsagePart[]>();
  for (const u of data.models ?? []) {
    const list = usageBySession.get(u.session_id);
    if (list) list.push(u);
    else usageBySession.set(u.session_id, [u]);
  }

  const daily = new Map<string, DayRow>();
  for (let d = new Date(first); d.getTime() <= now; d.setDate(d.getDate() + 1)) {
    const date = localDate(d.getTime() / 1000);
    daily.set(date, { date, sessions: 0, messages: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0, toolCalls: 0, costUsd: 0 });
  }
  const models = new Map<string, ModelRow & { ids: Set<string> }>();
  const sources = new Map<string, SourceRow>();
  const byDay = new Array(7).fill(0);
  const byHour = new Array(24).fill(0);
  const o2 = {
    sessions: sessions.length,
    messages: 0,
    toolCalls: 0,
    apiCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    unknownCostSessions: 0,
    activeSeconds: 0,
  };
  for (const s of sessions) {
    const cost = sessionCost(s, o.price);
    if (cost === null) o2.unknownCostSessions++;
    const c = cost ?? 0;
    const inp = n(s.input_tokens);
    const out = n(s.output_tokens);
    const cr = n(s.cache_read_tokens);
    const cw = n(s.cache_write_tokens);
    const total = summarizeTokens({ input: inp, output: out, cacheRead: cr, cacheWrite: cw }).total;
    o2.messages += n(s.message_count);
    o2.toolCalls += n(s.tool_call_count);
    o2.apiCalls += n(s.api_call_count);
    o2.inputTokens += inp;
    o2.outputTokens += out;
    o2.cacheReadTokens += cr;
    o2.cacheWriteTokens += cw;
    o2.reasoningTokens += n(s.reasoning_tokens);
    o2.costUsd += c;
    if (s.ended_at && s.ended_at > s.started_at) o2.activeSeconds += s.ended_at - s.started_at;

    const day = daily.get(localDate(s.started_at));
    if (day) {
      day.sessions++;
      day.messages += n(s.message_count);
      day.inputTokens += inp;
      day.outputTokens += out;
      day.cacheReadTokens += cr;
      day.cacheWriteTokens += cw;
      day.totalTokens += total;
      day.toolCalls += n(s.tool_call_count);
      day.costUsd += c;
    }
    for (const part of modelParts(s, usageBySession.get(s.id), cost, o.price)) {
      const key = shortModel(part.model);
      let m = models.get(key);
      if (!m) models.set(key, (m = { model: key, sessions: 0, ids: new Set(), inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0, toolCalls: 0, apiCalls: 0, costUsd: 0, priced: false }));
      m.ids.add(s.id);
      m.inputTokens += part.inp;
      m.outputTokens += part.out;
      m.cacheReadTokens += part.cr;
      m.cacheWriteTokens += part.cw;
      m.totalTokens += summarizeTokens({ input: part.inp, output: part.out, cacheRead: part.cr, cacheWrite: part.cw }).total;
      m.toolCalls += part.toolCalls;
      m.apiCalls += part.apiCalls;
      m.costUsd += part.cost ?? 0;
      if (part.cost !== null && (part.inp || part.out)) m.priced = true;
    }

    let src = sources.get(s.source);
    if (!src) sources.set(s.source, (src = { source: s.source, sessions: 0, messages: 0, totalTokens: 0, toolCalls: 0, costUsd: 0 }));
    src.sessions++;
    src.messages += n(s.message_count);
    src.totalTokens += total;
    src.toolCalls += n(s.tool_call_count);
    src.costUsd += c;

    const d = new Date(s.started_at * 1000);
    byDay[(d.getDay() + 6) % 7]++;
    byHour[d.getHours()]++;
  }

  const toolRows = data.tools;
  const toolTotal = toolRows.reduce((a, t) => a + Number(t.count), 0);
  const userMessages = data.userMessages;

  const activeDates = [...daily.values()].filter((d) => d.sessions > 0).map((d) => d.date);
  let maxStreak = 0;
  let streak = 0;
  let prev: number | null = null;
  for (const date of activeDates) {
    const t = new Date(`${date}T12:00:00`).getTime();
    streak = prev !== null && Math.round((t - prev) / 86_400_000) === 1 ? streak + 1 : 1;
    maxStreak = Math.max(maxStreak, streak);
    prev = t;
  }

  const top: InsightsReport['top'] = [];
  const best = (label: string, metric: (s: SessionAgg) => number, fmt: (v: number) => string) => {
    let b: SessionAgg | null = null;
    for (const s of sessions) if (!b || metric(s) > metric(b)) b = s;
    if (b && metric(b) > 0) top.push({ label, sessionId: b.id, value: fmt(metric(b)), date: localDate(b.started_at) });
  };
  best('Longest session', (s) => (s.ended_at && s.ended_at > s.started_at ? s.ended_at - s.started_at : 0), formatSeconds);
  best('Most messages', (s) => n(s.message_count), (v) => `${v} messages`);
  best('Most tokens', (s) => summarizeTokens({ input: n(s.input_tokens), output: n(s.output_tokens), cacheRead: n(s.cache_read_tokens), cacheWrite: n(s.cache_write_tokens) }).total, (v) => `${v.toLocaleString('en-US')} tokens`);
  best('Most tool calls', (s) => n(s.tool_call_count), (v) => `${v} tool calls`);

  const tokens = summarizeTokens({ input: o2.inputTokens, output: o2.outputTokens, cacheRead: o2.cacheReadTokens, cacheWrite: o2.cacheWriteTokens, reasoning: o2.reasoningTokens });
  return {
    days,
    source,
    generatedAt: now,
    empty: sessions.length === 0,
    overview: {
      sessions: o2.sessions,
      messages: o2.messages,
      userMessages,
      toolCalls: o2.toolCalls,
      apiCalls: o2.apiCalls,
      inputTokens: o2.inputTokens,
      outputTokens: o2.outputTokens,
      cacheReadTokens: o2.cacheReadTokens,
      cacheWriteTokens: o2.cacheWriteTokens,
      reasoningTokens: o2.reasoningTokens,
      totalTokens: tokens.total,
      tokens,
      cacheHitPct: tokens.cacheHitPct,
      costUsd: Math.round(o2.costUsd * 1e6) / 1e6,
      unknownCostSessions: o2.unknownCostSessions,
      activeHours: o2.activeSeconds / 3600,
      avgMessagesPerSession: sessions.length ? o2.messages / sessions.length : 0,
      start: sessions[0]?.started_at ?? null,
      end: sessions.at(-1)?.started_at ?? null,
    },
    daily: [...daily.values()],
    models: [...models.values()].map(({ ids, ...m }) => ({ ...m, sessions: ids.size })).sort((a, b) => b.totalTokens - a.totalTokens || b.sessions - a.sessions),
    sources: [...sources.values()].sort((a, b) => b.sessions - a.sessions),
    tools: toolRows.map((t) => ({ tool: t.tool, count: Number(t.count), pct: toolTotal ? (Number(t.count) / toolTotal) * 100 : 0 })),
    activity: {
      byDay: DAY_NAMES.map((day, i) => ({ day, count: byDay[i] })),
      byHour: byHour.map((count, hour) => ({ hour, count })),
      activeDays: activeDates.length,
      maxStreak,
    },
    top,
  };
}

export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.round(s)}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m ? `${h}h ${m}m` : `${h}h`;
}

export function formatUsd(v: number): string {
  if (v === 0) return '$0.00';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  return `$${v.toFixed(2)}`;
}

const num = (v: number) => Math.round(v).toLocaleString('en-US');

function bar(v: number, peak: number, width: number): string {
  if (!peak || !v) return '';
  return '█'.repeat(Math.max(1, Math.round((v / peak) * width)));
}

/** The report for a terminal (`hermes insights`, `/insights` in the REPL). */
export function formatInsights(r: InsightsReport): string {
  const period = `last ${r.days} day${r.days === 1 ? '' : 's'}${r.source ? `, source ${r.source}` : ''}`;
  if (r.empty) return `No sessions in the ${period}.`;
  const o = r.overview;
  const lines: string[] = [`📊 Hermes insights — ${period}`, ''];
  const section = (t: string) => lines.push(t, '─'.repeat(58));
  section('Overview');
  lines.push(
    `  Sessions      ${num(o.sessions).padEnd(14)}Messages      ${num(o.messages)}`,
    `  Tool calls    ${num(o.toolCalls).padEnd(14)}API calls     ${num(o.apiCalls)}`,
    `  Tokens        ${formatTokenSummary(o.tokens)}`,
    `  Cache hits    ${o.cacheHitPct.toFixed(0)}% of the prompt tokens`,
    `  Cost          ${formatUsd(o.costUsd)}${o.unknownCostSessions ? ` (+ ${o.unknownCostSessions} session(s) with no known price)` : ''} — a lower bound: auxiliary calls are not all counted`,
  );
  if (o.activeHours > 0) lines.push(`  Active time   ~${formatSeconds(o.activeHours * 3600)} (avg ${o.avgMessagesPerSession.toFixed(1)} messages per session)`);
  lines.push('');
  const days = r.daily.filter((d) => d.sessions > 0);
  if (days.length) {
    section('Per day');
    const peak = Math.max(...days.map((d) => d.totalTokens));
    lines.push(`  ${'Date'.padEnd(11)}${'Sessions'.padStart(9)}${'Tokens*'.padStart(13)}${'Tools'.padStart(7)}${'Cost'.padStart(10)}`);
    for (const d of days.slice(-14))
      lines.push(`  ${d.date.padEnd(11)}${String(d.sessions).padStart(9)}${num(d.totalTokens).padStart(13)}${String(d.toolCalls).padStart(7)}${formatUsd(d.costUsd).padStart(10)}  ${bar(d.totalTokens, peak, 12)}`);
    if (days.length > 14) lines.push(`  … ${days.length - 14} earlier day(s) with sessions`);
    lines.push('');
  }
  section('Models');
  lines.push(`  ${'Model'.padEnd(30)}${'Sessions'.padStart(9)}${'Tokens*'.padStart(13)}${'Cost'.padStart(10)}`);
  for (const m of r.models.slice(0, 10)) lines.push(`  ${m.model.slice(0, 29).padEnd(30)}${String(m.sessions).padStart(9)}${num(m.totalTokens).padStart(13)}${(m.priced ? formatUsd(m.costUsd) : '?').padStart(10)}`);
  lines.push('');
  if (r.sources.length > 1 || r.sources[0]?.source !== 'cli') {
    section('Sources');
    lines.push(`  ${'Source'.padEnd(14)}${'Sessions'.padStart(9)}${'Messages'.padStart(10)}${'Tokens*'.padStart(13)}${'Cost'.padStart(10)}`);
    for (const s of r.sources) lines.push(`  ${s.source.padEnd(14)}${String(s.sessions).padStart(9)}${num(s.messages).padStart(10)}${num(s.totalTokens).padStart(13)}${formatUsd(s.costUsd).padStart(10)}`);
    lines.push('');
  }
  if (r.tools.length) {
    section('Top tools');
    for (const t of r.tools.slice(0, 12)) lines.push(`  ${t.tool.padEnd(28)}${num(t.count).padStart(8)}${`${t.pct.toFixed(1)}%`.padStart(8)}`);
    if (r.tools.length > 12) lines.push(`  … and ${r.tools.length - 12} more`);
    lines.push('');
  }
  section('Activity');
  const peakDay = Math.max(...r.activity.byDay.map((d) => d.count));
  for (const d of r.activity.byDay) lines.push(`  ${d.day}  ${bar(d.count, peakDay, 15).padEnd(15)} ${d.count}`);
  const hours = r.activity.byHour.filter((h) => h.count > 0).sort((a, b) => b.count - a.count).slice(0, 5);
  if (hours.length) lines.push(`  Busiest hours: ${hours.map((h) => `${String(h.hour).padStart(2, '0')}:00 (${h.count})`).join(', ')}`);
  lines.push(`  Active days: ${r.activity.activeDays}${r.activity.maxStreak > 1 ? ` · best streak ${r.activity.maxStreak} days` : ''}`);
  if (r.top.length) {
    lines.push('');
    section('Notable sessions');
    for (const t of r.top) lines.push(`  ${t.label.padEnd(18)}${t.value.padEnd(20)}${t.date}  ${t.sessionId}`);
  }
  lines.push('', `* Tokens: ${TOTAL_TOKENS_LABEL} (reasoning is part of output).`);
  return lines.join('\n');
}

/** A short version for chat platforms (`/insights` in the gateway). */
export function formatInsightsShort(r: InsightsReport): string {
  const period = `last ${r.days} day${r.days === 1 ? '' : 's'}`;
  if (r.empty) return `No sessions in the ${period}.`;
  const o = r.overview;
  const lines = [
    `📊 Insights, ${period}`,
    `Sessions: ${num(o.sessions)} · messages: ${num(o.messages)} · tool calls: ${num(o.toolCalls)}`,
    `Tokens: ${formatTokenSummary(o.tokens)}`,
    `Cost: ${formatUsd(o.costUsd)}${o.unknownCostSessions ? ` (+${o.unknownCostSessions} unpriced)` : ''}`,
  ];
  if (r.models.length) lines.push(`Models: ${r.models.slice(0, 3).map((m) => `${m.model} (${m.sessions})`).join(', ')}`);
  if (r.tools.length) lines.push(`Top tools: ${r.tools.slice(0, 5).map((t) => `${t.tool} ${t.count}`).join(', ')}`);
  return lines.join('\n');
}
