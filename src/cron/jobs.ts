// cron/jobs.json: Hermes's job records, every load→modify→save under a cross-process lock, writes
// atomic (temp file + rename, mode 0600). Runs are claimed here: a due job gets `next_run_at`
// advanced and a `fire_claim` (owner host:pid) in one locked write before anything runs, so two
// processes never run the same occurrence and a crash mid-run does not re-fire a recurring job.
// The record itself (fields, normalisation) is in job-record.ts, claim ownership in claims.ts.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { claimIsLive } from './claims.ts';
import {
  AmbiguousJobError,
  checkLifecycle,
  CronError,
  EMPTY_PAYLOAD,
  JobNotFoundError,
  normalizeDeliver,
  normalizeJob,
  normalizeNameList,
  normalizeRepeat,
  normalizeSkills,
  normalizeWorkdir,
  normalizeOrigin,
  optText,
  SAFE_ID,
  resolveScriptPath,
  validateScriptPath,
  type CronJob,
  type CronOrigin,
} from './job-record.ts';
import { withLock } from '../state/process-lock.ts';
import { computeNextRun, graceSeconds, ONESHOT_GRACE_SECONDS, parseSchedule, ScheduleError, type TimeContext } from './schedule.ts';
import { fileStamp, formatIso, parseIso, resolveTimezone, systemClock, type Clock } from './time.ts';
import { CONTINUITY_REF } from './continuity.ts';

export * from './job-record.ts';

const NO_AGENT_NEEDS_SCRIPT = 'no_agent runs a script without the LLM, so it needs `script` (a file in HERMES_HOME/scripts/). Give one, or drop no_agent.';
export * from './claims.ts';

let sysTz: string | undefined;
function systemTz(): string {
  return (sysTz ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
}

// ---------------------------------------------------------------------------------------------

export interface CreateJobInput {
  prompt?: string | null;
  schedule: string;
  name?: string | null;
  repeat?: number | string | null;
  deliver?: string | string[] | null;
  origin?: CronOrigin | null;
  skills?: string[] | string | null;
  model?: string | null;
  provider?: string | null;
  base_url?: string | null;
  script?: string | null;
  workdir?: string | null;
  paused?: boolean;
  /** Job IDs (or exact names) whose latest output this job gets as context. */
  context_from?: string[] | string | null;
  /** Continuity (Hermes 0.21): the job sees its own previous run's report; stored as `self` in context_from. */
  continuity?: boolean;
  /** Toolsets for the job's agent (default: the cron toolsets). */
  enabled_toolsets?: string[] | string | null;
  /** Deliver the script's stdout as it is; no LLM. Needs `script`. */
  no_agent?: boolean;
  /** The provider and model the default configuration resolves to now (kept for unpinned agent jobs). */
  snapshot?: InferenceSnapshot | null;
}

export interface InferenceSnapshot {
  provider: string | null;
  model: string | null;
}

export interface UpdateJobInput {
  prompt?: string;
  schedule?: string;
  name?: string;
  repeat?: number | string | null;
  deliver?: string | string[];
  skills?: string[];
  model?: string | null;
  provider?: string | null;
  base_url?: string | null;
  script?: string | null;
  workdir?: string | null;
  /** [] or null clears. */
  context_from?: string[] | string | null;
  /** Continuity (Hermes 0.21): the job sees its own previous run's report; stored as `self` in context_from. */
  continuity?: boolean;
  /** [] or null clears. */
  enabled_toolsets?: string[] | string | null;
  no_agent?: boolean;
  /** Re-taken when the job's model or provider changes and it stays unpinned. */
  snapshot?: InferenceSnapshot | null;
}

export interface RunRecord {
  success: boolean;
  error?: string | null;
  deliveryError?: string | null;
}

export interface StoreOptions {
  home: string;
  tz: string;
  now?: Clock;
  /** Output files kept per job (cron.output_retention, default 50; 0 keeps all). */
  outputRetention?: number;
  /** cron.catch_up_missed (default true): a recurring job missed by more than its grace runs once late. */
  catchUpMissed?: boolean;
  /** A claim from another machine counts as live this long (ms). */
  claimTtlMs?: number;
  log?: (line: string) => void;
}

export class CronStore {
  readonly home: string;
  readonly dir: string;
  readonly jobsFile: string;
  readonly outputDir: string;
  readonly tz: string;
  readonly now: Clock;
  private readonly opts: StoreOptions;

  constructor(o: StoreOptions) {
    this.opts = o;
    this.home = o.home;
    this.dir = join(o.home, 'cron');
    this.jobsFile = join(this.dir, 'jobs.json');
    this.outputDir = join(this.dir, 'output');
    this.tz = o.tz;
    this.now = o.now ?? systemClock;
  }

  get time(): TimeContext {
    return { now: this.now, tz: this.tz };
  }

  private iso(ms = this.now()): string {
    return formatIso(ms, this.tz);
  }

  private ms(iso: string | null | undefined): number | null {
    if (!iso) return null;
    // Legacy naive timestamps were written in system-local time.
    return parseIso(iso, systemTz());
  }

  private ensureDirs(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    mkdirSync(this.outputDir, { recursive: true, mode: 0o700 });
  }

  /** The jobs as stored (no lock: a consistent snapshot thanks to atomic writes). */
  read(): CronJob[] {
    let text: string;
    try {
      text = readFileSync(this.jobsFile, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new CronError(`Cannot read ${this.jobsFile}: ${(e as Error).message}`);
    }
    if (!text.trim()) return [];
    let data: unknown;
    try {
      data = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new CronError(`${this.jobsFile} is not valid JSON (${(e as Error).message}). Fix it by hand or move it aside; Hermes will not overwrite it.`);
    }
    let list: unknown[];
    if (Array.isArray(data)) list = data;
    else if (data && typeof data === 'object' && Array.isArray((data as { jobs?: unknown }).jobs)) list = (data as { jobs: unknown[] }).jobs;
    else if (data && typeof data === 'object' && (data as { jobs?: unknown }).jobs && typeof (data as { jobs?: unknown }).jobs === 'object')
      list = Object.entries((data as { jobs: Record<string, Record<string, unknown>> }).jobs).map(([k, v]) => ({ ...v, id: v?.id ?? k }));
    else throw new CronError(`${this.jobsFile} does not hold a job list ({"jobs": [...]}). Fix it by hand or move it aside.`);
    const out: CronJob[] = [];
    for (const raw of list) {
      const j = normalizeJob(raw as Record<string, unknown>);
      if (j) out.push(j);
      else this.opts.log?.(`cron: skipping an unreadable job record in jobs.json: ${JSON.stringify(raw).slice(0, 120)}`);
    }
    return out;
  }

  private write(jobs: CronJob[]): void {
    this.ensureDirs();
    writeFileAtomic(this.jobsFile, JSON.stringify({ jobs, updated_at: this.iso() }, null, 2) + '\n', 0o600);
  }

  /** load → fn → save, under cron/.jobs.lock. `fn` returns [result, changed]. */
  async mutate<T>(fn: (jobs: CronJob[]) => { result: T; changed: boolean }): Promise<T> {
    this.ensureDirs();
    return withLock(join(this.dir, '.jobs.lock'), () => {
      const jobs = this.read();
      const { result, changed } = fn(jobs);
      if (changed) this.write(jobs);
      return result;
    });
  }

  /** Exact ID first, then a case-insensitive name; an ambiguous name is an error. */
  resolveIn(jobs: CronJob[], ref: string): CronJob {
    const r = ref.trim();
    const byId = jobs.find((j) => j.id === r);
    if (byId) return byId;
    const named = jobs.filter((j) => j.name.toLowerCase() === r.toLowerCase());
    if (named.length > 1) throw new AmbiguousJobError(r, named);
    if (!named.length) throw new JobNotFoundError(r);
    return named[0];
  }

  get(ref: string): CronJob {
    return this.resolveIn(this.read(), ref);
  }

  list(opts: { all?: boolean } = {}): CronJob[] {
    const jobs = this.read();
    return opts.all ? jobs : jobs.filter((j) => j.enabled && j.state !== 'completed');
  }

  private claimTtlMs(): number {
    return this.opts.claimTtlMs ?? 1_800_000;
  }

  /** Whether a job is being run right now (by any process). */
  isRunning(job: CronJob): boolean {
    return claimIsLive(job.fire_claim, this.now(), this.claimTtlMs());
  }

  async create(input: CreateJobInput): Promise<CronJob> {
    const schedule = parseSchedule(input.schedule ?? '', this.time);
    let times = normalizeRepeat(input.repeat);
    if (schedule.kind === 'once' && times === null) times = 1;
    const prompt = (input.prompt ?? '').trim();
    const skills = normalizeSkills(input.skills);
    const script = optText(input.script) ? validateScriptPath(this.home, input.script!) : null;
    if (!prompt && !script && !skills.length) throw new CronError(EMPTY_PAYLOAD);
    const noAgent = !!input.no_agent;
    if (noAgent && !script) throw new CronError(NO_AGENT_NEEDS_SCRIPT);
    const contextFrom = withContinuity(normalizeNameList(input.context_from), input.continuity);
    const toolsets = normalizeNameList(input.enabled_toolsets);
    const model = optText(input.model);
    const provider = optText(input.provider);
    // An unpinned agent job keeps running on what the configuration resolves to today.
    const snap = !noAgent && !model && !provider && input.snapshot ? input.snapshot : null;
    checkLifecycle(prompt);
    checkLifecycle(script ? this.readScriptText(script) : null);
    const workdir = normalizeWorkdir(input.workdir);
    const origin = input.origin ? normalizeOrigin(input.origin) : null;
    const deliver = normalizeDeliver(input.deliver) ?? (origin ? 'origin' : 'local');
    const next = computeNextRun(schedule, this.time);
    if (schedule.kind === 'once' && next === null)
      throw new CronError(`The one-shot time ${schedule.run_at} is more than ${ONESHOT_GRACE_SECONDS}s in the past: pick a future time.`);
    const name = (input.name ?? '').trim() || (prompt || skills[0] || script || 'cron job').slice(0, 50).trim();
    const now = this.iso();
    const paused = !!input.paused;
    // Keys in the order Python Hermes writes them.
    const job: CronJob = {
      id: randomBytes(6).toString('hex'),
      name,
      prompt,
      skills,
      skill: skills[0] ?? null,
      model,
      provider,
      provider_snapshot: snap?.provider ?? null,
      model_snapshot: snap?.model ?? null,
      base_url: optText(input.base_url, true),
      script,
      no_agent: noAgent,
      context_from: contextFrom,
      schedule,
      schedule_display: schedule.display,
      repeat: { times, completed: 0 },
      enabled: !paused,
      state: paused ? 'paused' : 'scheduled',
      paused_at: paused ? now : null,
      paused_reason: paused ? 'Created paused.' : null,
      created_at: now,
      next_run_at: paused ? null : next,
      last_run_at: null,
      last_status: null,
      last_error: null,
      last_delivery_error: null,
      deliver,
      origin,
      enabled_toolsets: toolsets,
      workdir,
    };
    await this.mutate((jobs) => {
      if (job.context_from) job.context_from = this.resolveRefs(jobs, job.context_from);
      jobs.push(job);
      return { result: undefined, changed: true };
    });
    return job;
  }

  /**
   * context_from references as job IDs (an exact name is accepted); unknown ones are an error. The
   * job itself is `self` (continuity: its own previous run), however it is named.
   */
  private resolveRefs(jobs: CronJob[], refs: string[], self?: string): string[] {
    const ids = refs.map((r) => {
      if (r === CONTINUITY_REF) return r;
      try {
        return this.resolveIn(jobs, r).id;
      } catch (e) {
        if (e instanceof JobNotFoundError) throw new CronError(`context_from: no cron job with ID or name "${r}". List the jobs first and use an ID.`);
        throw e;
      }
    });
    return [...new Set(ids.map((id) => (id === self ? CONTINUITY_REF : id)))];
  }

  private readScriptText(script: string): string | null {
    try {
      return readFileSync(resolveScriptPath(this.home, script), 'utf8').slice(0, 200_000);
    } catch {
      return null;
    }
  }

  async update(ref: string, u: UpdateJobInput): Promise<CronJob> {
    // Validate everything that does not need the stored job before taking the lock.
    const parsed = u.schedule !== undefined ? parseSchedule(u.schedule, this.time) : undefined;
    const workdir = u.workdir !== undefined ? normalizeWorkdir(u.workdir) : undefined;
    const script = u.script !== undefined ? (optText(u.script) ? validateScriptPath(this.home, u.script!) : null) : undefined;
    const deliver = u.deliver !== undefined ? normalizeDeliver(u.deliver) : undefined;
    const times = u.repeat !== undefined ? normalizeRepeat(u.repeat) : undefined;
    if (u.prompt !== undefined) checkLifecycle(u.prompt);
    if (script) checkLifecycle(this.readScriptText(script));
    const contextFrom = u.context_from !== undefined ? normalizeNameList(u.context_from) : undefined;
    const toolsets = u.enabled_toolsets !== undefined ? normalizeNameList(u.enabled_toolsets) : undefined;
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      const next: CronJob = { ...job };
      if (contextFrom !== undefined) next.context_from = contextFrom ? this.resolveRefs(jobs, contextFrom, job.id) : null;
      if (u.continuity !== undefined) next.context_from = withContinuity(next.context_from ?? null, u.continuity);
      if (toolsets !== undefined) next.enabled_toolsets = toolsets;
      if (u.no_agent !== undefined) next.no_agent = !!u.no_agent;
      if (u.prompt !== undefined) next.prompt = u.prompt.trim();
      if (u.name !== undefined && u.name.trim()) next.name = u.name.trim();
      if (deliver !== undefined) next.deliver = deliver ?? (job.origin ? 'origin' : 'local');
      if (u.skills !== undefined) {
        next.skills = normalizeSkills(u.skills);
        next.skill = next.skills[0] ?? null;
      }
      if (u.model !== undefined) next.model = optText(u.model);
      if (u.provider !== undefined) next.provider = optText(u.provider);
      if (u.base_url !== undefined) next.base_url = optText(u.base_url, true);
      if (script !== undefined) next.script = script;
      if (workdir !== undefined) next.workdir = workdir;
      if (times !== undefined) next.repeat = { times, completed: job.repeat.completed };
      if (!next.prompt && !next.script && !next.skills.length) throw new CronError(EMPTY_PAYLOAD);
      if (next.no_agent && !next.script) throw new CronError(NO_AGENT_NEEDS_SCRIPT);
      if ((u.model !== undefined || u.provider !== undefined) && u.snapshot && !next.model && !next.provider && !next.no_agent) {
        next.provider_snapshot = u.snapshot.provider;
        next.model_snapshot = u.snapshot.model;
      }
      if (parsed) {
        // A one-shot turned recurring loses its single-run budget, and the reverse gains one.
        if (times === undefined && parsed.kind !== job.schedule.kind) {
          if (parsed.kind === 'once' && job.repeat.times === null) next.repeat = { times: 1, completed: 0 };
          else if (parsed.kind !== 'once' && job.schedule.kind === 'once' && job.repeat.times === 1) next.repeat = { times: null, completed: 0 };
        }
        next.schedule = parsed;
        next.schedule_display = parsed.display;
        if (job.state === 'completed') {
          next.state = 'scheduled';
          next.enabled = true;
        }
        if (next.state !== 'paused') {
          const at = computeNextRun(parsed, this.time);
          if (parsed.kind === 'once' && at === null)
            throw new CronError(`The one-shot time ${parsed.run_at} is more than ${ONESHOT_GRACE_SECONDS}s in the past: pick a future time.`);
          next.next_run_at = at;
        }
      }
      const i = jobs.indexOf(job);
      jobs[i] = next;
      return { result: next, changed: true };
    });
  }

  async pause(ref: string, reason?: string | null): Promise<CronJob> {
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      if (job.state === 'completed') throw new CronError(`Job "${job.name}" has completed; there is nothing to pause.`);
      Object.assign(job, { enabled: false, state: 'paused', paused_at: this.iso(), paused_reason: optText(reason) });
      return { result: job, changed: true };
    });
  }

  async resume(ref: string): Promise<CronJob> {
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      const next = computeNextRun(job.schedule, this.time, { lastRunAt: job.schedule.kind === 'once' ? job.last_run_at : null });
      if (next === null)
        throw new CronError(
          job.schedule.kind === 'once'
            ? `Cannot resume "${job.name}": its one-shot time ${job.schedule.run_at} has passed${job.last_run_at ? ' and it already ran' : ''}. Give it a new schedule with \`hermes cron edit ${job.id} --schedule …\`.`
            : `Cannot compute the next run of "${job.name}" (${job.schedule_display}).`,
        );
      if (job.state === 'completed' && job.repeat.times !== null && job.repeat.completed >= job.repeat.times)
        job.repeat = { times: job.repeat.times, completed: 0 };
      Object.assign(job, { enabled: true, state: 'scheduled', paused_at: null, paused_reason: null, next_run_at: next });
      return { result: job, changed: true };
    });
  }

  /** Makes the job due now: the running ticker picks it up on its next tick. */
  async trigger(ref: string): Promise<CronJob> {
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      if (job.state === 'completed') throw new CronError(`Job "${job.name}" has completed. Resume it or give it a new schedule first.`);
      Object.assign(job, { enabled: true, state: 'scheduled', paused_at: null, paused_reason: null, next_run_at: this.iso() });
      return { result: job, changed: true };
    });
  }

  async remove(ref: string): Promise<CronJob> {
    const removed = await this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      jobs.splice(jobs.indexOf(job), 1);
      return { result: job, changed: true };
    });
    if (SAFE_ID.test(removed.id)) rmSync(join(this.outputDir, removed.id), { recursive: true, force: true });
    return removed;
  }

  /**
   * Claims up to `limit` due jobs for `owner`: each gets `next_run_at` advanced (recurring) and a
   * fire claim, in one locked write, before anything runs.
   */
  async claimDue(owner: string, limit = Infinity): Promise<CronJob[]> {
    if (limit <= 0) return [];
    const now = this.now();
    const ttl = this.claimTtlMs();
    return this.mutate((jobs) => {
      let changed = false;
      const candidates: { job: CronJob; at: number }[] = [];
      for (const job of jobs) {
        if (!job.enabled || job.state === 'paused' || job.state === 'completed') continue;
        if (claimIsLive(job.fire_claim, now, ttl)) continue;
        if (job.fire_claim) {
          // Its owner died mid-run: drop the claim (a one-shot is still due and runs again).
          this.opts.log?.(`cron: job ${job.id} was claimed by ${job.fire_claim.by}, which is gone; releasing it.`);
          job.fire_claim = null;
          changed = true;
        }
        let at = this.ms(job.next_run_at);
        if (at === null) {
          const recovered = computeNextRun(job.schedule, this.time, { lastRunAt: job.last_run_at });
          if (recovered) {
            job.next_run_at = recovered;
            changed = true;
          }
          continue;
        }
        if (at > now) continue;
        candidates.push({ job, at });
      }
      candidates.sort((a, b) => a.at - b.at);
      const claimed: CronJob[] = [];
      for (const { job, at } of candidates) {
        if (claimed.length >= limit) break;
        const scheduledAt = job.next_run_at;
        if (job.schedule.kind !== 'once') {
          const lateS = (now - at) / 1000;
          const grace = graceSeconds(job.schedule, this.time);
          const next = computeNextRun(job.schedule, this.time, { after: now });
          if (lateS > grace && this.opts.catchUpMissed === false) {
            this.opts.log?.(`cron: job ${job.id} (${job.name}) missed ${job.next_run_at} by ${Math.round(lateS)}s; skipping to ${next} (cron.catch_up_missed is off).`);
            job.next_run_at = next;
            changed = true;
            continue;
          }
          if (lateS > grace) this.opts.log?.(`cron: job ${job.id} (${job.name}) missed ${job.next_run_at}; running it once now.`);
          job.next_run_at = next;
        }
        job.fire_claim = { by: owner, at: this.iso(now), scheduled_at: scheduledAt };
        claimed.push(structuredClone(job));
        changed = true;
      }
      return { result: claimed, changed };
    });
  }

  /** Claims one job for a manual run, whatever its schedule. Throws when it is running or completed. */
  async claimManual(ref: string, owner: string): Promise<CronJob> {
    const now = this.now();
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      if (claimIsLive(job.fire_claim, now, this.claimTtlMs())) throw new CronError(`Job "${job.name}" is running right now; it was not started again.`);
      if (job.state === 'completed') throw new CronError(`Job "${job.name}" has completed. Resume it or give it a new schedule first.`);
      job.fire_claim = { by: owner, at: this.iso(now) };
      return { result: structuredClone(job), changed: true };
    });
  }

  /**
   * Drops a claim without recording a run. The occurrence stays due: a recurring job whose
   * `next_run_at` the claim advanced gets it back (unless it was edited meanwhile), and a one-shot
   * still has its time, so the next tick — here or in another process — runs it.
   */
  async releaseClaim(id: string, owner: string, advancedTo?: string | null): Promise<void> {
    await this.mutate((jobs) => {
      const job = jobs.find((j) => j.id === id);
      if (!job || job.fire_claim?.by !== owner) return { result: undefined, changed: false };
      const scheduled = job.fire_claim.scheduled_at;
      if (scheduled && advancedTo !== undefined && job.next_run_at === advancedTo) job.next_run_at = scheduled;
      job.fire_claim = null;
      return { result: undefined, changed: true };
    });
  }

  /**
   * Drops a claim whose run another process fired (a shared PostgreSQL claim): the run counts
   * toward the repeat limit, a one-shot is complete, a recurring job keeps its advanced schedule.
   */
  async yieldRun(id: string, owner: string): Promise<void> {
    await this.mutate((jobs) => {
      const job = jobs.find((j) => j.id === id);
      if (!job || job.fire_claim?.by !== owner) return { result: undefined, changed: false };
      job.fire_claim = null;
      job.repeat = { times: job.repeat.times, completed: job.repeat.completed + 1 };
      if (job.schedule.kind === 'once' || (job.repeat.times !== null && job.repeat.completed >= job.repeat.times)) Object.assign(job, { enabled: false, state: 'completed', next_run_at: null });
      return { result: undefined, changed: true };
    });
  }

  /** Records a finished run; the run's status and the delivery's are kept apart. */
  async finishRun(id: string, owner: string, r: RunRecord): Promise<CronJob | null> {
    return this.mutate((jobs) => {
      const job = jobs.find((j) => j.id === id);
      if (!job) return { result: null, changed: false };
      if (job.fire_claim && job.fire_claim.by !== owner) {
        // Someone else took the job over (our claim was judged stale): their record wins.
        this.opts.log?.(`cron: job ${id} was re-claimed by ${job.fire_claim.by}; not recording this run.`);
        return { result: null, changed: false };
      }
      const now = this.now();
      job.fire_claim = null;
      job.last_run_at = this.iso(now);
      job.last_status = r.success ? 'ok' : 'error';
      job.last_error = r.success ? null : (r.error ?? 'unknown error');
      job.last_delivery_error = r.deliveryError ?? null;
      job.repeat = { times: job.repeat.times, completed: job.repeat.completed + 1 };
      const exhausted = job.repeat.times !== null && job.repeat.completed >= job.repeat.times;
      if (exhausted || job.schedule.kind === 'once') {
        Object.assign(job, { enabled: false, state: 'completed', next_run_at: null });
      } else {
        // Scheduled runs advanced next_run_at when claimed; a run that outlasted it (or a manual
        // run of a job whose slot passed meanwhile) moves on from now.
        const at = this.ms(job.next_run_at);
        if (at === null || at <= now) job.next_run_at = computeNextRun(job.schedule, this.time, { after: now });
      }
      return { result: job, changed: true };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Output files and ticker markers.

  jobOutputDir(id: string): string {
    if (!SAFE_ID.test(id)) throw new CronError(`Invalid cron job id for an output path: "${id}".`);
    return join(this.outputDir, id);
  }

  /** Writes cron/output/<job>/<timestamp>.md (0600) and prunes the oldest beyond the retention. */
  saveOutput(id: string, doc: string, at = this.now()): string {
    const dir = this.jobOutputDir(id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stamp = fileStamp(at, this.tz);
    let path = join(dir, `${stamp}.md`);
    for (let n = 2; existsSync(path); n++) path = join(dir, `${stamp}_${n}.md`);
    writeFileAtomic(path, doc, 0o600);
    const keep = this.opts.outputRetention ?? 50;
    if (keep > 0) {
      const files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
      for (const f of files.slice(0, Math.max(0, files.length - keep))) rmSync(join(dir, f), { force: true });
    }
    return path;
  }

  /** The newest output files of a job, newest first. */
  outputs(id: string, limit = 10): string[] {
    const dir = this.jobOutputDir(id);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .reverse()
      .slice(0, limit)
      .map((f) => join(dir, f));
  }

  writeMarker(name: 'ticker_heartbeat' | 'ticker_last_success' | 'ticker_last_error', text: string): void {
    try {
      this.ensureDirs();
      writeFileAtomic(join(this.dir, name), text, 0o600);
    } catch {
      /* markers never break a tick */
    }
  }

  clearMarker(name: 'ticker_heartbeat' | 'ticker_last_error'): void {
    rmSync(join(this.dir, name), { force: true });
  }

  /** Seconds since the marker's stamp (epoch seconds on its first line); null when missing. */
  markerAge(name: 'ticker_heartbeat' | 'ticker_last_success' | 'ticker_last_error'): number | null {
    try {
      const first = readFileSync(join(this.dir, name), 'utf8').split('\n')[0].trim();
      const t = Number(first);
      if (!Number.isFinite(t)) return null;
      return Math.max(0, Date.now() / 1000 - t);
    } catch {
      return null;
    }
  }

  lastTickError(): string | null {
    try {
      const lines = readFileSync(join(this.dir, 'ticker_last_error'), 'utf8').split('\n');
      return lines.slice(1).join('\n').trim() || null;
    } catch {
      return null;
    }
  }
}

/** Seconds of staleness after which the ticker is considered stopped: two missed ticks. */
export const TICKER_INTERVAL_SECONDS = 60;
export const TICKER_STALE_SECONDS = TICKER_INTERVAL_SECONDS * 2;

export { ScheduleError };

/**
 * Rewrites every job that loads skill `from` to load `to` instead; returns the ids changed
 * (`hermes curator consolidate` passes this to state/curator-consolidate.ts).
 */
export async function forwardSkillInJobs(home: string, from: string, to: string): Promise<string[]> {
  const store = new CronStore({ home, tz: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' });
  return store.mutate((jobs) => {
    const changed: string[] = [];
    for (const j of jobs) {
      if (!j.skills?.includes(from) && j.skill !== from) continue;
      const next = [...new Set((j.skills ?? []).map((s) => (s === from ? to : s)))];
      if (!next.length && j.skill === from) next.push(to);
      j.skills = next;
      j.skill = next[0] ?? null;
      changed.push(j.id);
    }
    return { result: changed, changed: changed.length > 0 };
  });
}

/** The jobs store of a home with config.yaml's settings (timezone, cron.output_retention). */
export function cronStoreFor(home: string, config: { timezone?: string; cron?: unknown }, env: NodeJS.ProcessEnv): CronStore {
  const cron = (config.cron ?? {}) as { output_retention?: unknown };
  return new CronStore({
    home,
    tz: resolveTimezone(config.timezone, env),
    outputRetention: Number.isFinite(Number(cron.output_retention)) ? Number(cron.output_retention) : 50,
  });
}

/** context_from with continuity switched on (`self` added) or off (removed); unchanged when undefined. */
function withContinuity(refs: string[] | null, on: boolean | undefined): string[] | null {
  if (on === undefined) return refs;
  const rest = (refs ?? []).filter((r) => r !== CONTINUITY_REF);
  const out = on ? [...rest, CONTINUITY_REF] : rest;
  return out.length ? out : null;
}
