// cron/jobs.json: Hermes's job records, every load→modify→save under a cross-process lock, writes
// atomic (temp file + rename, mode 0600). Runs are claimed here: a due job gets `next_run_at`
// advanced and a `fire_claim` (owner host:pid) in one locked write before anything runs, so two
// processes never run the same occurrence and a crash mid-run does not re-fire a recurring job.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { withLock } from './lock.ts';
import {
  asSchedule,
  computeNextRun,
  graceSeconds,
  ONESHOT_GRACE_SECONDS,
  parseSchedule,
  ScheduleError,
  type Schedule,
  type TimeContext,
} from './schedule.ts';
import { fileStamp, formatIso, parseIso, systemClock, type Clock } from './time.ts';

/** The chat a job was created from (Hermes's SessionSource dict, snake_case as stored). */
export interface CronOrigin {
  platform: string;
  chat_id: string;
  thread_id?: string | null;
  user_id?: string | null;
  chat_name?: string | null;
  chat_type?: string | null;
  user_name?: string | null;
}

export interface FireClaim {
  /** host:pid:token of the process running the job. */
  by: string;
  at: string;
  /** The occurrence being run (next_run_at before the claim advanced it); null for manual runs. */
  scheduled_at?: string | null;
}

export interface CronJob {
  id: string;
  name: string;
  prompt: string;
  skills: string[];
  /** Legacy mirror of skills[0]. */
  skill: string | null;
  model: string | null;
  provider: string | null;
  base_url: string | null;
  script: string | null;
  schedule: Schedule;
  schedule_display: string;
  repeat: { times: number | null; completed: number };
  enabled: boolean;
  state: 'scheduled' | 'paused' | 'completed' | string;
  paused_at: string | null;
  paused_reason: string | null;
  created_at: string;
  next_run_at: string | null;
  last_run_at: string | null;
  last_status: 'ok' | 'error' | string | null;
  last_error: string | null;
  last_delivery_error: string | null;
  deliver: string;
  origin: CronOrigin | null;
  workdir: string | null;
  fire_claim?: FireClaim | null;
  [extra: string]: unknown;
}

export class CronError extends Error {}

export class AmbiguousJobError extends CronError {
  readonly matches: CronJob[];
  constructor(ref: string, matches: CronJob[]) {
    super(`Job name "${ref}" matches ${matches.length} jobs (${matches.map((m) => m.id).join(', ')}): use the job ID instead.`);
    this.matches = matches;
  }
}

export class JobNotFoundError extends CronError {
  constructor(ref: string) {
    super(`No cron job with ID or name "${ref}". List them with \`hermes cron list\`.`);
  }
}

const EMPTY_PAYLOAD =
  'The job has nothing to run: the prompt is empty and no script or skill is set. Give a prompt, a script, or at least one skill.';

/** Prompts or scripts that would stop or restart the gateway running them (a respawn loop). */
const LIFECYCLE = [
  /\bhermes\s+gateway\s+(stop|restart|uninstall)\b/i,
  /\bsystemctl\s+(--user\s+)?(stop|restart|kill)\s+\S*hermes/i,
  /\b(pkill|killall)\b[^\n]*\bhermes\b/i,
  /\blaunchctl\s+(unload|stop|kickstart)\b[^\n]*hermes/i,
];

export function checkLifecycle(text: string | null | undefined): void {
  if (!text) return;
  for (const re of LIFECYCLE)
    if (re.test(text))
      throw new CronError('A cron job may not stop or restart the Hermes gateway (it would kill the scheduler that runs it). Remove that command from the prompt or script.');
}

// ---------------------------------------------------------------------------------------------
// Claims: who is running a job right now.

const HOST = hostname();

let sysTz: string | undefined;
function systemTz(): string {
  return (sysTz ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
}
/** Claim owners ("host:pid:token") of runs in this process that have not finished. */
const liveInProcess = new Set<string>();

export function newClaimOwner(): string {
  return `${HOST}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Marks a claim owner as running in this process (until `endOwner`). */
export function beginOwner(owner: string): void {
  liveInProcess.add(owner);
}

export function endOwner(owner: string): void {
  liveInProcess.delete(owner);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A claim is live while its owner process runs the job; a dead owner's claim is stale. */
export function claimIsLive(claim: FireClaim | null | undefined, now: number, ttlMs: number): boolean {
  if (!claim || typeof claim !== 'object' || typeof claim.by !== 'string') return false;
  const [host, pidText] = claim.by.split(':');
  const pid = Number(pidText);
  if (host === HOST && Number.isInteger(pid) && pid > 0) {
    if (pid === process.pid) return liveInProcess.has(claim.by);
    return pidAlive(pid);
  }
  // Another machine sharing this HERMES_HOME: trust the claim for the TTL.
  const at = Date.parse(claim.at);
  return Number.isFinite(at) && now - at >= 0 && now - at < ttlMs;
}

// ---------------------------------------------------------------------------------------------
// Field normalisation (shared by create, update and reading hand-edited files).

export function normalizeSkills(skills: unknown, skill?: unknown): string[] {
  const raw = skills === undefined || skills === null ? (skill ? [skill] : []) : typeof skills === 'string' ? [skills] : Array.isArray(skills) ? skills : [];
  const out: string[] = [];
  for (const s of raw) {
    const t = String(s ?? '').trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** 'forever' → null, 'once' → 1, numbers as they are, 0 or less → null (forever). */
export function normalizeRepeat(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['', 'forever', 'infinite', 'inf', 'none'].includes(s)) return null;
    if (['once', 'one', '1x'].includes(s)) return 1;
    if (!/^-?\d+$/.test(s)) throw new CronError(`Invalid repeat "${v}": use a number, "forever" or "once".`);
    v = Number(s);
  }
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CronError(`Invalid repeat "${String(v)}": use a number, "forever" or "once".`);
  return n <= 0 ? null : Math.floor(n);
}

function optText(v: unknown, stripSlash = false): string | null {
  if (typeof v !== 'string') return null;
  const t = stripSlash ? v.trim().replace(/\/+$/, '') : v.trim();
  return t || null;
}

/** An absolute, existing directory (~ expanded); '' or null clears. */
export function normalizeWorkdir(v: unknown): string | null {
  if (v === undefined || v === null || v === false) return null;
  const raw = String(v).trim();
  if (!raw) return null;
  const expanded = raw === '~' ? homedir() : raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw;
  if (!isAbsolute(expanded)) throw new CronError(`The workdir must be an absolute path (got "${raw}"): cron jobs run detached from any shell directory.`);
  const abs = resolve(expanded);
  if (!existsSync(abs)) throw new CronError(`The workdir does not exist: ${abs}.`);
  if (!statSync(abs).isDirectory()) throw new CronError(`The workdir is not a directory: ${abs}.`);
  return abs;
}

export function scriptsDir(home: string): string {
  return join(home, 'scripts');
}

/**
 * A pre-run script: a path under HERMES_HOME/scripts/ (relative to it, or absolute inside it).
 * Returns the stored form (as given, trimmed); throws when it escapes the directory.
 */
export function validateScriptPath(home: string, script: string): string {
  const raw = script.trim();
  const dir = resolve(scriptsDir(home));
  const expanded = raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw;
  const abs = resolve(dir, expanded);
  const rel = relative(dir, abs);
  if (!rel || rel.startsWith('..') || isAbsolute(rel))
    throw new CronError(`The script must be inside ${dir}/ (got "${raw}"). Put it there and give its file name.`);
  return raw;
}

export function resolveScriptPath(home: string, script: string): string {
  const raw = script.trim();
  return resolve(scriptsDir(home), raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw);
}

/** Comma-separated delivery targets, trimmed; empty → null. */
export function normalizeDeliver(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const parts = (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter(Boolean);
  for (const p of parts)
    if (/\s/.test(p) || !/^[A-Za-z][\w-]*(:.+)?$/.test(p))
      throw new CronError(`Invalid delivery target "${p}": use origin, local, a platform name (telegram) or platform:chat_id[:thread_id].`);
  return parts.length ? parts.join(',') : null;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

function normalizeOrigin(v: unknown): CronOrigin | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const platform = o.platform;
  const chat = o.chat_id ?? o.chatId;
  if (typeof platform !== 'string' || (typeof chat !== 'string' && typeof chat !== 'number')) return null;
  return { ...(o as object), platform, chat_id: String(chat) } as CronOrigin;
}

/** A read-safe job record from whatever is in jobs.json (legacy and hand-edited shapes). */
export function normalizeJob(raw: Record<string, unknown>): CronJob | null {
  if (!raw || typeof raw !== 'object') return null;
  const id = typeof raw.id === 'string' || typeof raw.id === 'number' ? String(raw.id) : '';
  if (!id) return null;
  const schedule = asSchedule(raw.schedule);
  if (!schedule) return null;
  const skills = normalizeSkills(raw.skills, raw.skill);
  const prompt = raw.prompt == null ? '' : String(raw.prompt);
  const script = optText(raw.script);
  const rep = (raw.repeat && typeof raw.repeat === 'object' ? raw.repeat : {}) as Record<string, unknown>;
  let times: number | null = null;
  try {
    times = normalizeRepeat(rep.times);
  } catch {
    times = null;
  }
  const name = (typeof raw.name === 'string' && raw.name.trim()) || (prompt || skills[0] || script || id).slice(0, 50).trim() || 'cron job';
  const enabled = raw.enabled !== false;
  const stored = typeof raw.state === 'string' ? raw.state : '';
  const state = stored === 'completed' || stored === 'error' ? stored : !enabled ? 'paused' : 'scheduled';
  return {
    ...raw,
    id,
    name,
    prompt,
    skills,
    skill: skills[0] ?? null,
    model: optText(raw.model),
    provider: optText(raw.provider),
    base_url: optText(raw.base_url, true),
    script,
    schedule,
    schedule_display: (typeof raw.schedule_display === 'string' && raw.schedule_display) || schedule.display,
    repeat: { times, completed: Math.max(0, Math.floor(Number(rep.completed) || 0)) },
    enabled,
    state,
    paused_at: optText(raw.paused_at),
    paused_reason: optText(raw.paused_reason),
    created_at: typeof raw.created_at === 'string' ? raw.created_at : '',
    next_run_at: optText(raw.next_run_at),
    last_run_at: optText(raw.last_run_at),
    last_status: optText(raw.last_status),
    last_error: raw.last_error == null ? null : String(raw.last_error),
    last_delivery_error: raw.last_delivery_error == null ? null : String(raw.last_delivery_error),
    deliver: optText(raw.deliver) ?? 'local',
    origin: normalizeOrigin(raw.origin),
    workdir: optText(raw.workdir),
    fire_claim: raw.fire_claim && typeof raw.fire_claim === 'object' ? (raw.fire_claim as FireClaim) : null,
  };
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
    const job: CronJob = {
      id: randomBytes(6).toString('hex'),
      name,
      prompt,
      skills,
      skill: skills[0] ?? null,
      model: optText(input.model),
      provider: optText(input.provider),
      base_url: optText(input.base_url, true),
      script,
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
      workdir,
    };
    await this.mutate((jobs) => {
      jobs.push(job);
      return { result: undefined, changed: true };
    });
    return job;
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
    return this.mutate((jobs) => {
      const job = this.resolveIn(jobs, ref);
      const next: CronJob = { ...job };
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
