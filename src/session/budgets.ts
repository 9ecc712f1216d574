// Spend caps (config.yaml `budgets:`), held before every model call a session makes — the main
// loop, auxiliary tasks (titles, compression, vision, reviews), subagents — through the LLM
// client's CallMeter (src/llm/client.ts), so no call path is left out.
//
//   budgets:
//     session_usd: 2.00    # one conversation (its subagents and auxiliary calls included)
//     daily_usd: 10.00     # the day, every process of this home (read from the spend ledger)
//     job_usd: 0.50        # one cron run or one kanban task
//     session_tokens: 0    # caps in tokens (total = input + cache read + cache write + output); 0 = none
//     daily_tokens: 0
//     action: ask          # at a cap: ask | stop (a warning at 80%)
//
// Before a call: what was spent so far (provider-reported usage of the calls already made, priced
// with src/llm/pricing.ts) plus an estimate of this request (its prompt, at least the last prompt
// the provider reported, and the output it may write). If that would pass a cap, `stop` ends the
// call unsent with one line naming the cap and the figures (the turn ends failed, history kept);
// `ask` asks the person through the session's request broker (an approval: once = the rest of this
// turn, session = the rest of this session, deny = stop). With nobody to answer (one-shot without a
// terminal, cron, kanban) the answer is deny: unattended runs stop.
//
// The surfaces (REPL, TUI, chat buttons, dashboard) show the question as any other approval.
import { estimateMessagesTokens, estimateTextTokens, estimateToolsTokens } from '../agent/tokens.ts';
import type { AgentEvent, AgentRequest, Answered } from '../agent/types.ts';
import type { CallMeter } from '../llm/client.ts';
import { estimateCostUsd } from '../llm/pricing.ts';
import type { ProviderRuntime } from '../llm/resolve.ts';
import type { ProviderError, StreamRequest, StreamResult, ToolSchema } from '../llm/types.ts';
import { appendSpend, DayTotals, entryTokens, type SpendEntry } from '../state/spend-ledger.ts';

export type CapName = 'session_usd' | 'daily_usd' | 'job_usd' | 'session_tokens' | 'daily_tokens';
export const CAP_NAMES: readonly CapName[] = ['session_usd', 'daily_usd', 'job_usd', 'session_tokens', 'daily_tokens'];

export interface Budgets {
  caps: Partial<Record<CapName, number>>;
  action: 'ask' | 'stop';
}

/** The caps config.yaml sets (0, absent or not a positive number = none); problems in `warnings`. */
export function readBudgets(config: unknown): { budgets: Budgets | null; warnings: string[] } {
  const raw = (config as { budgets?: unknown })?.budgets;
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { budgets: null, warnings };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { budgets: null, warnings: ['budgets: in config.yaml must be a mapping (session_usd, daily_usd, job_usd, session_tokens, daily_tokens, action); no caps apply.'] };
  const b = raw as Record<string, unknown>;
  const caps: Budgets['caps'] = {};
  for (const name of CAP_NAMES) {
    const v = b[name];
    if (v === undefined || v === null || v === 0 || v === '0') continue;
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n) || n < 0) {
      warnings.push(`budgets.${name}: ${JSON.stringify(v)} is not a number >= 0; this cap is off (set it like ${name.endsWith('usd') ? '2.00' : '200000'}, or 0 for none).`);
      continue;
    }
    if (n > 0) caps[name] = n;
  }
  for (const k of Object.keys(b)) if (k !== 'action' && !CAP_NAMES.includes(k as CapName)) warnings.push(`budgets.${k}: unknown setting (known: ${CAP_NAMES.join(', ')}, action).`);
  let action: Budgets['action'] = 'ask';
  if (b.action !== undefined) {
    const a = String(b.action).trim().toLowerCase();
    if (a === 'ask' || a === 'stop') action = a;
    else warnings.push(`budgets.action: "${String(b.action)}" is not ask or stop; using stop.`), (action = 'stop');
  }
  return { budgets: Object.keys(caps).length ? { caps, action } : null, warnings };
}

/** What one conversation (with its subagents) spent in this process, plus what it had before. */
export class SpendScope {
  usd = 0;
  tokens = 0;
  calls = 0;
  /** Caps lifted for the rest of the session / of the current turn ("continue" at an ask). */
  readonly liftedSession = new Set<CapName>();
  readonly liftedTurn = new Set<CapName>();
  /** Caps warned about at 80% (once each). */
  readonly warned = new Set<string>();
  /** The session's figures from the store when it was resumed (loaded once, before the first call). */
  baseline: Promise<void> | null = null;
  /** One question at a time: parallel calls wait for the open one. */
  asking: Promise<unknown> = Promise.resolve();

  add(tokens: number, usd: number | null): void {
    this.calls++;
    this.tokens += tokens;
    if (usd !== null) this.usd += usd;
  }

  beginTurn(): void {
    this.liftedTurn.clear();
  }
}

export interface MeterHost {
  home: string;
  budgets: Budgets | null;
  scope: SpendScope;
  /** The conversation's id now (compression may rotate it). */
  sessionId(): string;
  /** `cron:<id>` / `kanban:<id>` for a job run. */
  job?: string;
  ask(req: AgentRequest): Promise<Answered<AgentRequest>>;
  emit(e: AgentEvent): void;
  /** Shared per home and process: today's totals of every process. */
  day: DayTotals;
  now?: () => number;
}

const dayTotals = new Map<string, DayTotals>();
/** The process's reader of a home's day file. */
export function dayTotalsFor(home: string): DayTotals {
  let d = dayTotals.get(home);
  if (!d) dayTotals.set(home, (d = new DayTotals(home)));
  return d;
}

const toolTokens = new WeakMap<ToolSchema[], number>();
function requestTokens(req: StreamRequest): number {
  let t = toolTokens.get(req.tools);
  if (t === undefined) toolTokens.set(req.tools, (t = req.tools.length ? estimateToolsTokens(req.tools) : 0));
  return estimateMessagesTokens(req.messages) + estimateTextTokens(req.system) + t;
}

export const usd = (v: number): string => `$${v < 0.01 && v > 0 ? v.toFixed(4) : v.toFixed(2)}`;
const tok = (v: number): string => Math.round(v).toLocaleString('en-US');

interface CapFigures {
  name: CapName;
  cap: number;
  spent: number;
  next: number;
}

function describeCap(f: CapFigures): string {
  const money = f.name.endsWith('_usd');
  const fmt = money ? usd : (v: number) => `${tok(v)} tokens`;
  const where = f.name.startsWith('daily') ? 'today, all sessions of this home' : f.name.startsWith('job') ? 'this job' : 'this session';
  return `budgets.${f.name} ${fmt(f.cap)} reached: ${fmt(f.spent)} spent ${where}, the next request ~${fmt(f.next)}`;
}

/** The meter one LLM client of a session uses; `kind` names its calls (main, subagent, title_generation, …). */
export function spendMeter(host: MeterHost, kind: string): CallMeter {
  // What the last call of this client read and wrote: a floor for the next request's estimate.
  let lastPrompt = 0;
  let lastOutput = 0;
  return {
    async before(req, rt) {
      const b = host.budgets;
      if (!b) return undefined;
      if (host.scope.baseline) await host.scope.baseline;
      const inTok = Math.max(requestTokens(req), lastPrompt);
      const outTok = req.maxTokens ?? lastOutput;
      const nextTokens = inTok + outTok;
      const nextUsd = estimateCostUsd(rt.model, rt.provider, { input_tokens: inTok, output_tokens: outTok, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 });
      const day = b.caps.daily_usd || b.caps.daily_tokens ? host.day.refresh() : null;
      const s = host.scope;
      const figures: CapFigures[] = [];
      const check = (name: CapName, spent: number, next: number | null) => {
        const cap = b.caps[name];
        if (!cap || s.liftedSession.has(name) || s.liftedTurn.has(name)) return;
        if (next === null && spent < cap) return;
        if (spent >= cap || spent + (next ?? 0) > cap) figures.push({ name, cap, spent, next: next ?? 0 });
      };
      check('session_usd', s.usd, nextUsd);
      check('session_tokens', s.tokens, nextTokens);
      if (host.job) check('job_usd', s.usd, nextUsd);
      if (day) {
        check('daily_usd', day.usd, nextUsd);
        check('daily_tokens', day.tokens, nextTokens);
      }
      if (!figures.length) return undefined;
      const line = figures.map(describeCap).join('; ');
      const stop = (): ProviderError => ({
        kind: 'budget',
        message: `${line}. The turn stopped before the call (${kind}); the conversation is kept. Raise or remove the cap under budgets: in config.yaml${figures.some((f) => f.name.startsWith('daily')) ? ', or wait for tomorrow' : ''}.`,
        provider: rt.provider,
        model: rt.model,
        retryable: false,
        fallback: false,
      });
      if (b.action === 'stop' || req.signal?.aborted) return stop();
      // One question at a time; a cap lifted meanwhile lets this call through.
      const prior = s.asking;
      let release!: () => void;
      s.asking = new Promise<void>((r) => (release = r));
      try {
        await prior;
        const still = figures.filter((f) => !s.liftedSession.has(f.name) && !s.liftedTurn.has(f.name));
        if (!still.length) return undefined;
        const { answer } = await host.ask({
          kind: 'approval',
          command: `budget: ${still.map(describeCap).join('; ')}`,
          description: 'a spend cap is reached; continue past it? (once: for the rest of this turn, session: for the rest of this session)',
          choices: ['once', 'session', 'deny'],
        });
        if (answer === 'once' || answer === 'session' || answer === 'always') {
          for (const f of still) (answer === 'once' ? s.liftedTurn : s.liftedSession).add(f.name);
          host.emit({ type: 'notice', message: `Continuing past ${still.map((f) => `budgets.${f.name}`).join(', ')} ${answer === 'once' ? 'for this turn' : 'for this session'}.` });
          return undefined;
        }
        return stop();
      } finally {
        release();
      }
    },
    after(result: StreamResult, rt: ProviderRuntime) {
      const u = result.usage;
      if (!u) return;
      const tokens = u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens;
      if (!tokens) return;
      lastPrompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
      lastOutput = u.output_tokens;
      const model = result.model || rt.model;
      const cost = estimateCostUsd(model, result.provider || rt.provider, u);
      host.scope.add(tokens, cost);
      const e: SpendEntry = {
        ts: Math.round((host.now ?? Date.now)()) / 1000,
        pid: process.pid,
        session: host.sessionId(),
        ...(host.job ? { job: host.job } : {}),
        kind,
        provider: result.provider || rt.provider,
        model,
        input: u.input_tokens,
        output: u.output_tokens,
        cache_read: u.cache_read_tokens,
        cache_write: u.cache_write_tokens,
        reasoning: u.reasoning_tokens,
        usd: cost,
      };
      try {
        appendSpend(host.home, e, (host.now ?? Date.now)());
      } catch (err) {
        if (!host.scope.warned.has('ledger')) {
          host.scope.warned.add('ledger');
          host.emit({ type: 'warning', message: `The spend ledger could not be written (${(err as Error).message}); daily caps may not see this process's calls.` });
        }
      }
      warnAt80(host, entryTokens(e));
    },
  };
}

/** One warning per cap when 80% of it is used. */
function warnAt80(host: MeterHost, _tokens: number): void {
  const b = host.budgets;
  if (!b) return;
  const s = host.scope;
  const day = b.caps.daily_usd || b.caps.daily_tokens ? host.day.refresh() : null;
  const spent: Partial<Record<CapName, number>> = {
    session_usd: s.usd,
    session_tokens: s.tokens,
    ...(host.job ? { job_usd: s.usd } : {}),
    ...(day ? { daily_usd: day.usd, daily_tokens: day.tokens } : {}),
  };
  for (const name of CAP_NAMES) {
    const cap = b.caps[name];
    const v = spent[name];
    if (!cap || v === undefined || v < cap * 0.8) continue;
    const key = name.startsWith('daily') ? `${name}:${new Date().toDateString()}` : name;
    if (s.warned.has(key)) continue;
    s.warned.add(key);
    const fmt = name.endsWith('_usd') ? usd : (x: number) => `${tok(x)} tokens`;
    host.emit({ type: 'warning', message: `budgets.${name}: ${Math.floor((v / cap) * 100)}% used (${fmt(v)} of ${fmt(cap)}); at the cap the agent ${b.action === 'ask' ? 'asks before going on' : 'stops'}.` });
  }
}

/** Budgets and what was spent against them, one line each (for /usage, insights and status). */
export function budgetLines(budgets: Budgets | null, figures: { sessionUsd?: number; sessionTokens?: number; dayUsd: number; dayTokens: number; jobUsd?: number }): string[] {
  if (!budgets) return [];
  const out: string[] = [];
  const line = (name: CapName, v: number | undefined) => {
    const cap = budgets.caps[name];
    if (!cap || v === undefined) return;
    const money = name.endsWith('_usd');
    const fmt = money ? usd : (x: number) => `${tok(x)} tokens`;
    out.push(`${name}: ${fmt(v)} of ${fmt(cap)} (${Math.floor((v / cap) * 100)}%)`);
  };
  line('session_usd', figures.sessionUsd);
  line('session_tokens', figures.sessionTokens);
  line('job_usd', figures.jobUsd);
  line('daily_usd', figures.dayUsd);
  line('daily_tokens', figures.dayTokens);
  if (out.length) out.push(`at a cap: ${budgets.action}`);
  return out;
}

/** The budgets and what was spent against them (this conversation, this job, today), one line each; [] without budgets. */
export function budgetStatusLines(spend: MeterHost): string[] {
  const b = spend.budgets;
  if (!b) return [];
  const day = spend.day.refresh();
  const sc = spend.scope;
  return budgetLines(b, { sessionUsd: sc.usd, sessionTokens: sc.tokens, jobUsd: spend.job ? sc.usd : undefined, dayUsd: day.usd, dayTokens: day.tokens });
}
