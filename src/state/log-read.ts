// Reading HERMES_HOME/logs/*.log: the last N lines that pass the filters (level, session, since,
// component), following a file as it grows, listing the files. One implementation for
// `hermes logs` and the dashboard's Logs tab. Filters work on Hermes's line format
// (src/state/logs.ts); a line without a timestamp or level (a traceback, a child's stderr) passes
// those two filters, as in Hermes.
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMPONENT_PREFIXES, isLogLevel, LEVEL_ORDER, LOG_FILES, type LogLevel } from './logs.ts';

export interface LogFilters {
  minLevel?: LogLevel;
  /** Substring of the line (a session id). */
  session?: string;
  /** Unix ms: lines older than this are left out. */
  since?: number;
  /** A COMPONENT_PREFIXES key. */
  component?: string;
}

export class LogFilterError extends Error {}

const TS = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;
const LEVEL = /\s(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s/;
const LOGGER = /\s(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?:\s+\[.*?\])?\s+(\S+):/;

/** `1h`, `30m`, `2d`, `45s` → unix ms cutoff; null when it is not such a value. */
export function parseSince(text: string, now = Date.now()): number | null {
  const m = /^(\d+)\s*([smhd])$/i.exec(text.trim());
  if (!m) return null;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2].toLowerCase() as 's' | 'm' | 'h' | 'd'];
  return now - Number(m[1]) * unit;
}

/** The local time at the start of a line, in unix ms (null when the line has none). */
export function lineTime(line: string): number | null {
  const m = TS.exec(line);
  if (!m) return null;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])).getTime();
}

export function lineLevel(line: string): LogLevel | null {
  const m = LEVEL.exec(line);
  return m ? (m[1] as LogLevel) : null;
}

export function lineLogger(line: string): string | null {
  return LOGGER.exec(line)?.[1] ?? null;
}

/** Checks user-given filter values; throws LogFilterError with what to use instead. */
export function makeFilters(o: { level?: string; session?: string; since?: string; component?: string }, now = Date.now()): LogFilters {
  const f: LogFilters = {};
  if (o.level) {
    const l = o.level.toUpperCase();
    if (!isLogLevel(l)) throw new LogFilterError(`Invalid --level "${o.level}". Use DEBUG, INFO, WARNING, ERROR or CRITICAL.`);
    f.minLevel = l;
  }
  if (o.session) f.session = o.session;
  if (o.since) {
    const s = parseSince(o.since, now);
    if (s === null) throw new LogFilterError(`Invalid --since "${o.since}". Use a relative time like 30m, 1h or 2d.`);
    f.since = s;
  }
  if (o.component) {
    const c = o.component.toLowerCase();
    if (!(c in COMPONENT_PREFIXES)) throw new LogFilterError(`Unknown component "${o.component}". Available: ${Object.keys(COMPONENT_PREFIXES).sort().join(', ')}.`);
    f.component = c;
  }
  return f;
}

export function hasFilters(f: LogFilters): boolean {
  return f.minLevel !== undefined || f.session !== undefined || f.since !== undefined || f.component !== undefined;
}

export function matches(line: string, f: LogFilters): boolean {
  if (f.since !== undefined) {
    const t = lineTime(line);
    if (t !== null && t < f.since) return false;
  }
  if (f.minLevel) {
    const l = lineLevel(line);
    if (l && LEVEL_ORDER[l] < LEVEL_ORDER[f.minLevel]) return false;
  }
  if (f.session !== undefined && !line.includes(f.session)) return false;
  if (f.component) {
    const name = lineLogger(line);
    if (!name || !COMPONENT_PREFIXES[f.component].some((p) => name.startsWith(p))) return false;
  }
  return true;
}

/** The path of a named log (`agent`, `errors`, `gateway`, `gui`); null for an unknown name. */
export function logPath(home: string, name: string): string | null {
  const file = LOG_FILES[name];
  return file ? join(home, 'logs', file) : null;
}

/** The last `n` lines of a file (without newlines), reading backwards in chunks. */
export function lastLines(path: string, n: number): string[] {
  if (n <= 0 || !existsSync(path)) return [];
  const size = statSync(path).size;
  if (size === 0) return [];
  const fd = openSync(path, 'r');
  try {
    let pos = size;
    let chunk = 8192;
    let tail = Buffer.alloc(0);
    let newlines = 0;
    while (pos > 0 && newlines <= n) {
      const len = Math.min(chunk, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, pos);
      for (const b of buf) if (b === 10) newlines++;
      tail = Buffer.concat([buf, tail]);
      chunk = Math.min(chunk * 2, 1 << 20);
    }
    const lines = tail.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (pos > 0) lines.shift(); // a partial first line
    return lines.slice(-n);
  } finally {
    closeSync(fd);
  }
}

/** The last `n` lines that pass the filters (reads more lines when filtering, as Hermes does). */
export function readTail(path: string, n: number, f: LogFilters = {}): string[] {
  if (!hasFilters(f)) return lastLines(path, n);
  return lastLines(path, Math.max(n * 20, 2000))
    .filter((l) => matches(l, f))
    .slice(-n);
}

/** Lines appended after byte `offset` (for live tails); `size` is where to continue from. */
export function readFrom(path: string, offset: number, f: LogFilters = {}, maxBytes = 1 << 20): { lines: string[]; size: number; rotated: boolean } {
  if (!existsSync(path)) return { lines: [], size: 0, rotated: offset > 0 };
  const size = statSync(path).size;
  if (size < offset) return { lines: [], size, rotated: true };
  if (size === offset) return { lines: [], size, rotated: false };
  const start = Math.max(offset, size - maxBytes);
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    // Only whole lines: an unfinished last line is read next time.
    const end = text.lastIndexOf('\n');
    if (end < 0) return { lines: [], size: offset, rotated: false };
    const lines = text.slice(0, end).split('\n').filter((l) => matches(l, f));
    return { lines, size: start + Buffer.byteLength(text.slice(0, end + 1)), rotated: false };
  } finally {
    closeSync(fd);
  }
}

/** Follows a file: calls `onLines` with new matching lines until the signal aborts. */
export async function follow(path: string, f: LogFilters, onLines: (lines: string[]) => void, signal: AbortSignal, intervalMs = 300): Promise<void> {
  let offset = existsSync(path) ? statSync(path).size : 0;
  while (!signal.aborted) {
    await new Promise<void>((r) => {
      const t = setTimeout(r, intervalMs);
      signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
    });
    if (signal.aborted) break;
    const r = readFrom(path, offset, f);
    if (r.rotated) offset = 0;
    else {
      offset = r.size;
      if (r.lines.length) onLines(r.lines);
    }
  }
}

export interface LogFileInfo {
  name: string;
  file: string;
  size: number;
  mtime: number;
}

/** The files in HERMES_HOME/logs (rotated ones too), by name. */
export function listLogFiles(home: string): LogFileInfo[] {
  const dir = join(home, 'logs');
  if (!existsSync(dir)) return [];
  const known = new Map(Object.entries(LOG_FILES).map(([k, v]) => [v, k]));
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const st = statSync(join(dir, d.name));
      return { name: known.get(d.name) ?? d.name, file: d.name, size: st.size, mtime: st.mtimeMs };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}
