// The `/` command palette and `@` reference list above the input (the REPL's menu, as lines).

import { createElement as h, type ReactElement } from 'react';
import { Lines } from './Lines.ts';

export function CompletionMenu({ lines }: { lines: string[] }): ReactElement {
  return h(Lines, { lines });
}
