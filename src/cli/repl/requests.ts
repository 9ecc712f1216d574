// Requests from the agent, answered inline under the conversation: a dangerous command's approval
// (one key: o, s, a, d), a clarifying question (a number, ↑↓, or your own words) and a secret
// (masked; a skill's key is saved to .env). One at a time, the others wait their turn.
import type { AgentRequest, AnswerSource, ApprovalChoice } from '../../agent/types.ts';
import { updateEnvFile } from '../../state/env.ts';
import { paths } from '../../state/paths.ts';
import { EditBuffer } from './buffer.ts';
import type { Key } from './keys.ts';
import type { Style } from './style.ts';
import { graphemes, stringWidth, truncate } from './width.ts';

interface OpenRequest {
  id: string;
  request: AgentRequest;
  at: number;
  input: EditBuffer;
  /** Highlighted choice (clarify), -1 for none. */
  selected: number;
}

export interface RequestPanelDeps {
  style: Style;
  home: string;
  now: () => number;
  /** How long a request waits for an answer (approvals.timeout), for the countdown. */
  timeoutMs: () => number;
  /** Gives the session the person's answer. */
  answer: (id: string, value: unknown) => void;
  /** Adds lines to the conversation (what was answered). */
  commit: (lines: string | string[]) => void;
  /** Requests were opened or closed (the spinner timer follows). */
  changed: () => void;
}

export class RequestPanel {
  private list: OpenRequest[] = [];
  private readonly d: RequestPanelDeps;

  constructor(d: RequestPanelDeps) {
    this.d = d;
  }

  get size(): number {
    return this.list.length;
  }

  open(id: string, request: AgentRequest): void {
    this.list.push({ id, request, at: this.d.now(), input: new EditBuffer(), selected: -1 });
    this.d.changed();
  }

  /** The session settled a request itself (timeout, interrupt, or another surface answered). */
  resolved(id: string, source: AnswerSource): void {
    const i = this.list.findIndex((r) => r.id === id);
    if (i < 0) return;
    const r = this.list[i];
    this.list.splice(i, 1);
    const s = this.d.style;
    const what = r.request.kind === 'approval' ? 'approval' : r.request.kind === 'clarify' ? 'question' : 'secret prompt';
    if (source === 'timeout') this.d.commit(s.yellow(`⏱ The ${what} timed out${r.request.kind === 'approval' ? ': denied' : ''}.`));
    else if (source === 'interrupted') this.d.commit(s.dim(`The ${what} was cancelled.`));
    this.d.changed();
  }

  /** The first open request as lines for the bottom of the screen, with the cursor; null when none. */
  lines(cols: number): { lines: string[]; cursor: { line: number; col: number } } | null {
    const req = this.list[0];
    return req ? this.linesFor(req, cols) : null;
  }

  private remaining(req: OpenRequest): string {
    const timeout = this.d.timeoutMs();
    if (!(timeout > 0)) return '';
    const left = Math.max(0, Math.ceil((req.at + timeout - this.d.now()) / 1000));
    return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
  }

  private linesFor(req: OpenRequest, cols: number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.d.style;
    const r = req.request;
    const lines: string[] = [];
    const more = this.list.length > 1 ? s.dim(` (+${this.list.length - 1} more waiting)`) : '';
    if (r.kind === 'approval') {
      lines.push(`${s.yellow('⚠️  Dangerous command')} ${s.dim('—')} ${r.description}${more}`);
      const cmd = r.command.split('\n');
      for (const l of cmd.slice(0, 6)) lines.push(`    ${s.bold(truncate(l, cols - 6))}`);
      if (cmd.length > 6) lines.push(s.dim(`    … ${cmd.length - 6} more line(s)`));
      const choices = `${s.bold('[o]')}nce  ${s.bold('[s]')}ession  ${s.bold('[a]')}lways  ${s.bold('[d]')}eny`;
      const line = `${s.yellow('❯')} ${choices} ${s.dim(`· Enter = deny · ${this.remaining(req)}`)}`;
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
      lines.push(s.dim(`   ${r.choices?.length ? '↑↓ or a number to choose · type your own answer · ' : ''}Enter to answer · Esc to skip · ${this.remaining(req)}`));
      return { lines, cursor: { line: cursorLine, col: 2 + stringWidth(req.input.text.slice(0, req.input.cursor).replace(/\n/g, ' ')) } };
    }
    lines.push(`${s.yellow('🔑')} ${r.prompt}${more}`);
    const masked = '•'.repeat(graphemes(req.input.text).length);
    const prompt = `${s.bold(s.cyan('❯ '))}`;
    lines.push(prompt + masked);
    const cursorLine = lines.length - 1;
    const saves = r.name !== 'SUDO_PASSWORD' ? ` · saved to ${paths.env(this.d.home)}` : '';
    lines.push(s.dim(`   hidden input · Enter to submit · Esc to skip${saves} · ${this.remaining(req)}`));
    return { lines, cursor: { line: cursorLine, col: 2 + stringWidth(masked.slice(0, graphemes(req.input.text.slice(0, req.input.cursor)).length)) } };
  }

  private answer(req: OpenRequest, value: unknown, summary: string): void {
    this.list = this.list.filter((r) => r !== req);
    this.d.answer(req.id, value);
    if (summary) this.d.commit(summary);
    this.d.changed();
  }

  /** A key press goes to the first open request. */
  key(k: Key): void {
    const req = this.list[0];
    if (!req) return;
    const s = this.d.style;
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
      this.answer(req, choice, summary);
      return;
    }
    const b = req.input;
    if (cancel) {
      this.answer(req, r.kind === 'clarify' ? '' : null, s.dim(r.kind === 'clarify' ? '(question skipped)' : '(secret not given)'));
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
        this.answer(req, c, s.dim(`↳ ${c}`));
        return;
      }
      if (k.name === 'enter') {
        const typed = b.text.trim();
        const n = Number(typed);
        const value = typed ? (Number.isInteger(n) && n >= 1 && n <= choices.length ? choices[n - 1] : typed) : req.selected >= 0 ? choices[req.selected] : '';
        if (!value) return;
        this.answer(req, value, s.dim(`↳ ${value}`));
        return;
      }
    }
    if (r.kind === 'secret' && k.name === 'enter') {
      const value = b.text;
      if (value && r.name !== 'SUDO_PASSWORD') {
        try {
          updateEnvFile(paths.env(this.d.home), { [r.name]: value });
          this.answer(req, value, s.dim(`🔑 ${r.name} entered and saved to ${paths.env(this.d.home)}`));
        } catch (e) {
          this.answer(req, value, s.yellow(`🔑 ${r.name} entered (could not save it: ${(e as Error).message})`));
        }
      } else this.answer(req, value || null, s.dim(value ? `🔑 ${r.name === 'SUDO_PASSWORD' ? 'sudo password' : r.name} entered` : '(secret not given)'));
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
}
