// The model picker: the provider's models (Tab: providers), filtered as you type.

import { createElement as h, type ReactElement } from 'react';
import type { Style } from '../../cli/repl/style.ts';
import type { ModelPicker as ModelPickerState } from '../pickers/models.ts';
import { Picker, pickerLines, type PickerView } from './Picker.ts';

export function modelPickerView(p: ModelPickerState, s: Style, width: number, height: number): PickerView {
  return pickerLines(p, s, width, height);
}

export function ModelPicker({ view, height }: { view: PickerView; height: number }): ReactElement {
  return h(Picker, { view, height });
}
