// The session picker: saved sessions (newest first), searched by title and content.

import { createElement as h, type ReactElement } from 'react';
import type { Style } from '../../cli/repl/style.ts';
import type { SessionPicker as SessionPickerState } from '../pickers/sessions.ts';
import { Picker, pickerLines, type PickerView } from './Picker.ts';

export function sessionPickerView(p: SessionPickerState, s: Style, width: number, height: number): PickerView {
  return pickerLines(p, s, width, height);
}

export function SessionPicker({ view, height }: { view: PickerView; height: number }): ReactElement {
  return h(Picker, { view, height });
}
