// The clarify modal: the agent's question, its choices (a digit or ↑↓ and Enter picks one), and a
// line to type your own answer. Esc skips the question.

import { createElement as h, type ReactElement } from 'react';
import { timeLeft, type OpenRequest } from '../../cli/repl/requests.ts';
import { stringWidth, truncateAnsi, wrapAnsi } from '../../cli/repl/width.ts';
import type { TuiController } from '../controller.ts';
import { Modal } from './Modal.ts';

export function clarifyLines(req: OpenRequest, c: TuiController, width: number): { lines: string[]; cursor: { line: number; col: number } } {
  const r = req.request;
  if (r.kind !== 'clarify') return { lines: [], cursor: { line: 0, col: 0 } };
  const s = c.style;
  const more = c.requests.length > 1 ? s.dim(` (+${c.requests.length - 1} more waiting)`) : '';
  const lines = wrapAnsi(`${s.cyan('❓')} ${r.question}${more}`, width).flatMap((l) => l.split('\n'));
  (r.choices ?? []).forEach((ch, i) => {
    const label = `${i + 1}. ${ch}`;
    lines.push(truncateAnsi(`  ${i === req.selected ? s.inverse(` ${label} `) : ` ${label} `}`, width));
  });
  const prompt = s.bold(s.cyan('❯ '));
  const typed = req.input.text.replace(/\n/g, ' ');
  lines.push(prompt + typed);
  const cursor = { line: lines.length - 1, col: 2 + stringWidth(typed.slice(0, req.input.cursor)) };
  lines.push(s.dim(`${r.choices?.length ? '↑↓ or a number to choose · type your own answer · ' : ''}Enter answer · Esc skip · ${timeLeft(c.session, req.at, c.now())}`));
  return { lines, cursor };
}

export function ClarifyModal({ lines, color }: { lines: string[]; color: string | undefined }): ReactElement {
  return h(Modal, { lines, color });
}
