// A cron job record as stored in cron/jobs.json (Hermes's field names and shapes), and the rules that
// normalise what create, update and hand-edited files put there.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { asSchedule, type Schedule } from './schedule.ts';

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
  /** Unpinned agent jobs: the provider and model resolved when the job was made (runs stay on them). */
  provider_snapshot?: string | null;
  model_snapshot?: string | null;
  base_url: string | null;
  script: string | null;
  /** No LLM: the script runs and its stdout is delivered as it is (empty stdout: nothing is sent). */
  no_agent?: boolean;
  /** Jobs whose latest output is given to this one as context. */
  context_from?: string[] | null;
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
  /** The toolsets the job's agent gets (null: the cron default). */
  enabled_toolsets?: string[] | null;
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

export const EMPTY_PAYLOAD =
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

export function optText(v: unknown, stripSlash = false): string | null {
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

export const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function normalizeOrigin(v: unknown): CronOrigin | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const platform = o.platform;
  const chat = o.chat_id ?? o.chatId;
  if (typeof platform !== 'string' || (typeof chat !== 'string' && typeof chat !== 'number')) return null;
  return { ...(o as object), platform, chat_id: String(chat) } as CronOrigin;
}

/** A list of names: a string (comma-separated) or an array; blanks and duplicates dropped; empty → null. */
export function normalizeNameList(v: unknown): string[] | null {
  if (v === undefined || v === null || v === false) return null;
  const raw = Array.isArray(v) ? v : String(v).split(',');
  const out: string[] = [];
  for (const x of raw) {
    const t = String(x ?? '').trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out.length ? out : null;
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
    // Fields of later Hermes versions: normalised when present, never added to records without them.
    ...('no_agent' in raw ? { no_agent: raw.no_agent === true } : {}),
    ...('context_from' in raw ? { context_from: normalizeNameList(raw.context_from) } : {}),
    ...('enabled_toolsets' in raw ? { enabled_toolsets: normalizeNameList(raw.enabled_toolsets) } : {}),
    ...('provider_snapshot' in raw ? { provider_snapshot: optText(raw.provider_snapshot) } : {}),
    ...('model_snapshot' in raw ? { model_snapshot: optText(raw.model_snapshot) } : {}),
    ...(raw.fire_claim && typeof raw.fire_claim === 'object' ? { fire_claim: raw.fire_claim as FireClaim } : 'fire_claim' in raw ? { fire_claim: null } : {}),
  };
}

