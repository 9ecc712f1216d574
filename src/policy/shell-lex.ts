// The lexer of the shell parser (./shell-parse.ts): turns a command line into tokens — words that
// keep their quoting and substitutions as segments, operators, redirections with their heredoc
// bodies — and the word helpers the analyzer uses (double-quoted bodies, a word's literal text).
// Throws ShellParseError on unbalanced quotes and unclosed substitutions: callers fail closed.

export class ShellParseError extends Error {}

/** A piece of a word. `q`: inside quotes (no brace expansion, no field splitting). */
export type Seg =
  | { t: 'lit'; v: string; q: boolean }
  | { t: 'var'; name: string; op?: string; arg?: string; q: boolean }
  | { t: 'cmd'; src: string; q: boolean }
  | { t: 'proc'; dir: '<' | '>'; src: string }
  | { t: 'arith'; src: string; q: boolean };

export interface Word {
  segs: Seg[];
  raw: string;
}

export interface Redirect {
  op: string;
  fd: number | null;
  target: Word | null;
  /** For `<<` / `<<-`: the document and whether its delimiter was quoted (no expansion). */
  heredoc?: { body: string; quoted: boolean };
}

/** A token of the command line (what the parser reads). */
export type Tok =
  | { k: 'word'; w: Word; pos: number }
  | { k: 'op'; v: string; pos: number }
  | { k: 'redir'; r: Redirect; pos: number }
  | { k: 'nl'; pos: number }
  | { k: 'arith'; src: string; pos: number };

const OPS = ['&&', '||', ';;&', ';;', ';&', '|&', '|', '&', ';', '(', ')'];
const REDIR_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '>>', '>&', '<&', '>|', '>', '<'];
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

// -------------------------------------------------------------------------------------------
// Scanning helpers

/**
 * Index just past the delimiter closing one opened before `i` (i = first char inside), skipping
 * quotes, escapes, backticks and nested substitutions: `$(`/`<(`/`(` with `)`, `${` with `}`.
 */
function skipNested(s: string, i: number, open: '(' | '{', close: ')' | '}', unterminated: string): number {
  let depth = 1;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const j = s.indexOf("'", i + 1);
      if (j < 0) throw new ShellParseError('unterminated single quote');
      i = j + 1;
      continue;
    }
    if (c === '"') {
      i = skipDouble(s, i + 1);
      continue;
    }
    if (c === '`') {
      i = skipBacktick(s, i + 1);
      continue;
    }
    if (open === '{' && c === '$' && s[i + 1] === '(') {
      i = skipParens(s, i + 2);
      continue;
    }
    // A comment inside $( … ) runs to the end of the line (inside ${ … }, # is an operator).
    if (open === '(' && c === '#' && (i === 0 || /[\s;&|(]/.test(s[i - 1]))) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
      continue;
    }
    if (c === open) depth++;
    else if (c === close) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  throw new ShellParseError(unterminated);
}

const skipParens = (s: string, i: number): number => skipNested(s, i, '(', ')', 'unterminated $( or ( ');
const skipBraces = (s: string, i: number): number => skipNested(s, i, '{', '}', 'unterminated ${');

/** Index just past the closing `"` (i = first char inside). */
function skipDouble(s: string, i: number): number {
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '"') return i + 1;
    if (c === '`') {
      i = skipBacktick(s, i + 1);
      continue;
    }
    if (c === '$' && s[i + 1] === '(') {
      i = s[i + 2] === '(' ? skipArith(s, i + 3) : skipParens(s, i + 2);
      continue;
    }
    if (c === '$' && s[i + 1] === '{') {
      i = skipBraces(s, i + 2);
      continue;
    }
    i++;
  }
  throw new ShellParseError('unterminated double quote');
}

function skipBacktick(s: string, i: number): number {
  while (i < s.length) {
    if (s[i] === '\\') {
      i += 2;
      continue;
    }
    if (s[i] === '`') return i + 1;
    i++;
  }
  throw new ShellParseError('unterminated backtick');
}

/** `$((` … `))`: i = first char inside. */
function skipArith(s: string, i: number): number {
  let depth = 2;
  while (i < s.length) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  throw new ShellParseError('unterminated $((');
}

const ANSI_C: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** `$'…'` → its text. Like bash, a NUL (`\0`, `\x00`, `\c@`) ends the string there. */
function decodeAnsiC(body: string): string {
  const out = decodeAnsiCRaw(body);
  const nul = out.indexOf('\u0000');
  return nul < 0 ? out : out.slice(0, nul);
}

function decodeAnsiCRaw(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i];
    if (n === undefined) break;
    if (n in ANSI_C) out += ANSI_C[n];
    else if (n === 'x') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1));
      if (m) {
        out += String.fromCharCode(parseInt(m[0], 16));
        i += m[0].length;
      } else out += '\\x';
    } else if (n === 'u' || n === 'U') {
      const m = (n === 'u' ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(body.slice(i + 1));
      if (m) {
        const cp = parseInt(m[0], 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
        i += m[0].length;
      } else out += '\\' + n;
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))!;
      out += String.fromCharCode(parseInt(m[0], 8));
      i += m[0].length - 1;
    } else if (n === 'c') {
      const ch = body[++i];
      if (ch) out += String.fromCharCode(ch.toUpperCase().charCodeAt(0) ^ 64);
    } else out += '\\' + n;
  }
  return out;
}

// -------------------------------------------------------------------------------------------
// The lexer

export class Lexer {
  private readonly s: string;
  private i = 0;
  private readonly pendingHeredocs: Redirect[] = [];
  /** Inside `[[ … ]]`: `(…)#` there is a pattern, not a comment. */
  private inTest = false;
  readonly toks: Tok[] = [];

  constructor(s: string) {
    this.s = s;
  }

  run(): Tok[] {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      // Only space, tab and newline separate words (a CR or a non-breaking space is part of one).
      if (c === ' ' || c === '\t') {
        this.i++;
        continue;
      }
      if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2;
        continue;
      }
      if (c === '#' && !(this.inTest && s[this.i - 1] === ')')) {
        const nl = s.indexOf('\n', this.i);
        this.i = nl < 0 ? s.length : nl;
        continue;
      }
      if (c === '\n') {
        this.toks.push({ k: 'nl', pos: this.i });
        this.i++;
        this.readHeredocBodies();
        continue;
      }
      // (( arithmetic command ))
      if (c === '(' && s[this.i + 1] === '(') {
        const start = this.i;
        const end = skipArith(s, this.i + 2);
        this.toks.push({ k: 'arith', src: s.slice(start + 2, end - 2), pos: start });
        this.i = end;
        continue;
      }
      // Redirections, optionally with a leading fd number.
      const fdm = /^(\d+)(?=[<>])/.exec(s.slice(this.i, this.i + 12));
      const at = fdm ? this.i + fdm[1].length : this.i;
      const rop = REDIR_OPS.find((o) => s.startsWith(o, at));
      if (rop && !(s[at] === '<' && s[at + 1] === '(') && !(s[at] === '>' && s[at + 1] === '(')) {
        this.readRedirect(rop, fdm ? Number(fdm[1]) : null, at + rop.length);
        continue;
      }
      const op = OPS.find((o) => s.startsWith(o, this.i));
      if (op && !(c === '(' && false)) {
        this.toks.push({ k: 'op', v: op, pos: this.i });
        this.i += op.length;
        continue;
      }
      const pos = this.i;
      const w = this.readWord();
      if (w) {
        this.toks.push({ k: 'word', w, pos });
        if (w.raw === '[[') this.inTest = true;
        else if (w.raw === ']]') this.inTest = false;
      }
    }
    if (this.pendingHeredocs.length) this.readHeredocBodies();
    return this.toks;
  }

  private readRedirect(op: string, fd: number | null, after: number): void {
    const s = this.s;
    this.i = after;
    while (s[this.i] === ' ' || s[this.i] === '\t') this.i++;
    const pos = this.i;
    const target = this.readWord();
    if (!target) throw new ShellParseError(`missing target after ${op}`);
    const r: Redirect = { op, fd, target };
    if (op === '<<' || op === '<<-') {
      const quoted = target.segs.some((g) => g.t !== 'proc' && g.q);
      r.heredoc = { body: '', quoted };
      this.pendingHeredocs.push(r);
    }
    this.toks.push({ k: 'redir', r, pos });
  }

  private readHeredocBodies(): void {
    const s = this.s;
    while (this.pendingHeredocs.length) {
      const r = this.pendingHeredocs.shift()!;
      const delim = wordLiteral(r.target!);
      const lines: string[] = [];
      for (;;) {
        if (this.i >= s.length) break; // unterminated heredoc: bash warns and uses what is there
        const nl = s.indexOf('\n', this.i);
        const line = s.slice(this.i, nl < 0 ? s.length : nl);
        this.i = nl < 0 ? s.length : nl + 1;
        const cmp = r.op === '<<-' ? line.replace(/^\t+/, '') : line;
        if (cmp === delim) break;
        lines.push(line);
      }
      r.heredoc!.body = lines.join('\n');
    }
  }

  /** Reads one word at this.i (stops at whitespace or an unquoted metacharacter). */
  private readWord(): Word | null {
    const s = this.s;
    const start = this.i;
    const segs: Seg[] = [];
    let lit = '';
    const flush = () => {
      if (lit) segs.push({ t: 'lit', v: lit, q: false });
      lit = '';
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if (META.has(c)) {
        // <( and >( inside a word (or starting one) are process substitutions.
        if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
          flush();
          const end = skipParens(s, this.i + 2);
          segs.push({ t: 'proc', dir: c, src: s.slice(this.i + 2, end - 1) });
          this.i = end;
          continue;
        }
        // `name=(a b c)`: an array assignment is one word, and so is what follows its `)`.
        if (c === '(' && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/.test(s.slice(start, this.i))) {
          const end = skipParens(s, this.i + 1);
          flush();
          // Its elements are expanded: substitutions in them run.
          segs.push({ t: 'lit', v: '(', q: true }, ...parseDoubleQuoted(s.slice(this.i + 1, end - 1)), { t: 'lit', v: ')', q: true });
          this.i = end;
          continue;
        }
        break;
      }
      // Extended globs (`@(a|b)`, `+(…)`, `*(…)`, `?(…)`, `!(…)`) are part of the word.
      if ('@+*?!'.includes(c) && s[this.i + 1] === '(' && (this.i > start || c === '@')) {
        const end = skipParens(s, this.i + 2);
        lit += s.slice(this.i, end);
        this.i = end;
        continue;
      }
      if (c === '\\') {
        const n = s[this.i + 1];
        if (n === '\n') {
          this.i += 2;
          continue;
        }
        if (n !== undefined) {
          flush();
          segs.push({ t: 'lit', v: n, q: true });
        }
        this.i += 2;
        continue;
      }
      if (c === "'") {
        const j = s.indexOf("'", this.i + 1);
        if (j < 0) throw new ShellParseError('unterminated single quote');
        flush();
        segs.push({ t: 'lit', v: s.slice(this.i + 1, j), q: true });
        this.i = j + 1;
        continue;
      }
      // `$\<newline>'…'`: the continuation is removed first, so this is still `$'…'` / `$(…)`.
      if (c === '$' && s.startsWith('\\\n', this.i + 1)) {
        let j = this.i + 1;
        while (s.startsWith('\\\n', j)) j += 2;
        if (s[j] === "'") {
          const body = this.scanAnsiC(j + 1);
          flush();
          segs.push({ t: 'lit', v: decodeAnsiC(body.text), q: true });
          this.i = body.end;
          continue;
        }
        const r = readDollar(`$${s.slice(j)}`, 0, false);
        if (r) {
          flush();
          segs.push(r.seg);
          this.i = j - 1 + r.end;
          continue;
        }
      }
      if (c === '$' && s[this.i + 1] === "'") {
        const body = this.scanAnsiC(this.i + 2);
        flush();
        segs.push({ t: 'lit', v: decodeAnsiC(body.text), q: true });
        this.i = body.end;
        continue;
      }
      if (c === '"') {
        flush();
        const end = skipDouble(s, this.i + 1);
        segs.push(...parseDoubleQuoted(s.slice(this.i + 1, end - 1)));
        this.i = end;
        continue;
      }
      if (c === '$' || c === '`') {
        const r = readDollar(s, this.i, false);
        if (r) {
          flush();
          segs.push(r.seg);
          this.i = r.end;
          continue;
        }
      }
      lit += c;
      this.i++;
    }
    flush();
    if (this.i === start) return null;
    return { segs, raw: s.slice(start, this.i) };
  }

  private scanAnsiC(i: number): { text: string; end: number } {
    const s = this.s;
    let j = i;
    while (j < s.length) {
      if (s[j] === '\\') {
        j += 2;
        continue;
      }
      if (s[j] === "'") return { text: s.slice(i, j), end: j + 1 };
      j++;
    }
    throw new ShellParseError("unterminated $'");
  }
}

/** `$…` or a backtick at s[i]: the segment and where it ends, or null for a lone `$`. */
function readDollar(s: string, i: number, q: boolean): { seg: Seg; end: number } | null {
  if (s[i] === '`') {
    const end = skipBacktick(s, i + 1);
    return { seg: { t: 'cmd', src: s.slice(i + 1, end - 1).replace(/\\([`$\\])/g, '$1'), q }, end };
  }
  const n = s[i + 1];
  if (n === '(' && s[i + 2] === '(') {
    const end = skipArith(s, i + 3);
    return { seg: { t: 'arith', src: s.slice(i + 3, end - 2), q }, end };
  }
  if (n === '(') {
    const end = skipParens(s, i + 2);
    return { seg: { t: 'cmd', src: s.slice(i + 2, end - 1), q }, end };
  }
  if (n === '{') {
    const end = skipBraces(s, i + 2);
    const inner = s.slice(i + 2, end - 1);
    const m = /^(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(.*)$/s.exec(inner);
    if (!m) return { seg: { t: 'var', name: inner, q }, end };
    const rest = m[3];
    const om = /^(:?[-=?+]|##?|%%?|\/\/?|:|\^\^?|,,?)(.*)$/s.exec(rest);
    return { seg: { t: 'var', name: m[2], op: m[1] ? '#len' : om?.[1], arg: om?.[2], q }, end };
  }
  const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(i + 1));
  if (!m) return null;
  return { seg: { t: 'var', name: m[1], q }, end: i + 1 + m[1].length };
}

/** The inside of a double-quoted string → segments (all quoted). */
export function parseDoubleQuoted(body: string): Seg[] {
  const segs: Seg[] = [];
  let lit = '';
  const flush = () => {
    if (lit) segs.push({ t: 'lit', v: lit, q: true });
    lit = '';
  };
  for (let i = 0; i < body.length; ) {
    const c = body[i];
    if (c === '\\' && i + 1 < body.length) {
      const n = body[i + 1];
      if ('$`"\\\n'.includes(n)) {
        if (n !== '\n') lit += n;
      } else lit += '\\' + n;
      i += 2;
      continue;
    }
    if (c === '$' || c === '`') {
      const r = readDollar(body, i, true);
      if (r) {
        flush();
        segs.push(r.seg);
        i = r.end;
        continue;
      }
    }
    lit += c;
    i++;
  }
  flush();
  return segs;
}

/** A word's text with quotes removed and substitutions left as written. */
export function wordLiteral(w: Word): string {
  return w.segs
    .map((g) => {
      switch (g.t) {
        case 'lit':
          return g.v;
        case 'var':
          return `$${g.name}`;
        case 'cmd':
          return `$(${g.src})`;
        case 'proc':
          return `${g.dir}(${g.src})`;
        case 'arith':
          return `$((${g.src}))`;
      }
    })
    .join('');
}
