// The terminal the REPL runs in: raw keyboard input decoded into keys, bracketed paste, resize,
// Ctrl+Z suspend/resume, and putting everything back on exit (also on a crash).

import { KeyDecoder, type Key } from './keys.ts';

export interface TermIO {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

export class Terminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  private readonly decoder = new KeyDecoder();
  private onKeys: ((keys: Key[]) => void) | null = null;
  private started = false;
  private readonly dataHandler = (d: Buffer | string) => {
    const keys = this.decoder.feed(typeof d === 'string' ? d : d.toString('utf8'));
    if (keys.length) this.onKeys?.(keys);
  };
  private readonly restoreOnExit = () => this.restore();

  constructor(io: TermIO) {
    this.input = io.input;
    this.output = io.output;
  }

  get columns(): number {
    return this.output.columns || 80;
  }

  get rows(): number {
    return this.output.rows || 24;
  }

  write(s: string): void {
    this.output.write(s);
  }

  /** Raw mode, bracketed paste on, keys delivered to `onKeys`. */
  start(onKeys: (keys: Key[]) => void): void {
    this.onKeys = onKeys;
    this.enter();
    this.input.on('data', this.dataHandler);
    this.input.resume();
    process.on('exit', this.restoreOnExit);
    this.started = true;
  }

  private enter(): void {
    if (this.input.isTTY) this.input.setRawMode(true);
    this.input.setEncoding?.('utf8');
    // Bracketed paste, so pasted newlines do not send.
    this.output.write('\x1b[?2004h');
  }

  private leave(): void {
    this.output.write('\x1b[?2004l\x1b[?25h');
    if (this.input.isTTY) {
      try {
        this.input.setRawMode(false);
      } catch {
        /* the terminal is gone */
      }
    }
  }

  /** Hands the terminal back (before exit or before another program takes it). */
  restore(): void {
    if (!this.started) return;
    this.started = false;
    this.leave();
    this.input.off('data', this.dataHandler);
    this.input.pause();
    process.off('exit', this.restoreOnExit);
  }

  /** Ctrl+Z: restore the terminal, stop the process; on `fg`, take the terminal again. */
  suspend(onResume: () => void): void {
    if (process.platform === 'win32') return;
    this.leave();
    process.once('SIGCONT', () => {
      this.enter();
      onResume();
    });
    process.kill(process.pid, 'SIGTSTP');
  }

  /** Runs `fn` with the terminal in normal (cooked) mode, e.g. for an external editor. */
  async cooked<T>(fn: () => Promise<T> | T): Promise<T> {
    this.input.off('data', this.dataHandler);
    this.leave();
    try {
      return await fn();
    } finally {
      this.enter();
      this.input.on('data', this.dataHandler);
      this.input.resume();
    }
  }

  onResize(fn: () => void): () => void {
    this.output.on('resize', fn);
    return () => this.output.off('resize', fn);
  }
}
