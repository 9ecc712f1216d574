// Inline request prompts in the REPL (a dangerous-command approval, a clarifying question, a secret):
// how each is drawn under the conversation and how keys answer it. The Repl owns which request is
// open; this file owns what it looks like and what an answer is.
import type { AgentRequest, ApprovalChoice } from '../../agent/types.ts';
import { updateEnvFile } from '../../state/env.ts';
import { paths } from '../../state/paths.ts';
import type { EditBuffer } from './buffer.ts';
import type { Key } from './keys.ts';
import type { Style } from './style.ts';
import { graphemes, stringWidth, truncate } from './width.ts';

export interface OpenRequest {
  id: string;
  request: AgentRequest;
  at: number;
  input: EditBuffer;
  /** Highlighted choice (clarify), -1 for none. */
  selected: number;
}

export function requestLines(req: OpenRequest, o: { style: Style; cols: number; waiting: number; remaining: string; home: string }): { lines: string[]; cursor: { line: number; col: number } } {
  const s = o.style;
  const cols = o.cols;
  const r = req.request;
  const lines: string[] = [];
  const more = o.waiting > 0 ? s.dim(` (+${o.waiting} more waiting)`) : '';
  if (r.kind === 'approval') {
    lines.push(`${s.yellow('⚠️  Dangerous command')} ${s.dim('—')} ${r.description}${more}`);
    const cmd = r.command.split('\n');
    for (const l of cmd.slice(0, 6)) lines.push(`    ${s.bold(truncate(l, cols - 6))}`);
    if (cmd.length > 6) lines.push(s.dim(`    … ${cmd.length - 6} more line(s)`));
    const choices = `${s.bold('[o]')}nce  ${s.bold('[s]')}ession  ${s.bold('[a]')}lways  ${s.bold('[d]')}eny`;
    const line = `${s.yellow('❯')} ${choices} ${s.dim(`· Enter = deny · ${o.remaining}`)}`;
    lines.push(line);
    return { lines, cursor: { line: lines.length - 1, col: stringWidth(line) } };
  }
  if (r.kind === 'clarify') {
    lines.push(`${s.cyan('❓')} ${r.question.split('\n')[0]}${more}`);
    for (const l of r.question.split('\n').slice(1)) lines.push(`   ${l}`);
    (r.choices ?? []).forEach((c, i) => {
      const label = `${i + 1}. ${c}`;
      lines.push(`   ${i === req.selected ? s.inverse(` ${label} `) : ` ${label} `}`);
    });
    const prompt = `${s.bold(s.cyan('❯ '))}`;
    lines.push(prompt + req.input.text.replace(/\n/g, ' '));
    const cursorLine = lines.length - 1;
    lines.push(s.dim(`   ${r.choices?.length ? '↑↓ or a number to choose · type your own answer · ' : ''}Enter to answer · Esc to skip · ${o.remaining}`));
    return { lines, cursor: { line: cursorLine, col: 2 + stringWidth(req.input.text.slice(0, req.input.cursor).replace(/\n/g, ' ')) } };
  }
  lines.push(`${s.yellow('🔑')} ${r.prompt}${more}`);
  const masked = '•'.repeat(graphemes(req.input.text).length);
  const prompt = `${s.bold(s.cyan('❯ '))}`;
  lines.push(prompt + masked);
  const cursorLine = lines.length - 1;
  const saves = r.name !== 'SUDO_PASSWORD' ? ` · saved to ${paths.env(o.home)}` : '';
  lines.push(s.dim(`   hidden input · Enter to submit · Esc to skip${saves} · ${o.remaining}`));
  return { lines, cursor: { line: cursorLine, col: 2 + stringWidth(masked.slice(0, graphemes(req.input.text.slice(0, req.input.cursor)).length)) } };
}

export function requestKey(req: OpenRequest, k: Key, o: { style: Style; home: string; answer: (value: unknown, summary: string) => void }): void {
  const s = o.style;
  const r = req.request;
  const cancel = k.name === 'escape' || (k.name === 'ctrl' && k.text === 'c');
  if (r.kind === 'approval') {
    const map: Record<string, ApprovalChoice> = { o: 'once', s: 'session', a: 'always', d: 'deny' };
    let choice: ApprovalChoice | undefined;
    if (k.name === 'text') choice = map[(k.text ?? '').trim().toLowerCase()[0] ?? ''];
    else if (k.name === 'enter' || cancel) choice = 'deny';
    if (!choice) return;
    const cmd = truncate(r.command.replace(/\s+/g, ' '), 60);
    const summary =
      choice === 'deny'
        ? s.red(`✗ Denied: ${cmd}`)
        : s.green(`✓ Approved ${choice === 'once' ? 'once' : choice === 'session' ? 'for this session' : 'always (saved to command_allowlist)'}: ${cmd}`);
    o.answer(choice, summary);
    return;
  }
  const b = req.input;
  if (cancel) {
    o.answer(r.kind === 'clarify' ? '' : null, s.dim(r.kind === 'clarify' ? '(question skipped)' : '(secret not given)'));
    return;
  }
  if (r.kind === 'clarify') {
    const choices = r.choices ?? [];
    if (k.name === 'up' && choices.length) {
      req.selected = req.selected <= 0 ? choices.length - 1 : req.selected - 1;
      return;
    }
    if (k.name === 'down' && choices.length) {
      req.selected = (req.selected + 1) % choices.length;
      return;
    }
    if (k.name === 'text' && b.empty && choices.length && /^[1-9]$/.test(k.text ?? '') && Number(k.text) <= choices.length) {
      const c = choices[Number(k.text) - 1];
      o.answer(c, s.dim(`↳ ${c}`));
      return;
    }
    if (k.name === 'enter') {
      const typed = b.text.trim();
      const n = Number(typed);
      const value = typed ? (Number.isInteger(n) && n >= 1 && n <= choices.length ? choices[n - 1] : typed) : req.selected >= 0 ? choices[req.selected] : '';
      if (!value) return;
      o.answer(value, s.dim(`↳ ${value}`));
      return;
    }
  }
  if (r.kind === 'secret' && k.name === 'enter') {
    const value = b.text;
    if (value && r.name !== 'SUDO_PASSWORD') {
      try {
        updateEnvFile(paths.env(o.home), { [r.name]: value });
        o.answer(value, s.dim(`🔑 ${r.name} entered and saved to ${paths.env(o.home)}`));
      } catch (e) {
        o.answer(value, s.yellow(`🔑 ${r.name} entered (could not save it: ${(e as Error).message})`));
      }
    } else o.answer(value || null, s.dim(value ? `🔑 ${r.name === 'SUDO_PASSWORD' ? 'sudo password' : r.name} entered` : '(secret not given)'));
    return;
  }
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
}

/** The line left where a request was, when it was answered elsewhere (the dashboard's buttons). */
export function answeredElsewhere(r: AgentRequest, answer: unknown, s: Style): string {
  if (r.kind === 'approval') {
    const cmd = truncate(r.command.replace(/\s+/g, ' '), 60);
    if (answer === 'deny') return s.red(`✗ Denied from the dashboard: ${cmd}`);
    const how = answer === 'once' ? 'once' : answer === 'session' ? 'for this session' : 'always (saved to command_allowlist)';
    return s.green(`✓ Approved ${how} from the dashboard: ${cmd}`);
  }
  if (r.kind === 'clarify') return s.dim(`↳ ${String(answer ?? '')} (answered from the dashboard)`);
  return s.dim('🔑 secret entered from the dashboard');
}
