// The conversation area: the transcript lines in view (the controller picks the window), exactly
// `height` rows.

import { createElement as h, type ReactElement } from 'react';
import { Lines } from './Lines.ts';

export function TranscriptView({ lines, height }: { lines: string[]; height: number }): ReactElement {
  return h(Lines, { lines, height });
}
