// The input of both interactive surfaces (the REPL's prompt and the TUI's input box): multi-line
// editing, the history (HERMES_HOME/.hermes_history) with ↑/↓, the dim suggestion and Ctrl+R search,
// the `/` command menu from the shared registry, `@` references (when the surface gives a source),
// and long pastes saved under pastes/. Keys it does not use go back to the caller.

import type { CommandContext, CommandRegistry } from '../../commands/registry.ts';
import { paths } from '../../state/paths.ts';
import { applyEditKey, EditBuffer } from './buffer.ts';
import { slashCompletions, type CompletionItem, type Completions } from './completion.ts';
import type { History } from './history.ts';
import type { Key } from './keys.ts';
import { lineCount, PASTE_MIN_LINES, savePaste } from './pastes.ts';

/** Where `@` completions come from (the TUI's file index). */
export interface MentionSource {
  complete(text: string, cursor: number): Completions | null;
}

export interface Menu extends Completions {
  selected: number;
  /** The person moved through the menu (Enter then accepts the highlighted item). */
  explicit: boolean;
  source: 'slash' | 'mention';
}

export type ComposerResult =
  | { kind: 'none' }
  | { kind: 'submit'; text: string }
  /** A key the composer does not use (Ctrl+C, Ctrl+D on an empty line, Ctrl+G, Esc without a menu, …). */
  | { kind: 'pass'; key: Key }
  | { kind: 'warn'; text: string };

export interface ComposerOptions {
  registry: CommandRegistry;
  history: History;
  home: string;
  mentions?: MentionSource;
  /** Commands only the surface has (shown in the menu after the registry's). */
  extraCommands?: CompletionItem[];
  /** Shift/Ctrl/Alt+↑↓ and Ctrl+Home/End go to the caller (the TUI scrolls with them). */
  passModifiedKeys?: boolean;
  /** The command context, so a command's own `complete()` can offer choices (/model's served models). */
  context?: () => CommandContext;
}

const NONE: ComposerResult = { kind: 'none' };

export class Composer {
  readonly buffer = new EditBuffer();
  menu: Menu | null = null;
  search: { query: string; index: number; entry: string | null; saved: string } | null = null;
  private menuDismissedFor: string | null = null;
  private readonly o: ComposerOptions;

  constructor(o: ComposerOptions) {
    this.o = o;
  }

  get text(): string {
    return this.buffer.text;
  }

  get history(): History {
    return this.o.history;
  }

  /** The dim rest of a history entry that extends what is typed, or ''. */
  suggestion(): string {
    const b = this.buffer;
    if (!b.atEnd || this.menu || b.text.includes('\n') || !b.text || this.o.history.navigating) return '';
    const sug = this.o.history.suggest(b.text);
    return sug ? sug.slice(b.text.length) : '';
  }

  clear(): void {
    this.buffer.clear();
    this.menu = null;
    this.menuDismissedFor = null;
    this.o.history.reset();
  }

  set(text: string): void {
    this.buffer.set(text);
    this.refreshMenu(false);
  }

  /** A picker: `text` (e.g. `/model `) goes in the input with the command's choices open under it. */
  openPicker(text: string): void {
    this.buffer.set(text);
    this.menuDismissedFor = null;
    this.refreshMenu(true);
  }

  onKey(k: Key): ComposerResult {
    if (this.search) return this.searchKey(k);
    const b = this.buffer;
    const hist = this.o.history;
    let edited = false;
    switch (k.name) {
      case 'paste': {
        const text = k.text ?? '';
        let warn: ComposerResult = NONE;
        if (lineCount(text) >= PASTE_MIN_LINES) {
          try {
            b.insert(savePaste(this.o.home, text).reference);
          } catch (e) {
            b.insert(text);
            warn = { kind: 'warn', text: `⚠ Could not save the paste under ${paths.pastes(this.o.home)}: ${(e as Error).message}` };
          }
        } else b.insert(text);
        hist.reset();
        this.refreshMenu(false);
        return warn;
      }
      case 'enter': {
        // A picker's menu (/model …) takes Enter for its highlighted choice, unless the typed text is one.
        const m = this.menu;
        const pick = m?.pick && !m.items.some((i) => b.text.slice(m.from) === i.value);
        if (m && (m.explicit || pick)) return this.accept(true);
        const line = b.text.slice(b.lineBounds().start, b.cursor);
        if (b.atEnd && line.endsWith('\\') && !line.endsWith('\\\\')) {
          b.backspace();
          b.insert('\n');
          edited = true;
          break;
        }
        return this.submit();
      }
      case 'tab':
        if (this.menu) return this.accept(false);
        this.menuDismissedFor = null;
        this.refreshMenu(true);
        return NONE;
      case 'backtab':
        if (this.menu) this.moveMenu(-1);
        return NONE;
      case 'up':
        if (this.modified(k)) return { kind: 'pass', key: k };
        if (this.menu) return this.moveMenu(-1);
        if (!b.up()) this.historyPrev();
        return NONE;
      case 'down':
        if (this.modified(k)) return { kind: 'pass', key: k };
        if (this.menu) return this.moveMenu(1);
        if (!b.down()) this.historyNext();
        return NONE;
      case 'escape':
        if (!this.menu) return { kind: 'pass', key: k };
        this.menu = null;
        this.menuDismissedFor = b.text;
        return NONE;
      case 'right':
      case 'end':
        if (b.atEnd && this.suggestion()) {
          b.set(b.text + this.suggestion());
          edited = true;
          break;
        }
        if (k.name === 'end' && this.modified(k)) return { kind: 'pass', key: k };
        edited = applyEditKey(b, k).edited;
        break;
      case 'home':
        if (this.modified(k)) return { kind: 'pass', key: k };
        b.home();
        break;
      case 'ctrl':
        switch (k.text) {
          case 'd':
            if (b.empty) return { kind: 'pass', key: k };
            b.deleteForward();
            edited = true;
            break;
          case 'e':
            if (b.atEnd && this.suggestion()) {
              b.set(b.text + this.suggestion());
              edited = true;
            } else b.end();
            break;
          case 'p':
            if (!b.up()) this.historyPrev();
            return NONE;
          case 'n':
            if (!b.down()) this.historyNext();
            return NONE;
          case 'r':
            this.search = { query: '', index: hist.entries.length, entry: null, saved: b.text };
            this.menu = null;
            return NONE;
          default: {
            const r = applyEditKey(b, k);
            if (!r.handled) return { kind: 'pass', key: k };
            edited = r.edited;
          }
        }
        break;
      default: {
        const r = applyEditKey(b, k);
        if (!r.handled) return { kind: 'pass', key: k };
        edited = r.edited;
      }
    }
    if (edited) {
      hist.reset();
      this.refreshMenu(false);
    }
    return NONE;
  }

  private modified(k: Key): boolean {
    return !!this.o.passModifiedKeys && !!(k.shift || k.ctrl || k.meta);
  }

  private submit(): ComposerResult {
    const raw = this.buffer.text;
    this.menu = null;
    this.menuDismissedFor = null;
    this.buffer.clear();
    if (!raw.trim()) return NONE;
    this.o.history.add(raw);
    return { kind: 'submit', text: raw };
  }

  private historyPrev(): void {
    const e = this.o.history.prev(this.buffer.text);
    if (e !== null) this.buffer.set(e);
    this.menu = null;
  }

  private historyNext(): void {
    const e = this.o.history.next();
    if (e !== null) this.buffer.set(e);
    this.menu = null;
  }

  /** Opens, updates or closes the palette for the text before the cursor. */
  refreshMenu(force: boolean): void {
    const b = this.buffer;
    const text = b.text;
    if (!force && this.menuDismissedFor === text) {
      this.menu = null;
      return;
    }
    let c: Completions | null = null;
    let source: Menu['source'] = 'slash';
    if (text.startsWith('/') && b.atEnd) {
      c = slashCompletions(this.o.registry, 'cli', text, this.o.context?.());
      const extra = !text.includes(' ') ? (this.o.extraCommands ?? []).filter((x) => x.value.startsWith(text.toLowerCase()) && x.value.trim() !== text) : [];
      if (extra.length) c = { items: [...(c?.items ?? []), ...extra], from: 0 };
    } else if (this.o.mentions) {
      c = this.o.mentions.complete(text, b.cursor);
      source = 'mention';
    }
    if (!c) {
      this.menu = null;
      return;
    }
    const prev = this.menu?.items[this.menu.selected]?.value;
    const keep = prev ? c.items.findIndex((i) => i.value === prev) : -1;
    this.menu = { ...c, source, selected: keep >= 0 ? keep : 0, explicit: keep >= 0 ? !!this.menu?.explicit : false };
  }

  private moveMenu(d: number): ComposerResult {
    const m = this.menu!;
    m.selected = (m.selected + d + m.items.length) % m.items.length;
    m.explicit = true;
    return NONE;
  }

  private accept(submitIfComplete: boolean): ComposerResult {
    const m = this.menu;
    if (!m) return NONE;
    const item = m.items[m.selected] ?? m.items[0];
    const b = this.buffer;
    const end = m.source === 'mention' ? b.cursor : b.text.length;
    const rest = b.text.slice(end);
    const value = rest.startsWith(' ') ? item.value.replace(/ $/, '') : item.value;
    const text = b.text.slice(0, m.from) + value + rest;
    b.set(text, m.from + value.length);
    this.menu = null;
    this.menuDismissedFor = null;
    if (submitIfComplete && m.source === 'slash' && !text.endsWith(' ')) return this.submit();
    this.refreshMenu(false);
    return NONE;
  }

  private searchKey(k: Key): ComposerResult {
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
      this.buffer.set(q.saved);
      this.search = null;
    } else if (k.name === 'enter') {
      this.search = null;
      if (q.entry !== null) {
        this.buffer.set(q.entry);
        return this.submit();
      }
    } else {
      // Any other key takes the match into the editor and acts there.
      this.search = null;
      if (q.entry !== null) this.buffer.set(q.entry);
      return this.onKey(k);
    }
    return NONE;
  }
}
