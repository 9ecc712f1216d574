// Answering the agent's requests from the keyboard, the same way on both interactive surfaces:
// approvals (o once · s session · a always · d deny; Enter or Esc deny), clarify questions (a digit
// or ↑↓ picks a choice, or type your own answer; Esc skips) and secrets (typed masked; a skill's key
// is saved to HERMES_HOME/.env 0600, the sudo password only used). What each answer says is shared.

import { t } from '../../i18n/index.ts';
import type { AgentRequest, ApprovalChoice } from '../../agent/types.ts';
import { describeLine, describeResolution } from '../../session/describe.ts';
import type { Session } from '../../session/session.ts';
import { updateEnvFile } from '../../state/env.ts';
import { paths } from '../../state/paths.ts';
import { EditBuffer } from './buffer.ts';
import type { Tone } from './driver.ts';
import type { Key } from './keys.ts';
import { truncate } from './width.ts';

export interface OpenRequest {
  id: string;
  request: AgentRequest;
  /** When it opened (for the time left). */
  at: number;
  /** What is typed (clarify, secret). */
  input: EditBuffer;
  /** Highlighted choice: an approval choice (surfaces that show them as a list) or a clarify choice; -1 for none. */
  selected: number;
}

export const APPROVAL_ORDER: ApprovalChoice[] = ['once', 'session', 'always', 'deny'];
export const APPROVAL_KEYS: Record<string, ApprovalChoice> = { o: 'once', s: 'session', a: 'always', d: 'deny' };

/** The approval choices a request offers, in display order (all four when it names none). */
export function approvalChoices(r: Extract<AgentRequest, { kind: 'approval' }>): ApprovalChoice[] {
  const offered = APPROVAL_ORDER.filter((c) => r.choices?.includes(c));
  return offered.length ? offered : APPROVAL_ORDER;
}

export function openRequest(id: string, request: AgentRequest, at: number): OpenRequest {
  const selected = request.kind === 'approval' ? approvalChoices(request).indexOf('deny') : -1;
  return { id, request, at, input: new EditBuffer(), selected };
}

/** An answer for the session and the line the transcript keeps about it (never a secret's value). */
export interface RequestAnswer {
  value: unknown;
  text: string;
  tone: Tone;
}

/** What an approval answer says in the transcript. */
export function approvalSummary(choice: ApprovalChoice, command: string): { text: string; tone: Tone } {
  const cmd = truncate(command.replace(/\s+/g, ' '), 60);
  if (choice === 'deny') return { text: `✗ ${t('approval.denied', { command: cmd })}`, tone: 'error' };
  return { text: `✓ ${t(`approval.approved_${choice}`, { command: cmd })}`, tone: 'ok' };
}

/**
 * A secret the person typed: a skill's key is saved to HERMES_HOME/.env (0600); the sudo password
 * is used for this session only. Returns the value to answer with and what to show (never the value).
 */
export function secretAnswer(home: string, name: string, value: string): RequestAnswer {
  if (value && name !== 'SUDO_PASSWORD') {
    try {
      updateEnvFile(paths.env(home), { [name]: value });
      return { value, text: `🔑 ${name} entered and saved to ${paths.env(home)}`, tone: 'dim' };
    } catch (e) {
      return { value, text: `🔑 ${name} entered (could not save it: ${(e as Error).message})`, tone: 'warn' };
    }
  }
  return { value: value || null, text: value ? `🔑 ${name === 'SUDO_PASSWORD' ? 'sudo password' : name} entered` : '(secret not given)', tone: 'dim' };
}

/** A clarify answer from what was typed (a number picks a choice) or the highlighted choice. */
export function clarifyValue(choices: readonly string[], typed: string, selected: number): string {
  const t = typed.trim();
  const n = Number(t);
  if (t) return Number.isInteger(n) && n >= 1 && n <= choices.length ? choices[n - 1] : t;
  return selected >= 0 ? (choices[selected] ?? '') : '';
}

/** What a request that ended without the person's answer says (timeout, interrupted), or null. */
export function resolvedNote(request: AgentRequest, source: string, answer?: unknown): { text: string; tone: Tone } | null {
  const d = describeResolution(request, source, answer);
  return d ? { text: describeLine(d), tone: d.tone } : null;
}

/** "m:ss left" before an open request is settled by `approvals.timeout` (300 s), or ''. */
export function timeLeft(session: Session, openedAt: number, now: number): string {
  const timeout = Number(session.settings.config.approvals?.timeout ?? 300) * 1000;
  if (!(timeout > 0)) return '';
  const left = Math.max(0, Math.ceil((openedAt + timeout - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
}

/**
 * One key for an open request. Returns the answer when the key settles it, else null (the request
 * stays open; its input or highlight may have changed). `arrows`: ↑↓←→ move the highlighted approval
 * choice and Enter takes it (surfaces that draw the choices as a list); without, Enter denies.
 */
export function requestKey(req: OpenRequest, k: Key, home: string, o: { arrows?: boolean } = {}): RequestAnswer | null {
  const r = req.request;
  const cancel = k.name === 'escape' || (k.name === 'ctrl' && k.text === 'c');
  if (r.kind === 'approval') {
    const choices = approvalChoices(r);
    let choice: ApprovalChoice | undefined;
    if (o.arrows && (k.name === 'up' || k.name === 'left' || k.name === 'down' || k.name === 'right' || k.name === 'tab')) {
      const d = k.name === 'up' || k.name === 'left' ? -1 : 1;
      req.selected = (Math.max(0, req.selected) + d + choices.length) % choices.length;
      return null;
    }
    if (k.name === 'text') {
      const c = APPROVAL_KEYS[(k.text ?? '').trim().toLowerCase()[0] ?? ''];
      choice = c && choices.includes(c) ? c : undefined;
    } else if (k.name === 'enter') choice = o.arrows ? (choices[req.selected] ?? 'deny') : 'deny';
    else if (cancel) choice = 'deny';
    if (!choice) return null;
    return { value: choice, ...approvalSummary(choice, r.command) };
  }
  const b = req.input;
  if (cancel) return { value: r.kind === 'clarify' ? '' : null, text: r.kind === 'clarify' ? '(question skipped)' : '(secret not given)', tone: 'dim' };
  if (r.kind === 'clarify') {
    const choices = r.choices ?? [];
    if (k.name === 'up' && choices.length) {
      req.selected = req.selected <= 0 ? choices.length - 1 : req.selected - 1;
      return null;
    }
    if (k.name === 'down' && choices.length) {
      req.selected = (req.selected + 1) % choices.length;
      return null;
    }
    if (k.name === 'text' && b.empty && choices.length && /^[1-9]$/.test(k.text ?? '') && Number(k.text) <= choices.length) {
      const c = choices[Number(k.text) - 1];
      return { value: c, text: `↳ ${c}`, tone: 'dim' };
    }
    if (k.name === 'enter') {
      const value = clarifyValue(choices, b.text, req.selected);
      return value ? { value, text: `↳ ${value}`, tone: 'dim' } : null;
    }
  }
  if (r.kind === 'secret' && k.name === 'enter') return secretAnswer(home, r.name, b.text);
  switch (k.name) {
    case 'text':
    case 'paste':
      b.insert((k.text ?? '').replace(/\n/g, r.kind === 'secret' ? '' : ' '));
      break;
    case 'backspace':
      b.backspace();
      break;
    case 'delete':
      b.deleteForward();
      break;
    case 'left':
      b.left();
      break;
    case 'right':
      b.right();
      break;
    case 'home':
      b.home();
      break;
    case 'end':
      b.end();
      break;
    case 'ctrl':
      if (k.text === 'u') b.killToStart();
      else if (k.text === 'a') b.home();
      else if (k.text === 'e') b.end();
      else if (k.text === 'w') b.deleteWordBack();
      break;
    default:
      break;
  }
  return null;
}
