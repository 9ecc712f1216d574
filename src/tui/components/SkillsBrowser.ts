// The skills browser: installed skills, the selected one's details and instructions below the list.

import { createElement as h, type ReactElement } from 'react';
import type { Style } from '../../cli/repl/style.ts';
import type { SkillsBrowser as SkillsBrowserState } from '../pickers/skills.ts';
import { Picker, pickerLines, type PickerView } from './Picker.ts';

export function skillsBrowserView(p: SkillsBrowserState, s: Style, width: number, height: number): PickerView {
  const details = p.details(Math.max(4, Math.floor(height / 2)));
  return pickerLines(p, s, width, height, details.map((l, i) => (i === 0 ? s.bold(l) : i === 1 ? s.dim(l) : l)));
}

export function SkillsBrowser({ view, height }: { view: PickerView; height: number }): ReactElement {
  return h(Picker, { view, height });
}
