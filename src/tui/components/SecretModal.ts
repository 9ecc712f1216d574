// The secret modal: what is asked (a skill's API key, the sudo password), the typed value masked as
// dots, and where it goes (a skill's key is saved to HERMES_HOME/.env, 0600; the sudo password is
// only used). Nothing typed here reaches the transcript.

import { createElement as h, type ReactElement } from 'react';
import { timeLeft, type OpenRequest } from '../../cli/repl/requests.ts';
import { graphemes, wrapAnsi } from '../../cli/repl/width.ts';
import { paths } from '../../state/paths.ts';
import type { TuiController } from '../controller.ts';
import { Modal } from './Modal.ts';

export function secretLines(req: OpenRequest, c: TuiController, width: number): { lines: string[]; cursor: { line: number; col: number } } {
  const r = req.request;
  if (r.kind !== 'secret') return { lines: [], cursor: { line: 0, col: 0 } };
  const s = c.style;
  const lines = wrapAnsi(`${s.yellow('🔑')} ${r.prompt}`, width);
  const masked = '•'.repeat(graphemes(req.input.text).length);
  lines.push(s.bold(s.cyan('❯ ')) + masked);
  const cursor = { line: lines.length - 1, col: 2 + graphemes(req.input.text.slice(0, req.input.cursor)).length };
  const saves = r.name !== 'SUDO_PASSWORD' ? ` · saved to ${paths.env(c.o.home)}` : '';
  lines.push(...wrapAnsi(s.dim(`hidden input · Enter submit · Esc skip${saves} · ${timeLeft(c.session, req.at, c.now())}`), width));
  return { lines, cursor };
}

export function SecretModal({ lines, color }: { lines: string[]; color: string | undefined }): ReactElement {
  return h(Modal, { lines, color });
}
