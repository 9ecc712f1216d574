// Input history kept in HERMES_HOME/.hermes_history, in prompt_toolkit's FileHistory format (what the
// Python Hermes writes), so history carries over between the two:
//
//   # 2026-05-16 12:00:00.000000
//   +first line
//   +second line of the same entry

import { appendFileSync, chmodSync, existsSync, readFileSync, statSync } from 'node:fs';

export const HISTORY_FILE = '.hermes_history';
const MAX_ENTRIES = 1000;
/** Files above this size are read from the end only. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

export function parseHistory(text: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  const flush = () => {
    if (cur.length) out.push(cur.join('\n'));
    cur = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('+')) cur.push(line.slice(1));
    else flush();
  }
  flush();
  return out;
}

export function formatEntry(entry: string, now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())} ${p(now.getHours())}:${p(now.getMinutes())}:${p(now.getSeconds())}.${p(now.getMilliseconds() * 1000, 6)}`;
  return `\n# ${stamp}\n${entry.split('\n').map((l) => `+${l}`).join('\n')}\n`;
}

export class History {
  readonly entries: string[];
  private readonly file: string | null;
  /** Navigation position: entries.length = the draft being typed. */
  private pos: number;
  private draft = '';
  private prefix = '';

  constructor(file: string | null) {
    this.file = file;
    this.entries = file ? load(file) : [];
    this.pos = this.entries.length;
  }

  /** Records a submitted entry (consecutive duplicates are kept once) and resets navigation. */
  add(entry: string): void {
    this.reset();
    if (!entry.trim()) return;
    if (this.entries.at(-1) === entry) return;
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES * 2) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    this.pos = this.entries.length;
    if (!this.file) return;
    try {
      const fresh = !existsSync(this.file);
      appendFileSync(this.file, formatEntry(entry), { mode: 0o600 });
      if (fresh) chmodSync(this.file, 0o600);
    } catch {
      /* history is a convenience: a read-only home must not break the REPL */
    }
  }

  reset(): void {
    this.pos = this.entries.length;
    this.draft = '';
    this.prefix = '';
  }

  get navigating(): boolean {
    return this.pos < this.entries.length;
  }

  /**
   * The previous entry (Up). When navigation starts on a typed single line, only entries starting
   * with it are visited. Returns null at the oldest match.
   */
  prev(current: string): string | null {
    if (this.pos === this.entries.length) {
      this.draft = current;
      this.prefix = current.includes('\n') ? '' : current;
    }
    for (let i = this.pos - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (this.prefix && (!e.startsWith(this.prefix) || e === this.prefix)) continue;
      this.pos = i;
      return e;
    }
    return null;
  }

  /** The next entry (Down), or the draft when navigation comes back to it; null when not navigating. */
  next(): string | null {
    if (this.pos >= this.entries.length) return null;
    for (let i = this.pos + 1; i < this.entries.length; i++) {
      const e = this.entries[i];
      if (this.prefix && (!e.startsWith(this.prefix) || e === this.prefix)) continue;
      this.pos = i;
      return e;
    }
    this.pos = this.entries.length;
    return this.draft;
  }

  /** Newest entry containing `query`, searching backwards from `before` (Ctrl+R). */
  search(query: string, before = this.entries.length): { index: number; entry: string } | null {
    if (!query) return null;
    for (let i = Math.min(before, this.entries.length) - 1; i >= 0; i--) {
      if (this.entries[i].includes(query)) return { index: i, entry: this.entries[i] };
    }
    return null;
  }

  /** The newest entry that extends `typed` (the dim suggestion after the cursor). */
  suggest(typed: string): string | null {
    if (!typed || typed.includes('\n')) return null;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e.length > typed.length && e.startsWith(typed) && !e.includes('\n')) return e;
    }
    return null;
  }
}

function load(file: string): string[] {
  try {
    if (!existsSync(file)) return [];
    let text: string;
    const size = statSync(file).size;
    if (size > MAX_READ_BYTES) {
      const buf = readFileSync(file);
      text = buf.subarray(buf.length - MAX_READ_BYTES).toString('utf8');
      text = text.slice(text.indexOf('\n#') + 1);
    } else text = readFileSync(file, 'utf8');
    return parseHistory(text).slice(-MAX_ENTRIES);
  } catch {
    return [];
  }
}
