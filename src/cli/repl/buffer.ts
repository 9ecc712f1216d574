// The text being edited: a string (lines separated by \n) and a cursor on a grapheme boundary.
// Pure: the editor maps keys to these operations and renders the result.

import type { Key } from './keys.ts';
import { graphemes } from './width.ts';

const WORD = /[\p{L}\p{N}_]/u;

export class EditBuffer {
  text = '';
  /** UTF-16 offset into `text`, always on a grapheme boundary. */
  cursor = 0;
  /** The last killed text (Ctrl+K/U/W), for Ctrl+Y. */
  private killed = '';
  /** Column to keep when moving up/down through lines of different lengths. */
  private goalColumn: number | null = null;

  set(text: string, cursor = text.length): void {
    this.text = text;
    this.cursor = Math.max(0, Math.min(cursor, text.length));
    this.goalColumn = null;
  }

  clear(): void {
    this.set('');
  }

  get empty(): boolean {
    return this.text.length === 0;
  }

  insert(s: string): void {
    this.text = this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor);
    this.cursor += s.length;
    this.goalColumn = null;
  }

  private prevBoundary(pos: number): number {
    if (pos <= 0) return 0;
    const before = graphemes(this.text.slice(0, pos));
    return pos - (before.at(-1)?.length ?? 1);
  }

  private nextBoundary(pos: number): number {
    if (pos >= this.text.length) return this.text.length;
    const after = graphemes(this.text.slice(pos, pos + 16));
    return pos + (after[0]?.length ?? 1);
  }

  backspace(): boolean {
    if (this.cursor === 0) return false;
    const p = this.prevBoundary(this.cursor);
    this.text = this.text.slice(0, p) + this.text.slice(this.cursor);
    this.cursor = p;
    this.goalColumn = null;
    return true;
  }

  deleteForward(): boolean {
    if (this.cursor >= this.text.length) return false;
    const n = this.nextBoundary(this.cursor);
    this.text = this.text.slice(0, this.cursor) + this.text.slice(n);
    this.goalColumn = null;
    return true;
  }

  left(): boolean {
    if (this.cursor === 0) return false;
    this.cursor = this.prevBoundary(this.cursor);
    this.goalColumn = null;
    return true;
  }

  right(): boolean {
    if (this.cursor >= this.text.length) return false;
    this.cursor = this.nextBoundary(this.cursor);
    this.goalColumn = null;
    return true;
  }

  private wordStartBefore(pos: number): number {
    let p = pos;
    while (p > 0 && !WORD.test(this.text[p - 1])) p--;
    while (p > 0 && WORD.test(this.text[p - 1])) p--;
    return p;
  }

  private wordEndAfter(pos: number): number {
    let p = pos;
    while (p < this.text.length && !WORD.test(this.text[p])) p++;
    while (p < this.text.length && WORD.test(this.text[p])) p++;
    return p;
  }

  wordLeft(): void {
    this.cursor = this.wordStartBefore(this.cursor);
    this.goalColumn = null;
  }

  wordRight(): void {
    this.cursor = this.wordEndAfter(this.cursor);
    this.goalColumn = null;
  }

  /** Start and end offsets of the line the cursor is on. */
  lineBounds(pos = this.cursor): { start: number; end: number } {
    const start = this.text.lastIndexOf('\n', pos - 1) + 1;
    const nl = this.text.indexOf('\n', pos);
    return { start, end: nl < 0 ? this.text.length : nl };
  }

  home(): void {
    this.cursor = this.lineBounds().start;
    this.goalColumn = null;
  }

  end(): void {
    this.cursor = this.lineBounds().end;
    this.goalColumn = null;
  }

  get atEnd(): boolean {
    return this.cursor === this.text.length;
  }

  get lineCount(): number {
    let n = 1;
    for (const c of this.text) if (c === '\n') n++;
    return n;
  }

  /** Index of the cursor's line. */
  get lineIndex(): number {
    let n = 0;
    for (let i = 0; i < this.cursor; i++) if (this.text[i] === '\n') n++;
    return n;
  }

  private moveLine(delta: -1 | 1): boolean {
    const { start, end } = this.lineBounds();
    const col = this.goalColumn ?? graphemes(this.text.slice(start, this.cursor)).length;
    let target: { start: number; end: number };
    if (delta < 0) {
      if (start === 0) return false;
      target = this.lineBounds(start - 1);
    } else {
      if (end >= this.text.length) return false;
      target = this.lineBounds(end + 1);
    }
    const g = graphemes(this.text.slice(target.start, target.end));
    this.cursor = target.start + g.slice(0, col).join('').length;
    this.goalColumn = col;
    return true;
  }

  /** Moves to the line above; false when already on the first line. */
  up(): boolean {
    return this.moveLine(-1);
  }

  /** Moves to the line below; false when already on the last line. */
  down(): boolean {
    return this.moveLine(1);
  }

  killToEnd(): void {
    const { end } = this.lineBounds();
    // At the end of a line, Ctrl+K joins the next line.
    const stop = end === this.cursor && end < this.text.length ? end + 1 : end;
    this.killed = this.text.slice(this.cursor, stop);
    this.text = this.text.slice(0, this.cursor) + this.text.slice(stop);
    this.goalColumn = null;
  }

  killToStart(): void {
    const { start } = this.lineBounds();
    this.killed = this.text.slice(start, this.cursor);
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor);
    this.cursor = start;
    this.goalColumn = null;
  }

  deleteWordBack(): void {
    const p = this.wordStartBefore(this.cursor);
    this.killed = this.text.slice(p, this.cursor);
    this.text = this.text.slice(0, p) + this.text.slice(this.cursor);
    this.cursor = p;
    this.goalColumn = null;
  }

  deleteWordForward(): void {
    const p = this.wordEndAfter(this.cursor);
    this.killed = this.text.slice(this.cursor, p);
    this.text = this.text.slice(0, this.cursor) + this.text.slice(p);
    this.goalColumn = null;
  }

  yank(): void {
    if (this.killed) this.insert(this.killed);
  }

  /** Swaps the two graphemes before the cursor (Ctrl+T). */
  transpose(): void {
    if (this.cursor === 0 || this.text.length < 2) return;
    if (this.cursor === this.text.length) this.cursor = this.prevBoundary(this.cursor);
    const a = this.prevBoundary(this.cursor);
    const b = this.nextBoundary(this.cursor);
    const first = this.text.slice(a, this.cursor);
    const second = this.text.slice(this.cursor, b);
    this.text = this.text.slice(0, a) + second + first + this.text.slice(b);
    this.cursor = b;
    this.goalColumn = null;
  }
}

/**
 * The line-editing keys both interactive surfaces share (readline/Emacs style): typing, deleting,
 * moving by character, word and line, kill and yank. History, menus, submitting and pastes are the
 * surface's. `handled`: the key was one of these; `edited`: the text changed.
 */
export function applyEditKey(b: EditBuffer, k: Key): { handled: boolean; edited: boolean } {
  const done = (edited: boolean) => ({ handled: true, edited });
  switch (k.name) {
    case 'text':
      b.insert(k.text ?? '');
      return done(true);
    case 'newline':
      b.insert('\n');
      return done(true);
    case 'left':
      if (k.ctrl || k.meta) b.wordLeft();
      else b.left();
      return done(false);
    case 'right':
      if (k.ctrl || k.meta) b.wordRight();
      else b.right();
      return done(false);
    case 'home':
      b.home();
      return done(false);
    case 'end':
      b.end();
      return done(false);
    case 'backspace':
      if (k.meta || k.ctrl) b.deleteWordBack();
      else b.backspace();
      return done(true);
    case 'delete':
      b.deleteForward();
      return done(true);
    case 'meta':
      if (k.text === 'b') b.wordLeft();
      else if (k.text === 'f') b.wordRight();
      else if (k.text === 'd') {
        b.deleteWordForward();
        return done(true);
      } else return { handled: false, edited: false };
      return done(false);
    case 'ctrl': {
      const moves: Record<string, () => void> = { a: () => b.home(), e: () => b.end(), b: () => b.left(), f: () => b.right() };
      const edits: Record<string, () => void> = { k: () => b.killToEnd(), u: () => b.killToStart(), w: () => b.deleteWordBack(), y: () => b.yank(), t: () => b.transpose() };
      const key = k.text ?? '';
      if (moves[key]) {
        moves[key]();
        return done(false);
      }
      if (edits[key]) {
        edits[key]();
        return done(true);
      }
      return { handled: false, edited: false };
    }
    default:
      return { handled: false, edited: false };
  }
}
