// Schedules: parsing what a person types ("30m", "every 2h", "0 9 * * *", an ISO time, "every
// monday 9am") into Hermes's stored shape, and computing the next run. Cron expressions go through
// croner with the configured timezone.
import { Cron } from 'croner';
import { formatIso, formatShort, parseIso, type Clock } from './time.ts';

export type Schedule =
  | { kind: 'once'; run_at: string; display: string }
  | { kind: 'interval'; minutes: number; display: string }
  | { kind: 'cron'; expr: string; display: string };

export interface TimeContext {
  now: Clock;
  tz: string;
}

/** A one-shot more than this far in the past is refused (and not re-armed on resume). */
export const ONESHOT_GRACE_SECONDS = 120;

export class ScheduleError extends Error {}

const UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 1440 };
const DURATION_RE = /^(\d*)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$/;

/** "30m" → 30, "2h" → 120, "1d" → 1440, a bare unit ("hour") → 1 of it. */
export function parseDuration(text: string): number {
  const s = text.trim().toLowerCase();
  const m = DURATION_RE.exec(s);
  if (!m) throw new ScheduleError(`Invalid duration "${text.trim()}": use a number and a unit, like 30m, 2h or 1d.`);
  const n = m[1] ? Number(m[1]) : 1;
  if (n <= 0) throw new ScheduleError(`Invalid duration "${text.trim()}": it must be at least 1 minute.`);
  return n * UNIT_MINUTES[m[2][0]];
}

const WEEKDAYS: Record<string, string> = {
  sunday: '0', sun: '0', monday: '1', mon: '1', tuesday: '2', tue: '2', tues: '2', wednesday: '3', wed: '3',
  thursday: '4', thu: '4', thur: '4', thurs: '4', friday: '5', fri: '5', saturday: '6', sat: '6',
};
const DAY_KEYWORDS: Record<string, string> = { day: '*', daily: '*', everyday: '*', weekday: '1-5', weekdays: '1-5', weekend: '0,6', weekends: '0,6' };

function clockTime(text: string): [number, number] | null {
  const t = text.toLowerCase().replace(/\s+/g, '');
  if (t === 'noon' || t === 'midday') return [12, 0];
  if (t === 'midnight') return [0, 0];
  const m = /^(\d{1,2})(?::(\d{2}))?(am|pm)?$/.exec(t);
  if (!m) return null;
  let h = Number(m[1]);
  const min = Number(m[2] ?? 0);
  if (m[3]) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (m[3] === 'pm' ? 12 : 0);
  }
  if (h > 23 || min > 59) return null;
  return [h, min];
}

/** "monday 9am", "weekdays at 9:30", "mon, wed and fri at 18:00" → a 5-field cron expression. */
function naturalToCron(rest: string): string | null {
  const tokens = rest.toLowerCase().replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  if (!tokens.length) return null;
  let dow = DAY_KEYWORDS[tokens[0]];
  let i = 1;
  if (dow === undefined) {
    const days: string[] = [];
    for (i = 0; i < tokens.length; i++) {
      if (tokens[i] === 'and') continue;
      const d = WEEKDAYS[tokens[i]];
      if (d === undefined) break;
      if (!days.includes(d)) days.push(d);
    }
    if (!days.length) return null;
    dow = days.join(',');
  }
  let time = tokens.slice(i);
  if (time[0] === 'at') time = time.slice(1);
  if (!time.length) return null;
  const hm = clockTime(time.join(''));
  if (!hm) return null;
  return `${hm[1]} ${hm[0]} * * ${dow}`;
}

function validateCron(expr: string, display: string, tz: string): Schedule {
  try {
    new Cron(expr, { timezone: tz, paused: true });
  } catch (e) {
    throw new ScheduleError(`Invalid cron expression "${display}": ${(e as Error).message.replace(/^CronPattern:\s*/, '')}.`);
  }
  return { kind: 'cron', expr, display };
}

const CRON_FIELD = /^[A-Za-z\d*?\-,/#LW]+$/;

/** Parses a schedule as typed by a person or the model. Throws ScheduleError with the accepted forms. */
export function parseSchedule(input: string, t: TimeContext): Schedule {
  const text = input.trim();
  const lower = text.toLowerCase();
  if (!text) throw new ScheduleError(usage('The schedule is empty.'));

  if (lower.startsWith('every ')) {
    const rest = text.slice(6).trim();
    const expr = naturalToCron(rest);
    if (expr) return validateCron(expr, text, t.tz);
    let minutes: number;
    try {
      minutes = parseDuration(rest);
    } catch {
      throw new ScheduleError(usage(`Invalid schedule "${text}".`));
    }
    return { kind: 'interval', minutes, display: `every ${minutes}m` };
  }

  if (lower.startsWith('in ')) {
    const minutes = parseDuration(text.slice(3));
    const at = t.now() + minutes * 60_000;
    return { kind: 'once', run_at: formatIso(at, t.tz), display: `once in ${text.slice(3).trim()}` };
  }

  const fields = text.split(/\s+/);
  if (fields.length >= 5 && /^[\d*,\-/]+$/.test(fields[0]) && fields.every((f) => CRON_FIELD.test(f))) {
    if (fields.length !== 5)
      throw new ScheduleError(`Invalid cron expression "${text}": use the 5 standard fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * *".`);
    return validateCron(fields.join(' '), text, t.tz);
  }

  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = parseIso(text, t.tz);
    if (at === null) throw new ScheduleError(`Invalid timestamp "${text}": use ISO 8601, e.g. 2026-02-03T14:00:00 (your timezone: ${t.tz}).`);
    return { kind: 'once', run_at: formatIso(at, t.tz), display: `once at ${formatShort(at, t.tz)}` };
  }

  if (DURATION_RE.test(lower) && /^\d/.test(lower)) {
    const minutes = parseDuration(text);
    const at = t.now() + minutes * 60_000;
    return { kind: 'once', run_at: formatIso(at, t.tz), display: `once in ${text}` };
  }

  const expr = naturalToCron(text);
  if (expr) return validateCron(expr, text, t.tz);

  throw new ScheduleError(usage(`Invalid schedule "${text}".`));
}

function usage(head: string): string {
  return (
    `${head} Use one of: ` +
    `"30m" / "in 2h" (once, after a delay); ` +
    `"every 30m" / "every 2h" (repeating); ` +
    `"every monday 9am" / "weekdays at 9:30" (weekly or daily); ` +
    `"0 9 * * *" (a 5-field cron expression); ` +
    `"2026-02-03T14:00:00" (once, at that time).`
  );
}

/**
 * The next run strictly after `after` (default: now), as an ISO string; null when there is none
 * (a one-shot that already ran, or whose time is more than the grace window in the past).
 */
export function computeNextRun(s: Schedule, t: TimeContext, opts: { after?: number; lastRunAt?: string | null } = {}): string | null {
  const now = t.now();
  if (s.kind === 'once') {
    if (opts.lastRunAt) return null;
    const at = parseIso(s.run_at, t.tz);
    if (at === null) return null;
    return at >= now - ONESHOT_GRACE_SECONDS * 1000 ? s.run_at : null;
  }
  const base = opts.after ?? now;
  if (s.kind === 'interval') {
    if (!(s.minutes > 0)) return null;
    return formatIso(base + s.minutes * 60_000, t.tz);
  }
  if (s.kind === 'cron') {
    try {
      const next = new Cron(s.expr, { timezone: t.tz, paused: true }).nextRun(new Date(base));
      return next ? formatIso(next.getTime(), t.tz) : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** About how often a recurring schedule fires, in seconds (null for one-shots or unknown). */
export function cadenceSeconds(s: Schedule, t: TimeContext): number | null {
  if (s.kind === 'interval') return s.minutes * 60;
  if (s.kind === 'cron') {
    try {
      const c = new Cron(s.expr, { timezone: t.tz, paused: true });
      const a = c.nextRun(new Date(t.now()));
      const b = a ? c.nextRun(a) : null;
      return a && b ? (b.getTime() - a.getTime()) / 1000 : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** How late a recurring run may start and still count as on time: half the period, within [2 min, 2 h]. */
export function graceSeconds(s: Schedule, t: TimeContext): number {
  const period = cadenceSeconds(s, t);
  if (!period) return 120;
  return Math.max(120, Math.min(Math.floor(period / 2), 7200));
}

/** Normalises a stored schedule (hand-edited files, legacy shapes); null when unusable. */
export function asSchedule(v: unknown): Schedule | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const display = typeof o.display === 'string' ? o.display : '';
  if (o.kind === 'once' && typeof o.run_at === 'string') return { kind: 'once', run_at: o.run_at, display: display || `once at ${o.run_at}` };
  if (o.kind === 'interval' && Number(o.minutes) > 0) return { kind: 'interval', minutes: Number(o.minutes), display: display || `every ${Number(o.minutes)}m` };
  if (o.kind === 'cron' && typeof o.expr === 'string') return { kind: 'cron', expr: o.expr, display: display || o.expr };
  return null;
}
