// The interactive REPL: a line editor at the bottom of the terminal, the conversation scrolling
// above it. It renders the session's event stream (streamed Markdown, reasoning, one activity line
// per tool, retries, warnings), answers requests inline (approval, clarify, secrets), runs slash
// commands from the shared registry, `!cmd` shell escapes, and handles typing while the agent works
// according to the busy-input mode.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageText } from '../../agent/repair.ts';
import type { AgentEvent, ToolCallContext, TurnResult } from '../../agent/types.ts';
import { runCommand, type CommandRegistry, type CommandResult, type SurfaceHooks } from '../../commands/registry.ts';
import { describeError } from '../../llm/index.ts';
import type { Message } from '../../llm/types.ts';
import { activityLine, toolDetail, toolEmoji } from '../../runtime/activity.ts';
import { composeNotices } from '../../runtime/inbox.ts';
import type { Session } from '../../runtime/session.ts';
import { paths } from '../../state/paths.ts';
import { EditBuffer } from './buffer.ts';
import { MAX_MENU_ROWS, slashCompletions, type Completions } from './completion.ts';
import type { History } from './history.ts';
import type { Key } from './keys.ts';
import { MarkdownStream, type MarkdownMode } from './markdown.ts';
import { RequestPanel } from './requests.ts';
import { expandPastes, lineCount, PASTE_MIN_LINES, savePaste } from './pastes.ts';
import { Screen, type Frame } from './screen.ts';
import type { Style } from './style.ts';
import type { Terminal } from './term.ts';
import { graphemes, stringWidth, stripAnsi, truncate, truncateAnsi, wrapWords } from './width.ts';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const VERBS = ['pondering', 'thinking', 'contemplating', 'musing', 'reasoning', 'deliberating', 'mulling it over', 'considering', 'working it out', 'cogitating'];
const DOUBLE_PRESS_MS = 2000;
const INTERRUPTING = 'Interrupting… (Ctrl+C again to quit)';

export const KEY_HELP = [
  'Keys: Enter send · Alt+Enter / Ctrl+J new line (or end a line with \\) · Tab complete · ↑↓ history',
  '      Ctrl+C interrupt (twice quits) · Ctrl+D quit · Ctrl+R search history · Ctrl+G edit in $EDITOR',
  '      Ctrl+L clear · Ctrl+Z suspend · !cmd run a shell command · pastes of 5+ lines are saved to pastes/',
];


interface Menu extends Completions {
  selected: number;
  /** The person moved through the menu (Enter then accepts the highlighted item). */
  explicit: boolean;
}

type Phase = 'idle' | 'turn' | 'shell' | 'command';

export interface ReplOptions {
  session: Session;
  registry: CommandRegistry;
  term: Terminal;
  style: Style;
  home: string;
  history: History;
  /** Printed once at start (banner, warnings, a resume recap). */
  intro?: string[];
  /** Text put before the first message (e.g. preloaded skills). */
  firstMessagePrefix?: string;
  hooks?: SurfaceHooks;
  now?: () => number;
}

export class Repl {
  private readonly o: ReplOptions;
  private readonly s: Style;
  private readonly session: Session;
  private readonly screen: Screen;
  private readonly input = new EditBuffer();
  private menu: Menu | null = null;
  private menuDismissedFor: string | null = null;
  private readonly requests: RequestPanel;
  private phase: Phase = 'idle';
  private phaseLabel = '';
  private phaseStarted = 0;
  private verb = VERBS[0];
  private verbIndex = 0;
  private tick = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly tools = new Map<string, { name: string; args: Record<string, unknown>; emoji?: string; started: number; progress?: string }>();
  private md: MarkdownStream;
  private reasoning: MarkdownStream;
  private inReasoning = false;
  /** Answer text is arriving in the current model call. */
  private writing = false;
  private lastShownTool = '';
  private pending: string[] = [];
  private renderQueued = false;
  private lastCtrlC = 0;
  private hint: { text: string; until: number } | null = null;
  /** Input that waits for the current shell command or command to finish. */
  private waiting: string[] = [];
  /** Prompts to send once the interrupted turn has ended (busy mode `interrupt`). */
  private afterInterrupt: string[] = [];
  /** Queued prompts to echo when their turn starts. */
  private echoQueue: string[] = [];
  private search: { query: string; index: number; entry: string | null; saved: string } | null = null;
  private shellAbort: AbortController | null = null;
  private firstPrefix: string | undefined;
  private quitting = false;
  /** Another program has the terminal (an editor, or the shell after Ctrl+Z): draw nothing. */
  private suspended = false;
  private resolveDone: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private offResize: (() => void) | null = null;

  constructor(o: ReplOptions) {
    this.o = o;
    this.s = o.style;
    this.session = o.session;
    this.screen = new Screen(o.term.output);
    this.md = this.newMarkdown(this.markdownMode());
    this.reasoning = this.newMarkdown('raw');
    this.firstPrefix = o.firstMessagePrefix;
    this.requests = new RequestPanel({
      style: o.style,
      home: o.home,
      now: () => this.now(),
      timeoutMs: () => Number(this.session.options.config.approvals?.timeout ?? 300) * 1000,
      answer: (id, value) => this.session.answer(id, value),
      commit: (lines) => this.commit(lines),
      changed: () => this.updateTimer(),
    });
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private markdownMode(): MarkdownMode {
    const m = (this.session.options.config.display as Record<string, unknown>)?.final_response_markdown;
    return m === 'strip' || m === 'raw' ? m : 'render';
  }

  private newMarkdown(mode: MarkdownMode): MarkdownStream {
    return new MarkdownStream({ mode, style: this.s, width: () => this.screen.cols });
  }

  /** Runs until the person quits. */
  run(): Promise<void> {
    const done = new Promise<void>((r) => (this.resolveDone = r));
    this.unsubscribe = this.session.on((e) => this.onEvent(e));
    this.offResize = this.o.term.onResize(() => this.render());
    this.o.term.start((keys) => {
      for (const k of keys) this.onKey(k);
      this.render();
    });
    this.commit(this.o.intro ?? []);
    this.render();
    return done;
  }

  /** Stops input and rendering; the terminal is restored by the caller. */
  private finish(lines: string[]): void {
    this.stopTimer();
    this.unsubscribe?.();
    this.offResize?.();
    this.screen.update([...this.pending, ...lines], null);
    this.pending = [];
    this.resolveDone?.();
  }

  // ---------------------------------------------------------------------------------------------
  // Output

  private commit(lines: string | string[]): void {
    const list = typeof lines === 'string' ? lines.split('\n') : lines.flatMap((l) => l.split('\n'));
    this.pending.push(...list);
    this.scheduleRender();
  }

  private scheduleRender(): void {
    if (this.renderQueued || this.quitting) return;
    this.renderQueued = true;
    setImmediate(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  private render(): void {
    if (this.quitting || this.suspended) return;
    const lines = this.pending;
    this.pending = [];
    this.screen.update(lines, this.frame());
  }

  private get busy(): boolean {
    return this.phase !== 'idle';
  }

  private promptText(): string {
    return this.busy ? `${this.s.gold('⚕')} ${this.s.bold(this.s.cyan('❯ '))}` : `${this.s.bold(this.s.cyan('❯ '))}`;
  }

  private frame(): Frame {
    const s = this.s;
    const cols = this.screen.cols;
    const rows = this.o.term.rows;
    // The bottom part first (spinner, request or input, menu, hint); the text still arriving gets the
    // rows left, so the whole region always fits on the screen.
    const bottom: string[] = [];
    if (this.busy || this.requests.size) bottom.push(this.spinnerLine());
    let cursor = { line: 0, col: 0 };
    const r0 = this.requests.lines(cols);
    if (r0) {
      const r = r0;
      cursor = { line: bottom.length + r.cursor.line, col: r.cursor.col };
      bottom.push(...r.lines);
    } else if (this.search) {
      const q = this.search;
      const label = `(reverse-i-search)'${q.query}': `;
      const shown = q.entry === null ? (q.query ? s.red('no match') : '') : truncate(q.entry.replace(/\n/g, ' ↵ '), cols - stringWidth(label) - 1);
      cursor = { line: bottom.length, col: stringWidth(label) };
      bottom.push(s.dim(label) + shown);
    } else {
      const r = this.inputLines(cols, rows);
      cursor = { line: bottom.length + r.cursor.line, col: r.cursor.col };
      bottom.push(...r.lines);
      if (this.menu) {
        const used = bottom.reduce((a, l) => a + Math.max(1, Math.ceil(stringWidth(l) / cols)), 0);
        bottom.push(...this.menuLines(cols).slice(0, Math.max(1, rows - used - 2)));
      }
    }
    if (this.hint && this.hint.until > this.now()) bottom.push(s.dim(this.hint.text));
    else this.hint = null;

    // Text still arriving: the reasoning and answer lines not yet complete.
    const pend: string[] = [];
    if (this.inReasoning) for (const l of this.reasoning.pendingLines()) pend.push(s.dim(s.italic(`  ${l}`)));
    pend.push(...this.md.pendingLines());
    const used = bottom.reduce((a, l) => a + Math.max(1, Math.ceil(stringWidth(l) / cols)), 0);
    const top = pend.length ? fitTail(pend, Math.max(1, rows - used - 1), cols) : [];
    return { lines: [...top, ...bottom], cursor: { line: top.length + cursor.line, col: cursor.col } };
  }

  private spinnerLine(): string {
    const s = this.s;
    const frame = s.cyan(SPINNER[this.tick % SPINNER.length]);
    const elapsed = this.phaseStarted ? ((this.now() - this.phaseStarted) / 1000).toFixed(1) + 's' : '';
    if (this.requests.size && this.phase !== 'shell') return `${s.yellow('◆')} ${s.dim('waiting for your answer')}`;
    let label: string;
    if (this.phase === 'shell' || this.phase === 'command') label = this.phaseLabel;
    else if (this.tools.size) {
      const list = [...this.tools.values()];
      const t = list[list.length - 1];
      const detail = t.progress ?? toolDetail(t.name, t.args, 50);
      label = `${toolEmoji(t.name, t.emoji)} ${t.name}${detail ? ` ${detail}` : ''}${list.length > 1 ? ` (+${list.length - 1} more)` : ''}`;
    } else label = this.writing ? 'writing…' : `${this.verb}…`;
    const tail = this.phase === 'turn' ? ' · Ctrl+C to interrupt' : this.phase === 'shell' ? ' · Ctrl+C to stop' : '';
    return truncateAnsi(`${frame} ${s.dim(`${label} ${elapsed}${tail}`)}`, this.screen.cols - 1);
  }

  private inputLines(cols: number, rows: number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.s;
    const prompt = this.promptText();
    const pw = stringWidth(prompt);
    const cont = ' '.repeat(Math.max(0, pw - 2)) + s.dim('┊ ');
    const text = this.input.text;
    const logical = text.split('\n');
    const before = text.slice(0, this.input.cursor).split('\n');
    const cursorLine = before.length - 1;
    const cursorCol = pw + stringWidth(before[cursorLine]);
    let shown = logical.map((l, i) => (i === 0 ? prompt : cont) + l);
    // Dim suggestion from history after the cursor.
    if (this.input.atEnd && !this.menu && logical.length === 1 && text && !this.o.history.navigating) {
      const sug = this.o.history.suggest(text);
      if (sug) shown[0] += s.dim(sug.slice(text.length));
    }
    // A window around the cursor when the input is taller than the screen allows.
    const maxLines = Math.max(3, rows - 6);
    let first = 0;
    if (shown.length > maxLines) {
      first = Math.max(0, Math.min(cursorLine - Math.floor(maxLines / 2), shown.length - maxLines));
      const last = first + maxLines;
      const above = first;
      const below = shown.length - last;
      shown = shown.slice(first, last);
      if (above) shown[0] = `${cont}${s.dim(`… ${above} more line(s) above`)}`;
      if (below) shown[shown.length - 1] = `${cont}${s.dim(`… ${below} more line(s) below`)}`;
    }
    void cols;
    return { lines: shown, cursor: { line: cursorLine - first, col: cursorCol } };
  }

  private menuLines(cols: number): string[] {
    const m = this.menu!;
    const s = this.s;
    const n = m.items.length;
    const start = Math.max(0, Math.min(m.selected - Math.floor(MAX_MENU_ROWS / 2), n - MAX_MENU_ROWS));
    const visible = m.items.slice(start, start + MAX_MENU_ROWS);
    const labelW = Math.min(32, Math.max(...visible.map((i) => stringWidth(i.label))));
    const out = visible.map((it, k) => {
      const i = start + k;
      const label = it.label + ' '.repeat(Math.max(0, labelW - stringWidth(it.label)));
      const line = `  ${i === m.selected ? s.inverse(` ${label} `) : ` ${label} `}  ${s.dim(it.hint)}`;
      return truncateAnsi(line, cols - 1);
    });
    if (n > MAX_MENU_ROWS) out.push(s.dim(`   ${m.selected + 1}/${n} · ↑↓ move · Tab accept · Esc close`));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Busy state and the spinner

  private setPhase(phase: Phase, label = ''): void {
    // The interrupt hint is about the running turn: it goes when the turn has stopped.
    if (phase === 'idle' && this.hint?.text === INTERRUPTING) this.hint = null;
    this.phase = phase;
    this.phaseLabel = label;
    this.phaseStarted = phase === 'idle' ? 0 : this.now();
    if (phase === 'turn') {
      this.writing = false;
      this.verbIndex = (this.verbIndex + 1) % VERBS.length;
      this.verb = VERBS[this.verbIndex];
    }
    this.updateTimer();
  }

  private updateTimer(): void {
    const need = this.busy || this.requests.size > 0;
    if (need && !this.timer) {
      this.timer = setInterval(() => {
        this.tick++;
        this.render();
      }, 100);
      this.timer.unref();
    } else if (!need) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private showHint(text: string, ms = DOUBLE_PRESS_MS): void {
    this.hint = { text, until: this.now() + ms };
    setTimeout(() => this.scheduleRender(), ms + 10).unref();
  }

  // ---------------------------------------------------------------------------------------------
  // Session events

  private endReasoning(): void {
    if (!this.inReasoning) return;
    this.inReasoning = false;
    this.commit(this.reasoning.end().map((l) => this.s.dim(this.s.italic(`  ${l}`))));
  }

  private flushText(): void {
    this.endReasoning();
    this.commit(this.md.flush());
  }

  private onEvent(e: AgentEvent): void {
    const s = this.s;
    switch (e.type) {
      case 'turn_start': {
        const text = e.userMessage ? messageText(e.userMessage.content) : '';
        if (this.echoQueue.length && text === this.echoQueue[0]) {
          this.echoQueue.shift();
          this.commit(this.echoLines(text, s.dim(' (queued)')));
        }
        break;
      }
      case 'api_start':
        this.writing = false;
        if (e.iteration > 1) {
          this.verbIndex = (this.verbIndex + 1) % VERBS.length;
          this.verb = VERBS[this.verbIndex];
        }
        break;
      case 'text_delta':
        this.writing = true;
        this.endReasoning();
        this.commit(this.md.push(e.text));
        break;
      case 'reasoning_delta':
        if (!this.session.prefs.showReasoning) break;
        if (!this.inReasoning) {
          this.inReasoning = true;
          this.commit(s.dim('💭 Reasoning'));
        }
        this.commit(this.reasoning.push(e.text).map((l) => s.dim(s.italic(`  ${l}`))));
        break;
      case 'tool_start':
        this.writing = false;
        this.flushText();
        this.tools.set(e.callId, { name: e.name, args: e.args, emoji: e.emoji, started: this.now() });
        break;
      case 'tool_progress': {
        const t = this.tools.get(e.callId);
        if (t) t.progress = e.text.replace(/\s+/g, ' ').slice(0, 80);
        break;
      }
      case 'tool_end':
        this.toolEnded(e);
        break;
      case 'request':
        this.flushText();
        this.requests.open(e.id, e.request);
        this.o.term.write('\x07');
        break;
      case 'request_resolved':
        this.requests.resolved(e.id, e.source);
        break;
      case 'retry':
        this.flushText();
        this.commit(s.yellow(`↻ ${e.error.provider}: ${e.error.message} — retrying in ${(e.delayMs / 1000).toFixed(1)}s (${e.attempt}/${e.maxAttempts})`));
        break;
      case 'fallback':
        this.flushText();
        this.commit(s.yellow(`⇄ switching from ${e.from} to fallback ${e.to}: ${e.reason}`));
        break;
      case 'key_rotated':
        this.commit(s.dim(`⇄ ${e.provider}: next API key (${e.reason})`));
        break;
      case 'warning':
        this.flushText();
        this.commit(s.yellow(`⚠ ${e.message}`));
        break;
      case 'notice':
        this.commit(s.dim(e.message));
        break;
      default:
        break;
    }
    this.scheduleRender();
  }

  private toolEnded(e: Extract<AgentEvent, { type: 'tool_end' }>): void {
    const s = this.s;
    const t = this.tools.get(e.callId);
    this.tools.delete(e.callId);
    const args = t?.args ?? {};
    const mode = this.session.prefs.toolProgress;
    if (mode === 'off') return;
    if (mode === 'new' && e.name === this.lastShownTool) return;
    this.lastShownTool = e.name;
    const line = activityLine(e.name, args, e.durationMs, { emoji: t?.emoji, failed: e.isError });
    this.commit(e.isError ? s.red(line) : s.gray(line));
    if (mode === 'verbose') {
      const a = JSON.stringify(args);
      this.commit(s.dim(`    args: ${a.length > 400 ? `${a.slice(0, 399)}…` : a}`));
      const result = e.content.split('\n');
      for (const l of result.slice(0, 8)) this.commit(s.dim(`    │ ${truncate(l, this.screen.cols - 8)}`));
      if (result.length > 8) this.commit(s.dim(`    │ … ${result.length - 8} more line(s)`));
    }
    const diff = (e.display as { diff?: unknown } | undefined)?.diff;
    const inline = (this.session.options.config.display as Record<string, unknown>)?.inline_diffs !== false;
    if (typeof diff === 'string' && diff && inline) this.commit(this.diffLines(diff));
  }

  private diffLines(diff: string): string[] {
    const s = this.s;
    const lines = diff.replace(/\n$/, '').split('\n');
    const max = 40;
    const out = lines.slice(0, max).map((l) => {
      const t = `    ${l}`;
      if (l.startsWith('+++') || l.startsWith('---')) return s.dim(t);
      if (l.startsWith('+')) return s.green(t);
      if (l.startsWith('-')) return s.red(t);
      if (l.startsWith('@@')) return s.cyan(t);
      return s.dim(t);
    });
    if (lines.length > max) out.push(s.dim(`    … ${lines.length - max} more diff line(s)`));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Keys

  private onKey(k: Key): void {
    if (this.quitting) return;
    if (k.name === 'focus' || k.name === 'unknown') return;
    if (this.requests.size) {
      this.requests.key(k);
      return;
    }
    if (this.search) {
      this.searchKey(k);
      return;
    }
    this.editKey(k);
  }

  /** A line of news from outside the conversation (an MCP server connected or failed). */
  notice(text: string): void {
    this.commit(this.s.dim(text));
  }

  /** Background work reported back (a process ended, a subagent finished): it becomes the next turn when idle. */
  backgroundNotice(): void {
    if (this.phase === 'idle' && !this.quitting) void this.drain();
  }

  /** SIGINT from outside (`kill -INT`): what Ctrl+C does. */
  interruptSignal(): void {
    if (this.quitting) return;
    if (this.requests.size) this.requests.key({ name: 'ctrl', text: 'c', ctrl: true, seq: '\x03' });
    else this.ctrlC();
    this.render();
  }

  private ctrlC(): void {
    const now = this.now();
    const double = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (this.phase === 'turn') {
      if (double) return this.quit();
      this.afterInterrupt = [];
      this.session.interrupt();
      this.showHint(INTERRUPTING);
      return;
    }
    if (this.phase === 'shell') {
      if (double) return this.quit();
      this.shellAbort?.abort();
      return;
    }
    if (!this.input.empty) {
      this.input.clear();
      this.menu = null;
      this.o.history.reset();
      return;
    }
    if (double) return this.quit();
    this.showHint('(Press Ctrl+C again or Ctrl+D to quit)');
  }

  private editKey(k: Key): void {
    const b = this.input;
    const hist = this.o.history;
    let edited = false;
    switch (k.name) {
      case 'text':
        b.insert(k.text ?? '');
        edited = true;
        break;
      case 'paste': {
        const text = k.text ?? '';
        if (lineCount(text) >= PASTE_MIN_LINES) {
          try {
            const { reference } = savePaste(this.o.home, text);
            b.insert(reference);
          } catch (e) {
            b.insert(text);
            this.commit(this.s.yellow(`⚠ Could not save the paste under ${paths.pastes(this.o.home)}: ${(e as Error).message}`));
          }
        } else b.insert(text);
        edited = true;
        break;
      }
      case 'enter': {
        // A picker's menu (/model …) takes Enter for its highlighted choice, unless the typed text is one.
        const pick = this.menu?.pick && !this.menu.items.some((i) => this.input.text.slice(this.menu!.from) === i.value);
        if (this.menu && (this.menu.explicit || pick)) {
          this.acceptCompletion(true);
          break;
        }
        const line = b.text.slice(b.lineBounds().start, b.cursor);
        if (b.atEnd && line.endsWith('\\') && !line.endsWith('\\\\')) {
          b.backspace();
          b.insert('\n');
          edited = true;
          break;
        }
        this.submit();
        return;
      }
      case 'newline':
        b.insert('\n');
        edited = true;
        break;
      case 'tab':
        if (this.menu) this.acceptCompletion(false);
        else {
          this.menuDismissedFor = null;
          this.refreshMenu(true);
        }
        return;
      case 'backtab':
        if (this.menu) this.moveMenu(-1);
        return;
      case 'up':
        if (this.menu) return this.moveMenu(-1);
        if (b.up()) return;
        this.historyPrev();
        return;
      case 'down':
        if (this.menu) return this.moveMenu(1);
        if (b.down()) return;
        this.historyNext();
        return;
      case 'left':
        if (k.ctrl || k.meta) b.wordLeft();
        else b.left();
        break;
      case 'right':
        if (b.atEnd) {
          this.acceptSuggestion();
          edited = true;
          break;
        }
        if (k.ctrl || k.meta) b.wordRight();
        else b.right();
        break;
      case 'home':
        b.home();
        break;
      case 'end':
        if (b.atEnd) {
          this.acceptSuggestion();
          edited = true;
        } else b.end();
        break;
      case 'backspace':
        if (k.meta || k.ctrl) b.deleteWordBack();
        else b.backspace();
        edited = true;
        break;
      case 'delete':
        b.deleteForward();
        edited = true;
        break;
      case 'escape':
        if (this.menu) {
          this.menu = null;
          this.menuDismissedFor = b.text;
        }
        return;
      case 'meta':
        switch (k.text) {
          case 'b':
            b.wordLeft();
            break;
          case 'f':
            b.wordRight();
            break;
          case 'd':
            b.deleteWordForward();
            edited = true;
            break;
          default:
            break;
        }
        break;
      case 'ctrl':
        switch (k.text) {
          case 'c':
            this.ctrlC();
            return;
          case 'd':
            if (b.empty) return this.quit();
            b.deleteForward();
            edited = true;
            break;
          case 'a':
            b.home();
            break;
          case 'e':
            if (b.atEnd) {
              this.acceptSuggestion();
              edited = true;
            } else b.end();
            break;
          case 'b':
            b.left();
            break;
          case 'f':
            b.right();
            break;
          case 'k':
            b.killToEnd();
            edited = true;
            break;
          case 'u':
            b.killToStart();
            edited = true;
            break;
          case 'w':
            b.deleteWordBack();
            edited = true;
            break;
          case 'y':
            b.yank();
            edited = true;
            break;
          case 't':
            b.transpose();
            edited = true;
            break;
          case 'p':
            if (!b.up()) this.historyPrev();
            return;
          case 'n':
            if (!b.down()) this.historyNext();
            return;
          case 'l':
            this.o.term.write('\x1b[H\x1b[2J');
            this.screen.forget();
            return;
          case 'r':
            this.search = { query: '', index: hist.entries.length, entry: null, saved: b.text };
            this.menu = null;
            return;
          case 'g':
            void this.externalEditor();
            return;
          case 'z':
            this.screen.clear();
            this.suspended = true;
            this.o.term.suspend(() => {
              this.suspended = false;
              this.screen.forget();
              this.render();
            });
            return;
          default:
            return;
        }
        break;
      default:
        return;
    }
    if (edited) {
      hist.reset();
      this.refreshMenu(false);
    }
  }

  private historyPrev(): void {
    const e = this.o.history.prev(this.input.text);
    if (e !== null) this.input.set(e);
    this.menu = null;
  }

  private historyNext(): void {
    const e = this.o.history.next();
    if (e !== null) this.input.set(e);
    this.menu = null;
  }

  private acceptSuggestion(): void {
    const text = this.input.text;
    if (this.menu || this.o.history.navigating) return;
    const sug = this.o.history.suggest(text);
    if (sug) this.input.set(sug);
  }

  private refreshMenu(force: boolean): void {
    const text = this.input.text;
    if (!force && (this.menuDismissedFor === text || !this.input.atEnd)) {
      this.menu = null;
      return;
    }
    const c = text.startsWith('/') ? slashCompletions(this.o.registry, 'cli', text, { session: this.session, surface: 'cli', hooks: this.o.hooks ?? {} }) : null;
    if (!c) {
      this.menu = null;
      return;
    }
    // Keep the highlighted item when it is still offered.
    const prev = this.menu?.items[this.menu.selected]?.value;
    const keep = prev ? c.items.findIndex((i) => i.value === prev) : -1;
    this.menu = { ...c, selected: keep >= 0 ? keep : 0, explicit: keep >= 0 ? !!this.menu?.explicit : false };
  }

  private moveMenu(d: number): void {
    const m = this.menu!;
    m.selected = (m.selected + d + m.items.length) % m.items.length;
    m.explicit = true;
  }

  private acceptCompletion(submitIfComplete: boolean): void {
    const m = this.menu;
    if (!m) return;
    const item = m.items[m.selected] ?? m.items[0];
    const text = this.input.text.slice(0, m.from) + item.value;
    this.input.set(text);
    this.menu = null;
    this.menuDismissedFor = null;
    if (submitIfComplete && !text.endsWith(' ')) {
      this.submit();
      return;
    }
    this.refreshMenu(false);
  }

  private searchKey(k: Key): void {
    const q = this.search!;
    const hist = this.o.history;
    const find = (before: number) => {
      const r = hist.search(q.query, before);
      q.entry = r?.entry ?? null;
      q.index = r?.index ?? q.index;
    };
    if (k.name === 'text' || k.name === 'paste') {
      q.query += k.text ?? '';
      find(hist.entries.length);
    } else if (k.name === 'backspace') {
      q.query = q.query.slice(0, -1);
      find(hist.entries.length);
    } else if (k.name === 'ctrl' && k.text === 'r') {
      if (q.entry !== null) find(q.index);
    } else if (k.name === 'escape' || (k.name === 'ctrl' && (k.text === 'g' || k.text === 'c'))) {
      this.input.set(q.saved);
      this.search = null;
    } else if (k.name === 'enter') {
      this.search = null;
      if (q.entry !== null) {
        this.input.set(q.entry);
        this.submit();
      }
    } else {
      // Any other key takes the match into the editor and acts there.
      this.search = null;
      if (q.entry !== null) this.input.set(q.entry);
      this.editKey(k);
    }
  }

  private async externalEditor(): Promise<void> {
    const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
    const dir = mkdtempSync(join(tmpdir(), 'hermes-edit-'));
    const file = join(dir, 'prompt.md');
    writeFileSync(file, this.input.text, { mode: 0o600 });
    this.screen.clear();
    this.suspended = true;
    try {
      const r = await this.o.term.cooked(() => spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true }));
      if (r.status === 0) this.input.set(readFileSync(file, 'utf8').replace(/\n+$/, ''));
      else this.commit(this.s.yellow(`⚠ The editor (${editor}) exited with status ${r.status}; the input is unchanged.`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      this.suspended = false;
      this.screen.forget();
      this.render();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Submitting

  private echoLines(text: string, suffix = ''): string[] {
    const prompt = `${this.s.bold(this.s.cyan('❯ '))}`;
    const lines = text.split('\n');
    return lines.map((l, i) => (i === 0 ? prompt : '  ') + l + (i === lines.length - 1 ? suffix : ''));
  }

  private submit(): void {
    const raw = this.input.text;
    this.menu = null;
    this.menuDismissedFor = null;
    if (!raw.trim()) {
      this.input.clear();
      return;
    }
    this.o.history.add(raw);
    this.input.clear();
    this.commit(this.echoLines(raw));
    void this.dispatch(raw);
  }

  private async dispatch(raw: string): Promise<void> {
    const text = raw.trim();
    if (this.phase === 'shell' || this.phase === 'command') {
      this.waiting.push(raw);
      this.commit(this.s.dim(`⏳ waiting for ${this.phaseLabel || 'the running command'} to finish`));
      return;
    }
    if (text.startsWith('/') && this.isCommand(text)) {
      await this.runSlash(text);
      return;
    }
    if (text.startsWith('!')) {
      if (this.phase === 'turn') {
        this.waiting.push(raw);
        this.commit(this.s.dim('⏳ the shell command runs when the agent is done'));
        return;
      }
      await this.runShell(text.slice(1).trim());
      return;
    }
    if (this.phase === 'turn') {
      this.busyInput(raw);
      return;
    }
    await this.runTurn(raw);
  }

  /** A leading `/` that names no command but looks like a path (`/etc/hosts is broken`) is a message. */
  private isCommand(text: string): boolean {
    const r = this.o.registry.resolve(text, 'cli');
    if (!('error' in r)) return true;
    const first = text.split(/\s/)[0];
    return !first.slice(1).includes('/');
  }

  private busyInput(raw: string): void {
    const s = this.s;
    const mode = this.session.prefs.busyInputMode;
    const text = expandPastes(raw, this.o.home);
    if (mode === 'queue') {
      this.session.queue(text);
      this.echoQueue.push(text);
      this.commit(s.dim(`⏳ queued (${this.session.queuedPrompts.length} waiting) — sent when the agent finishes · /busy to change`));
    } else if (mode === 'steer') {
      this.session.steer(text);
      this.commit(s.dim('↳ steering: the agent sees this after its next tool call · /busy to change'));
    } else {
      this.afterInterrupt.push(text);
      this.session.interrupt();
      this.commit(s.dim('⏹ interrupting — your message goes next · /busy to change'));
    }
  }

  private async runTurn(raw: string, notice = false): Promise<void> {
    let text = notice ? raw : expandPastes(raw, this.o.home);
    if (this.firstPrefix && !notice) {
      text = `${this.firstPrefix}\n\nUser instruction: ${text}`;
      this.firstPrefix = undefined;
    }
    this.setPhase('turn');
    const started = this.now();
    let result: TurnResult | null = null;
    try {
      result = await this.session.prompt(text);
    } catch (e) {
      this.commit(this.s.red(`✗ ${(e as Error).message}`));
    }
    this.flushText();
    this.commit(this.md.end());
    this.md = this.newMarkdown(this.markdownMode());
    this.tools.clear();
    this.setPhase('idle');
    if (result) this.reportResult(result, this.now() - started);
    this.scheduleRender();
    await this.drain();
  }

  private reportResult(r: TurnResult, ms: number): void {
    const s = this.s;
    if ((this.session.options.config.display as Record<string, unknown>)?.show_cost === true && r.apiCalls > 0) {
      const u = r.usage;
      const cost = r.costUsd === null ? 'cost unknown' : `$${r.costUsd < 0.01 ? r.costUsd.toFixed(4) : r.costUsd.toFixed(2)}`;
      this.commit(s.dim(`${(ms / 1000).toFixed(1)}s · ${(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens).toLocaleString('en-US')} in · ${u.output_tokens.toLocaleString('en-US')} out · ${cost}`));
    }
    if (r.interrupted) this.commit(s.yellow('⏹ Interrupted.'));
    else if (r.failed) {
      const e = r.error;
      const msg = e && 'provider' in e ? describeError(e, this.session.runtime) : (e?.message ?? 'The turn failed.');
      this.commit(s.red(`✗ ${msg}`));
    } else if (!r.finalText && !r.messages.some((m) => m.role === 'assistant' && messageText(m.content))) {
      this.commit(s.dim('(no answer)'));
    }
    this.commit('');
  }

  /** Sends what waited for the previous turn, shell command or command. */
  private async drain(): Promise<void> {
    while (this.phase === 'idle' && !this.quitting) {
      const next = this.afterInterrupt.shift();
      if (next !== undefined) {
        await this.runTurn(next);
        continue;
      }
      const w = this.waiting.shift();
      if (w !== undefined) {
        await this.dispatch(w);
        continue;
      }
      const notes = this.session.inbox.take();
      if (!notes.length) return;
      this.commit(this.s.cyan(notes.map((n) => `🔔 ${n.title}`).join('\n')));
      await this.runTurn(composeNotices(notes), true);
    }
  }

  private async runSlash(text: string): Promise<void> {
    const s = this.s;
    const name = text.split(/\s/)[0];
    const wasIdle = this.phase === 'idle';
    let timer: NodeJS.Timeout | null = null;
    if (wasIdle) timer = setTimeout(() => this.setPhase('command', `${name}…`), 150);
    let r: CommandResult | null;
    try {
      r = await runCommand(this.o.registry, text, { session: this.session, surface: 'cli', hooks: this.o.hooks ?? {} });
    } finally {
      if (timer) clearTimeout(timer);
      if (this.phase === 'command') this.setPhase('idle');
    }
    if (!r) return;
    if (r.action === 'clear_screen') {
      this.o.term.write('\x1b[H\x1b[2J\x1b[3J');
      this.screen.forget();
      this.pending = [];
    }
    if (r.output) this.commit(wrapWords(r.output, this.screen.cols));
    if (/^\/(help|\?)$/i.test(text.trim())) this.commit(KEY_HELP.map((l) => s.dim(l)));
    if (r.input !== undefined && this.input.empty) {
      // A picker: the command's choices open as the menu under the input line.
      this.input.set(r.input);
      this.refreshMenu(true);
    }
    switch (r.action) {
      case 'quit':
        this.quit();
        return;
      case 'new_session':
        this.md = this.newMarkdown(this.markdownMode());
        this.lastShownTool = '';
        this.echoQueue = [];
        if (this.session.history.length) this.commit(this.recap());
        break;
      default:
        break;
    }
    if (r.send) {
      if (this.phase === 'turn') {
        this.session.queue(r.send);
        this.commit(s.dim('⏳ queued — sent when the agent finishes'));
      } else await this.runTurn(r.send);
      return;
    }
    if (wasIdle) await this.drain();
  }

  /** The last exchanges of a resumed conversation. */
  recap(): string[] {
    return recapLines(this.session.history, this.s);
  }

  private async runShell(command: string): Promise<void> {
    const s = this.s;
    if (!command) {
      this.commit(s.dim('Usage: !<command> runs a shell command where the agent’s terminal runs (no model call; approvals apply).'));
      return;
    }
    const def = this.session.registry.get('terminal');
    if (!def) {
      this.commit(s.red('✗ The terminal tool is not available in this build.'));
      return;
    }
    const tool = this.session.registry.bind(def, this.session.services);
    const ac = new AbortController();
    this.shellAbort = ac;
    this.setPhase('shell', `$ ${truncate(command, 50)}`);
    const ctx: ToolCallContext = {
      callId: `shell_${this.now()}`,
      signal: ac.signal,
      ask: (req) => this.session.broker.ask(req, ac.signal),
      progress: () => {},
    };
    try {
      const out = await tool.execute({ command }, ctx);
      let parsed: { output?: string; exit_code?: number; error?: string } = {};
      try {
        parsed = JSON.parse(out.content) as typeof parsed;
      } catch {
        parsed = { output: out.content };
      }
      const text = (parsed.output ?? '').replace(/\n+$/, '');
      if (text) this.commit(text.split('\n'));
      if (parsed.error) this.commit(s.red(`! ${parsed.error}`));
      else if (typeof parsed.exit_code === 'number' && parsed.exit_code !== 0) this.commit(s.yellow(`! exited ${parsed.exit_code}`));
      if (ac.signal.aborted) this.commit(s.yellow('⏹ Stopped.'));
    } catch (e) {
      this.commit(s.red(`✗ ${(e as Error).message}`));
    } finally {
      this.shellAbort = null;
      this.setPhase('idle');
    }
    await this.drain();
  }

  // ---------------------------------------------------------------------------------------------
  // Leaving

  quit(): void {
    if (this.quitting) return;
    this.flushText();
    this.commit(this.md.end());
    const s = this.s;
    const lines: string[] = [];
    const t = this.session.totals;
    if (t.turns > 0) {
      const tokens = t.usage.input_tokens + t.usage.output_tokens + t.usage.cache_read_tokens + t.usage.cache_write_tokens;
      const cost = t.costUsd === null ? '' : ` · $${t.costUsd < 0.01 ? t.costUsd.toFixed(4) : t.costUsd.toFixed(2)}`;
      lines.push(s.dim(`Session ${this.session.id} · ${t.turns} turn(s) · ${tokens.toLocaleString('en-US')} tokens${cost}`));
      if (this.session.options.store) lines.push(s.dim(`Resume it with: hermes --resume ${this.session.id}`));
    }
    lines.push(s.dim('Goodbye. ⚕'));
    this.quitting = true;
    this.finish(lines);
  }

  get stopped(): boolean {
    return this.quitting;
  }
}

/** The last exchanges of a conversation, one line each (shown when a session is resumed). */
export function recapLines(history: readonly Message[], s: Style, max = 4): string[] {
  const msgs = history.filter((m) => (m.role === 'user' || m.role === 'assistant') && messageText(m.content).trim()).slice(-max);
  return msgs.map((m) => {
    const t = messageText(m.content).trim().replace(/\s+/g, ' ');
    return s.dim(`  ${m.role === 'user' ? 'you' : 'hermes'}: ${t.length > 160 ? `${t.slice(0, 157)}…` : t}`);
  });
}

/** The last lines of `lines` that fit in `maxRows` rows (the first kept line cut from the left). */
export function fitTail(lines: string[], maxRows: number, cols: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const w = stringWidth(lines[i]);
    const rows = Math.max(1, Math.ceil(w / cols));
    if (used + rows <= maxRows) {
      out.unshift(lines[i]);
      used += rows;
      continue;
    }
    const room = maxRows - used;
    if (room > 0) {
      const plain = stripAnsi(lines[i]);
      const g = graphemes(plain);
      let tail = '';
      let tw = 0;
      for (let j = g.length - 1; j >= 0; j--) {
        const gw = stringWidth(g[j]);
        if (tw + gw > room * cols - 2) break;
        tail = g[j] + tail;
        tw += gw;
      }
      out.unshift(`…${tail}`);
    }
    break;
  }
  return out;
}

