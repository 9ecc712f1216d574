// `hermes -z "<prompt>"`: the scripted one-shot. Exactly the final answer on stdout, nothing else on
// stdout or stderr unless the run fails ("hermes -z: …"). `--usage-file` gets a JSON usage report in
// Hermes's shape, written even when the run fails, so pipelines can always account for spend.
//
// Exit codes as Hermes: 0 the turn completed with text; 1 it produced no text or could not start;
// 2 it failed or stopped partway (provider error, iteration budget); 130 interrupted.
//
// One difference on purpose: Python Hermes turns approvals off for -z. Here nobody can answer an
// approval prompt either, so dangerous commands are refused (approvals.single_query_mode) unless
// --yolo is given; hardline blocks apply always.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { TurnResult } from '../agent/types.ts';
import { describeError } from '../llm/index.ts';
import type { Session } from '../session/session.ts';
import { expandHome } from '../state/paths.ts';
import type { ChatOptions } from './commands/chat.ts';
import { CliError } from './errors.ts';
import { localizedError } from '../i18n/index.ts';

/** The keys of Hermes's `--usage-file` report, in its order. */
export interface UsageReport {
  estimated_cost_usd: number | null;
  cost_status: string;
  cost_source: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  total_tokens: number | null;
  api_calls: number | null;
  model: string | null;
  provider: string | null;
  session_id: string | null;
  completed: boolean | null;
  partial: boolean | null;
  interrupted: boolean | null;
  turn_exit_reason: string | null;
  failed: boolean;
  service_tier: string | null;
  failure?: string;
}

function emptyReport(): UsageReport {
  return {
    estimated_cost_usd: null,
    cost_status: 'unknown',
    cost_source: null,
    input_tokens: null,
    output_tokens: null,
    cache_read_tokens: null,
    cache_write_tokens: null,
    reasoning_tokens: null,
    total_tokens: null,
    api_calls: null,
    model: null,
    provider: null,
    session_id: null,
    completed: null,
    partial: null,
    interrupted: null,
    turn_exit_reason: null,
    failed: false,
    service_tier: null,
  };
}

/** Fills the report from the session's totals (all turns of this run, subagents included). */
export function fillReport(r: UsageReport, session: Session, last: TurnResult | null): void {
  const t = session.totals;
  const u = t.usage;
  r.input_tokens = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
  r.output_tokens = u.output_tokens;
  r.cache_read_tokens = u.cache_read_tokens;
  r.cache_write_tokens = u.cache_write_tokens;
  r.reasoning_tokens = u.reasoning_tokens;
  r.total_tokens = r.input_tokens + u.output_tokens;
  r.api_calls = t.apiCalls;
  r.estimated_cost_usd = t.costUsd;
  r.cost_status = t.costUsd === null ? (t.apiCalls ? 'unknown' : 'none') : 'estimated';
  r.cost_source = t.costUsd === null ? null : 'pricing_table';
  const rt = session.runtime;
  r.model = rt.model;
  r.provider = rt.provider;
  r.session_id = session.id;
  if (last) {
    r.completed = last.completed && !last.failed && !last.interrupted;
    r.partial = last.partial;
    r.interrupted = last.interrupted;
    r.failed = last.failed;
    r.turn_exit_reason = last.interrupted ? 'interrupted' : last.failed ? 'error' : last.partial ? 'max_iterations' : last.completed ? 'completed' : 'no_response';
  }
}

/** Writes the report; never throws (a broken usage write must not hide the run's own outcome). */
export function writeUsageFile(path: string | undefined, report: UsageReport, failure?: string): void {
  if (!path) return;
  try {
    const out = resolve(expandHome(path));
    if (failure !== undefined) {
      report.failed = true;
      report.failure = failure;
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  } catch {
    /* best effort, as Hermes */
  }
}

export function exitCodeFor(text: string, last: TurnResult | null): number {
  if (!last) return 1;
  if (last.interrupted) return 130;
  if (last.failed || last.partial || !last.completed) return 2;
  return text.trim() ? 0 : 1;
}

export async function runScriptedOneShot(prompt: string, opts: ChatOptions): Promise<number> {
  const err = (s: string) => process.stderr.write(`hermes -z: ${s}\n`);
  const report = emptyReport();
  if (!prompt.trim()) {
    err('the prompt is empty. Pass it as hermes -z "…".');
    writeUsageFile(opts.usageFile, report, 'empty prompt');
    return 2;
  }
  if (opts.provider && !(opts.model?.trim() || process.env.HERMES_INFERENCE_MODEL?.trim())) {
    err('--provider requires --model (or HERMES_INFERENCE_MODEL). Pass both, or neither to use your configured defaults.');
    writeUsageFile(opts.usageFile, report, '--provider without --model');
    return 2;
  }
  const { loadContext } = await import('./context.ts');
  const { createCliSession, findResumeTarget, loadCliPlugins, openStore, preloadedSkills, explicitFrom } = await import('./chat.ts');
  const { startCliMcp } = await import('../mcp/session.ts');
  let session: Session | null = null;
  let last: TurnResult | null = null;
  let db: { close(): unknown } | null = null;
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.on('SIGINT', onSigint);
  try {
    const ctx = loadContext({ strict: true });
    const store = await openStore(ctx);
    db = store;
    const restored = await findResumeTarget(store, opts);
    let text = prompt;
    const skillText = preloadedSkills(ctx, opts);
    if (skillText) text = `${skillText}\n\nUser instruction: ${text}`;
    await loadCliPlugins(ctx, opts, false);
    const mcp = await startCliMcp(ctx, explicitFrom(opts).toolsets, 15_000);
    session = createCliSession(ctx, { ...opts, quiet: true }, false, { store, restored, backgroundTasks: false, mcp });
    session.inbox.listening = true;
    last = await session.prompt(text, { signal: ac.signal });
    // Background work that promised to report back is answered before the run ends, as `chat -q`.
    if (!last.failed && !last.interrupted && (session.inbox.working || session.inbox.size)) {
      const { runFollowUps } = await import('../session/inbox.ts');
      const waitS = Number(ctx.loaded.config.terminal?.oneshot_completion_wait_seconds ?? 600);
      await runFollowUps(session.inbox, {
        deadlineMs: Date.now() + Math.max(0, Number.isFinite(waitS) ? waitS : 600) * 1000,
        signal: ac.signal,
        run: async (followUp) => {
          const r = await session!.prompt(followUp, { signal: ac.signal });
          if (!r.failed && !r.interrupted) last = r;
          return { stop: r.failed || r.interrupted };
        },
      });
    }
    fillReport(report, session, last);
    const answer = last.finalText ?? '';
    if (last.failed) {
      const e = last.error;
      const msg = e && 'provider' in e ? describeError(e, session.runtime) : (e?.message ?? 'the turn failed');
      writeUsageFile(opts.usageFile, report, msg);
      err(msg);
      return 2;
    }
    writeUsageFile(opts.usageFile, report);
    if (answer) process.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    const code = exitCodeFor(answer, last);
    if (code === 1) err('no final response was produced; treating the run as failed.');
    if (code === 130) err('interrupted.');
    return code;
  } catch (e) {
    const msg = e instanceof CliError || e instanceof Error ? e.message : String(e);
    if (session) fillReport(report, session, last);
    writeUsageFile(opts.usageFile, report, msg);
    err(localizedError(e));
    return e instanceof CliError && e.exitCode === 2 ? 2 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    if (session) await session.close('oneshot').catch(() => {});
    await db?.close();
  }
}
