// `hermes cron …`
import { displayState, NO_TICKER_NOTE, repeatDisplay, tickerAlive } from '../cron/format.ts';
import { AmbiguousJobError, CronError, cronStoreFor, CronStore, ScheduleError, TICKER_STALE_SECONDS, type CronJob, type UpdateJobInput } from '../cron/jobs.ts';
import type { CronScheduler, RunReport } from '../cron/scheduler.ts';
import { formatIso } from '../cron/time.ts';
import { inferenceSnapshot } from '../cron/snapshot.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (s = '') => process.stdout.write(s + '\n');
const err = (s: string) => process.stderr.write(s + '\n');

export function storeOf(ctx: Pick<CliContext, 'home' | 'loaded' | 'env'>): CronStore {
  return cronStoreFor(ctx.home, ctx.loaded.config, ctx.env);
}

/** Runs a store operation; cron errors become one clear line. */
async function guard<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AmbiguousJobError) throw new CliError(`${e.message}\n${e.matches.map((m) => `  ${m.id}  ${m.name}  (${m.schedule_display})`).join('\n')}`);
    if (e instanceof CronError || e instanceof ScheduleError) throw new CliError(e.message);
    throw e;
  }
}

function warnIfNoTicker(store: CronStore): void {
  if (!tickerAlive(store)) err(`⚠ ${NO_TICKER_NOTE}`);
}

/** A stored run time shown in the configured timezone with its real offset (jobs.json may hold another zone's). */
function whenIn(iso: string | null, tz: string): string {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? formatIso(ms, tz) : (iso ?? '—');
}

function describe(job: CronJob, store: CronStore): string[] {
  const lines = [`  Name:      ${job.name}`, `  Schedule:  ${job.schedule_display}`, `  Repeat:    ${repeatDisplay(job)}`];
  lines.push(`  Next run:  ${whenIn(job.next_run_at, store.tz)}`);
  lines.push(`  Deliver:   ${job.deliver}`);
  if (job.skills.length) lines.push(`  Skills:    ${job.skills.join(', ')}`);
  if (job.script) lines.push(`  Script:    ${job.script}`);
  if (job.no_agent) lines.push('  Mode:      no-agent (script stdout delivered directly)');
  const others = (job.context_from ?? []).filter((r) => r !== 'self');
  if (others.length) lines.push(`  Context:   output of ${others.join(', ')}`);
  if (job.context_from?.includes('self')) lines.push('  Continuity: on (each run sees what the previous run reported)');
  if (job.enabled_toolsets?.length) lines.push(`  Toolsets:  ${job.enabled_toolsets.join(', ')}`);
  if (job.workdir) lines.push(`  Workdir:   ${job.workdir}`);
  if (job.model || job.provider) lines.push(`  Model:     ${[job.provider, job.model].filter(Boolean).join(' / ')}`);
  else if (job.model_snapshot && !job.no_agent) lines.push(`  Model:     ${[job.provider_snapshot, job.model_snapshot].filter(Boolean).join(' / ')} (the default when it was created)`);
  if (job.state === 'paused' && job.paused_reason) lines.push(`  Paused:    ${job.paused_reason}`);
  if (job.last_status) lines.push(`  Last run:  ${job.last_run_at ?? '?'}  ${job.last_status === 'ok' ? 'ok' : `${job.last_status}: ${job.last_error ?? '?'}`}`);
  if (job.last_delivery_error) lines.push(`  ⚠ Delivery failed: ${job.last_delivery_error}`);
  const latest = job.last_run_at ? store.outputs(job.id, 1)[0] : undefined;
  if (latest) lines.push(`  Output:    ${latest}`);
  return lines;
}

export function list(opts: { all?: boolean }): void {
  const ctx = loadContext();
  const store = storeOf(ctx);
  const jobs = store.list({ all: !!opts.all });
  if (!jobs.length) {
    const hidden = opts.all ? 0 : store.read().length;
    out(hidden ? `No active jobs (${hidden} paused or completed: \`hermes cron list --all\`).` : 'No scheduled jobs. Create one with `hermes cron create "every 2h" "…"` or ask Hermes in chat.');
    return;
  }
  for (const job of jobs) {
    out(`${job.id} [${displayState(job, store)}]`);
    for (const l of describe(job, store)) out(l);
    out();
  }
  warnIfNoTicker(store);
}

interface CreateOpts {
  name?: string;
  deliver?: string;
  repeat?: string;
  skill?: string[];
  script?: string;
  workdir?: string;
  model?: string;
  provider?: string;
  paused?: boolean;
  continuity?: boolean;
  /** false with --no-agent. */
  agent?: boolean;
}

export async function create(schedule: string, prompt: string | undefined, o: CreateOpts): Promise<void> {
  const ctx = loadContext();
  const store = storeOf(ctx);
  const job = await guard(() =>
    store.create({
      schedule,
      prompt: prompt ?? '',
      name: o.name,
      deliver: o.deliver,
      repeat: o.repeat,
      skills: o.skill ?? [],
      script: o.script,
      workdir: o.workdir,
      model: o.model,
      provider: o.provider,
      paused: o.paused,
      no_agent: o.agent === false,
      continuity: o.continuity || undefined,
      snapshot: inferenceSnapshot(ctx.loaded.config, ctx.env),
    }),
  );
  out(`Created job ${job.id}${job.state === 'paused' ? ' (paused)' : ''}`);
  for (const l of describe(job, store)) out(l);
  warnIfNoTicker(store);
}

interface EditOpts {
  schedule?: string;
  prompt?: string;
  name?: string;
  deliver?: string;
  repeat?: string;
  skill?: string[];
  addSkill?: string[];
  removeSkill?: string[];
  clearSkills?: boolean;
  script?: string;
  workdir?: string;
  model?: string;
  provider?: string;
  /** commander: --no-agent → false, --agent → true. */
  agent?: boolean;
  /** --continuity → true, --no-continuity → false. */
  continuity?: boolean;
}

export async function edit(ref: string, o: EditOpts): Promise<void> {
  const ctx = loadContext();
  const store = storeOf(ctx);
  const current = await guard(() => store.get(ref));
  const u: UpdateJobInput = {};
  if (o.schedule !== undefined) u.schedule = o.schedule;
  if (o.prompt !== undefined) u.prompt = o.prompt;
  if (o.name !== undefined) u.name = o.name;
  if (o.deliver !== undefined) u.deliver = o.deliver;
  if (o.repeat !== undefined) u.repeat = o.repeat;
  if (o.script !== undefined) u.script = o.script;
  if (o.workdir !== undefined) u.workdir = o.workdir;
  if (o.model !== undefined) u.model = o.model;
  if (o.provider !== undefined) u.provider = o.provider;
  if (o.model !== undefined || o.provider !== undefined) u.snapshot = inferenceSnapshot(ctx.loaded.config, ctx.env);
  if (o.agent !== undefined) u.no_agent = !o.agent;
  if (o.continuity !== undefined) u.continuity = o.continuity;
  if (o.clearSkills) u.skills = [];
  else if (o.skill) u.skills = o.skill;
  else if (o.addSkill || o.removeSkill) {
    const drop = new Set(o.removeSkill ?? []);
    const unknown = [...drop].filter((s) => !current.skills.includes(s));
    if (unknown.length) throw new CliError(`Job ${current.id} has no skill ${unknown.map((s) => `"${s}"`).join(', ')} (it has: ${current.skills.join(', ') || 'none'}).`);
    u.skills = [...current.skills.filter((s) => !drop.has(s)), ...(o.addSkill ?? [])];
  }
  if (!Object.keys(u).length) throw new CliError('Nothing to change: pass at least one option (see `hermes cron edit --help`).', 2);
  const job = await guard(() => store.update(current.id, u));
  out(`Updated job ${job.id}`);
  for (const l of describe(job, store)) out(l);
}

export async function pause(ref: string, o: { reason?: string }): Promise<void> {
  const store = storeOf(loadContext());
  const job = await guard(() => store.pause(ref, o.reason));
  out(`Paused job ${job.id} (${job.name}).`);
}

export async function resume(ref: string): Promise<void> {
  const store = storeOf(loadContext());
  const job = await guard(() => store.resume(ref));
  out(`Resumed job ${job.id} (${job.name}). Next run: ${whenIn(job.next_run_at, store.tz)}`);
  warnIfNoTicker(store);
}

export async function remove(ref: string): Promise<void> {
  const store = storeOf(loadContext());
  const job = await guard(() => store.remove(ref));
  out(`Removed job ${job.id} (${job.name}).`);
}

function reportLine(r: RunReport): string[] {
  const lines = [`${r.success ? '✓' : '✗'} ${r.name} (${r.jobId}): ${r.success ? 'ok' : `failed: ${r.error}`}`];
  if (r.silent) lines.push('  [SILENT]: nothing delivered');
  if (r.delivered.length) lines.push(`  delivered to ${r.delivered.join(', ')}`);
  if (r.deliveryError) lines.push(`  ⚠ delivery failed: ${r.deliveryError}`);
  if (r.outputPath) lines.push(`  output: ${r.outputPath}`);
  return lines;
}

/**
 * Without a gateway in this process, deliveries go straight through each platform's API (the
 * gateway's send-only router); a platform without credentials is recorded as a delivery failure.
 */
async function schedulerFor(ctx: CliContext): Promise<{ scheduler: CronScheduler; close: () => Promise<void> }> {
  const { standaloneRouter } = await import('../gateway/delivery.ts');
  // Loaded here: the scheduler brings the agent runtime, which list/create/edit do not need.
  const { CronScheduler } = await import('../cron/scheduler.ts');
  const log = process.env.HERMES_DEBUG ? (l: string) => err(l) : undefined;
  const router = standaloneRouter(ctx.env, ctx.loaded.config as never, log);
  const scheduler = new CronScheduler({ home: ctx.home, deliver: router.deliver, env: ctx.env, log });
  return { scheduler, close: async () => (await scheduler.close(), await router.close()) };
}

/** Stops runs on Ctrl-C; a second Ctrl-C exits at once. */
function onInterrupt(scheduler: CronScheduler): () => void {
  let n = 0;
  const h = () => {
    n++;
    if (n > 1) process.exit(130);
    err('Interrupting the running job(s)…');
    void scheduler.drain(0);
  };
  process.on('SIGINT', h);
  process.on('SIGTERM', h);
  return () => {
    process.off('SIGINT', h);
    process.off('SIGTERM', h);
  };
}

export async function runJob(ref: string): Promise<void> {
  const ctx = loadContext({ strict: true });
  const store = storeOf(ctx);
  if (tickerAlive(store)) {
    // A gateway ticks this home: let it run the job, so the output is delivered by its router.
    const wasPaused = (await guard(() => store.get(ref))).state === 'paused';
    const job = await guard(() => store.trigger(ref));
    out(`Triggered job ${job.id} (${job.name}): the running gateway will run it within a minute and deliver it to ${job.deliver}.`);
    if (wasPaused) out('  It was paused and is now resumed (pause it again with `hermes cron pause`).');
    return;
  }
  const { scheduler, close } = await schedulerFor(ctx);
  let report: RunReport;
  try {
    const { job, done } = await guard(() => scheduler.runNow(ref));
    err(`Running job ${job.id} (${job.name})…`);
    const off = onInterrupt(scheduler);
    try {
      report = await done;
    } finally {
      off();
    }
  } finally {
    await close();
  }
  for (const l of reportLine(report)) out(l);
  if (!report.success) process.exitCode = 1;
}

export async function tick(): Promise<void> {
  const ctx = loadContext({ strict: true });
  const { scheduler, close } = await schedulerFor(ctx);
  let reports: RunReport[];
  try {
    const r = await guard(() => scheduler.tick({ all: true }));
    if (r.skipped) {
      out('Another Hermes process is claiming jobs right now; nothing was run by this tick.');
      return;
    }
    if (!r.claimed.length) {
      out('No jobs due.');
      return;
    }
    err(`Running ${r.claimed.length} due job(s)…`);
    const off = onInterrupt(scheduler);
    try {
      reports = await r.done;
    } finally {
      off();
    }
  } finally {
    await close();
  }
  for (const rep of reports) for (const l of reportLine(rep)) out(l);
  if (reports.some((x) => !x.success)) process.exitCode = 1;
}

const ago = (s: number) => (s < 120 ? `${Math.round(s)}s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`);

export function status(): void {
  const ctx = loadContext();
  const store = storeOf(ctx);
  const hb = store.markerAge('ticker_heartbeat');
  const okAge = store.markerAge('ticker_last_success');
  const lastErr = store.lastTickError();
  if (hb === null && okAge === null) out('✗ No cron ticker has run for this Hermes home: jobs will not fire on their own. Start one with `hermes gateway run`.');
  else if (hb === null) out(`✗ The cron ticker is not running (it stopped; its last tick was ${ago(okAge!)}): jobs will not fire on their own. Start it with \`hermes gateway run\`.`);
  else if (!tickerAlive(store)) out(`✗ The cron ticker is not running (last heartbeat ${ago(hb)}, more than two ticks): jobs will not fire on their own. Start it with \`hermes gateway run\`.`);
  else if (okAge !== null && okAge > TICKER_STALE_SECONDS) out(`⚠ The cron ticker is running (heartbeat ${Math.round(hb)}s ago) but no tick has succeeded for ${Math.round(okAge)}s.`);
  else out(`✓ The cron ticker is running (heartbeat ${Math.round(hb)}s ago): jobs fire automatically.`);
  if (lastErr) out(`  Last tick error: ${lastErr}`);
  out(`  Timezone: ${store.tz}`);
  const jobs = store.list();
  const running = store.read().filter((j) => store.isRunning(j));
  if (!jobs.length) out('  No active jobs.');
  else {
    out(`  ${jobs.length} active job(s)`);
    const next = jobs.filter((j) => j.next_run_at).sort((a, b) => (Date.parse(a.next_run_at!) || 0) - (Date.parse(b.next_run_at!) || 0))[0];
    if (next) out(`  Next run: ${whenIn(next.next_run_at, store.tz)} (${next.name}, ${next.id})`);
  }
  for (const j of running) out(`  Running now: ${j.name} (${j.id})`);
  const failing = jobs.filter((j) => j.last_status === 'error');
  for (const j of failing) out(`  ⚠ ${j.name} (${j.id}) failed its last run: ${j.last_error}`);
}
