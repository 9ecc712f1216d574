// Pre-styled lines (ANSI) as Ink text rows: one <Text> per line, cut (never wrapped) at the box edge,
// so a frame has exactly as many rows as lines.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';

export function Lines({ lines, height }: { lines: string[]; height?: number }): ReactElement {
  const rows = lines.map((l, i) => h(Text, { key: i, wrap: 'truncate-end' }, l || ' '));
  return h(Box, { flexDirection: 'column', height, overflow: 'hidden', flexShrink: 0 }, ...rows);
}
