// What a background process reports to the conversation: one notice when it exits
// (`notify_on_complete`), and notices when its output matches `watch_patterns` — rate-limited as in
// Hermes: at most one per 15 s per process; three windows in a row with dropped matches, or eight
// delivered matches, turn watching off and fall back to one notice on exit.
import { stripAnsi } from './output.ts';
import type { BackgroundNotice } from './types.ts';

export const WATCH_MIN_INTERVAL_MS = 15_000;
export const WATCH_STRIKE_LIMIT = 3;
export const WATCH_LIFETIME_MAX_HITS = 8;
/** Output tail a completion notice carries. */
export const COMPLETION_OUTPUT_CHARS = 2_000;
const MATCH_LINES = 20;
const MATCH_CHARS = 2_000;

/** What the registry needs to know about a process to describe it. */
export interface Described {
  id: string;
  command: string;
  status: string;
  exitCode: number | null;
  output: string;
}

function cmdLine(c: string): string {
  return c.length > 500 ? `${c.slice(0, 500)}…` : c;
}

function short(c: string): string {
  const one = c.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

export function completionNotice(p: Described, superseded: () => boolean): BackgroundNotice {
  const killed = p.status === 'killed';
  const code = p.exitCode;
  const status = killed ? 'was terminated' : code === 0 ? 'completed normally' : 'exited';
  const tail = stripAnsi(p.output).slice(-COMPLETION_OUTPUT_CHARS).replace(/^\s*\n/, '');
  const signal = code === 143 || code === -15 ? ', SIGTERM' : '';
  const outcome = killed ? 'Terminated' : code === 0 ? 'Finished' : `Failed (exit ${code ?? '?'})`;
  return {
    kind: 'completion',
    id: p.id,
    title: `Background process ${outcome}: ${short(p.command)}`,
    text: `[IMPORTANT: Background process ${p.id} ${status} (exit code ${code ?? '?'}${signal}).\nCommand: ${cmdLine(p.command)}\nOutput:\n${tail}]`,
    superseded,
  };
}

/** Per-process watch state. */
export class Watcher {
  readonly patterns: string[];
  private partial = '';
  private cooldownUntil = 0;
  private strikes = 0;
  private strikeThisWindow = false;
  private suppressed = 0;
  private hits = 0;
  disabled = false;

  constructor(patterns: string[]) {
    this.patterns = patterns;
  }

  /**
   * Feeds output. Returns the notices to deliver and whether watching just turned itself off
   * (the process then reports once on exit instead).
   */
  feed(p: Described, chunk: string, now: number, final = false): { notices: BackgroundNotice[]; promote: boolean } {
    if (this.disabled) return { notices: [], promote: false };
    const text = this.partial + stripAnsi(chunk);
    const lines = text.split(/\r?\n|\r/);
    this.partial = final ? '' : (lines.pop() ?? '');
    const matched: { pattern: string; line: string }[] = [];
    for (const line of lines) {
      const pattern = this.patterns.find((x) => line.includes(x));
      if (pattern) matched.push({ pattern, line: line.trimEnd() });
    }
    if (!matched.length) return { notices: [], promote: false };
    if (this.cooldownUntil && now < this.cooldownUntil) {
      // Inside the cooldown: dropped; one strike per window; too many strikes end watching.
      this.suppressed += matched.length;
      if (this.strikeThisWindow) return { notices: [], promote: false };
      this.strikeThisWindow = true;
      this.strikes++;
      if (this.strikes < WATCH_STRIKE_LIMIT) return { notices: [], promote: false };
      this.disabled = true;
      return {
        notices: [this.disabledNotice(p, `${WATCH_STRIKE_LIMIT} cooldown windows in a row dropped matches (at most one notice per ${WATCH_MIN_INTERVAL_MS / 1000}s).`)],
        promote: true,
      };
    }
    if (this.cooldownUntil && !this.strikeThisWindow) this.strikes = 0;
    this.strikeThisWindow = false;
    this.cooldownUntil = now + WATCH_MIN_INTERVAL_MS;
    this.hits++;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    let out = matched.slice(0, MATCH_LINES).map((m) => m.line).join('\n');
    if (out.length > MATCH_CHARS) out = `${out.slice(0, MATCH_CHARS)}\n...(truncated)`;
    const notices: BackgroundNotice[] = [
      {
        kind: 'watch_match',
        id: p.id,
        title: `Background process matched "${matched[0].pattern}": ${short(p.command)}`,
        text:
          `[IMPORTANT: Background process ${p.id} matched watch pattern "${matched[0].pattern}".\nCommand: ${cmdLine(p.command)}\nMatched output:\n${out}` +
          (suppressed ? `\n(${suppressed} earlier matches were dropped by the rate limit)` : '') +
          ']',
      },
    ];
    if (this.hits >= WATCH_LIFETIME_MAX_HITS) {
      this.disabled = true;
      notices.push(this.disabledNotice(p, `it delivered ${WATCH_LIFETIME_MAX_HITS} matches, the most one process may.`));
      return { notices, promote: true };
    }
    return { notices, promote: false };
  }

  private disabledNotice(p: Described, why: string): BackgroundNotice {
    return {
      kind: 'watch_disabled',
      id: p.id,
      title: `Watch patterns turned off: ${short(p.command)}`,
      text: `[IMPORTANT: Watch patterns turned off for background process ${p.id}: ${why} You will get exactly one notice when the process exits.]`,
    };
  }
}
