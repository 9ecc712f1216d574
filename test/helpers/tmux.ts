// Drives an interactive program inside tmux, as a person at a real terminal would, and reads the
// screen tmux renders (capture-pane), not the raw byte stream. Each terminal gets its own tmux
// server (socket), so tests can run in parallel.
import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from './cli.ts';

export function tmuxAvailable(): string | null {
  const r = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  return r.status === 0 ? null : 'tmux is not installed (apt-get install tmux)';
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
let counter = 0;

export interface TmuxOptions {
  home: string;
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** The node that runs bin/hermes.mjs (default: this one). */
  node?: string;
}

/**
 * The pause before the next look at the screen: 40 ms at first, growing to 100 ms. Each look is a
 * `tmux capture-pane` process (~15 ms of CPU): a wait of seconds at a fixed 40 ms cost as much CPU as
 * the program it waited for, and slowed it on a busy machine.
 */
function nextPause(last: number): number {
  return last ? Math.min(100, Math.round(last * 1.25)) : 40;
}

/**
 * A tmux control-mode client (`tmux -C attach`, told not to stream the pane's output) through which
 * the waits ask for the screen: a command written to a pipe instead of a `tmux capture-pane`
 * process (~15 ms of CPU each, forked from a big test process) per look. Replies come in order, each
 * between `%begin <time> <n> <flags>` and `%end`/`%error` with the same n (flags bit 1: our command).
 */
class Control {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve(text: string): void; reject(e: Error): void }[] = [];
  private buf = '';
  private block: string[] | null = null;
  private blockId = '';
  private ours = false;
  dead = false;

  constructor(socket: string) {
    this.child = spawn('tmux', ['-L', socket, '-C', 'attach-session', '-t', 'main', '-f', 'no-output,ignore-size'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => this.feed(d));
    this.child.stderr.resume();
    this.child.stdin.on('error', () => this.fail());
    this.child.on('error', () => this.fail());
    this.child.on('exit', () => this.fail());
    this.idle();
  }

  /** Runs one tmux command; resolves with its output (lines joined by \n, no final newline). */
  run(command: string): Promise<string> {
    if (this.dead) return Promise.reject(new Error('tmux control client gone'));
    this.busy();
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${command}\n`);
    });
  }

  close(): void {
    this.fail();
    this.child.kill('SIGKILL');
  }

  private feed(d: string): void {
    this.buf += d;
    for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      this.line(line);
    }
  }

  private line(l: string): void {
    if (this.block) {
      const end = /^%(end|error) \d+ (\d+) \d+$/.exec(l);
      if (end && end[2] === this.blockId) {
        const text = this.block.join('\n');
        this.block = null;
        if (!this.ours) return;
        const w = this.waiting.shift();
        if (end[1] === 'end') w?.resolve(text);
        else w?.reject(new Error(`tmux: ${text}`));
        if (!this.waiting.length) this.idle();
        return;
      }
      this.block.push(l);
      return;
    }
    const begin = /^%begin \d+ (\d+) (\d+)$/.exec(l);
    if (begin) {
      this.block = [];
      this.blockId = begin[1];
      this.ours = (Number(begin[2]) & 1) === 1;
    }
  }

  /** The client keeps the process alive only while a reply is awaited. */
  private busy(): void {
    this.child.ref();
    (this.child.stdout as unknown as { ref(): void }).ref();
  }

  private idle(): void {
    this.child.unref();
    (this.child.stdout as unknown as { unref(): void }).unref();
    (this.child.stdin as unknown as { unref(): void }).unref();
    (this.child.stderr as unknown as { unref(): void }).unref();
  }

  private fail(): void {
    if (this.dead) return;
    this.dead = true;
    for (const w of this.waiting.splice(0)) w.reject(new Error('tmux control client gone'));
  }
}

/** How often a wait looks whether the program wrote anything (a stat of the pane's log: no process). */
const WATCH_MS = 20;
/** A look at the screen at least this often, output or not (a resize reflows without any). */
const LOOK_AT_LEAST_MS = 1000;

export class TmuxTerm {
  readonly socket: string;
  private closed = false;
  /**
   * The pane's output as tmux copies it (pipe-pane), or null. Only its size is read: a wait looks at
   * the screen again when the program wrote something since the last look (tmux updates its screen
   * before it copies the bytes out), rather than running `tmux capture-pane` on a timer through a
   * start-up or a model call that draws nothing.
   */
  private readonly log: string | null;
  private logDir: string | null = null;
  private seen = -1;
  private lookedAt = 0;
  private dirty = true;
  private control: Control | null = null;

  /** A tmux command through the control client (started on first use), or as its own process. */
  private async ask(command: string[]): Promise<string> {
    if (!this.closed && this.control?.dead !== true) {
      try {
        this.control ??= new Control(this.socket);
        return `${await this.control.run(command.join(' '))}\n`;
      } catch {
        /* gone (the server was killed): ask as before */
      }
    }
    return this.tmux(...command);
  }

  private static lines(out: string): string {
    return out
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
  }

  constructor(socket: string, log: { dir: string; file: string } | null = null) {
    this.socket = socket;
    this.log = log?.file ?? null;
    this.logDir = log?.dir ?? null;
  }

  /** Whether the screen may have changed since the last look (always, without a log). */
  private changed(): boolean {
    if (!this.log || this.dirty) return true;
    let size = -1;
    try {
      size = statSync(this.log).size;
    } catch {
      return true;
    }
    return size !== this.seen || performance.now() - this.lookedAt >= LOOK_AT_LEAST_MS;
  }

  /** Notes a look at the screen: what the log held just before it. */
  private looked(): void {
    this.dirty = false;
    this.lookedAt = performance.now();
    if (!this.log) return;
    try {
      this.seen = statSync(this.log).size;
    } catch {
      this.dirty = true;
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Named keys: Enter, Up, C-c, M-Enter, BSpace, Tab… */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** Literal text, as typed. */
  type(text: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', text);
  }

  /** Bytes as the terminal would send them (mouse reports, unusual keys). */
  raw(bytes: string): void {
    this.tmux('send-keys', '-t', 'main', '-H', ...[...Buffer.from(bytes, 'utf8')].map((b) => b.toString(16).padStart(2, '0')));
  }

  /** A paste (bracketed, when the program asked for it). */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'p', text);
    this.tmux('paste-buffer', '-p', '-d', '-b', 'p', '-t', 'main');
  }

  /** The screen and scrollback, wrapped lines joined, trailing spaces trimmed. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'main')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
  }

  /** What is visible now with its colours and styles (SGR sequences kept). */
  styled(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', 'main');
  }

  /** Resizes the terminal, as a person dragging the window would. */
  resize(cols: number, rows: number): void {
    this.tmux('resize-window', '-t', 'main', '-x', String(cols), '-y', String(rows));
    this.dirty = true;
  }

  /** Only what is visible now. */
  visible(): string {
    return this.tmux('capture-pane', '-p', '-t', 'main')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n');
  }

  /** Waits until the screen matches; returns the screen. `after`: only lines from this index (see mark) count. */
  async waitFor(re: RegExp, opts: { timeoutMs?: number; after?: number } = {}): Promise<string> {
    const deadline = performance.now() + (opts.timeoutMs ?? 15_000);
    let pause = 0;
    let s = '';
    for (;;) {
      this.looked();
      s = TmuxTerm.lines(await this.ask(['capture-pane', '-p', '-J', '-S', '-', '-t', 'main']));
      const part = opts.after ? s.split('\n').slice(opts.after).join('\n') : s;
      if (re.test(part)) return s;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${re}; screen:\n${s.slice(-3000)}`);
      await this.quiet((pause = nextPause(pause)), deadline);
    }
  }

  /** Waits `pause` ms, then on until the program wrote something (or the deadline, or a second). */
  private async quiet(pause: number, deadline: number): Promise<void> {
    await new Promise((r) => setTimeout(r, pause));
    while (!this.changed() && performance.now() <= deadline) await new Promise((r) => setTimeout(r, WATCH_MS));
  }

  /** Waits until what is visible, with its styles (see styled), matches; returns it. */
  async waitForStyled(re: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    let pause = 0;
    for (;;) {
      this.looked();
      const s = await this.ask(['capture-pane', '-p', '-e', '-t', 'main']);
      if (re.test(s)) return s;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${re} (styled); screen:\n${s.slice(-3000)}`);
      await this.quiet((pause = nextPause(pause)), deadline);
    }
  }

  /**
   * A line index to pass as `after`: the last line on screen now (usually the input line, redrawn in
   * place) and everything below it count; what scrolled above it does not.
   */
  mark(): number {
    return this.screen().split('\n').length - 1;
  }

  /** Waits for the program to exit; returns its exit code. */
  async exitCode(timeoutMs = 15_000): Promise<number> {
    const s = await this.waitFor(/\[exited (\d+)\]/, { timeoutMs });
    return Number(/\[exited (\d+)\]/.exec(s)![1]);
  }

  kill(): void {
    if (this.closed) return;
    this.closed = true;
    this.control?.close();
    const path = spawnSync('tmux', ['-L', this.socket, 'display-message', '-p', '#{socket_path}'], { encoding: 'utf8' }).stdout.trim();
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    if (path) rmSync(path, { force: true });
    if (this.logDir) rmSync(this.logDir, { recursive: true, force: true });
  }
}

/** Starts `hermes <args>` in a fresh tmux server with a clean environment. */
export function startHermes(args: string[], o: TmuxOptions): TmuxTerm {
  const socket = `hermes-test-${process.pid}-${++counter}`;
  const env = { ...cleanEnv(o.home, o.env), TERM: 'xterm-256color' } as Record<string, string>;
  delete env.TMUX;
  const envArgs = Object.entries(env).map(([k, v]) => quote(`${k}=${v}`));
  const cmd = `env -i ${envArgs.join(' ')} ${quote(o.node ?? process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}; echo "[exited $?]"; sleep 600`;
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(o.cols ?? 120), '-y', String(o.rows ?? 40), '-c', o.cwd ?? o.home, cmd]);
  execFileSync('tmux', ['-L', socket, 'set-option', '-g', 'history-limit', '5000']);
  // The pane's output copied to a file (see TmuxTerm.log); attached before the first look at the
  // screen, so every change after that look grows it.
  const dir = mkdtempSync(join(tmpdir(), 'hermes-tmux-log-'));
  const file = join(dir, 'pane.log');
  try {
    execFileSync('tmux', ['-L', socket, 'pipe-pane', '-o', '-t', 'main', `cat >> ${quote(file)}`]);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return new TmuxTerm(socket);
  }
  return new TmuxTerm(socket, { dir, file });
}
