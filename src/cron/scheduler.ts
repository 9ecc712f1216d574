// The cron scheduler: a tick claims due jobs (cron/.tick.lock + the per-job claims in jobs.json),
// runs them — at most HERMES_CRON_MAX_PARALLEL at once — saves each run's output, delivers it
// through the gateway's router, and records the run. `startCronTicker` ticks every 60 s inside the
// gateway; `hermes cron tick` / `hermes cron run` use the same code without a gateway.
import { join } from 'node:path';
import type { Session, SessionOptions, SessionStore } from '../session/session.ts';
import { loadConfig } from '../state/config.ts';
import { curatorDue, curatorSettings } from '../state/curator.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { readEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { storeChoice } from '../state/store/index.ts';
import { beginOwner, CronStore, endOwner, newClaimOwner, type CronJob, type CronOrigin } from './jobs.ts';
import { tryLock } from '../state/process-lock.ts';
import { runJob, type RunOutcome } from './run.ts';
import { resolveTimezone, systemClock, type Clock } from './time.ts';
import { tickerStarted, tickerStopped } from './tickers.ts';

/** The chat a delivery answers (the gateway's view of a job's origin). */
export type DeliveryOrigin = { platform: string; chatId: string; threadId?: string; userId?: string };

/** Sends a job's output to one target (the gateway's delivery router). */
export type Deliver = (
  target: string,
  content: string,
  meta: { jobId: string; origin?: DeliveryOrigin },
) => Promise<{ ok: true } | { ok: false; error: string }>;

export const GATEWAY_NOT_RUNNING = 'gateway not running';

/** Delivery outside the gateway: only `local` works (the output file); everything else fails. */
export const noGatewayDeliver: Deliver = async () => ({ ok: false, error: GATEWAY_NOT_RUNNING });

export const SILENT_MARKER = '[SILENT]';

export function toDeliveryOrigin(o: CronOrigin | null | undefined): DeliveryOrigin | undefined {
  if (!o) return undefined;
  const out: DeliveryOrigin = { platform: o.platform, chatId: String(o.chat_id) };
  if (o.thread_id !== undefined && o.thread_id !== null && String(o.thread_id) !== '') out.threadId = String(o.thread_id);
  if (o.user_id !== undefined && o.user_id !== null && String(o.user_id) !== '') out.userId = String(o.user_id);
  return out;
}

export function fromDeliveryOrigin(o: DeliveryOrigin | undefined | null): CronOrigin | null {
  if (!o || !o.platform || !o.chatId) return null;
  return { platform: o.platform, chat_id: String(o.chatId), thread_id: o.threadId ?? null, user_id: o.userId ?? null };
}

/** HERMES_CRON_MAX_PARALLEL, else cron.max_parallel, else 4. */
export function maxParallel(env: NodeJS.ProcessEnv, config: HermesConfig): number {
  for (const v of [env.HERMES_CRON_MAX_PARALLEL, config.cron?.max_parallel]) {
    const n = Number(v);
    if (v !== undefined && v !== '' && Number.isInteger(n) && n > 0) return n;
  }
  return 4;
}

/** The delivered text: Hermes's header/footer unless `cron.wrap_response: false`. */
export function wrapResponse(job: CronJob, body: string, config: HermesConfig): string {
  if (config.cron?.wrap_response === false) return body;
  return `Cronjob Response: ${job.name}\n-------------\n\n${body}\n\nNote: this came from a scheduled job; the agent that wrote it will not see replies to this message.`;
}

export interface RunReport {
  jobId: string;
  name: string;
  success: boolean;
  error: string | null;
  /** Targets that failed, joined ("telegram:123: gateway not running; …"); null when all succeeded. */
  deliveryError: string | null;
  /** Targets the output went to (besides the local file). */
  delivered: string[];
  /** [SILENT]: the run succeeded and asked for no delivery. */
  silent: boolean;
  outputPath: string | null;
  sessionId: string;
  aborted: boolean;
}

export interface SchedulerOptions {
  home: string;
  deliver?: Deliver;
  now?: Clock;
  log?: (line: string) => void;
  /** Fixed configuration (default: config.yaml re-read every tick, so edits apply without restart). */
  config?: HermesConfig;
  /** Base environment (default process.env; HERMES_HOME/.env is re-read over it for every run). */
  env?: NodeJS.ProcessEnv;
  /** Builds run sessions (tests inject a fake LLM). */
  makeSession?: (o: SessionOptions) => Session;
  /** Where run sessions are persisted (the session store). */
  store?: SessionStore;
  loadSkill?: (name: string) => string | null;
}

interface RunContext {
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  dotenvNames: string[];
  store: CronStore;
}

/**
 * Scheduler state for one HERMES_HOME in one process: the run pool and how runs are executed.
 * Both the ticker and the one-off commands use it.
 */
export class CronScheduler {
  readonly home: string;
  private readonly o: SchedulerOptions;
  private readonly now: Clock;
  private readonly running = new Map<string, { job: CronJob; done: Promise<RunReport>; abort: AbortController }>();
  /** Set by drain(): claimed jobs that have not started are released instead of run. */
  private stopping = false;
  /** Fire claims shared through PostgreSQL (state.backend: postgres), opened on the first tick that needs them. */
  private shared: { url: string; claims: Promise<import('./pg-claims.ts').PgFireClaims> } | null = null;

  constructor(o: SchedulerOptions) {
    this.o = o;
    this.home = o.home;
    this.now = o.now ?? systemClock;
  }

  private log(line: string): void {
    this.o.log?.(line);
  }

  /** Fresh config, env and store for this tick (config.yaml and .env edits apply without restart). */
  context(): RunContext {
    const base = this.o.env ?? process.env;
    let dotenv = new Map<string, string>();
    try {
      dotenv = readEnvFile(paths.env(this.home));
    } catch {
      /* no .env */
    }
    const env: NodeJS.ProcessEnv = { ...base, ...Object.fromEntries(dotenv) };
    const config = this.o.config ?? loadConfig(this.home, env).config;
    const cron = (config.cron ?? {}) as { output_retention?: unknown; catch_up_missed?: unknown };
    const store = new CronStore({
      home: this.home,
      tz: resolveTimezone(config.timezone, env),
      now: this.now,
      outputRetention: Number.isFinite(Number(cron.output_retention)) ? Number(cron.output_retention) : 50,
      catchUpMissed: cron.catch_up_missed !== false,
      claimTtlMs: claimTtlMs(env),
      log: (l) => this.log(l),
    });
    return { config, env, dotenvNames: [...dotenv.keys()], store };
  }

  get runningCount(): number {
    return this.running.size;
  }

  runningJobIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * One tick: claims due jobs (no more than the free run slots unless `all`) and starts them.
   * Returns the claimed jobs at once and `done`, which settles when their runs have finished.
   * `skipped` is set when another process is in its claim phase right now.
   */
  async tick(opts: { all?: boolean } = {}): Promise<{ claimed: CronJob[]; done: Promise<RunReport[]>; skipped?: 'locked' }> {
    if (this.stopping) return { claimed: [], done: Promise.resolve([]) };
    const ctx = this.context();
    const limit = opts.all ? Infinity : maxParallel(ctx.env, ctx.config) - this.running.size;
    if (limit <= 0) return { claimed: [], done: Promise.resolve([]) };
    const tickLock = tryLock(join(ctx.store.dir, '.tick.lock'));
    if (!tickLock) return { claimed: [], done: Promise.resolve([]), skipped: 'locked' };
    const owner = newClaimOwner();
    beginOwner(owner);
    let claimed: CronJob[];
    try {
      claimed = await ctx.store.claimDue(owner, limit);
    } catch (e) {
      endOwner(owner);
      throw e;
    } finally {
      tickLock.release();
    }
    if (claimed.length) claimed = await this.fireShared(claimed, owner, ctx);
    if (!claimed.length) {
      endOwner(owner);
      return { claimed, done: Promise.resolve([]) };
    }
    for (const j of claimed) this.log(`cron: running job ${j.id} (${j.name})`);
    const done = this.runAll(claimed, owner, ctx).finally(() => endOwner(owner));
    return { claimed, done };
  }

  /**
   * On PostgreSQL, each scheduled run is fired by one process of all that share the database: the
   * jobs whose slot another process took are not run here (their schedule has moved on; a one-shot
   * is complete). When the database cannot be reached nothing is run: the jobs stay due.
   */
  private async fireShared(claimed: CronJob[], owner: string, ctx: RunContext): Promise<CronJob[]> {
    let url: string | undefined;
    try {
      const choice = storeChoice(ctx.config, ctx.env);
      if (choice.backend === 'sqlite') return claimed;
      url = choice.url!;
    } catch (e) {
      this.log(`cron: ${(e as Error).message}`);
      return claimed;
    }
    if (this.shared?.url !== url) {
      void this.close();
      const claims = import('./pg-claims.ts').then((m) => m.PgFireClaims.open(url));
      claims.catch(() => undefined);
      this.shared = { url, claims };
    }
    const shared = this.shared;
    const won: CronJob[] = [];
    for (const job of claimed) {
      const slot = job.fire_claim?.scheduled_at ?? job.next_run_at ?? '';
      try {
        const claims = await shared.claims;
        if (await claims.claim(job.id, slot, owner)) won.push(job);
        else {
          this.log(`cron: job ${job.id} (${job.name}): the run due ${slot} was fired by ${(await claims.firedBy(job.id, slot)) ?? 'another process'}; not running it here`);
          await ctx.store.yieldRun(job.id, owner);
        }
      } catch (e) {
        if (this.shared === shared) this.shared = null;
        this.log(`cron: job ${job.id} (${job.name}): cannot claim its run in PostgreSQL (${(e as Error).message}); it stays due`);
        await ctx.store.releaseClaim(job.id, owner, job.next_run_at).catch(() => undefined);
      }
    }
    return won;
  }

  /** Closes the shared fire claims (PostgreSQL), if open. */
  async close(): Promise<void> {
    const s = this.shared;
    this.shared = null;
    await s?.claims.then((c) => c.close(), () => undefined);
  }

  /** Runs claimed jobs with at most max-parallel at once (counting runs already in flight). */
  private async runAll(jobs: CronJob[], owner: string, ctx: RunContext): Promise<RunReport[]> {
    const limit = maxParallel(ctx.env, ctx.config);
    const queue = [...jobs];
    const reports: RunReport[] = [];
    const workers: Promise<void>[] = [];
    const next = async (): Promise<void> => {
      while (queue.length) {
        await this.slot(limit);
        const job = queue.shift();
        if (!job) return;
        if (this.stopping) {
          // Shutting down: claimed but not started, so it stays due for the next ticker.
          await ctx.store.releaseClaim(job.id, owner, job.next_run_at).catch(() => undefined);
          continue;
        }
        reports.push(await this.start(job, owner, ctx));
      }
    };
    for (let i = 0; i < Math.min(limit, jobs.length); i++) workers.push(next());
    await Promise.all(workers);
    return reports;
  }

  /** Resolves when fewer than `limit` runs are in flight (the caller then starts one at once). */
  private async slot(limit: number): Promise<void> {
    while (this.running.size >= limit) await Promise.race([...this.running.values()].map((r) => r.done.catch(() => undefined)));
  }

  /** Runs a claimed job: output file, delivery, record. */
  private start(job: CronJob, owner: string, ctx: RunContext): Promise<RunReport> {
    const abort = new AbortController();
    const done = this.execute(job, owner, ctx, abort.signal).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { job, done, abort });
    return done;
  }

  private async execute(job: CronJob, owner: string, ctx: RunContext, signal: AbortSignal): Promise<RunReport> {
    const { store, config } = ctx;
    let outcome: RunOutcome;
    try {
      outcome = await runJob(job, {
        home: this.home,
        config,
        env: ctx.env,
        tz: store.tz,
        now: this.now,
        log: (l) => this.log(l),
        signal,
        makeSession: this.o.makeSession,
        loadSkill: this.o.loadSkill,
        store: this.o.store,
        dotenvNames: ctx.dotenvNames,
      });
    } catch (e) {
      outcome = { success: false, doc: `# Cron Job: ${job.name} (FAILED)\n\n${(e as Error).message}\n`, finalResponse: '', error: (e as Error).message, sessionId: '', aborted: false };
    }
    const report: RunReport = {
      jobId: job.id,
      name: job.name,
      success: outcome.success,
      error: outcome.error,
      deliveryError: null,
      delivered: [],
      silent: false,
      outputPath: null,
      sessionId: outcome.sessionId,
      aborted: outcome.aborted,
    };
    try {
      report.outputPath = store.saveOutput(job.id, outcome.doc);
    } catch (e) {
      this.log(`cron: job ${job.id}: could not save the output: ${(e as Error).message}`);
    }
    if (outcome.aborted && job.schedule.kind === 'once') {
      // Shutdown stopped it: the one-shot keeps its slot and runs when a ticker next starts.
      await store.releaseClaim(job.id, owner).catch((e) => this.log(`cron: job ${job.id}: ${(e as Error).message}`));
      this.log(`cron: job ${job.id} (${job.name}) interrupted by shutdown; it will run again`);
      return report;
    }
    // Delivery: failures always go out; a successful run may ask for silence.
    const content = outcome.success ? outcome.finalResponse : `⚠️ Cron job '${job.name}' failed:\n${outcome.error ?? 'unknown error'}`;
    // A no_agent script's stdout goes out as it is; empty stdout sends nothing (the watchdog pattern).
    if (outcome.success && (outcome.verbatim ? !content.trim() : content.trim().toUpperCase().includes(SILENT_MARKER))) report.silent = true;
    else if (content.trim()) {
      const d = await this.deliverAll(job, outcome.success && outcome.verbatim ? content : wrapResponse(job, content, config));
      report.delivered = d.delivered;
      report.deliveryError = d.error;
    }
    try {
      await store.finishRun(job.id, owner, { success: outcome.success, error: outcome.error, deliveryError: report.deliveryError });
    } catch (e) {
      this.log(`cron: job ${job.id}: could not record the run: ${(e as Error).message}`);
    }
    this.log(
      `cron: job ${job.id} (${job.name}) ${outcome.success ? 'ok' : `failed: ${outcome.error}`}` +
        (report.silent ? '; silent (not delivered)' : '') +
        (report.delivered.length ? `; delivered to ${report.delivered.join(', ')}` : '') +
        (report.deliveryError ? `; delivery failed: ${report.deliveryError}` : '') +
        (report.outputPath ? `; output ${report.outputPath}` : ''),
    );
    return report;
  }

  /** Sends to each target of `job.deliver` except `local` (the output file is the local delivery). */
  private async deliverAll(job: CronJob, content: string): Promise<{ delivered: string[]; error: string | null }> {
    const deliver = this.o.deliver ?? noGatewayDeliver;
    const targets = job.deliver.split(',').map((s) => s.trim()).filter((t) => t && t !== 'local');
    const delivered: string[] = [];
    const errors: string[] = [];
    for (const target of targets) {
      try {
        const r = await deliver(target, content, { jobId: job.id, origin: toDeliveryOrigin(job.origin) });
        if (r.ok) delivered.push(target);
        else errors.push(`${target}: ${r.error}`);
      } catch (e) {
        errors.push(`${target}: ${(e as Error).message}`);
      }
    }
    return { delivered, error: errors.length ? errors.join('; ') : null };
  }

  /**
   * Runs one job now (`hermes cron run`, the cronjob tool), whatever its schedule, as soon as a run
   * slot is free. Returns once the job is claimed; `done` settles when the run has ended.
   */
  async runNow(ref: string): Promise<{ job: CronJob; done: Promise<RunReport> }> {
    if (this.stopping) throw new Error('Hermes is shutting down; the job was not started.');
    const ctx = this.context();
    const owner = newClaimOwner();
    beginOwner(owner);
    let job: CronJob;
    try {
      job = await ctx.store.claimManual(ref, owner);
    } catch (e) {
      endOwner(owner);
      throw e;
    }
    this.log(`cron: running job ${job.id} (${job.name}) on request`);
    // A manual run waits for a free slot like any other (it already holds its claim).
    const limit = maxParallel(ctx.env, ctx.config);
    const done = this.slot(limit)
      .then(async () => {
        if (!this.stopping) return this.start(job, owner, ctx);
        await ctx.store.releaseClaim(job.id, owner, job.next_run_at).catch(() => undefined);
        throw new Error('Hermes is shutting down; the job was not started.');
      })
      .finally(() => endOwner(owner));
    return { job, done };
  }

  /** Stops: waits up to `drainMs` for running jobs, then interrupts the rest and waits for them. */
  async drain(drainMs: number): Promise<void> {
    this.stopping = true;
    const all = () => Promise.all([...this.running.values()].map((r) => r.done.catch(() => undefined)));
    if (!this.running.size) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([all().then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), drainMs)))]);
    clearTimeout(timer);
    if (timedOut) {
      this.log(`cron: interrupting ${this.running.size} running job(s) at shutdown`);
      for (const r of this.running.values()) r.abort.abort();
      await all();
    }
  }
}

/** How long a claim from another machine counts as live: max(3 × HERMES_CRON_TIMEOUT, 30 min). */
function claimTtlMs(env: NodeJS.ProcessEnv): number {
  const t = Number(env.HERMES_CRON_TIMEOUT ?? 600);
  const s = Number.isFinite(t) && t > 0 ? Math.max(3 * t, 1800) : 1800;
  return s * 1000;
}

// ---------------------------------------------------------------------------------------------
// The ticker.

export interface CronTickerOptions extends SchedulerOptions {
  deliver: Deliver;
  /** Default 60 s. */
  intervalMs?: number;
  /** How long stop() lets running jobs finish before interrupting them (default agent.cron_drain_timeout, 30 s). */
  drainMs?: number;
}

export interface CronTicker {
  stop(): Promise<void>;
  /** Ticks now instead of waiting for the interval (after a job was triggered). */
  poke(): void;
  scheduler: CronScheduler;
}

// (Tickers running in this process: tickers.ts, which `hermes cron list` reads without loading this module.)
export { activeTicker } from './tickers.ts';

/**
 * Starts the cron ticker (the gateway calls this in `hermes gateway run`): a tick at once, then
 * every `intervalMs`. Heartbeat files in cron/ let `hermes cron status` tell a live ticker from a
 * dead one; a clean stop removes the heartbeat.
 */
export function startCronTicker(opts: { home: string; deliver: Deliver; intervalMs?: number; log?: (line: string) => void } & Partial<CronTickerOptions>): { stop(): Promise<void> } & CronTicker {
  const scheduler = new CronScheduler(opts);
  const interval = opts.intervalMs ?? 60_000;
  const log = opts.log ?? (() => {});
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;

  const once = async () => {
    let store: CronStore | undefined;
    try {
      const ctx = scheduler.context();
      store = ctx.store;
      store.writeMarker('ticker_heartbeat', `${Date.now() / 1000}\n`);
      const r = await scheduler.tick();
      r.done.catch((e) => log(`cron: run error: ${(e as Error).message}`));
      store.writeMarker('ticker_last_success', `${Date.now() / 1000}\n`);
      store.clearMarker('ticker_last_error');
      // The skill curator rides on the same ticker, on its own interval (curator.interval_hours).
      try {
        const cs = curatorSettings(ctx.config);
        if (curatorDue(opts.home, cs)) {
          // Only when nobody has been talking to the agent for curator.min_idle_hours.
          const { idleSeconds, runCuratorPass } = await import('../session/curator-review.ts');
          const idle = idleSeconds(opts.home);
          // The deterministic pass records the run before the first await, so the next tick does not
          // start another; the LLM pass (when on) finishes in the background, as Hermes's thread does.
          if (idle === null || idle >= cs.minIdleHours * 3600)
            void runCuratorPass({ home: opts.home, config: ctx.config, env: process.env }).then(
              (r) => log(`curator: ${r.summary.split('\n')[0]}`),
              (e: Error) => log(`curator: ${e.message}`),
            );
        }
      } catch (e) {
        log(`curator: ${(e as Error).message}`);
      }
    } catch (e) {
      const msg = (e as Error).message;
      log(`cron: tick failed: ${msg}`);
      (store ?? new CronStore({ home: opts.home, tz: 'UTC' })).writeMarker('ticker_last_error', `${Date.now() / 1000}\n${msg}\n`);
    }
  };

  const run = () => {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    clearTimeout(timer);
    ticking = once().finally(() => {
      ticking = null;
      if (stopped) return;
      if (again) {
        again = false;
        setImmediate(run);
      } else timer = setTimeout(run, interval);
    });
  };

  const ticker: CronTicker & { stop(): Promise<void> } = {
    scheduler,
    poke: () => run(),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      tickerStopped(opts.home, ticker);
      if (ticking) await ticking;
      // A clean stop: nothing ticks this home any more, so no heartbeat may say otherwise.
      try {
        scheduler.context().store.clearMarker('ticker_heartbeat');
      } catch {
        /* no store: nothing was written */
      }
      let drainMs = opts.drainMs;
      if (drainMs === undefined) {
        try {
          const d = Number((scheduler.context().config.agent as { cron_drain_timeout?: unknown }).cron_drain_timeout);
          drainMs = Number.isFinite(d) && d >= 0 ? d * 1000 : 30_000;
        } catch {
          drainMs = 30_000;
        }
      }
      await scheduler.drain(drainMs);
      await scheduler.close();
    },
  };
  tickerStarted(opts.home, ticker);
  setImmediate(run);
  return ticker;
}
