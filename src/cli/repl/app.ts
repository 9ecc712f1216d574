// The interactive REPL: a line editor at the bottom of the terminal, the conversation scrolling
// above it. It renders the session's event stream (streamed Markdown, reasoning, one activity line
// per tool, retries, warnings), answers requests inline (approval, clarify, secrets), runs slash
// commands from the shared registry, `!cmd` shell escapes, and handles typing while the agent works
// according to the busy-input mode.

import { t } from '../../i18n/index.ts';
import { messageText } from '../../agent/repair.ts';
import type { AgentEvent, TurnResult } from '../../agent/types.ts';
import type { CommandRegistry, CommandResult, SurfaceHooks } from '../../commands/registry.ts';
import { contextLengthFor } from '../../llm/index.ts';
import type { Message } from '../../llm/types.ts';
import { describeEvent, describeLine, describeToolCall, eventLine, runningLine } from '../../session/describe.ts';
import type { Session } from '../../session/session.ts';
import { paths } from '../../state/paths.ts';
import { Composer } from './composer.ts';
import { menuLines } from './completion.ts';
import { editInEditor } from './editor.ts';
import { ChatDriver, DOUBLE_PRESS_MS, formatUsd, goodbyeLines, INTERRUPTING, paint, turnNotes, VERBS, type Phase, type Tone } from './driver.ts';
import type { History } from './history.ts';
import type { Key } from './keys.ts';
import { MarkdownStream, type MarkdownMode } from './markdown.ts';
import { openRequest, requestKey, resolvedNote, timeLeft, type OpenRequest } from './requests.ts';
import { Screen, type Frame } from './screen.ts';
import type { Style } from './style.ts';
import { indicatorFrames, type Skin } from '../../state/skins.ts';
import type { Terminal } from './term.ts';
import { cliVoiceState } from '../../media/voice.ts';
import type { PushToTalk } from './voice.ts';
import { fitTail, graphemes, stringWidth, truncate, truncateAnsi, wrapWords } from './width.ts';


export const KEY_HELP = [
  'Keys: Enter send · Alt+Enter / Ctrl+J new line (or end a line with \\) · Tab complete · ↑↓ history',
  '      Ctrl+C interrupt (twice quits) · Ctrl+D quit · Ctrl+R search history · Ctrl+G edit in $EDITOR',
  '      Ctrl+L clear · Ctrl+Z suspend · !cmd run a shell command · pastes of 5+ lines are saved to pastes/',
];


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
  /** display.skin and display.indicator_style (state/skins.ts); /skin and /indicator change them live. */
  skin?: Skin;
  indicator?: string;
}

export class Repl {
  private readonly o: ReplOptions;
  private readonly s: Style;
  private readonly session: Session;
  private readonly screen: Screen;
  private readonly composer: Composer;
  private requests: OpenRequest[] = [];
  private readonly driver: ChatDriver;
  private skin: Skin | undefined;
  private indicator: string;
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
  /** The answer of the current turn has started (its timestamp header was shown). */
  private answering = false;
  private lastShownTool = '';
  private pending: string[] = [];
  private renderQueued = false;
  private hint: { text: string; until: number } | null = null;
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
    this.skin = o.skin;
    this.indicator = o.indicator ?? 'unicode';
    this.screen = new Screen(o.term.output);
    this.md = this.newMarkdown(this.markdownMode());
    this.reasoning = this.newMarkdown('raw');
    this.composer = new Composer({
      registry: o.registry,
      history: o.history,
      home: o.home,
      context: () => ({ session: this.session, surface: 'cli', hooks: o.hooks ?? {} }),
    });
    this.driver = new ChatDriver({
      ...o,
      // Slash commands get $EDITOR (/prompt) the REPL's way; the clipboard comes with o.hooks.
      hooks: { ...o.hooks, compose: (initial) => this.editText(initial) },
      view: {
        echo: (text, queued) => this.commit(this.echoLines(text, queued ? this.s.dim(' (queued)') : '')),
        output: (text, tone) => this.commit(text.split('\n').map((l) => this.tone(l, tone))),
        phase: (phase) => this.phaseChanged(phase),
        turnEnded: (result, ms) => this.turnEnded(result, ms),
        commandDone: (text, r) => this.commandDone(text, r),
        quit: () => this.quit(),
      },
    });
  }

  private tone(line: string, tone: Tone): string {
    return paint(this.s, tone, line);
  }

  private get phase(): Phase {
    return this.driver.phase;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private markdownMode(): MarkdownMode {
    const m = this.session.settings.config.display?.final_response_markdown;
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
    this.driver.stop();
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

  /** /skin: redraw with another skin (prompt symbol and colours, spinner faces and verbs). */
  applySkin(skin: Skin): void {
    this.skin = skin;
    this.verbIndex = 0;
    this.verb = this.verbs()[0];
    this.scheduleRender();
  }

  /** /indicator: the spinner's frames. */
  applyIndicator(style: string): void {
    this.indicator = style;
    this.scheduleRender();
  }

  private verbs(): string[] {
    return this.skin?.spinner.thinking_verbs?.length ? this.skin.spinner.thinking_verbs : VERBS;
  }

  private nextVerb(): void {
    const v = this.verbs();
    this.verbIndex = (this.verbIndex + 1) % v.length;
    this.verb = v[this.verbIndex];
  }

  /** The input prompt: the skin's symbol in its prompt colour (cyan without a skin). */
  private promptSymbol(): string {
    const sym = `${this.skin?.branding.prompt_symbol ?? '❯'} `;
    const hex = this.skin?.colors.prompt;
    return this.s.bold(hex && this.skin?.name !== 'default' ? this.s.rgb(hex, sym) : this.s.cyan(sym));
  }

  private promptText(): string {
    return this.busy ? `${this.s.gold('⚕')} ${this.promptSymbol()}` : this.promptSymbol();
  }

  private frame(): Frame {
    const s = this.s;
    const cols = this.screen.cols;
    const rows = this.o.term.rows;
    // The bottom part first (spinner, request or input, menu, hint); the text still arriving gets the
    // rows left, so the whole region always fits on the screen.
    const bottom: string[] = [];
    if (this.busy || this.requests.length) bottom.push(this.spinnerLine());
    let cursor = { line: 0, col: 0 };
    const req = this.requests[0];
    if (req) {
      const r = this.requestLines(req, cols);
      cursor = { line: bottom.length + r.cursor.line, col: r.cursor.col };
      bottom.push(...r.lines);
    } else if (this.composer.search) {
      const q = this.composer.search;
      const label = `(reverse-i-search)'${q.query}': `;
      const shown = q.entry === null ? (q.query ? s.red('no match') : '') : truncate(q.entry.replace(/\n/g, ' ↵ '), cols - stringWidth(label) - 1);
      cursor = { line: bottom.length, col: stringWidth(label) };
      bottom.push(s.dim(label) + shown);
    } else {
      const r = this.inputLines(cols, rows);
      cursor = { line: bottom.length + r.cursor.line, col: r.cursor.col };
      bottom.push(...r.lines);
      if (this.composer.menu) {
        const used = bottom.reduce((a, l) => a + Math.max(1, Math.ceil(stringWidth(l) / cols)), 0);
        bottom.push(...menuLines(this.composer.menu, this.s, cols - 1).slice(0, Math.max(1, rows - used - 2)));
      }
    }
    if (this.hint && this.hint.until > this.now()) bottom.push(s.dim(this.hint.text));
    else this.hint = null;
    if (this.session.prefs.statusBar && !req) bottom.push(truncateAnsi(s.dim(this.statusBarText()), cols - 1));

    // Text still arriving: the reasoning and answer lines not yet complete.
    const pend: string[] = [];
    if (this.inReasoning) for (const l of this.reasoning.pendingLines()) pend.push(s.dim(s.italic(`  ${l}`)));
    pend.push(...this.md.pendingLines());
    const used = bottom.reduce((a, l) => a + Math.max(1, Math.ceil(stringWidth(l) / cols)), 0);
    const top = pend.length ? fitTail(pend, Math.max(1, rows - used - 1), cols) : [];
    return { lines: [...top, ...bottom], cursor: { line: top.length + cursor.line, col: cursor.col } };
  }

  /** The /statusbar line: model · context used · cost · service tier · attached images · session. */
  private statusBarText(): string {
    const ss = this.session;
    const rt = ss.runtime;
    const parts = [`${rt.model}`];
    const last = ss.lastResult?.usage;
    if (last) {
      const used = last.input_tokens + last.cache_read_tokens + last.cache_write_tokens;
      const window = contextLengthFor(rt.model, rt.contextLength ?? ss.settings.config.model.context_length ?? undefined);
      parts.push(`ctx ${Math.round((used / window) * 100)}%`);
    }
    if (ss.totals.costUsd !== null) parts.push(formatUsd(ss.totals.costUsd));
    if (ss.prefs.fast && ss.prefs.fast !== 'normal') parts.push(`tier ${ss.prefs.fast}`);
    if (ss.pendingImages.length) parts.push(`📎 ${ss.pendingImages.length}`);
    parts.push(ss.id);
    return `  ${parts.join(' · ')}`;
  }

  private spinnerLine(): string {
    const s = this.s;
    const frames = indicatorFrames(this.indicator, this.skin);
    const glyph = frames[this.tick % frames.length];
    const frame = this.skin?.colors.ui_accent && this.skin.name !== 'default' ? s.rgb(this.skin.colors.ui_accent, glyph) : s.cyan(glyph);
    const started = this.driver.phaseStarted;
    const elapsed = started ? ((this.now() - started) / 1000).toFixed(1) + 's' : '';
    if (this.requests.length && this.phase !== 'shell') return `${s.yellow('◆')} ${s.dim('waiting for your answer')}`;
    let label: string;
    if (this.phase === 'shell' || this.phase === 'command') label = this.driver.phaseLabel;
    else if (this.tools.size) {
      const list = [...this.tools.values()];
      const t = list[list.length - 1];
      label = `${runningLine(describeToolCall(t.name, t.args, { emoji: t.emoji, argMax: 50 }), t.progress)}${list.length > 1 ? ` (+${list.length - 1} more)` : ''}`;
    } else label = this.writing ? 'writing…' : `${this.verb}…`;
    const tail = this.phase === 'turn' ? ' · Ctrl+C to interrupt' : this.phase === 'shell' ? ' · Ctrl+C to stop' : '';
    return truncateAnsi(`${frame} ${s.dim(`${label} ${elapsed}${tail}`)}`, this.screen.cols - 1);
  }

  private inputLines(cols: number, rows: number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.s;
    const prompt = this.promptText();
    const pw = stringWidth(prompt);
    const cont = ' '.repeat(Math.max(0, pw - 2)) + s.dim('┊ ');
    const b = this.composer.buffer;
    const text = b.text;
    const logical = text.split('\n');
    const before = text.slice(0, b.cursor).split('\n');
    const cursorLine = before.length - 1;
    const cursorCol = pw + stringWidth(before[cursorLine]);
    let shown = logical.map((l, i) => (i === 0 ? prompt : cont) + l);
    // Dim suggestion from history after the cursor.
    const sug = this.composer.suggestion();
    if (sug) shown[0] += s.dim(sug);
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

  private remaining(req: OpenRequest): string {
    return timeLeft(this.session, req.at, this.now());
  }

  private requestLines(req: OpenRequest, cols: number): { lines: string[]; cursor: { line: number; col: number } } {
    const s = this.s;
    const r = req.request;
    const lines: string[] = [];
    const more = this.requests.length > 1 ? s.dim(` (+${this.requests.length - 1} more waiting)`) : '';
    if (r.kind === 'approval') {
      lines.push(`${s.yellow(`⚠️  ${t('approval.header')}`)} ${s.dim('—')} ${r.description}${more}`);
      const cmd = r.command.split('\n');
      for (const l of cmd.slice(0, 6)) lines.push(`    ${s.bold(truncate(l, cols - 6))}`);
      if (cmd.length > 6) lines.push(s.dim(`    … ${cmd.length - 6} more line(s)`));
      const choices = (['once', 'session', 'always', 'deny'] as const).map((c) => t(`approval.${c}`).replace(/\[.\]/, (k) => s.bold(k))).join('  ');
      const line = `${s.yellow('❯')} ${choices} ${s.dim(`· ${t('approval.enter_denies')} · ${this.remaining(req)}`)}`;
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
    const saves = r.name !== 'SUDO_PASSWORD' ? ` · saved to ${paths.env(this.o.home)}` : '';
    lines.push(s.dim(`   hidden input · Enter to submit · Esc to skip${saves} · ${this.remaining(req)}`));
    return { lines, cursor: { line: cursorLine, col: 2 + stringWidth(masked.slice(0, graphemes(req.input.text.slice(0, req.input.cursor)).length)) } };
  }

  // ---------------------------------------------------------------------------------------------
  // Busy state and the spinner

  private phaseChanged(phase: Phase): void {
    // The interrupt hint is about the running turn: it goes when the turn has stopped.
    if (phase === 'idle' && this.hint?.text === INTERRUPTING) this.hint = null;
    if (phase === 'turn') {
      this.writing = false;
      this.nextVerb();
    }
    this.updateTimer();
  }

  private updateTimer(): void {
    const need = this.busy || this.requests.length > 0;
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
      case 'turn_start':
        this.answering = false;
        break;
      case 'api_start':
        this.writing = false;
        if (e.iteration > 1) this.nextVerb();
        break;
      case 'text_delta':
        if (!this.answering) {
          this.answering = true;
          if (this.session.prefs.timestamps) this.commit(`${this.stamp()}${s.dim('hermes')}`);
        }
        this.writing = true;
        this.endReasoning();
        this.commit(this.md.push(e.text));
        break;
      case 'reasoning_delta':
        // /focus: only the prompt and the final answer.
        if (!this.session.prefs.showReasoning || this.session.prefs.focus) break;
        if (!this.inReasoning) {
          this.inReasoning = true;
          this.commit(s.dim(eventLine(e)));
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
        if (t) t.progress = describeEvent(e)?.arg;
        break;
      }
      case 'tool_end':
        this.toolEnded(e);
        break;
      case 'request':
        this.flushText();
        this.requests.push({ ...openRequest(e.id, e.request, this.now()), selected: -1 });
        this.updateTimer();
        this.o.term.write('\x07');
        break;
      case 'request_resolved': {
        const i = this.requests.findIndex((r) => r.id === e.id);
        if (i >= 0) {
          const r = this.requests[i];
          this.requests.splice(i, 1);
          const note = resolvedNote(r.request, e.source, e.answer);
          if (note) this.commit(this.tone(note.text, note.tone));
          this.updateTimer();
        }
        break;
      }
      case 'retract': {
        // The stream broke and is sent again: the line still being written is dropped; what already
        // went to the scrollback is marked as withdrawn (the transcript keeps only the final answer).
        const shown = this.writing || this.inReasoning;
        this.md = this.newMarkdown(this.markdownMode());
        this.reasoning = this.newMarkdown('raw');
        this.inReasoning = false;
        this.writing = false;
        if (shown) this.commit(s.dim(eventLine(e)));
        break;
      }
      case 'retry':
      case 'fallback':
      case 'warning':
        this.flushText();
        this.described(e);
        break;
      case 'key_rotated':
      case 'notice':
        this.described(e);
        break;
      default:
        break;
    }
    this.scheduleRender();
  }

  /** An event's line (the event describer's) in its tone. */
  private described(e: AgentEvent): void {
    const d = describeEvent(e);
    if (d) this.commit(this.tone(describeLine(d), d.tone));
  }

  private toolEnded(e: Extract<AgentEvent, { type: 'tool_end' }>): void {
    const s = this.s;
    const t = this.tools.get(e.callId);
    this.tools.delete(e.callId);
    const args = t?.args ?? {};
    const mode = this.session.prefs.toolProgress;
    if (mode === 'off' || this.session.prefs.focus) return;
    if (mode === 'new' && e.name === this.lastShownTool) return;
    this.lastShownTool = e.name;
    const line = eventLine(e, { call: { name: e.name, args, emoji: t?.emoji } });
    this.commit(e.isError ? s.red(line) : s.gray(line));
    if (mode === 'verbose') {
      const a = JSON.stringify(args);
      this.commit(s.dim(`    args: ${a.length > 400 ? `${a.slice(0, 399)}…` : a}`));
      const result = e.content.split('\n');
      for (const l of result.slice(0, 8)) this.commit(s.dim(`    │ ${truncate(l, this.screen.cols - 8)}`));
      if (result.length > 8) this.commit(s.dim(`    │ … ${result.length - 8} more line(s)`));
    }
    const diff = (e.display as { diff?: unknown } | undefined)?.diff;
    const inline = this.session.settings.config.display?.inline_diffs !== false;
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
    if (this.requests.length) {
      this.requestKey(this.requests[0], k);
      return;
    }
    // With /voice on, Ctrl+B (Hermes's voice.record_key) is push-to-talk instead of cursor-left.
    if (k.name === 'ctrl' && k.text === 'b' && cliVoiceState(this.session.services.slots).enabled) {
      void this.pushToTalk().then((p) => p.toggle());
      return;
    }
    this.editKey(k);
  }

  private ptt: PushToTalk | null = null;

  /** Voice input and spoken replies (loaded on first use). */
  private async pushToTalk(): Promise<PushToTalk> {
    if (!this.ptt) {
      const { PushToTalk } = await import('./voice.ts');
      this.ptt = new PushToTalk({
        session: this.session,
        style: this.s,
        commit: (line) => {
          this.commit(line);
          this.scheduleRender();
        },
        send: (text) => {
          this.commit(this.echoLines(text));
          void this.driver.dispatch(text);
        },
      });
    }
    return this.ptt;
  }

  /** A line of news from outside the conversation (an MCP server connected or failed). */
  notice(text: string): void {
    this.commit(this.s.dim(text));
  }

  /** Background work reported back: it becomes the next turn when idle. */
  backgroundNotice(): void {
    if (!this.quitting) this.driver.backgroundNotice();
  }

  /** SIGINT from outside (`kill -INT`): what Ctrl+C does. */
  interruptSignal(): void {
    if (this.quitting) return;
    if (this.requests.length) this.requestKey(this.requests[0], { name: 'ctrl', text: 'c', ctrl: true, seq: '\x03' });
    else this.ctrlC();
    this.render();
  }

  private ctrlC(): void {
    this.driver.handleCtrlC(this.composer.buffer.empty, { quit: () => this.quit(), hint: (t) => this.showHint(t), clearInput: () => this.composer.clear() });
  }


  private editKey(k: Key): void {
    const r = this.composer.onKey(k);
    if (r.kind === 'submit') {
      this.commit(this.echoLines(r.text));
      void this.driver.dispatch(r.text);
    } else if (r.kind === 'warn') this.commit(this.s.yellow(r.text));
    else if (r.kind === 'pass' && r.key.name === 'ctrl') {
      switch (r.key.text) {
        case 'c':
          this.ctrlC();
          return;
        case 'd':
          this.quit();
          return;
        case 'l':
          this.o.term.write('\x1b[H\x1b[2J');
          this.screen.forget();
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
    }
  }

  private async externalEditor(): Promise<void> {
    const text = await this.editText(this.composer.text);
    if (text !== null) this.composer.set(text);
    this.render();
  }

  /** $EDITOR on `initial` (Ctrl+G, /prompt): what was saved, or null (a warning is shown). */
  private async editText(initial: string): Promise<string | null> {
    this.screen.clear();
    this.suspended = true;
    try {
      const r = await editInEditor(initial, (fn) => this.o.term.cooked(fn));
      if ('text' in r) return r.text;
      this.commit(this.s.yellow(r.warning));
      return null;
    } finally {
      this.suspended = false;
      this.screen.forget();
      this.render();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  private answer(req: OpenRequest, value: unknown, summary: string): void {
    this.requests = this.requests.filter((r) => r !== req);
    this.session.answer(req.id, value);
    if (summary) this.commit(summary);
    this.updateTimer();
  }


  private requestKey(req: OpenRequest, k: Key): void {
    const a = requestKey(req, k, this.o.home);
    if (a) this.answer(req, a.value, this.tone(a.text, a.tone));
  }

  // ---------------------------------------------------------------------------------------------
  // Submitting

  /** `[HH:MM] ` before messages while /timestamps is on. */
  private stamp(): string {
    if (!this.session.prefs.timestamps) return '';
    const d = new Date(this.now());
    return this.s.dim(`[${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}] `);
  }

  private echoLines(text: string, suffix = ''): string[] {
    const prompt = `${this.stamp()}${this.promptSymbol()}`;
    const lines = text.split('\n');
    return lines.map((l, i) => (i === 0 ? prompt : '  ') + l + (i === lines.length - 1 ? suffix : ''));
  }

  private turnEnded(result: TurnResult | null, ms: number): void {
    this.flushText();
    this.commit(this.md.end());
    this.md = this.newMarkdown(this.markdownMode());
    this.tools.clear();
    if (result) {
      for (const n of turnNotes(this.session, result, ms)) this.commit(this.tone(n.text, n.tone));
      this.commit('');
      if (result.finalText && !result.interrupted && cliVoiceState(this.session.services.slots).tts) void this.pushToTalk().then((p) => p.reply(result.finalText));
    }
    this.scheduleRender();
  }

  private commandDone(text: string, r: CommandResult): void {
    if (r.action === 'clear_screen') {
      this.o.term.write('\x1b[H\x1b[2J\x1b[3J');
      this.screen.forget();
      this.pending = [];
    }
    if (r.action === 'redraw') {
      this.o.term.write('\x1b[H\x1b[2J');
      this.screen.forget();
    }
    if (r.output) this.commit(wrapWords(r.output, this.screen.cols));
    // /undo: the message taken back comes back into the input, to edit and send again.
    if (r.prefill !== undefined && !this.composer.text) this.composer.set(r.prefill);
    if (/^\/(help|\?)$/i.test(text.trim())) this.commit(KEY_HELP.map((l) => this.s.dim(l)));
    // A picker: the command's choices open as the menu under the input line.
    if (r.input !== undefined && this.composer.buffer.empty) this.composer.openPicker(r.input);
    if (r.action === 'new_session') {
      this.md = this.newMarkdown(this.markdownMode());
      this.lastShownTool = '';
      if (this.session.history.length) this.commit(this.recap());
    }
  }

  /** The last exchanges of a resumed conversation. */
  recap(): string[] {
    return recapLines(this.session.history, this.s);
  }

  // ---------------------------------------------------------------------------------------------
  // Leaving

  quit(): void {
    if (this.quitting) return;
    this.flushText();
    this.commit(this.md.end());
    const lines = goodbyeLines(this.session).map((l) => this.s.dim(l));
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
