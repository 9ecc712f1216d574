// The spend ledger: one line per model call (main, auxiliary, subagent, compression, title), in
// HERMES_HOME/spend/<local date>.jsonl, with the provider-reported usage and its estimated cost.
//
// Every process of a home appends to the same day file (a line is one write with O_APPEND, so
// lines of concurrent processes never interleave), which is how a daily cap holds across the CLI,
// the gateway, cron and kanban workers: each reads the day's totals from the file, not from its own
// memory. A reader keeps its offset and reads only what was appended since (`DayTotals`). The
// sessions store keeps per-turn totals as before; this file is what budgets and `hermes cost why`
// read. Nothing secret is written: provider and model names, counts and dollars.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SpendEntry {
  /** Unix seconds. */
  ts: number;
  pid: number;
  /** The conversation the call belongs to (a subagent's calls carry its root session). */
  session: string;
  /** `cron:<job id>` or `kanban:<task id>` for unattended jobs. */
  job?: string;
  /** main | subagent | compression | title_generation | vision | … */
  kind: string;
  provider: string;
  model: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
  /** Estimated USD; null when the model's price is unknown. */
  usd: number | null;
}

export const SPEND_DIR = 'spend';

/** The local calendar day of a time (ms epoch), YYYY-MM-DD. */
export function localDay(ms = Date.now()): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export const dayFile = (home: string, day: string): string => join(home, SPEND_DIR, `${day}.jsonl`);

export const entryTokens = (e: Pick<SpendEntry, 'input' | 'output' | 'cache_read' | 'cache_write'>): number =>
  (e.input || 0) + (e.output || 0) + (e.cache_read || 0) + (e.cache_write || 0);

/** Day files older than this many days are deleted (when a process first writes on a new day). */
export const SPEND_KEEP_DAYS = 90;

interface Writer {
  day: string;
  fd: number;
}
/** Per home: today's file, kept open for appending (one write per call, no open/close per call). */
const writers = new Map<string, Writer>();
let exitHooked = false;

/** Deletes day files older than `keepDays` (unreadable names and other files are left alone). */
export function pruneSpend(home: string, keepDays = SPEND_KEEP_DAYS, now = Date.now()): number {
  const dir = join(home, SPEND_DIR);
  const oldest = localDay(now - keepDays * 86_400_000);
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    const m = /^(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(n);
    if (!m || m[1] >= oldest) continue;
    try {
      unlinkSync(join(dir, n));
      removed++;
    } catch {
      /* another process pruned it first */
    }
  }
  return removed;
}

function writerFor(home: string, day: string): Writer {
  const w = writers.get(home);
  if (w?.day === day) return w;
  if (w) {
    writers.delete(home);
    try {
      closeSync(w.fd);
    } catch {
      /* already closed */
    }
  }
  const dir = join(home, SPEND_DIR);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const f = dayFile(home, day);
  // The first process to write on a day prunes the old days: once a day per home, not per call.
  const fresh = !existsSync(f);
  const fd = openSync(f, 'a', 0o600);
  if (fresh) pruneSpend(home);
  const made = { day, fd };
  writers.set(home, made);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', closeSpendWriters);
  }
  return made;
}

/** Closes the kept-open day files (tests; the process's exit closes them anyway). */
export function closeSpendWriters(): void {
  for (const w of writers.values()) {
    try {
      closeSync(w.fd);
    } catch {
      /* already closed */
    }
  }
  writers.clear();
}

/**
 * Appends one call to today's file: one write() on a descriptor kept open in append mode (O_APPEND:
 * lines of concurrent processes never interleave), opened once per process and day. A file removed
 * meanwhile is made again; a write that fails (a full disk) reopens once, then throws.
 */
export function appendSpend(home: string, e: SpendEntry, now = Date.now()): void {
  const line = Buffer.from(`${JSON.stringify(e)}\n`);
  const day = localDay(now);
  let w = writerFor(home, day);
  // Removed from under this process (by hand, a restore): the next line starts a new file.
  if (fstatSync(w.fd).nlink === 0) {
    writers.delete(home);
    closeSync(w.fd);
    w = writerFor(home, day);
  }
  try {
    writeSync(w.fd, line);
    return;
  } catch {
    writers.delete(home);
    try {
      closeSync(w.fd);
    } catch {
      /* gone */
    }
  }
  writeSync(writerFor(home, day).fd, line);
}

function parse(line: string): SpendEntry | null {
  if (!line.trim()) return null;
  try {
    const v = JSON.parse(line) as SpendEntry;
    return v && typeof v === 'object' && typeof v.kind === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Every entry of a day (for reports). A missing file is an empty day. */
export function readDay(home: string, day: string): SpendEntry[] {
  const f = dayFile(home, day);
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8').split('\n').map(parse).filter((e): e is SpendEntry => e !== null);
}

/** Entries of one session over the days it may span (newest `days` files). */
export function readSession(home: string, session: string, days: string[]): SpendEntry[] {
  return days.flatMap((d) => readDay(home, d)).filter((e) => e.session === session);
}

/**
 * Today's totals of every process of the home, kept up to date by reading only what was appended
 * since the last look (and starting over when the day changes).
 */
export class DayTotals {
  private day = '';
  private offset = 0;
  private rest = '';
  usd = 0;
  tokens = 0;
  calls = 0;
  private readonly home: string;
  private readonly now: () => number;

  constructor(home: string, now: () => number = Date.now) {
    this.home = home;
    this.now = now;
  }

  /** The day file, kept open between looks (one fstat and one read per look, no open/close). */
  private fd: number | null = null;

  private reset(): void {
    this.offset = 0;
    this.rest = '';
    this.usd = this.tokens = this.calls = 0;
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = null;
  }

  /** Reads what other processes (and this one) appended; returns this. */
  refresh(): this {
    const day = localDay(this.now());
    if (day !== this.day) {
      this.day = day;
      this.closeFd();
      this.reset();
    }
    if (this.fd !== null && fstatSync(this.fd).nlink === 0) {
      // The file was removed (and maybe made anew): count the new one from its start.
      this.closeFd();
      this.reset();
    }
    if (this.fd === null) {
      try {
        this.fd = openSync(dayFile(this.home, day), 'r');
      } catch {
        return this;
      }
    }
    const fd = this.fd;
    const size = fstatSync(fd).size;
    if (size < this.offset) this.reset(); // truncated or rewritten: count it again
    if (size === this.offset) return this;
    const buf = Buffer.alloc(size - this.offset);
    const n = readSync(fd, buf, 0, buf.length, this.offset);
    this.offset += n;
    const lines = (this.rest + buf.subarray(0, n).toString('utf8')).split('\n');
    this.rest = lines.pop() ?? '';
    for (const l of lines) {
      const e = parse(l);
      if (!e) continue;
      this.calls++;
      this.tokens += entryTokens(e);
      if (typeof e.usd === 'number') this.usd += e.usd;
    }
    return this;
  }

  /** Lets go of the day file (a reader made for one look: status, insights, the dashboard). */
  close(): this {
    this.closeFd();
    return this;
  }
}
