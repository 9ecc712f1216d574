// A list to pick from with a search line on top: typing filters, ↑↓ PgUp PgDn Home End move, Enter
// picks, Esc closes. The session picker, the model picker and the skills browser are built on it.

import { applyEditKey, EditBuffer } from '../../cli/repl/buffer.ts';
import type { Key } from '../../cli/repl/keys.ts';

export interface PickItem {
  key: string;
  label: string;
  /** Dim text after the label. */
  hint?: string;
  /** A second, dim line under the label (a search hit's snippet). */
  detail?: string;
  /** Marked (the current session, the current model). */
  current?: boolean;
}

export type ListKeyResult = 'pick' | 'close' | 'query' | 'moved' | 'none' | 'pass';

export class ListState {
  readonly query = new EditBuffer();
  items: PickItem[] = [];
  selected = 0;
  /** First item shown. */
  top = 0;

  setItems(items: PickItem[], keepKey?: string): void {
    const key = keepKey ?? this.items[this.selected]?.key;
    this.items = items;
    const i = key ? items.findIndex((x) => x.key === key) : -1;
    this.selected = i >= 0 ? i : 0;
    this.top = Math.min(this.top, Math.max(0, items.length - 1));
  }

  get current(): PickItem | undefined {
    return this.items[this.selected];
  }

  move(d: number): void {
    if (!this.items.length) return;
    this.selected = Math.max(0, Math.min(this.items.length - 1, this.selected + d));
  }

  /** Keeps the selection inside a window of `rows` items. */
  scrollInto(rows: number): void {
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + rows) this.top = this.selected - rows + 1;
    this.top = Math.max(0, Math.min(this.top, Math.max(0, this.items.length - rows)));
  }

  onKey(k: Key, pageRows = 10): ListKeyResult {
    switch (k.name) {
      case 'up':
        this.move(-1);
        return 'moved';
      case 'down':
        this.move(1);
        return 'moved';
      case 'pageup':
        this.move(-pageRows);
        return 'moved';
      case 'pagedown':
        this.move(pageRows);
        return 'moved';
      case 'enter':
        return this.items.length ? 'pick' : 'none';
      case 'escape':
        return 'close';
      case 'mouse':
        if (k.mouse?.action === 'wheelup') this.move(-3);
        else if (k.mouse?.action === 'wheeldown') this.move(3);
        else return 'none';
        return 'moved';
      case 'ctrl':
        if (k.text === 'c') return 'close';
        if (k.text === 'p') {
          this.move(-1);
          return 'moved';
        }
        if (k.text === 'n') {
          this.move(1);
          return 'moved';
        }
        break;
      case 'home':
        if (k.ctrl) {
          this.selected = 0;
          return 'moved';
        }
        break;
      case 'end':
        if (k.ctrl) {
          this.selected = Math.max(0, this.items.length - 1);
          return 'moved';
        }
        break;
      case 'paste':
        this.query.insert((k.text ?? '').replace(/\s+/g, ' '));
        return 'query';
      default:
        break;
    }
    if (k.name === 'newline') return 'none';
    const before = this.query.text;
    const r = applyEditKey(this.query, k);
    if (!r.handled) return 'pass';
    return this.query.text !== before ? 'query' : 'none';
  }
}
