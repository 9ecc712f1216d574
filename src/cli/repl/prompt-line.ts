// The REPL's input line: the edit buffer and the keys that edit it, history (↑/↓, the dim
// suggestion, Ctrl+R search) and the slash-command completion menu, and how they are drawn. What a
// key means beyond the line (send, quit, interrupt, clear, suspend, the editor) goes back to the
// Repl as a LineAction.
import type { CommandRegistry } from '../../commands/registry.ts';
import { paths } from '../../state/paths.ts';
import { EditBuffer } from './buffer.ts';
import { MAX_MENU_ROWS, slashCompletions, type Completions } from './completion.ts';
import type { History } from './history.ts';
import type { Key } from './keys.ts';
import { lineCount, PASTE_MIN_LINES, savePaste } from './pastes.ts';
import type { Style } from './style.ts';
import { stringWidth, truncate, truncateAnsi } from './width.ts';

interface Menu extends Completions {
  selected: number;
  /** The person moved through the menu (Enter then accepts the highlighted item). */
  explicit: boolean;
}

/** What a key asks of the Repl, beyond editing the line. */
export type LineAction = 'submit' | 'quit' | 'interrupt' | 'clear' | 'suspend' | 'editor' | null;

export interface PromptLineOptions {
  history: History;
  registry: CommandRegistry;
  home: string;
  style: Style;
  /** A warning for the transcript (a paste that could not be saved). */
  warn: (line: string) => void;
}

export class PromptLine {
  readonly input = new EditBuffer();
  private readonly o: PromptLineOptions;
  private menu: Menu | null = null;
  private menuDismissedFor: string | null = null;
  private search: { query: string; index: number; entry: string | null; saved: string } | null = null;

  constructor(o: PromptLineOptions) {
    this.o = o;
  }

  /** Handles a key; returns what the Repl should do beyond it. */
  key(k: Key): LineAction {
    return this.search ? this.searchKey(k) : this.editKey(k);
  }

  /** Clears the line (after sending it, or Ctrl+C) and closes the menu. */
  clear(): void {
    this.input.clear();
    this.menu = null;
    this.menuDismissedFor = null;
  }

  /**
   * The line as drawn: the prompt and text (or the Ctrl+R search line), the cursor, and the menu
   * rows (`room`: how many rows the menu may take).
   */
  lines(prompt: string, cols: number, rows: number, room: (used: string[]) => number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.o.style;
    if (this.search) {
      const q = this.search;
      const label = `(reverse-i-search)'${q.query}': `;
      const shown = q.entry === null ? (q.query ? s.red('no match') : '') : truncate(q.entry.replace(/\n/g, ' ↵ '), cols - stringWidth(label) - 1);
      return { lines: [s.dim(label) + shown], cursor: { line: 0, col: stringWidth(label) } };
    }
    const r = this.inputLines(prompt, rows);
    if (this.menu) r.lines.push(...this.menuLines(cols).slice(0, Math.max(1, room(r.lines))));
    return r;
  }

  private inputLines(prompt: string, rows: number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.o.style;
    const pw = stringWidth(prompt);
    const cont = ' '.repeat(Math.max(0, pw - 2)) + s.dim('┊ ');
    const text = this.input.text;
    const logical = text.split('\n');
    const before = text.slice(0, this.input.cursor).split('\n');
    const cursorLine = before.length - 1;
    const cursorCol = pw + stringWidth(before[cursorLine]);
    let shown = logical.map((l, i) => (i === 0 ? prompt : cont) + l);
    // Dim suggestion from history after the cursor.
    if (this.input.atEnd && !this.menu && logical.length === 1 && text && !this.o.history.navigating) {
      const sug = this.o.history.suggest(text);
      if (sug) shown[0] += s.dim(sug.slice(text.length));
    }
    // A window around the cursor when the input is taller than the screen allows.
    const maxLines = Math.max(3, rows - 6);
    let first = 0;
    if (shown.length > maxLines) {
      first = Math.max(0, Math.min(cursorLine - Math.floor(maxLines / 2), shown.length - maxLines));
      const last = first + maxLines;
      const above = first;
      const below = shown.length - last;
      shown = shown.slice(first, last);
      if (above) shown[0] = `${cont}${s.dim(`… ${above} more line(s) above`)}`;
      if (below) shown[shown.length - 1] = `${cont}${s.dim(`… ${below} more line(s) below`)}`;
    }
    return { lines: shown, cursor: { line: cursorLine - first, col: cursorCol } };
  }

  private menuLines(cols: number): string[] {
    const m = this.menu!;
    const s = this.o.style;
    const n = m.items.length;
    const start = Math.max(0, Math.min(m.selected - Math.floor(MAX_MENU_ROWS / 2), n - MAX_MENU_ROWS));
    const visible = m.items.slice(start, start + MAX_MENU_ROWS);
    const labelW = Math.min(32, Math.max(...visible.map((i) => stringWidth(i.label))));
    const out = visible.map((it, k) => {
      const i = start + k;
      const label = it.label + ' '.repeat(Math.max(0, labelW - stringWidth(it.label)));
      const line = `  ${i === m.selected ? s.inverse(` ${label} `) : ` ${label} `}  ${s.dim(it.hint)}`;
      return truncateAnsi(line, cols - 1);
    });
    if (n > MAX_MENU_ROWS) out.push(s.dim(`   ${m.selected + 1}/${n} · ↑↓ move · Tab accept · Esc close`));
    return out;
  }


  private editKey(k: Key): LineAction {
    const b = this.input;
    const hist = this.o.history;
    let edited = false;
    switch (k.name) {
      case 'text':
        b.insert(k.text ?? '');
        edited = true;
        break;
      case 'paste': {
        const text = k.text ?? '';
        if (lineCount(text) >= PASTE_MIN_LINES) {
          try {
            const { reference } = savePaste(this.o.home, text);
            b.insert(reference);
          } catch (e) {
            b.insert(text);
            this.o.warn(`⚠ Could not save the paste under ${paths.pastes(this.o.home)}: ${(e as Error).message}`);
          }
        } else b.insert(text);
        edited = true;
        break;
      }
      case 'enter': {
        if (this.menu && this.menu.explicit) {
          return this.acceptCompletion(true);
        }
        const line = b.text.slice(b.lineBounds().start, b.cursor);
        if (b.atEnd && line.endsWith('\\') && !line.endsWith('\\\\')) {
          b.backspace();
          b.insert('\n');
          edited = true;
          break;
        }
        return 'submit';
      }
      case 'newline':
        b.insert('\n');
        edited = true;
        break;
      case 'tab':
        if (this.menu) return this.acceptCompletion(false);
        this.menuDismissedFor = null;
        this.refreshMenu(true);
        return null;
      case 'backtab':
        if (this.menu) this.moveMenu(-1);
        return null;
      case 'up':
        if (this.menu) this.moveMenu(-1);
        else if (!b.up()) this.historyPrev();
        return null;
      case 'down':
        if (this.menu) this.moveMenu(1);
        else if (!b.down()) this.historyNext();
        return null;
      case 'left':
        if (k.ctrl || k.meta) b.wordLeft();
        else b.left();
        break;
      case 'right':
        if (b.atEnd) {
          this.acceptSuggestion();
          edited = true;
          break;
        }
        if (k.ctrl || k.meta) b.wordRight();
        else b.right();
        break;
      case 'home':
        b.home();
        break;
      case 'end':
        if (b.atEnd) {
          this.acceptSuggestion();
          edited = true;
        } else b.end();
        break;
      case 'backspace':
        if (k.meta || k.ctrl) b.deleteWordBack();
        else b.backspace();
        edited = true;
        break;
      case 'delete':
        b.deleteForward();
        edited = true;
        break;
      case 'escape':
        if (this.menu) {
          this.menu = null;
          this.menuDismissedFor = b.text;
        }
        return null;
      case 'meta':
        switch (k.text) {
          case 'b':
            b.wordLeft();
            break;
          case 'f':
            b.wordRight();
            break;
          case 'd':
            b.deleteWordForward();
            edited = true;
            break;
          default:
            break;
        }
        break;
      case 'ctrl':
        switch (k.text) {
          case 'c':
            return 'interrupt';
          case 'd':
            if (b.empty) return 'quit';
            b.deleteForward();
            edited = true;
            break;
          case 'a':
            b.home();
            break;
          case 'e':
            if (b.atEnd) {
              this.acceptSuggestion();
              edited = true;
            } else b.end();
            break;
          case 'b':
            b.left();
            break;
          case 'f':
            b.right();
            break;
          case 'k':
            b.killToEnd();
            edited = true;
            break;
          case 'u':
            b.killToStart();
            edited = true;
            break;
          case 'w':
            b.deleteWordBack();
            edited = true;
            break;
          case 'y':
            b.yank();
            edited = true;
            break;
          case 't':
            b.transpose();
            edited = true;
            break;
          case 'p':
            if (!b.up()) this.historyPrev();
            return null;
          case 'n':
            if (!b.down()) this.historyNext();
            return null;
          case 'l':
            return 'clear';
          case 'r':
            this.search = { query: '', index: hist.entries.length, entry: null, saved: b.text };
            this.menu = null;
            return null;
          case 'g':
            return 'editor';
          case 'z':
            return 'suspend';
          default:
            return null;
        }
        break;
      default:
        return null;
    }
    if (edited) {
      hist.reset();
      this.refreshMenu(false);
    }
    return null;
  }

  private historyPrev(): void {
    const e = this.o.history.prev(this.input.text);
    if (e !== null) this.input.set(e);
    this.menu = null;
  }

  private historyNext(): void {
    const e = this.o.history.next();
    if (e !== null) this.input.set(e);
    this.menu = null;
  }

  private acceptSuggestion(): void {
    const text = this.input.text;
    if (this.menu || this.o.history.navigating) return;
    const sug = this.o.history.suggest(text);
    if (sug) this.input.set(sug);
  }

  private refreshMenu(force: boolean): void {
    const text = this.input.text;
    if (!force && (this.menuDismissedFor === text || !this.input.atEnd)) {
      this.menu = null;
      return;
    }
    const c = text.startsWith('/') ? slashCompletions(this.o.registry, 'cli', text) : null;
    if (!c) {
      this.menu = null;
      return;
    }
    // Keep the highlighted item when it is still offered.
    const prev = this.menu?.items[this.menu.selected]?.value;
    const keep = prev ? c.items.findIndex((i) => i.value === prev) : -1;
    this.menu = { ...c, selected: keep >= 0 ? keep : 0, explicit: keep >= 0 ? !!this.menu?.explicit : false };
  }

  private moveMenu(d: number): void {
    const m = this.menu!;
    m.selected = (m.selected + d + m.items.length) % m.items.length;
    m.explicit = true;
  }

  private acceptCompletion(submitIfComplete: boolean): LineAction {
    const m = this.menu;
    if (!m) return null;
    const item = m.items[m.selected] ?? m.items[0];
    const text = this.input.text.slice(0, m.from) + item.value;
    this.input.set(text);
    this.menu = null;
    this.menuDismissedFor = null;
    if (submitIfComplete && !text.endsWith(' ')) return 'submit';
    this.refreshMenu(false);
    return null;
  }

  private searchKey(k: Key): LineAction {
    const q = this.search!;
    const hist = this.o.history;
    const find = (before: number) => {
      const r = hist.search(q.query, before);
      q.entry = r?.entry ?? null;
      q.index = r?.index ?? q.index;
    };
    if (k.name === 'text' || k.name === 'paste') {
      q.query += k.text ?? '';
      find(hist.entries.length);
    } else if (k.name === 'backspace') {
      q.query = q.query.slice(0, -1);
      find(hist.entries.length);
    } else if (k.name === 'ctrl' && k.text === 'r') {
      if (q.entry !== null) find(q.index);
    } else if (k.name === 'escape' || (k.name === 'ctrl' && (k.text === 'g' || k.text === 'c'))) {
      this.input.set(q.saved);
      this.search = null;
    } else if (k.name === 'enter') {
      this.search = null;
      if (q.entry !== null) {
        this.input.set(q.entry);
        return 'submit';
      }
    } else {
      // Any other key takes the match into the editor and acts there.
      this.search = null;
      if (q.entry !== null) this.input.set(q.entry);
      return this.editKey(k);
    }
    return null;
  }
}
