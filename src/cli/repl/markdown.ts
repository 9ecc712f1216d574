// Markdown for the terminal, rendered as the answer streams in: complete lines are rendered and
// committed to the scrollback; the line still arriving is shown as it is. Block state (fenced code,
// tables) carries across lines. Modes follow `display.final_response_markdown`:
//   render — styled (bold, italic, code colour, bullets, rules, aligned tables)
//   strip  — the same layout as plain text (no markers, no colour)
//   raw    — exactly what the model wrote

import { highlightLine, languageOf, type HighlightState } from './highlight.ts';
import { makeStyle, type Style } from './style.ts';
import { stringWidth } from './width.ts';

export type MarkdownMode = 'render' | 'strip' | 'raw';

export interface MarkdownOptions {
  mode: MarkdownMode;
  style: Style;
  /** Terminal width, for rules and tables. */
  width: () => number;
  /** Syntax colours in fenced code with a known language (else the plain code colour). */
  highlight?: boolean;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const BULLET = /^(\s*)([-*+])\s+(?:\[([ xX])\]\s+)?(.*)$/;
const ORDERED = /^(\s*)(\d{1,9}[.)])\s+(.*)$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEP = /^\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*(?::?-{2,}:?\s*)?\|?\s*$/;

/** Inline Markdown (code spans, links, emphasis) of one line. */
export function renderInline(text: string, style: Style): string {
  const parts = text.split(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/);
  // split with 2 groups → [before, ticks, code, after, ticks, code, …]
  let out = '';
  for (let i = 0; i < parts.length; i += 3) {
    out += emphasis(parts[i], style);
    if (i + 2 < parts.length) out += style.cyan(parts[i + 2].replace(/^ (.*) $/, '$1'));
  }
  return out;
}

function emphasis(s: string, style: Style): string {
  if (!s) return s;
  s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, alt: string, url: string) => `[image: ${alt || url}]`);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, t: string, url: string) =>
    t === url ? style.underline(url) : `${t} ${style.dim(`(${url})`)}`,
  );
  s = s.replace(/<((?:https?|mailto):[^>\s]+)>/g, (_m, url: string) => style.underline(url));
  s = s.replace(/\*\*(?=\S)([\s\S]+?)(?<=\S)\*\*/g, (_m, t: string) => style.bold(t));
  s = s.replace(/(?<![\p{L}\p{N}_])__(?=\S)([\s\S]+?)(?<=\S)__(?![\p{L}\p{N}_])/gu, (_m, t: string) => style.bold(t));
  s = s.replace(/(?<![\p{L}\p{N}*\\])\*(?=[^\s*])([^*]+?)(?<=[^\s*\\])\*(?![\p{L}\p{N}*])/gu, (_m, t: string) => style.italic(t));
  s = s.replace(/(?<![\p{L}\p{N}_\\])_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?![\p{L}\p{N}_])/gu, (_m, t: string) => style.italic(t));
  s = s.replace(/~~(?=\S)([\s\S]+?)(?<=\S)~~/g, (_m, t: string) => style.strike(t));
  return s;
}

function splitRow(line: string): string[] {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '\\' && t[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (t[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += t[i];
  }
  cells.push(cur.trim());
  return cells;
}

export class MarkdownStream {
  private readonly opts: MarkdownOptions;
  private buf = '';
  private fence: { char: string; len: number; lang: string | null; state: HighlightState } | null = null;
  private table: string[] = [];

  constructor(opts: MarkdownOptions) {
    // Strip mode is render mode without styles.
    this.opts = opts.mode === 'strip' ? { ...opts, style: makeStyle(false) } : opts;
  }

  get mode(): MarkdownMode {
    return this.opts.mode;
  }

  /** True while inside a fenced code block. */
  get inCode(): boolean {
    return this.fence !== null;
  }

  /** Adds streamed text; returns the rendered lines it completed. */
  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      out.push(...this.line(line));
    }
    return out;
  }

  /** Whether text is pending (a partial line or a table not yet closed). */
  get hasPending(): boolean {
    return this.buf.length > 0 || this.table.length > 0;
  }

  /** What to show for the text still arriving: buffered table rows and the partial line. */
  pendingLines(): string[] {
    const s = this.opts.style;
    const out = this.table.map((l) => s.dim(l));
    if (this.buf) {
      if (this.opts.mode === 'raw') out.push(this.buf);
      else if (this.fence) out.push(this.code(this.buf, { open: this.fence.state.open }));
      else out.push(renderInline(this.buf, s));
    }
    return out;
  }

  /** Ends the current text: the partial line and any open table are rendered. Fences stay open. */
  flush(): string[] {
    const out: string[] = [];
    if (this.buf) {
      const line = this.buf;
      this.buf = '';
      out.push(...this.line(line));
    }
    out.push(...this.flushTable());
    return out;
  }

  /** Ends the message: flushes and forgets block state. */
  end(): string[] {
    const out = this.flush();
    this.fence = null;
    return out;
  }

  private line(line: string): string[] {
    if (this.opts.mode === 'raw') return [line];
    if (!this.fence && TABLE_ROW.test(line)) {
      this.table.push(line);
      return [];
    }
    const out = this.flushTable();
    out.push(...this.block(line));
    return out;
  }

  private block(line: string): string[] {
    const { style: s, mode } = this.opts;
    const strip = mode === 'strip';
    const f = FENCE.exec(line);
    if (this.fence) {
      if (f && f[2][0] === this.fence.char && f[2].length >= this.fence.len && !f[3]) {
        this.fence = null;
        return strip ? [] : [s.dim('───')];
      }
      return [this.code(line, this.fence.state)];
    }
    if (f) {
      this.fence = { char: f[2][0], len: f[2].length, lang: this.opts.highlight ? languageOf(f[3]) : null, state: { open: null } };
      return strip ? [] : [s.dim(`─── ${f[3] || 'code'}`)];
    }
    if (RULE.test(line)) return [s.dim('─'.repeat(Math.max(3, Math.min(this.opts.width() - 1, 60))))];
    const h = HEADING.exec(line);
    if (h) {
      const text = renderInline(h[2], s);
      return [h[1].length <= 2 ? s.bold(s.underline(text)) : s.bold(text)];
    }
    const q = QUOTE.exec(line);
    if (q) return [`${s.dim('│')} ${s.italic(renderInline(q[1], s))}`];
    const b = BULLET.exec(line);
    if (b) {
      const mark = b[3] === undefined ? '•' : b[3] === ' ' ? '☐' : '☑';
      return [`${b[1]}${s.dim(mark)} ${renderInline(b[4], s)}`];
    }
    const o = ORDERED.exec(line);
    if (o) return [`${o[1]}${o[2]} ${renderInline(o[3], s)}`];
    return [renderInline(line, s)];
  }

  private code(line: string, state: HighlightState): string {
    return highlightLine(line, this.fence?.lang ?? null, this.opts.style, state);
  }

  private flushTable(): string[] {
    if (!this.table.length) return [];
    const rows = this.table;
    this.table = [];
    const s = this.opts.style;
    // A lone pipe-delimited line without a separator row is not a table.
    const sepIndex = rows.findIndex((r) => TABLE_SEP.test(r));
    if (sepIndex !== 1) return rows.map((r) => renderInline(r, s));
    const cells = rows.filter((_, i) => i !== sepIndex).map((r) => splitRow(r).map((c) => renderInline(c, s)));
    const cols = Math.max(...cells.map((r) => r.length));
    const widths = Array.from({ length: cols }, (_, c) => Math.max(3, ...cells.map((r) => stringWidth(r[c] ?? ''))));
    const total = widths.reduce((a, b) => a + b, 0) + 3 * (cols - 1);
    if (total > this.opts.width() - 1) return rows.map((r) => renderInline(r, s));
    const pad = (t: string, w: number) => t + ' '.repeat(Math.max(0, w - stringWidth(t)));
    const sep = s.dim(' │ ');
    const out: string[] = [];
    cells.forEach((r, i) => {
      out.push(widths.map((w, c) => (i === 0 ? s.bold(pad(r[c] ?? '', w)) : pad(r[c] ?? '', w))).join(sep).trimEnd());
      if (i === 0) out.push(s.dim(widths.map((w) => '─'.repeat(w)).join('─┼─')));
    });
    return out;
  }
}
