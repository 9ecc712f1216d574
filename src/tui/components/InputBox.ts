// The input box: a rule with the keys that matter now, the prompt and the text (several lines, a
// window around the cursor when it is taller than the room), the dim suggestion from the history,
// or the Ctrl+R search line. Returns where the cursor goes.

import { createElement as h, type ReactElement } from 'react';
import { stringWidth, truncate, truncateAnsi } from '../../cli/repl/width.ts';
import type { TuiController } from '../controller.ts';
import { Lines } from './Lines.ts';

export interface InputView {
  lines: string[];
  cursor: { line: number; col: number };
}

function rule(c: TuiController, width: number): string {
  const s = c.style;
  const d = c.driver;
  const mode = c.session.prefs.busyInputMode;
  const hint =
    c.selected !== null
      ? 'Enter open/close · Alt+↑↓ next · Esc done'
      : d.phase === 'turn'
        ? `Enter ${mode === 'interrupt' ? 'interrupts and sends' : mode === 'queue' ? 'queues' : 'steers'} · Ctrl+C stop`
        : 'Enter send · Alt+Enter new line · / commands · @ files · Ctrl+X sessions';
  const text = ` ${truncate(hint, Math.max(0, width - 6))} `;
  return s.dim(`${'─'.repeat(Math.max(2, width - stringWidth(text) - 2))}${text}──`);
}

export function inputView(c: TuiController, width: number, maxLines: number): InputView {
  const s = c.style;
  const comp = c.composer;
  const lines = [rule(c, width)];
  if (comp.search) {
    const q = comp.search;
    const label = `(reverse-i-search)'${q.query}': `;
    const shown = q.entry === null ? (q.query ? s.red('no match') : '') : truncate(q.entry.replace(/\n/g, ' ↵ '), width - stringWidth(label) - 1);
    return { lines: [...lines, s.dim(label) + shown], cursor: { line: 1, col: stringWidth(label) } };
  }
  const prompt = c.busy ? `${s.gold('⚕')}${s.bold(s.cyan('❯ '))}` : s.bold(s.cyan('❯ '));
  const pw = stringWidth(prompt);
  const cont = ' '.repeat(Math.max(0, pw - 2)) + s.dim('┊ ');
  const b = comp.buffer;
  const text = b.text;
  const logical = text.split('\n');
  const before = text.slice(0, b.cursor).split('\n');
  const cursorLine = before.length - 1;
  let shown = logical.map((l, i) => (i === 0 ? prompt : cont) + l);
  if (!text) shown[0] = prompt + s.dim(c.busy ? 'type to steer, queue or interrupt (see /busy)…' : 'Message Hermes…');
  const sug = comp.suggestion();
  if (sug) shown[0] += s.dim(sug);
  let first = 0;
  const room = Math.max(1, maxLines);
  if (shown.length > room) {
    first = Math.max(0, Math.min(cursorLine - Math.floor(room / 2), shown.length - room));
    const above = first;
    const below = shown.length - first - room;
    shown = shown.slice(first, first + room);
    if (above) shown[0] = `${cont}${s.dim(`… ${above} more line(s) above`)}`;
    if (below) shown[shown.length - 1] = `${cont}${s.dim(`… ${below} more line(s) below`)}`;
  }
  const col = pw + stringWidth(before[cursorLine]);
  return { lines: [...lines, ...shown.map((l) => truncateAnsi(l, width))], cursor: { line: 1 + cursorLine - first, col: Math.min(col, width - 1) } };
}

export function InputBox({ view }: { view: InputView }): ReactElement {
  return h(Lines, { lines: view.lines });
}
