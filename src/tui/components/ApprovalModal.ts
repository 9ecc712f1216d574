// The approval modal: the command and why it needs approval, the four answers as a row (←→ or ↑↓
// move, Enter takes the highlighted one, which starts on Deny), or a key: o once · s session ·
// a always (saved to command_allowlist) · d deny. Esc denies.

import { t } from '../../i18n/index.ts';
import { createElement as h, type ReactElement } from 'react';
import { approvalChoices, timeLeft, type OpenRequest } from '../../cli/repl/requests.ts';
import { truncate } from '../../cli/repl/width.ts';
import type { TuiController } from '../controller.ts';
import { Modal } from './Modal.ts';

const label = (c: 'once' | 'session' | 'always' | 'deny') => t(`approval.${c}`);

export function approvalLines(req: OpenRequest, c: TuiController, width: number, maxLines: number): string[] {
  const r = req.request;
  if (r.kind !== 'approval') return [];
  const s = c.style;
  const more = c.requests.length > 1 ? s.dim(` (+${c.requests.length - 1} more waiting)`) : '';
  const lines = [`${s.yellow(`⚠️  ${t('approval.header')}`)} ${s.dim('—')} ${r.description}${more}`];
  const cmd = r.command.split('\n');
  const room = Math.max(1, maxLines - 4);
  for (const l of cmd.slice(0, room)) lines.push(`  ${s.bold(truncate(l, width - 2))}`);
  if (cmd.length > room) lines.push(s.dim(`  … ${cmd.length - room} more line(s)`));
  const choices = approvalChoices(r)
    .map((ch, i) => (i === req.selected ? s.inverse(` ${label(ch)} `) : ` ${label(ch)} `))
    .join(' ');
  lines.push('', `${choices}  ${s.dim(`←→ Enter · Esc deny · ${timeLeft(c.session, req.at, c.now())}`)}`);
  return lines;
}

export function ApprovalModal({ lines, color }: { lines: string[]; color: string | undefined }): ReactElement {
  return h(Modal, { lines, color });
}
