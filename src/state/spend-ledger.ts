// The spend ledger: one line per model call (main, auxiliary, subagent, compression, title), in
// HERMES_HOME/spend/<local date>.jsonl, with the provider-reported usage and its estimated cost.
//
// Every process of a home appends to the same day file (a line is one write with O_APPEND, so
// lines of concurrent processes never interleave), which is how a daily cap holds across the CLI,
// the gateway, cron and kanban workers: each reads the day's totals from the file, not from its own
// memory. A reader keeps its offset and reads only what was appended since (`DayTotals`). The
// sessions store keeps per-turn totals as before; this file is what budgets and `hermes cost why`
// read. Nothing secret is written: provider and model names, counts and dollars.
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
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

/** Appends one call to today's file (its directory made on the first call). */
export function appendSpend(home: string, e: SpendEntry, now = Date.now()): void {
  const dir = join(home, SPEND_DIR);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  appendFileSync(dayFile(home, localDay(now)), `${JSON.stringify(e)}\n`, { mode: 0o600 });
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

  /** Reads what other processes (and this one) appended; returns this. */
  refresh(): this {
    const day = localDay(this.now());
    if (day !== this.day) {
      this.day = day;
      this.offset = 0;
      this.rest = '';
      this.usd = this.tokens = this.calls = 0;
    }
    const f = dayFile(this.home, day);
    let fd: number;
    try {
      fd = openSync(f, 'r');
    } catch {
      return this;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // The file was replaced (restored, edited): count it again.
        this.offset = 0;
        this.rest = '';
        this.usd = this.tokens = this.calls = 0;
      }
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
    } finally {
      closeSync(fd);
    }
    return this;
  }
}
