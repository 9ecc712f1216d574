// A full-height list to pick from (sessions, models, skills): a title, the search line, the items
// (the highlighted one inverse, the current one marked ●), an optional details pane, and the keys.

import { createElement as h, type ReactElement } from 'react';
import type { Style } from '../../cli/repl/style.ts';
import { stringWidth, truncate, truncateAnsi } from '../../cli/repl/width.ts';
import type { ListState } from '../pickers/list.ts';
import { Lines } from './Lines.ts';

export interface PickerModel {
  title: string;
  help: string;
  list: ListState;
  error?: string;
  loading?: boolean;
}

export interface PickerView {
  lines: string[];
  cursor: { line: number; col: number };
  listRows: number;
}

/** The picker in `height` rows; `details` (the selected item's) take the rows under the list. */
export function pickerLines(p: PickerModel, s: Style, width: number, height: number, details: string[] = []): PickerView {
  const list = p.list;
  const head = [s.bold(`${s.gold('⚕')} ${p.title}`), `${s.cyan('🔎')} ${list.query.text}`, s.dim('─'.repeat(Math.max(1, width)))];
  const cursor = { line: 1, col: 3 + stringWidth(list.query.text.slice(0, list.query.cursor)) };
  const foot: string[] = [];
  if (p.error) foot.push(s.yellow(truncate(p.error, width)));
  const detailRows = details.length ? Math.min(details.length + 1, Math.floor((height - head.length - 1) / 2)) : 0;
  const listRows = Math.max(1, height - head.length - foot.length - 1 - detailRows);
  list.scrollInto(listRows);
  const rows: string[] = [];
  if (p.loading) rows.push(s.dim('  loading…'));
  else if (!list.items.length) rows.push(s.dim(list.query.text ? '  nothing matches' : '  (nothing here)'));
  for (let i = list.top; i < list.items.length && rows.length < listRows; i++) {
    const it = list.items[i];
    const mark = it.current ? s.green('●') : ' ';
    const label = i === list.selected ? s.inverse(` ${truncate(it.label, Math.max(10, width - 8))} `) : ` ${truncate(it.label, Math.max(10, width - 8))} `;
    const rest = [it.hint, it.detail].filter(Boolean).join(' · ');
    rows.push(truncateAnsi(`${mark}${label} ${s.dim(rest)}`, width));
  }
  while (rows.length < listRows) rows.push('');
  const more = list.items.length > listRows ? s.dim(` ${list.selected + 1}/${list.items.length}`) : '';
  const pane = detailRows ? [s.dim('─'.repeat(width)), ...details.slice(0, detailRows - 1).map((l) => truncateAnsi(l, width))] : [];
  while (pane.length < detailRows) pane.push('');
  return { lines: [...head, ...rows, ...pane, ...foot, truncateAnsi(s.dim(p.help) + more, width)], cursor, listRows };
}

export function Picker({ view, height }: { view: PickerView; height: number }): ReactElement {
  return h(Lines, { lines: view.lines, height });
}
