// The live region at the bottom of the terminal (partial answer line, spinner, input, menu) and the
// scrollback above it. Output is committed above the region: erase the region, write the lines, draw
// the region again, all in one write. Nothing here reads input.

import { stringWidth } from './width.ts';

export interface Frame {
  /** Lines of the live region, styled, without newlines. */
  lines: string[];
  /** Where the terminal cursor goes: a line index and a display column in it. */
  cursor: { line: number; col: number };
}

export interface Layout {
  /** Physical rows each line takes. */
  rows: number[];
  total: number;
  cursorRow: number;
  cursorCol: number;
  /** The cursor line ends exactly at the right edge with the cursor after it: a row is added. */
  padCursorLine: boolean;
}

/** Rows lines take on a terminal `cols` wide, and where the cursor lands. */
export function layout(frame: Frame, cols: number): Layout {
  const c = Math.max(1, cols);
  const widths = frame.lines.map((l) => stringWidth(l));
  const rows = widths.map((w) => Math.max(1, Math.ceil(w / c)));
  const li = Math.min(Math.max(0, frame.cursor.line), Math.max(0, frame.lines.length - 1));
  const col = Math.max(0, frame.cursor.col);
  const padCursorLine = frame.lines.length > 0 && col > 0 && col % c === 0 && col >= widths[li];
  if (padCursorLine) rows[li] += 1;
  let before = 0;
  for (let i = 0; i < li; i++) before += rows[i];
  const total = rows.reduce((a, b) => a + b, 0);
  return { rows, total, cursorRow: before + Math.floor(col / c), cursorCol: col % c, padCursorLine };
}

export interface ScreenOutput {
  write(s: string): unknown;
  columns?: number;
}

export class Screen {
  private readonly out: ScreenOutput;
  /** Rows the drawn region takes and the cursor's row in it. */
  private drawnRows = 0;
  private drawnCursorRow = 0;
  private visible = false;

  constructor(out: ScreenOutput) {
    this.out = out;
  }

  get cols(): number {
    return Math.max(10, this.out.columns ?? 80);
  }

  /** Escape sequence that erases the drawn region and leaves the cursor at its first column. */
  private eraseSeq(): string {
    if (!this.visible) return '';
    const up = this.drawnCursorRow > 0 ? `\x1b[${this.drawnCursorRow}A` : '';
    this.visible = false;
    this.drawnRows = 0;
    this.drawnCursorRow = 0;
    return `${up}\r\x1b[J`;
  }

  private drawSeq(frame: Frame): string {
    const cols = this.cols;
    const l = layout(frame, cols);
    let s = '';
    frame.lines.forEach((line, i) => {
      if (i > 0) s += '\r\n';
      s += line + '\x1b[0m';
      if (l.padCursorLine && i === Math.min(frame.cursor.line, frame.lines.length - 1)) s += ' \r';
    });
    // The cursor is now on the last row; move it to its place.
    const lastRow = l.total - 1;
    const up = lastRow - l.cursorRow;
    if (up > 0) s += `\x1b[${up}A`;
    s += `\r${l.cursorCol > 0 ? `\x1b[${l.cursorCol}C` : ''}`;
    this.visible = true;
    this.drawnRows = l.total;
    this.drawnCursorRow = l.cursorRow;
    return s;
  }

  /** Writes `lines` to the scrollback above the region and redraws the region with `frame`. */
  update(lines: string[], frame: Frame | null): void {
    let s = '\x1b[?25l' + this.eraseSeq();
    for (const line of lines) s += line + '\x1b[0m\r\n';
    if (frame && frame.lines.length) s += this.drawSeq(frame);
    s += '\x1b[?25h';
    this.out.write(s);
  }

  /** Erases the region (before leaving, or before handing the terminal to another program). */
  clear(): void {
    const s = this.eraseSeq();
    if (s) this.out.write(s);
  }

  /** Forgets the region without erasing it (after the screen was cleared, or on resize). */
  forget(): void {
    this.visible = false;
    this.drawnRows = 0;
    this.drawnCursorRow = 0;
  }

  get regionRows(): number {
    return this.drawnRows;
  }
}
