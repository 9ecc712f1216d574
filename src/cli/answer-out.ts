// The one-shot answer on stdout, and what happens to it when a model call's stream breaks and is
// sent again (AgentEvent `retract`): the withdrawn text must not stay in the output.
//
// On a terminal the text is written as it streams, and a withdrawn part is erased (line by line,
// from the cursor up) when it is all still on screen and nothing else was written after it;
// otherwise one line says it was withdrawn. Anything else (a pipe, a file) cannot be unwritten, so
// there each model call's text is held until the call has finished and only then written: a script
// reading stdout gets the answer once, never a broken first attempt in front of it.

export interface AnswerTerminal {
  columns?: number;
  rows?: number;
}

/** Display columns of one code point (0 for combining marks, 2 for wide East Asian and emoji). */
function cellWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Where the cursor ends after writing `text` from column `col` on a terminal `cols` wide. */
export function advance(text: string, col: number, cols: number): { rows: number; col: number } {
  let rows = 0;
  for (const ch of text) {
    if (ch === '\n') {
      rows++;
      col = 0;
      continue;
    }
    const w = cellWidth(ch.codePointAt(0)!);
    if (col + w > cols) {
      rows++;
      col = 0;
    }
    col += w;
  }
  return { rows, col };
}

export class AnswerOut {
  /** Everything written to stdout so far (for the trailing-newline decisions of the caller). */
  streamed = '';
  private call = '';
  private callCol = 0;
  private settled = true;
  /** Something else reached the terminal after this call's text began: it cannot be erased. */
  private mixed = false;
  private readonly write: (s: string) => void;
  private readonly tty: AnswerTerminal | null;

  /** `tty`: stdout's size when it is a terminal, else null. */
  constructor(write: (s: string) => void, tty: AnswerTerminal | null) {
    this.write = write;
    this.tty = tty;
  }

  /** A model call begins: its text is provisional until `settle()`. */
  begin(): void {
    this.flush();
    this.settled = false;
    this.mixed = false;
    this.callCol = this.tty ? advance(this.streamed.slice(this.streamed.lastIndexOf('\n') + 1), 0, this.cols).col : 0;
  }

  text(t: string): void {
    if (this.tty || this.settled) {
      this.put(t);
      if (!this.settled) this.call += t;
    } else this.call += t;
  }

  /** The call's text is final (its response ended, a tool starts, the turn ends). */
  settle(): void {
    this.flush();
    this.settled = true;
  }

  /** The call failed for good: held text is dropped (a terminal keeps what it showed). */
  drop(): void {
    if (!this.tty) this.call = '';
    this.settle();
  }

  /** Another line went to the terminal (stderr) while this call's text was on screen. */
  interleaved(): void {
    if (this.call) this.mixed = true;
  }

  /**
   * Withdraws this call's text so far. Returns a line to print when it stays visible (on a terminal,
   * scrolled off or followed by other output), else undefined.
   */
  retract(): string | undefined {
    const text = this.call;
    this.call = '';
    if (!this.tty || !text) return undefined;
    const { rows } = advance(text, this.callCol, this.cols);
    const fits = rows < Math.max(1, (this.tty.rows ?? 24) - 1);
    if (this.mixed || !fits) {
      if (!this.streamed.endsWith('\n')) this.put('\n');
      return '(the partial answer above was withdrawn: the stream broke; the answer follows)';
    }
    this.streamed = this.streamed.slice(0, this.streamed.length - text.length);
    // Line by line from the last row up (an erase-to-end-of-screen from the top-left corner makes
    // some terminals, tmux among them, push the screen into the scrollback instead).
    let seq = '';
    for (let i = 0; i < rows; i++) seq += '\r\x1b[K\x1b[1A';
    this.write(`${seq}\r${this.callCol > 0 ? `\x1b[${this.callCol}C` : ''}\x1b[K`);
    return undefined;
  }

  private get cols(): number {
    return Math.max(10, this.tty?.columns ?? 80);
  }

  private flush(): void {
    if (!this.tty && this.call) this.put(this.call);
    this.call = '';
  }

  private put(s: string): void {
    this.write(s);
    this.streamed += s;
  }
}
