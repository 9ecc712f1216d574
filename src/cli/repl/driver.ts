// What the person's input does, for both interactive surfaces (the REPL and the TUI): a message
// starts a turn, a `/command` runs from the shared registry, `!cmd` runs a shell command where the
// agent's terminal runs, and typing while the agent works follows the busy-input mode (interrupt,
// queue, steer). Input that arrives while a shell command or slash command runs waits for it. The
// driver owns this order of events and Ctrl+C's meaning; the surface decides how each thing looks.

import { messageText } from '../../agent/repair.ts';
import type { AgentEvent, ToolCallContext, TurnResult } from '../../agent/types.ts';
import { runCommand, type CommandRegistry, type CommandResult, type SurfaceHooks } from '../../commands/registry.ts';
import { describeError } from '../../llm/index.ts';
import { composeNotices } from '../../session/inbox.ts';
import type { Session } from '../../session/session.ts';
import { expandPastes } from './pastes.ts';
import type { Style } from './style.ts';
import { truncate } from './width.ts';
import { t as tr } from '../../i18n/index.ts';

export type Phase = 'idle' | 'turn' | 'shell' | 'command';
/** How a line of output reads: plain, dim (a note), info (background news), ok, warn, error. */
export type Tone = 'plain' | 'dim' | 'info' | 'ok' | 'warn' | 'error';

export const DOUBLE_PRESS_MS = 2000;
/** The hint after Ctrl+C stops a turn; a surface drops it once the turn has stopped (phase idle). */
export const INTERRUPTING = 'Interrupting… (Ctrl+C again to quit)';

/** A line in a tone's style. */
export function paint(s: Style, tone: Tone, text: string): string {
  return tone === 'dim' ? s.dim(text) : tone === 'info' ? s.cyan(text) : tone === 'ok' ? s.green(text) : tone === 'warn' ? s.yellow(text) : tone === 'error' ? s.red(text) : text;
}
/** What the spinner says while the model thinks (a different word each turn). */
export const VERBS = ['pondering', 'thinking', 'contemplating', 'musing', 'reasoning', 'deliberating', 'mulling it over', 'considering', 'working it out', 'cogitating'];

/** What the surface shows; the driver calls these in the order things happen. */
export interface DriverView {
  /** The person's message as it goes into the conversation (`queued`: a queued prompt starting now). */
  echo(text: string, queued?: boolean): void;
  /** Output for the person (command output, shell output, notes about waiting input). */
  output(text: string, tone: Tone): void;
  /** The busy state changed. */
  phase(phase: Phase, label: string): void;
  /** A turn ended (or failed to start: `result` null); the surface ends its streamed text, then the notes follow. */
  turnEnded(result: TurnResult | null, ms: number): void;
  /** A slash command finished; the surface applies its action (clear_screen, new_session) and shows its output. */
  commandDone(text: string, r: CommandResult): void;
  /** The person asked to leave (/quit). */
  quit(): void;
}

export interface DriverOptions {
  session: Session;
  registry: CommandRegistry;
  home: string;
  view: DriverView;
  hooks?: SurfaceHooks;
  /** Text put before the first message (e.g. preloaded skills). */
  firstMessagePrefix?: string;
  now?: () => number;
}

export class ChatDriver {
  private readonly o: DriverOptions;
  private readonly session: Session;
  private _phase: Phase = 'idle';
  private _label = '';
  private _started = 0;
  /** Input that waits for the current shell command or command to finish. */
  private waiting: string[] = [];
  /** Prompts to send once the interrupted turn has ended (busy mode `interrupt`). */
  private afterInterrupt: string[] = [];
  /** Queued prompts to echo when their turn starts. */
  private echoQueue: string[] = [];
  private shellAbort: AbortController | null = null;
  private firstPrefix: string | undefined;
  private lastCtrlC = 0;
  private stopped = false;
  private readonly off: () => void;
  private readonly offInbox: () => void;

  constructor(o: DriverOptions) {
    this.o = o;
    this.session = o.session;
    this.firstPrefix = o.firstMessagePrefix;
    this.off = this.session.on((e) => this.onEvent(e));
    // Background processes and subagents report back into the conversation.
    const inbox = this.session.inbox as Session['inbox'] | undefined;
    if (inbox) inbox.listening = true;
    this.offInbox = inbox?.on(() => this.backgroundNotice()) ?? (() => {});
  }

  /** Background work reported back (a process ended, a subagent finished): it becomes the next turn when idle. */
  backgroundNotice(): void {
    if (this._phase === 'idle' && !this.stopped) void this.drain();
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  get phase(): Phase {
    return this._phase;
  }

  /** What runs (`$ npm test`, `/compress…`) while the phase is shell or command. */
  get phaseLabel(): string {
    return this._label;
  }

  /** When the current phase started (0 when idle). */
  get phaseStarted(): number {
    return this._started;
  }

  get busy(): boolean {
    return this._phase !== 'idle';
  }

  /** No more input is taken (the surface is leaving). */
  stop(): void {
    this.stopped = true;
    this.off();
    this.offInbox();
  }

  private setPhase(phase: Phase, label = ''): void {
    this._phase = phase;
    this._label = label;
    this._started = phase === 'idle' ? 0 : this.now();
    this.o.view.phase(phase, label);
  }

  private onEvent(e: AgentEvent): void {
    if (e.type !== 'turn_start') return;
    const text = e.userMessage ? messageText(e.userMessage.content) : '';
    if (this.echoQueue.length && text === this.echoQueue[0]) {
      this.echoQueue.shift();
      this.o.view.echo(text, true);
    }
  }

  /** Forgets prompts waiting to be echoed (after /new or /resume). */
  resetEchoes(): void {
    this.echoQueue = [];
  }

  /** A leading `/` that names no command but looks like a path (`/etc/hosts is broken`) is a message. */
  isCommand(text: string): boolean {
    const r = this.o.registry.resolve(text, 'cli');
    if (!('error' in r)) return true;
    const first = text.split(/\s/)[0];
    return !first.slice(1).includes('/');
  }

  /** Handles one submitted input (already echoed and added to the history by the surface). */
  async dispatch(raw: string): Promise<void> {
    const text = raw.trim();
    const v = this.o.view;
    if (this._phase === 'shell' || this._phase === 'command') {
      this.waiting.push(raw);
      v.output(`⏳ waiting for ${this._label || 'the running command'} to finish`, 'dim');
      return;
    }
    if (text.startsWith('/') && this.isCommand(text)) {
      await this.runSlash(text);
      return;
    }
    if (text.startsWith('!')) {
      if (this._phase === 'turn') {
        this.waiting.push(raw);
        v.output('⏳ the shell command runs when the agent is done', 'dim');
        return;
      }
      await this.runShell(text.slice(1).trim());
      return;
    }
    if (this._phase === 'turn') {
      this.busyInput(raw);
      return;
    }
    await this.runTurn(raw);
  }

  private busyInput(raw: string): void {
    const v = this.o.view;
    const mode = this.session.prefs.busyInputMode;
    const text = expandPastes(raw, this.o.home);
    if (mode === 'queue') {
      this.session.queue(text);
      this.echoQueue.push(text);
      v.output(`⏳ queued (${this.session.queuedPrompts.length} waiting) — sent when the agent finishes · /busy to change`, 'dim');
    } else if (mode === 'steer') {
      this.session.steer(text);
      v.output('↳ steering: the agent sees this after its next tool call · /busy to change', 'dim');
    } else {
      this.afterInterrupt.push(text);
      this.session.interrupt();
      v.output('⏹ interrupting — your message goes next · /busy to change', 'dim');
    }
  }

  /** Runs one turn with `raw` as the message (paste references expanded; `notice`: background news, as it is). */
  async runTurn(raw: string, notice = false): Promise<void> {
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
      this.o.view.output(`✗ ${(e as Error).message}`, 'error');
    }
    this.setPhase('idle');
    this.o.view.turnEnded(result, this.now() - started);
    await this.drain();
  }

  /** Sends what waited for the previous turn, shell command or command. */
  private async drain(): Promise<void> {
    while (this._phase === 'idle' && !this.stopped) {
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
      const notes = this.session.inbox?.take() ?? [];
      if (!notes.length) return;
      this.o.view.output(notes.map((n) => `🔔 ${n.title}`).join('\n'), 'info');
      await this.runTurn(composeNotices(notes), true);
    }
  }

  private async runSlash(text: string): Promise<void> {
    const name = text.split(/\s/)[0];
    const wasIdle = this._phase === 'idle';
    let timer: NodeJS.Timeout | null = null;
    if (wasIdle) timer = setTimeout(() => this.setPhase('command', `${name}…`), 150);
    let r: CommandResult | null;
    try {
      r = await runCommand(this.o.registry, text, { session: this.session, surface: 'cli', hooks: { ...this.o.hooks, show: (t) => this.o.view.output(t, 'dim') } });
    } finally {
      if (timer) clearTimeout(timer);
      if (this._phase === 'command') this.setPhase('idle');
    }
    if (!r) return;
    if (r.action === 'new_session') this.resetEchoes();
    this.o.view.commandDone(text, r);
    if (r.action === 'quit') {
      this.o.view.quit();
      return;
    }
    if (r.send) {
      if (this._phase === 'turn') {
        this.session.queue(r.send);
        this.o.view.output('⏳ queued — sent when the agent finishes', 'dim');
      } else await this.runTurn(r.send);
      return;
    }
    if (wasIdle) await this.drain();
  }

  private async runShell(command: string): Promise<void> {
    const v = this.o.view;
    if (!command) {
      v.output('Usage: !<command> runs a shell command where the agent’s terminal runs (no model call; approvals apply).', 'dim');
      return;
    }
    const def = this.session.registry.get('terminal');
    if (!def) {
      v.output('✗ The terminal tool is not available in this build.', 'error');
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
      if (text) v.output(text, 'plain');
      if (parsed.error) v.output(`! ${parsed.error}`, 'error');
      else if (typeof parsed.exit_code === 'number' && parsed.exit_code !== 0) v.output(`! exited ${parsed.exit_code}`, 'warn');
      if (ac.signal.aborted) v.output('⏹ Stopped.', 'warn');
    } catch (e) {
      v.output(`✗ ${(e as Error).message}`, 'error');
    } finally {
      this.shellAbort = null;
      this.setPhase('idle');
    }
    await this.drain();
  }

  /** Ctrl+C as both surfaces show it: a hint, a cleared line, or leaving. */
  handleCtrlC(inputEmpty: boolean, ui: { quit(): void; hint(text: string): void; clearInput(): void }): void {
    switch (this.ctrlC(inputEmpty)) {
      case 'quit':
        return ui.quit();
      case 'interrupted':
        return ui.hint(INTERRUPTING);
      case 'clear_input':
        return ui.clearInput();
      case 'hint':
        return ui.hint('(Press Ctrl+C again or Ctrl+D to quit)');
      default:
        return;
    }
  }

  /**
   * Ctrl+C (or SIGINT): interrupts the turn, stops the shell command, or clears the line; pressed
   * twice within 2 s (or on an empty line twice) it quits. Returns what the surface should do.
   */
  ctrlC(inputEmpty: boolean): 'quit' | 'interrupted' | 'stopped' | 'clear_input' | 'hint' {
    const now = this.now();
    const double = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (this._phase === 'turn') {
      if (double) return 'quit';
      this.afterInterrupt = [];
      this.session.interrupt();
      return 'interrupted';
    }
    if (this._phase === 'shell') {
      if (double) return 'quit';
      this.shellAbort?.abort();
      return 'stopped';
    }
    if (!inputEmpty) return 'clear_input';
    return double ? 'quit' : 'hint';
  }
}

// -------------------------------------------------------------------------------------------------
// Words both surfaces use for results, requests and leaving.

/** Notes after a turn: cost line (display.show_cost or /footer), interrupted, the error, or "(no answer)". */
export function turnNotes(session: Session, r: TurnResult, ms: number): { text: string; tone: Tone }[] {
  const out: { text: string; tone: Tone }[] = [];
  // display.show_cost, or /footer (display.runtime_footer) for this session.
  if ((session.settings.config.display?.show_cost === true || session.prefs.footer) && r.apiCalls > 0) {
    const u = r.usage;
    out.push({ text: `${(ms / 1000).toFixed(1)}s · ${(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens).toLocaleString('en-US')} in · ${u.output_tokens.toLocaleString('en-US')} out · ${r.costUsd === null ? 'cost unknown' : formatUsd(r.costUsd)}`, tone: 'dim' });
  }
  if (r.interrupted) out.push({ text: tr('cli.interrupted'), tone: 'warn' });
  else if (r.failed) {
    const e = r.error;
    out.push({ text: `✗ ${e && 'provider' in e ? describeError(e, session.runtime) : (e?.message ?? 'The turn failed.')}`, tone: 'error' });
  } else if (!r.finalText && !r.messages.some((m) => m.role === 'assistant' && messageText(m.content))) {
    out.push({ text: tr('cli.no_answer'), tone: 'dim' });
  }
  return out;
}

export function formatUsd(x: number): string {
  return `$${x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`;
}

/** The lines shown when leaving: what the session cost and how to resume it. */
export function goodbyeLines(session: Session): string[] {
  const lines: string[] = [];
  const t = session.totals;
  if (t.turns > 0) {
    const tokens = t.usage.input_tokens + t.usage.output_tokens + t.usage.cache_read_tokens + t.usage.cache_write_tokens;
    lines.push(`Session ${session.id} · ${t.turns} turn(s) · ${tokens.toLocaleString('en-US')} tokens${t.costUsd === null ? '' : ` · ${formatUsd(t.costUsd)}`}`);
    if (session.info.store) lines.push(tr('cli.resume_hint', { id: session.id }));
  }
  lines.push(tr('cli.goodbye'));
  return lines;
}
