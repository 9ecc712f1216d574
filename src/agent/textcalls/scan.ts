// The streaming scanner: decides, as the answer arrives, which text can be shown now and where a
// call written as text begins. The same scanner reads a finished message, so what the stream held
// back and what the parser reads always agree.
//
// How text is held back (and why ordinary answers see no delay):
// - Text is shown as it arrives, except a tail that could still become a call marker: after `<`,
//   `<tool_`, `[TOOL_`, `<｜tool▁` … only those few characters wait, and only until the next
//   delta settles them (`<b>` or `[link]` go out at once).
// - A complete marker outside a code fence, an inline code span and a `<think>` block starts a
//   call region: everything from the marker on is held until the stream ends. Then the region is
//   parsed; if it is no call after all, the held text is shown in one piece (late, never lost).
// - A bare JSON or pythonic call can only be the whole message, so only an answer whose first
//   non-blank character is `{` or `[` is held, and only while its first key (`{"name"…`, `{"tool_calls"…`,
//   `{"<an offered tool>"…`) or first call (`[name(`) still looks like a call. `[1, 2]`, `[a link](…)`,
//   `{"title": …}` are released as soon as that first key or token is complete.
// Work per delta is proportional to the delta (no rescans), so a long answer costs one pass.
import { CALL_KEYS, skipWs, type TextCallFormat } from './common.ts';

export interface Region {
  /** Where the call syntax begins in the text. */
  start: number;
  format: TextCallFormat;
}

/** Runs of characters that change no state once the message has begun (sticky: match at lastIndex). */
const ORDINARY = /[^<[{`\n]+/y;
const IN_CODE_SPAN = /[^`\n]+/y;
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

export class TextCallScanner {
  /** The text from `base` on (what is not yet settled); earlier text is only kept in `chunks`. */
  private buf = '';
  private base = 0;
  private chunks: string[] = [];
  private pos = 0;
  private emitted = 0;
  private mode: 'scan' | 'probe' | 'capture' = 'scan';
  private regionStart = -1;
  private regionFormat: TextCallFormat | null = null;
  private fence: { ch: string; len: number } | null = null;
  private inThink = false;
  private codeSpan = 0;
  private lineStart = true;
  private indent = 0;
  private lastNl = false;
  /** A non-blank character outside a think block was seen: bare calls can no longer start. */
  private sawContent = false;
  private sawAnything = false;
  private readonly markers: { m: string; f: TextCallFormat }[];
  private readonly watched: string[];
  private readonly json: TextCallFormat | undefined;
  private readonly pythonic: TextCallFormat | undefined;
  private readonly keys: Set<string>;
  private readonly keyList: string[];

  constructor(formats: readonly TextCallFormat[], toolNames: readonly string[]) {
    this.markers = formats.flatMap((f) => f.markers.map((m) => ({ m, f })));
    this.json = formats.find((f) => f.bare === 'json');
    this.pythonic = formats.find((f) => f.bare === 'pythonic');
    this.keys = new Set([...CALL_KEYS, ...toolNames]);
    this.keyList = [...this.keys];
    this.watched = [THINK_OPEN, ...this.markers.map((x) => x.m)];
  }

  /** Adds streamed text; returns the part that can be shown now. */
  push(delta: string): string {
    this.chunks.push(delta);
    this.buf += delta;
    if (this.mode === 'capture') return '';
    const bound = this.advance();
    let out = '';
    if (bound > this.emitted) {
      out = this.buf.slice(this.emitted - this.base, bound - this.base);
      this.emitted = bound;
    }
    // Drop what is settled, so the buffer stays a few characters long for ordinary text (indexing a
    // string grown by += makes the engine flatten all of it again, every delta).
    const keep = Math.min(this.emitted, this.mode === 'scan' ? this.pos : this.regionStart);
    if (keep > this.base) {
      this.buf = this.buf.slice(keep - this.base);
      this.base = keep;
    }
    return out;
  }

  /** Where a call region begins, once all text is in (null: plain text). */
  region(): Region | null {
    if (this.mode === 'scan') return null;
    return { start: this.regionStart, format: this.regionFormat ?? this.bareFormatAt(this.regionStart) };
  }

  /**
   * The stream ended: returns what is still to show. With `cut`, the text in [start, end) was a
   * call and is not shown.
   */
  finish(cut: { start: number; end: number } | null): string {
    const t = this.buf;
    const b = this.base;
    let out: string;
    if (cut) {
      // Blank space that only surrounded the call is not worth showing.
      const blank = (s: string) => (s.trim() ? s : '');
      out = blank(t.slice(this.emitted - b, Math.max(this.emitted, cut.start) - b)) + blank(t.slice(Math.max(cut.end, this.emitted) - b));
    } else out = t.slice(this.emitted - b);
    this.emitted = b + t.length;
    return out;
  }

  /** All text pushed so far. */
  get seen(): string {
    if (this.chunks.length > 1) this.chunks = [this.chunks.join('')];
    return this.chunks[0] ?? '';
  }

  private bareFormatAt(i: number): TextCallFormat {
    const t = this.buf;
    const r = i - this.base;
    if (t[r] === '[') {
      const j = skipWs(t, r + 1);
      if (t[j] !== '{' && this.pythonic) return this.pythonic;
    }
    return (this.json ?? this.pythonic)!;
  }

  /** Scans from `pos`; returns the index up to which text may be shown. */
  private advance(): number {
    const t = this.buf;
    const b = this.base;
    let i = this.pos - b;
    let hold = -1;
    scan: while (i < t.length && this.mode === 'scan') {
      if (this.fence) {
        if (this.lineStart) {
          while (t[i] === ' ' && this.indent < 3) {
            i++;
            this.indent++;
          }
          if (i >= t.length) break;
          if (t[i] === this.fence.ch) {
            let j = i;
            while (t[j] === this.fence.ch) j++;
            const nl = t.indexOf('\n', j);
            if (nl < 0) break; // the line is not complete yet
            if (j - i >= this.fence.len && !t.slice(j, nl).trim()) this.fence = null;
            i = nl + 1;
            this.indent = 0;
            continue;
          }
        }
        const nl = t.indexOf('\n', i);
        if (nl < 0) {
          i = t.length;
          this.lineStart = false;
          break;
        }
        i = nl + 1;
        this.lineStart = true;
        this.indent = 0;
        continue;
      }
      if (this.inThink) {
        const k = t.indexOf(THINK_CLOSE, i);
        if (k < 0) {
          i = Math.max(i, t.length - (THINK_CLOSE.length - 1));
          break;
        }
        i = k + THINK_CLOSE.length;
        this.inThink = false;
        this.lineStart = false;
        continue;
      }
      const c = t[i];
      if (this.lineStart) {
        if (c === ' ' && this.indent < 3) {
          this.indent++;
          i++;
          continue;
        }
        if (c === '`' || c === '~') {
          let j = i;
          while (t[j] === c) j++;
          if (j >= t.length) break; // the run may go on
          if (j - i >= 3) {
            this.fence = { ch: c, len: j - i };
            this.sawContent = this.sawAnything = true;
            const nl = t.indexOf('\n', j);
            this.lineStart = nl >= 0;
            this.indent = 0;
            i = nl < 0 ? t.length : nl + 1;
            continue;
          }
        }
        if (c !== '\n') this.lineStart = false;
      }
      if (c === '`') {
        let j = i;
        while (t[j] === '`') j++;
        if (j >= t.length) break;
        const run = j - i;
        if (!this.codeSpan) this.codeSpan = run;
        else if (run === this.codeSpan) this.codeSpan = 0;
        this.sawContent = this.sawAnything = true;
        this.lastNl = false;
        i = j;
        continue;
      }
      if (c === '\n') {
        if (this.codeSpan && this.lastNl) this.codeSpan = 0; // a blank line ends an open code span
        this.lastNl = true;
        this.lineStart = true;
        this.indent = 0;
        i++;
        continue;
      }
      this.lastNl = false;
      if (this.codeSpan) {
        IN_CODE_SPAN.lastIndex = i + 1;
        i = IN_CODE_SPAN.test(t) ? IN_CODE_SPAN.lastIndex : i + 1;
        continue;
      }
      if (c === '<' || c === '[' || c === '{') {
        if (t.startsWith(THINK_OPEN, i)) {
          this.inThink = true;
          this.sawAnything = true;
          i += THINK_OPEN.length;
          continue;
        }
        for (const { m, f } of this.markers) {
          if (t.startsWith(m, i)) {
            this.mode = 'capture';
            this.regionStart = b + i;
            this.regionFormat = f;
            break scan;
          }
        }
        const rest = t.length - i;
        let tail: string | null = null;
        for (const m of this.watched) {
          if (rest < m.length && m.startsWith((tail ??= t.slice(i)))) {
            hold = b + i;
            break scan;
          }
        }
        if (!this.sawContent && (c === '{' || c === '[') && (this.json || this.pythonic)) {
          this.mode = 'probe';
          this.regionStart = b + i;
          const p = this.probe();
          if (p === 'wait') break;
          if (p === 'yes') {
            this.mode = 'capture';
            this.regionFormat = this.bareFormatAt(b + i);
            break;
          }
          this.mode = 'scan';
        }
      }
      if (c !== ' ' && c !== '\t' && c !== '\r') this.sawContent = this.sawAnything = true;
      i++;
      // Characters that cannot change anything go by in one native search.
      if (this.sawContent) {
        ORDINARY.lastIndex = i;
        if (ORDINARY.test(t)) i = ORDINARY.lastIndex;
      }
    }
    if (this.mode === 'probe') {
      // Re-entered with more text while probing.
      const p = this.probe();
      if (p === 'yes') {
        this.mode = 'capture';
        this.regionFormat = this.bareFormatAt(this.regionStart);
      } else if (p === 'no') {
        this.mode = 'scan';
        this.sawContent = this.sawAnything = true;
        this.pos = this.regionStart + 1;
        return this.advance();
      }
    }
    this.pos = b + i;
    if (this.mode !== 'scan') return this.sawAnything ? this.regionStart : this.emitted;
    if (hold >= 0) return hold;
    // Leading blank space waits with the rest when the message could still be a bare call.
    if (!this.sawAnything && (this.json || this.pythonic)) return this.emitted;
    return b + t.length;
  }

  /** Whether the message starting at regionStart can still be a bare call. */
  private probe(): 'yes' | 'no' | 'wait' {
    const t = this.buf;
    let i = this.regionStart - this.base;
    if (t[i] === '[') {
      i = skipWs(t, i + 1);
      if (i >= t.length) return 'wait';
      if (t[i] === '{') return this.json ? this.probeObject(i) : 'no';
      if (!this.pythonic || !/[A-Za-z_]/.test(t[i])) return 'no';
      let j = i;
      while (j < t.length && /[\w.]/.test(t[j])) j++;
      if (j - i > 128) return 'no';
      j = skipWs(t, j);
      if (j >= t.length) return 'wait';
      return t[j] === '(' ? 'yes' : 'no';
    }
    return this.json ? this.probeObject(i) : 'no';
  }

  private probeObject(i: number): 'yes' | 'no' | 'wait' {
    const t = this.buf;
    i = skipWs(t, i + 1);
    if (i >= t.length) return 'wait';
    if (t[i] !== '"') return 'no';
    const close = t.indexOf('"', i + 1);
    if (close < 0) {
      const partial = t.slice(i + 1);
      return partial.length <= 128 && this.keyList.some((k) => k.startsWith(partial)) ? 'wait' : 'no';
    }
    return this.keys.has(t.slice(i + 1, close)) ? 'yes' : 'no';
  }
}
