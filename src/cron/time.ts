// Time for cron: an injectable clock, the configured IANA timezone, and ISO timestamps with the
// zone's UTC offset (the form Hermes stores in cron/jobs.json, e.g. 2026-01-15T09:00:00+01:00).

/** Milliseconds since the epoch. Tests inject their own. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** The timezone cron works in: `timezone` in config.yaml, else HERMES_TIMEZONE, else the system's. */
export function resolveTimezone(configTz: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  for (const candidate of [configTz, env.HERMES_TIMEZONE]) {
    const tz = candidate?.trim();
    if (tz && isValidTimezone(tz)) return tz;
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock in `tz` at instant `ms`. */
export function wallClock(ms: number, tz: string): WallClock {
  let f = partsFormatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
}

/** The UTC offset of `tz` at instant `ms`, in minutes (east positive). */
export function offsetMinutes(ms: number, tz: string): number {
  let f = offsetFormatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormatters.set(tz, f);
  }
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!m) return 0;
  const v = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -v : v;
}

/** The instant at which the wall clock in `tz` shows the given time (the earlier one in a repeated hour). */
export function instantOf(w: WallClock, tz: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  let guess = asUtc - offsetMinutes(asUtc, tz) * 60_000;
  // Two corrections settle DST edges: the offset at the guess may differ from the offset at asUtc.
  for (let i = 0; i < 2; i++) {
    const next = asUtc - offsetMinutes(guess, tz) * 60_000;
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2026-01-15T09:00:00+01:00`: second precision, the zone's offset at that instant. */
export function formatIso(ms: number, tz: string): string {
  const w = wallClock(ms, tz);
  const off = offsetMinutes(ms, tz);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** `2026-01-15 09:00` in `tz` (for displays like "once at …"). */
export function formatShort(ms: number, tz: string): string {
  const w = wallClock(ms, tz);
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}`;
}

/** `2026-01-15_09-00-00`: the output file stamp. */
export function fileStamp(ms: number, tz: string): string {
  const w = wallClock(ms, tz);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}_${pad(w.hour)}-${pad(w.minute)}-${pad(w.second)}`;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses an ISO-8601 timestamp. With an offset (or Z) it is that instant; without one it is a wall
 * clock in `naiveTz`. Returns null for anything else.
 */
export function parseIso(text: string, naiveTz: string): number | null {
  const m = ISO_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac, zone] = m;
  const w = { year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: +s };
  if (w.month < 1 || w.month > 12 || w.day < 1 || w.day > 31 || w.hour > 23 || w.minute > 59 || w.second > 59) return null;
  // Reject dates that do not exist (2026-02-30).
  const probe = new Date(Date.UTC(w.year, w.month - 1, w.day));
  if (probe.getUTCDate() !== w.day) return null;
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  if (zone) {
    const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) + ms;
    if (zone.toUpperCase() === 'Z') return asUtc;
    const zm = /([+-])(\d{2}):?(\d{2})/.exec(zone)!;
    const off = (Number(zm[2]) * 60 + Number(zm[3])) * (zm[1] === '-' ? -1 : 1);
    return asUtc - off * 60_000;
  }
  return instantOf(w, naiveTz) + ms;
}
