// The TUI's state and behaviour, apart from drawing: it turns the session's event stream into the
// transcript, answers requests through modals, runs what the person types through the same
// ChatDriver as the REPL (slash commands, `!cmd`, busy-input modes, Ctrl+C), and keeps the view state
// (scrolling, the selected block, pickers). React components read it through `subscribe`/`version`.

import type { AgentEvent, TurnResult } from '../agent/types.ts';
import type { CommandRegistry, CommandResult, SurfaceHooks } from '../commands/registry.ts';
import { Composer } from '../cli/repl/composer.ts';
import { ChatDriver, goodbyeLines, INTERRUPTING, turnNotes, VERBS, type Phase, type Tone } from '../cli/repl/driver.ts';
import { editInEditor } from '../cli/repl/editor.ts';
import type { History } from '../cli/repl/history.ts';
import type { Key } from '../cli/repl/keys.ts';
import type { MarkdownMode } from '../cli/repl/markdown.ts';
import type { Style } from '../cli/repl/style.ts';
import { openRequest, requestKey, resolvedNote, type OpenRequest } from '../cli/repl/requests.ts';
import { promptTokens, emptyUsage, addUsage, type Usage } from '../llm/types.ts';
import type { Session } from '../session/session.ts';
import { describeEvent, describeLine, eventLine } from '../session/describe.ts';
import type { SessionStore } from '../state/store/index.ts';
import { MentionIndex } from './mentions.ts';
import { ModelPicker } from './pickers/models.ts';
import { SessionPicker } from './pickers/sessions.ts';
import { SkillsBrowser } from './pickers/skills.ts';
import type { TuiTheme } from './theme.ts';
import { entriesFromHistory, expandable, mdFactory, Transcript, type Entry, type MdText, type RenderContext } from './transcript.ts';
import { TUI_COMMANDS, tuiCommand } from './commands.ts';

export type Overlay = SessionPicker | ModelPicker | SkillsBrowser;

export interface TuiOptions {
  session: Session;
  registry: CommandRegistry;
  history: History;
  home: string;
  db: SessionStore | null;
  theme: TuiTheme;
  /** Full screen (alternate screen, own scrolling) or inline (copy-friendly: the transcript goes to the scrollback). */
  fullscreen: boolean;
  /** Mouse wheel and clicks (full screen only). */
  mouse: boolean;
  /** Lines shown first (the banner). */
  intro: string[];
  firstMessagePrefix?: string;
  hooks?: SurfaceHooks;
  /** Terminal size now. */
  size: () => { cols: number; rows: number };
  /** Raw terminal output (bell, mouse modes). */
  write: (s: string) => void;
  /** Runs `fn` with the terminal handed back (an editor); set by the app once it runs. */
  cooked?: <T>(fn: () => T) => Promise<T>;
  now?: () => number;
}

/** What the app drew last, for keys that depend on it (page size, clicks). */
export interface DrawnLayout {
  transcriptHeight: number;
  /** Entry id of each transcript row drawn (full screen). */
  owners: number[];
  /** The transcript's first line shown, and how many lines it has. */
  top: number;
  total: number;
  listRows: number;
}

export class TuiController {
  readonly o: TuiOptions;
  readonly session: Session;
  readonly style: Style;
  readonly transcript = new Transcript();
  readonly composer: Composer;
  readonly driver: ChatDriver;
  requests: OpenRequest[] = [];
  overlay: Overlay | null = null;
  /** First transcript line shown; null follows the end. */
  scrollTop: number | null = null;
  /** The highlighted block (a tool call or reasoning), for Enter / Ctrl+O. */
  selected: number | null = null;
  hint: { text: string; until: number } | null = null;
  tick = 0;
  verb = VERBS[0];
  writing = false;
  /** Tool blocks open by default (/details expanded, or tool progress `verbose`). */
  detailsOpen: boolean;
  mouse: boolean;
  quitting = false;
  /** Lines printed after the app is gone. */
  exitLines: string[] = [];
  /** Usage of the running turn (the status bar adds it to the session totals) and the last request's prompt size. */
  turnUsage: Usage = emptyUsage();
  turnCost: number | null = null;
  lastPromptTokens = 0;
  layout: DrawnLayout = { transcriptHeight: 10, owners: [], top: 0, total: 0, listRows: 10 };
  /** Ink's hand-over of the terminal (set by the app): leaves the alternate screen, redraws after. */
  inkSuspend?: (fn: () => Promise<void>) => Promise<void>;
  /** Inline mode: transcript lines already printed to the scrollback, in chunks. */
  readonly printed: { id: number; text: string }[] = [];

  private version_ = 0;
  private notifyQueued = false;
  private listeners = new Set<() => void>();
  private text: Entry | null = null;
  private reasoning: Entry | null = null;
  private tools = new Map<string, Entry>();
  /** Every tool call running now, shown or not (the status bar names the latest). */
  /** The latest tool call still running, and how many run with it. */
  get runningTool(): { name: string; args: Record<string, unknown>; emoji?: string; progress?: string; others: number } | null {
    const list = [...this.runningCalls.values()];
    const t = list[list.length - 1];
    return t ? { ...t, others: list.length - 1 } : null;
  }
  private readonly runningCalls = new Map<string, { name: string; args: Record<string, unknown>; emoji?: string; progress?: string }>();
  private lastToolName = '';
  private timer: NodeJS.Timeout | null = null;
  private newMd: () => MdText;
  private unsubscribe: () => void;
  private onQuit: (() => void) | null = null;
  private inline: { entry: number; lines: number; chunk: number } = { entry: 0, lines: 0, chunk: 0 };

  constructor(o: TuiOptions) {
    this.o = o;
    this.session = o.session;
    this.style = o.theme.style;
    this.mouse = o.mouse;
    this.detailsOpen = this.session.prefs.toolProgress === 'verbose';
    const mode = this.session.settings.config.display?.final_response_markdown;
    this.newMd = mdFactory((mode === 'strip' || mode === 'raw' ? mode : 'render') as MarkdownMode, this.style, () => this.o.size().cols);
    this.composer = new Composer({
      registry: o.registry,
      history: o.history,
      home: o.home,
      mentions: new MentionIndex(this.session.info.cwd),
      extraCommands: TUI_COMMANDS,
      passModifiedKeys: true,
      context: () => ({ session: this.session, surface: 'cli', hooks: o.hooks ?? {} }),
    });
    this.driver = new ChatDriver({
      ...o,
      // /prompt opens $EDITOR through the same hand-over as Ctrl+G.
      hooks: { ...o.hooks, compose: (initial) => this.editText(initial) },
      view: {
        echo: (text, queued) => this.add({ kind: 'user', text, queued }),
        output: (text, tone) => this.note(text, tone),
        phase: (p) => this.phaseChanged(p),
        turnEnded: (r, ms) => this.turnEnded(r, ms),
        commandDone: (text, r) => this.commandDone(text, r),
        quit: () => this.quit(),
      },
    });
    this.unsubscribe = this.session.on((e) => this.onEvent(e));
    if (o.intro.length) this.add({ kind: 'banner', lines: o.intro });
    if (this.session.history.length) this.showHistory();
  }

  // -----------------------------------------------------------------------------------------------
  // The store React reads

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  version = (): number => this.version_;

  /** Something changed: one redraw for a burst of changes (a chunk of streamed text, typed keys). */
  changed(): void {
    this.version_++;
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    setImmediate(() => {
      this.notifyQueued = false;
      for (const l of this.listeners) l();
    });
  }

  now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Resolves once the person quits. */
  run(): Promise<void> {
    return new Promise((r) => (this.onQuit = r));
  }

  renderContext(): RenderContext {
    const d = this.session.settings.config.display;
    return { style: this.style, tick: this.tick, now: this.now(), inlineDiffs: d?.inline_diffs !== false };
  }

  get busy(): boolean {
    return this.driver.phase !== 'idle';
  }

  // -----------------------------------------------------------------------------------------------
  // The transcript

  private add(body: Parameters<Transcript['add']>[0]): Entry {
    const e = this.transcript.add(body);
    this.changed();
    return e;
  }

  note(text: string, tone: Tone = 'dim'): void {
    this.add({ kind: 'note', text, tone });
  }

  /** The stored conversation (a resumed session) as entries. */
  private showHistory(): void {
    for (const b of entriesFromHistory(this.session.history, this.newMd)) this.transcript.add(b);
    this.changed();
  }

  private endText(): void {
    if (this.reasoning && this.reasoning.kind === 'reasoning') {
      this.reasoning.text.end();
      this.transcript.touch(this.reasoning);
    }
    this.reasoning = null;
    if (this.text && this.text.kind === 'assistant') {
      this.text.text.end();
      this.transcript.touch(this.text);
    }
    this.text = null;
  }

  private onEvent(e: AgentEvent): void {
    switch (e.type) {
      case 'api_start':
        this.writing = false;
        if (e.iteration > 1) this.verb = VERBS[(VERBS.indexOf(this.verb) + 1) % VERBS.length];
        break;
      case 'text_delta': {
        this.writing = true;
        if (this.reasoning) {
          const r = this.reasoning;
          this.reasoning = null;
          if (r.kind === 'reasoning') r.text.end();
        }
        if (!this.text) this.text = this.transcript.add({ kind: 'assistant', text: this.newMd() });
        if (this.text.kind === 'assistant') this.text.text.push(e.text);
        this.transcript.touch(this.text);
        break;
      }
      case 'reasoning_delta':
        if (!this.session.prefs.showReasoning) break;
        if (!this.reasoning) this.reasoning = this.transcript.add({ kind: 'reasoning', text: this.newMd(), collapsed: false });
        if (this.reasoning.kind === 'reasoning') this.reasoning.text.push(e.text);
        this.transcript.touch(this.reasoning);
        break;
      case 'tool_start': {
        this.writing = false;
        this.endText();
        this.runningCalls.set(e.callId, { name: e.name, args: e.args, emoji: e.emoji });
        const mode = this.session.prefs.toolProgress;
        if (mode === 'off' || (mode === 'new' && e.name === this.lastToolName)) break;
        this.lastToolName = e.name;
        const entry = this.transcript.add({ kind: 'tool', call: { callId: e.callId, name: e.name, args: e.args, emoji: e.emoji, started: this.now() }, expanded: this.detailsOpen });
        this.tools.set(e.callId, entry);
        this.updateTimer();
        break;
      }
      case 'tool_progress': {
        const r = this.runningCalls.get(e.callId);
        if (r) r.progress = e.text.replace(/\s+/g, ' ').trim().slice(-80) || r.progress;
        const t = this.tools.get(e.callId);
        if (t?.kind === 'tool') {
          t.call.progress = describeEvent(e)?.arg;
          this.transcript.touch(t);
        }
        break;
      }
      case 'tool_end': {
        this.runningCalls.delete(e.callId);
        const t = this.tools.get(e.callId);
        this.tools.delete(e.callId);
        if (t?.kind !== 'tool') break;
        const diff = (e.display as { diff?: unknown } | undefined)?.diff;
        Object.assign(t.call, { durationMs: e.durationMs, isError: e.isError, content: e.content, diff: typeof diff === 'string' && diff ? diff : undefined });
        this.transcript.touch(t);
        break;
      }
      case 'usage':
        this.turnUsage = addUsage(this.turnUsage, e.usage);
        if (e.costUsd !== null) this.turnCost = (this.turnCost ?? 0) + e.costUsd;
        this.lastPromptTokens = promptTokens(e.usage);
        break;
      case 'request':
        this.endText();
        this.requests.push(openRequest(e.id, e.request, this.now()));
        this.o.write('\x07');
        this.updateTimer();
        break;
      case 'request_resolved': {
        const i = this.requests.findIndex((r) => r.id === e.id);
        if (i < 0) break;
        const [r] = this.requests.splice(i, 1);
        const n = resolvedNote(r.request, e.source, e.answer);
        if (n) this.note(n.text, n.tone);
        this.updateTimer();
        break;
      }
      case 'retract':
        // The stream broke and is sent again: what it showed of this answer goes away.
        if (this.text) this.transcript.remove(this.text);
        if (this.reasoning) this.transcript.remove(this.reasoning);
        this.text = null;
        this.reasoning = null;
        this.writing = false;
        if (e.shown) this.note(eventLine(e), 'dim');
        break;
      case 'retry':
      case 'fallback':
      case 'warning':
        this.endText();
        this.described(e);
        break;
      case 'key_rotated':
      case 'notice':
        this.described(e);
        break;
      default:
        return;
    }
    this.changed();
  }

  /** An event's line (the event describer's) as a note in its tone. */
  private described(e: AgentEvent): void {
    const d = describeEvent(e);
    if (d) this.note(describeLine(d), d.tone);
  }

  // -----------------------------------------------------------------------------------------------
  // What the driver reports

  private phaseChanged(p: Phase): void {
    // The interrupt hint is about the running turn: it goes when the turn has stopped.
    if (p === 'idle' && this.hint?.text === INTERRUPTING) this.hint = null;
    if (p === 'turn') {
      this.writing = false;
      this.verb = VERBS[(VERBS.indexOf(this.verb) + 1) % VERBS.length];
      this.turnUsage = emptyUsage();
      this.turnCost = null;
    }
    this.updateTimer();
    this.changed();
  }

  private turnEnded(result: TurnResult | null, ms: number): void {
    this.endText();
    // A tool cut short by an interrupt never reports its end.
    for (const t of this.tools.values()) {
      if (t.kind !== 'tool') continue;
      Object.assign(t.call, { durationMs: this.now() - t.call.started, isError: true, content: JSON.stringify({ error: 'interrupted' }) });
      this.transcript.touch(t);
    }
    this.tools.clear();
    this.runningCalls.clear();
    this.lastToolName = '';
    this.turnUsage = emptyUsage();
    this.turnCost = null;
    if (result) for (const n of turnNotes(this.session, result, ms)) this.note(n.text, n.tone);
    this.changed();
  }

  /** Empties the transcript (inline: what is in the scrollback stays, new entries print below it). */
  private clearTranscript(): void {
    this.transcript.clear();
    this.scrollTop = null;
    this.selected = null;
    this.inline = { entry: 0, lines: 0, chunk: this.inline.chunk };
  }

  private commandDone(text: string, r: CommandResult): void {
    if (r.action === 'clear_screen') this.clearTranscript();
    // /redraw: what Ctrl+L does.
    if (r.action === 'redraw') void this.inkSuspend?.(async () => {});
    // /undo: the message taken back comes back into the input.
    if (r.prefill !== undefined && !this.composer.text) this.composer.set(r.prefill);
    if (r.action === 'new_session' && this.session.history.length) {
      // /resume: the conversation it brought back replaces what was on screen.
      this.clearTranscript();
      if (r.output) this.note(r.output, 'plain');
      this.showHistory();
      this.note('─'.repeat(20), 'dim');
      return;
    }
    if (r.output) this.note(r.output, 'plain');
    if (/^\/(help|\?)$/i.test(text.trim())) this.note(KEY_HELP.join('\n'), 'dim');
    // A picker: the command's choices open as the menu under the input.
    if (r.input !== undefined && this.composer.buffer.empty) this.composer.openPicker(r.input);
  }

  // -----------------------------------------------------------------------------------------------
  // Timers: the spinner while busy, the time left on a request

  private updateTimer(): void {
    const need = this.busy || this.requests.length > 0 || this.tools.size > 0;
    if (need && !this.timer) {
      this.timer = setInterval(() => {
        this.tick++;
        this.changed();
      }, 100);
      this.timer.unref();
    } else if (!need && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  showHint(text: string, ms = 2000): void {
    this.hint = { text, until: this.now() + ms };
    setTimeout(() => this.changed(), ms + 10).unref();
    this.changed();
  }

  // -----------------------------------------------------------------------------------------------
  // Keys

  onKeys(keys: Key[]): void {
    for (const k of keys) this.onKey(k);
    this.changed();
  }

  onKey(k: Key): void {
    if (this.quitting || k.name === 'focus' || k.name === 'unknown') return;
    if (k.name === 'mouse') return this.onMouse(k);
    if (this.requests.length && (k.name === 'pageup' || k.name === 'pagedown')) return void this.globalKey(k);
    if (this.requests.length) {
      const req = this.requests[0];
      const a = requestKey(req, k, this.o.home, { arrows: true });
      if (a) {
        this.requests.shift();
        this.session.answer(req.id, a.value);
        this.note(a.text, a.tone);
        this.updateTimer();
      }
      return;
    }
    if (this.overlay) return this.overlayKey(k);
    if (this.globalKey(k)) return;
    const r = this.composer.onKey(k);
    if (r.kind === 'submit') {
      this.selected = null;
      void this.submit(r.text);
    } else if (r.kind === 'warn') this.note(r.text, 'warn');
    else if (r.kind === 'pass') this.passedKey(r.key);
  }

  /** Keys that mean the same whatever is typed: scrolling, blocks, pickers, Ctrl+C. */
  private globalKey(k: Key): boolean {
    const page = Math.max(1, this.layout.transcriptHeight - 2);
    if (k.name === 'pageup' || k.name === 'pagedown') {
      this.scrollBy(k.name === 'pageup' ? -page : page);
      return true;
    }
    if (k.name === 'ctrl') {
      switch (k.text) {
        case 'c':
          this.ctrlC();
          return true;
        case 'o':
          this.toggle(this.selected ?? this.lastOf('tool'));
          return true;
        case 't':
          this.toggleReasoning();
          return true;
        case 'x':
          this.openOverlay('sessions');
          return true;
        case 'l':
          // Draw everything again (Ink repaints the whole screen after a hand-over).
          void this.inkSuspend?.(async () => {});
          return true;
        default:
          return false;
      }
    }
    if (k.name === 'enter' && this.selected !== null && this.composer.buffer.empty) {
      this.toggle(this.selected);
      return true;
    }
    if (k.name === 'escape' && this.selected !== null && !this.composer.menu) {
      this.selected = null;
      return true;
    }
    return false;
  }

  /** Keys the input box does not use. */
  private passedKey(k: Key): void {
    if ((k.name === 'up' || k.name === 'down') && (k.meta || k.ctrl)) return this.selectMove(k.name === 'up' ? -1 : 1);
    if (k.name === 'up' && k.shift) return this.scrollBy(-1);
    if (k.name === 'down' && k.shift) return this.scrollBy(1);
    if (k.name === 'home' && k.ctrl) return void (this.scrollTop = 0);
    if (k.name === 'end' && k.ctrl) return void (this.scrollTop = null);
    if (k.name === 'ctrl' && k.text === 'd') return this.quit();
    if (k.name === 'ctrl' && k.text === 'g') return void this.externalEditor();
    if (k.name === 'ctrl' && k.text === 'z') return this.suspend();
  }

  private ctrlC(): void {
    this.driver.handleCtrlC(this.composer.buffer.empty, { quit: () => this.quit(), hint: (t) => this.showHint(t), clearInput: () => this.composer.clear() });
  }


  /** SIGINT from outside (`kill -INT`): what Ctrl+C does. */
  interruptSignal(): void {
    this.onKey({ name: 'ctrl', text: 'c', ctrl: true, seq: '\x03' });
    this.changed();
  }

  private onMouse(k: Key): void {
    const m = k.mouse!;
    if (m.action === 'wheelup' || m.action === 'wheeldown') {
      if (this.overlay) return void this.overlay.list.onKey(k, this.layout.listRows);
      return this.scrollBy(m.action === 'wheelup' ? -3 : 3);
    }
    if (m.action !== 'press' || m.button !== 0 || this.overlay || !this.o.fullscreen) return;
    const id = this.layout.owners[m.y - 1];
    const e = id === undefined ? undefined : this.transcript.get(id);
    if (e && expandable(e)) {
      this.selected = e.id;
      this.toggle(e.id);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Scrolling and blocks

  scrollBy(n: number): void {
    const { total, transcriptHeight } = this.layout;
    const maxTop = Math.max(0, total - transcriptHeight);
    const top = Math.max(0, Math.min(maxTop, (this.scrollTop ?? maxTop) + n));
    this.scrollTop = top >= maxTop ? null : top;
  }

  private lastOf(kind: 'tool' | 'reasoning'): number | null {
    for (let i = this.transcript.entries.length - 1; i >= 0; i--) if (this.transcript.entries[i].kind === kind) return this.transcript.entries[i].id;
    return null;
  }

  /** Opens or closes a tool call or reasoning block. Inline, a tool's details are printed below instead. */
  toggle(id: number | null): void {
    const e = id === null ? undefined : this.transcript.get(id);
    if (!e) return;
    if (e.kind === 'tool') {
      if (!this.o.fullscreen) {
        // What is in the scrollback stays; the details are printed below it.
        this.transcript.add({ kind: 'tool', call: e.call, expanded: true });
        return;
      }
      e.expanded = !e.expanded;
    } else if (e.kind === 'reasoning') e.collapsed = !e.collapsed;
    else return;
    this.transcript.touch(e);
    this.keepVisible(e.id);
  }

  private toggleReasoning(): void {
    const rs = this.transcript.entries.filter((e) => e.kind === 'reasoning');
    const collapse = rs.some((e) => e.kind === 'reasoning' && !e.collapsed);
    for (const e of rs) {
      if (e.kind !== 'reasoning') continue;
      e.collapsed = collapse;
      this.transcript.touch(e);
    }
    this.showHint(collapse ? 'Reasoning collapsed (Ctrl+T opens it)' : 'Reasoning open (Ctrl+T collapses it)');
  }

  /** Alt/Ctrl+↑↓: moves the highlight to the previous / next tool call or reasoning block. */
  private selectMove(d: -1 | 1): void {
    const ids = this.transcript.entries.filter(expandable).map((e) => e.id);
    if (!ids.length) return;
    const i = this.selected === null ? -1 : ids.indexOf(this.selected);
    const next = i < 0 ? (d < 0 ? ids.length - 1 : 0) : Math.max(0, Math.min(ids.length - 1, i + d));
    this.selected = ids[next];
    this.keepVisible(this.selected);
  }

  /** Scrolls so the entry shows: its first line, and all of it when it fits. */
  private keepVisible(id: number): void {
    if (!this.o.fullscreen) return;
    const cols = this.o.size().cols;
    const ctx = this.renderContext();
    const pos = this.transcript.position(id, cols, ctx, this.selected);
    if (!pos) return;
    const h = this.layout.transcriptHeight;
    const total = this.transcript.window(cols, h, 0, ctx, this.selected).total;
    const maxTop = Math.max(0, total - h);
    let top = Math.min(this.scrollTop ?? maxTop, maxTop);
    if (pos.start + pos.count > top + h) top = pos.count <= h ? pos.start + pos.count - h : pos.start;
    if (pos.start < top) top = pos.start;
    this.scrollTop = top >= maxTop ? null : top;
    this.layout = { ...this.layout, total };
  }

  // -----------------------------------------------------------------------------------------------
  // Submitting, pickers

  private async submit(raw: string): Promise<void> {
    this.scrollTop = null;
    const local = tuiCommand(raw, this);
    if (local) {
      this.add({ kind: 'user', text: raw });
      if (local !== true) this.note(local, 'plain');
      return;
    }
    this.add({ kind: 'user', text: raw });
    await this.driver.dispatch(raw);
  }

  openOverlay(kind: Overlay['kind']): void {
    if (kind === 'sessions') {
      if (!this.o.db) {
        this.note('No session store is open here; use /sessions and /resume <id or title>.');
        return;
      }
      this.overlay = new SessionPicker(this.o.db, this.session.id, () => this.changed());
    } else if (kind === 'models') this.overlay = new ModelPicker(this.session, () => this.changed());
    else {
      const ext = this.session.settings.config.skills?.external_dirs;
      this.overlay = new SkillsBrowser(this.o.home, Array.isArray(ext) ? ext.map(String) : []);
    }
    this.changed();
  }

  private overlayKey(k: Key): void {
    const ov = this.overlay!;
    if (ov.kind === 'models' && (k.name === 'tab' || k.name === 'backtab')) return ov.toggleStage();
    const r = ov.list.onKey(k, this.layout.listRows);
    if (r === 'close') {
      this.overlay = null;
      return;
    }
    if (r === 'query') ov.refresh();
    // The model picker takes Enter on a typed name that matches nothing (refused, or used as typed).
    const typedModel = ov.kind === 'models' && r === 'none' && k.name === 'enter';
    if (r !== 'pick' && !typedModel) return;
    const key = ov.list.current?.key;
    if (ov.kind === 'sessions') {
      this.overlay = null;
      if (key && key !== this.session.id) void this.driver.dispatch(`/resume ${key}`);
      else if (key) this.showHint('That is the current session.');
    } else if (ov.kind === 'skills') {
      this.overlay = null;
      if (key) this.composer.set(`/${key} `);
    } else {
      const choice = ov.pick();
      if (!choice) return;
      this.overlay = null;
      try {
        this.note(ModelPicker.apply(this.session, choice), 'plain');
      } catch (e) {
        this.note(`✗ ${(e as Error).message}`, 'error');
      }
    }
  }

  // -----------------------------------------------------------------------------------------------
  // The terminal handed to another program

  private async externalEditor(): Promise<void> {
    const text = await this.editText(this.composer.text);
    if (text !== null) this.composer.set(text);
    this.changed();
  }

  /** $EDITOR on `initial`: what was saved, or null (a warning is noted). */
  private async editText(initial: string): Promise<string | null> {
    const cooked = this.o.cooked;
    if (!cooked) return null;
    const r = await editInEditor(initial, cooked);
    if ('text' in r) return r.text;
    this.note(r.warning, 'warn');
    return null;
  }

  /** Ctrl+Z: stop the process; on `fg` the app draws again. */
  private suspend(): void {
    const cooked = this.o.cooked;
    if (!cooked || process.platform === 'win32') return;
    void cooked(
      () =>
        new Promise<void>((resolve) => {
          process.once('SIGCONT', () => resolve());
          process.kill(process.pid, 'SIGTSTP');
        }),
    ).then(() => this.changed());
  }

  // -----------------------------------------------------------------------------------------------
  // Inline mode: what goes to the scrollback

  /**
   * The transcript lines that are final and not printed yet (inline mode): whole entries once they
   * are done, and the completed lines of the answer still streaming.
   */
  takeFinished(width: number): void {
    const ctx = this.renderContext();
    const es = this.transcript.entries;
    const out: string[] = [];
    while (this.inline.entry < es.length) {
      const e = es[this.inline.entry];
      const streaming = (e.kind === 'assistant' || e.kind === 'reasoning') && !e.text.done;
      const running = e.kind === 'tool' && e.call.durationMs === undefined;
      if (running) break;
      if (streaming) {
        const lines = e.kind === 'assistant' ? e.text.committedLines(width) : [];
        if (e.kind === 'reasoning') break;
        out.push(...lines.slice(this.inline.lines));
        this.inline.lines = lines.length;
        break;
      }
      const lines = this.transcript.render(e, width, ctx, false);
      out.push(...lines.slice(this.inline.lines));
      this.inline.entry++;
      this.inline.lines = 0;
    }
    if (out.length) this.printed.push({ id: ++this.inline.chunk, text: out.join('\n') });
  }

  /** Inline mode: the entries not (fully) printed yet, drawn live below the scrollback. */
  liveEntries(): { entry: Entry; skip: number }[] {
    return this.transcript.entries.slice(this.inline.entry).map((entry, i) => ({ entry, skip: i === 0 ? this.inline.lines : 0 }));
  }

  // -----------------------------------------------------------------------------------------------
  // Leaving

  quit(): void {
    if (this.quitting) return;
    this.quitting = true;
    this.endText();
    this.driver.stop();
    this.unsubscribe();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.exitLines = goodbyeLines(this.session);
    this.changed();
    this.onQuit?.();
  }
}

export const KEY_HELP = [
  'Keys: Enter send · Alt+Enter / Ctrl+J new line · Tab complete (/ commands, @ files) · ↑↓ history',
  '      PgUp/PgDn or the mouse wheel scroll · Shift+↑↓ a line · Ctrl+Home/Ctrl+End top/bottom',
  '      Alt+↑↓ select a tool call or reasoning · Enter or Ctrl+O open/close it · Ctrl+T reasoning',
  '      Ctrl+X sessions · /model picker · /skills browser · Ctrl+R search history · Ctrl+G $EDITOR',
  '      Ctrl+C interrupt (twice quits) · Ctrl+D quit · Ctrl+Z suspend',
];
