// The skills browser: installed skills, the selected one's details and instructions below the list.

import { createElement as h, type ReactElement } from 'react';
import { MarkdownStream } from '../../cli/repl/markdown.ts';
import type { Style } from '../../cli/repl/style.ts';
import type { SkillsBrowser as SkillsBrowserState } from '../pickers/skills.ts';
import { Picker, pickerLines, type PickerView } from './Picker.ts';

export function skillsBrowserView(p: SkillsBrowserState, s: Style, width: number, height: number): PickerView {
  const d = p.details(Math.max(4, Math.floor(height / 2)));
  const md = new MarkdownStream({ mode: 'render', style: s, width: () => width, highlight: true });
  const body = [...md.push(d.body.join('\n') + '\n'), ...md.end()];
  const head = d.head.map((l, i) => (i === 0 ? s.bold(l) : s.dim(l)));
  return pickerLines(p, s, width, height, d.head.length ? [...head, '', ...body] : []);
}

export function SkillsBrowser({ view, height }: { view: PickerView; height: number }): ReactElement {
  return h(Picker, { view, height });
}
