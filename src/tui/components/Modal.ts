// A bordered panel at the bottom of the screen for a request that waits for the person. The
// approval, clarify and secret modals draw their lines inside it.

import { createElement as h, type ReactElement } from 'react';
import { Box } from 'ink';
import { Lines } from './Lines.ts';

/** Rows and columns the border and padding take around the lines. */
export const MODAL_CHROME = { rows: 2, cols: 4 };

export function Modal({ lines, color }: { lines: string[]; color: string | undefined }): ReactElement {
  return h(Box, { borderStyle: 'round', borderColor: color, paddingX: 1, flexDirection: 'column', flexShrink: 0 }, h(Lines, { lines }));
}
