// A small POSIX/bash command parser for policy decisions. It does not run anything: it turns a
// command line into an AST (lists, pipelines, simple commands, groups, functions) whose words keep
// their quoting and substitutions, so the analyzer can see through quote tricks (`r""m`), command
// substitution, heredocs and `sh -c` strings. Malformed input (unbalanced quotes, unclosed
// substitutions) throws ShellParseError: callers fail closed.

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

export interface Assign {
  name: string;
  value: Word;
  append: boolean;
}

export type Node =
  | { type: 'list'; items: { node: Node; op: string }[] }
  | { type: 'pipeline'; cmds: Node[]; negated: boolean }
  | { type: 'simple'; assigns: Assign[]; words: Word[]; redirects: Redirect[] }
  | { type: 'group'; body: Node; subshell: boolean; redirects: Redirect[] }
  | { type: 'function'; name: string; body: Node }
  /** `while`/`until COND; do BODY; done`, `for … do BODY done` (`arith`: the `for ((…))` header). */
  | { type: 'loop'; kind: 'while' | 'until' | 'for'; cond: Node | null; words: Word[]; arith?: string; body: Node; redirects: Redirect[] }
  | { type: 'arith'; src: string }
  /** `for x in words` / `select` / `case word in` headers: words to scan, no command. */
  | { type: 'header'; keyword: string; words: Word[] };

type Tok =
  | { k: 'word'; w: Word; pos: number }
  | { k: 'op'; v: string; pos: number }
  | { k: 'redir'; r: Redirect; pos: number }
  | { k: 'nl'; pos: number }
  | { k: 'arith'; src: string; pos: number };

const OPS = ['&&', '||', ';;&', ';;', ';&', '|&', '|', '&', ';', '(', ')'];
const REDIR_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '>>', '>&', '<&', '>|', '>', '<'];
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const MAX_DEPTH = 24;

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

class Lexer {
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

// -------------------------------------------------------------------------------------------
// The parser

const TERMINATORS = new Set(['fi', 'done', 'esac', '}', 'then', 'do', 'else', 'elif']);
const PREFIX_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time', 'coproc']);

class Parser {
  private p = 0;
  private readonly toks: Tok[];
  private readonly depth: number;

  constructor(toks: Tok[], depth: number) {
    this.toks = toks;
    this.depth = depth;
  }

  private peek(): Tok | undefined {
    return this.toks[this.p];
  }

  private isWord(t: Tok | undefined, v?: string): boolean {
    return !!t && t.k === 'word' && (v === undefined || (t.w.segs.length === 1 && t.w.segs[0].t === 'lit' && !t.w.segs[0].q && t.w.raw === v));
  }

  private wordTok(t: Tok | undefined): t is Extract<Tok, { k: 'word' }> {
    return !!t && t.k === 'word';
  }

  private isOp(t: Tok | undefined, v: string): boolean {
    return !!t && t.k === 'op' && t.v === v;
  }

  parseProgram(): Node {
    const list = this.parseList(new Set());
    if (this.p < this.toks.length) {
      const t = this.toks[this.p];
      throw new ShellParseError(`unexpected ${t.k === 'op' ? `"${t.v}"` : t.k}`);
    }
    return list;
  }

  /** A list of pipelines separated by ; & && || and newlines, until a closing token in `stop`. */
  private parseList(stop: Set<string>): Node {
    const items: { node: Node; op: string }[] = [];
    for (;;) {
      while (this.peek()?.k === 'nl' || this.isOp(this.peek(), ';')) this.p++;
      const t = this.peek();
      if (!t) break;
      if (t.k === 'op' && (stop.has(t.v) || t.v === ';;' || t.v === ';&' || t.v === ';;&')) break;
      if (t.k === 'word' && stop.has(t.w.raw) && this.isWord(t, t.w.raw)) break;
      if (t.k === 'op' && t.v === ')') break;
      const node = this.parsePipeline(stop);
      const sep = this.peek();
      let op = ';';
      if (sep && sep.k === 'op' && ['&&', '||', '&', ';'].includes(sep.v)) {
        op = sep.v;
        this.p++;
      } else if (sep && sep.k === 'nl') {
        this.p++;
      }
      if (node) items.push({ node, op });
      else if (!sep || (sep.k !== 'op' && sep.k !== 'nl')) break;
    }
    return { type: 'list', items };
  }

  private parsePipeline(stop: Set<string>): Node | null {
    let negated = false;
    while (this.isWord(this.peek(), '!')) {
      negated = !negated;
      this.p++;
    }
    const cmds: Node[] = [];
    const first = this.parseCommand(stop);
    if (first) cmds.push(first);
    while (this.isOp(this.peek(), '|') || this.isOp(this.peek(), '|&')) {
      this.p++;
      while (this.peek()?.k === 'nl') this.p++;
      const c = this.parseCommand(stop);
      if (!c) throw new ShellParseError('a pipe with nothing after it');
      cmds.push(c);
    }
    if (!cmds.length) return null;
    return cmds.length === 1 && !negated ? cmds[0] : { type: 'pipeline', cmds, negated };
  }

  private parseRedirects(): Redirect[] {
    const out: Redirect[] = [];
    while (this.peek()?.k === 'redir') out.push((this.toks[this.p++] as Extract<Tok, { k: 'redir' }>).r);
    return out;
  }

  private parseCommand(stop: Set<string>): Node | null {
    if (this.depth > MAX_DEPTH) throw new ShellParseError('nesting too deep');
    const t = this.peek();
    if (!t) return null;
    if (t.k === 'arith') {
      this.p++;
      return { type: 'arith', src: t.src };
    }
    if (t.k === 'op' && t.v === '(') {
      this.p++;
      const body = this.parseList(new Set([')']));
      if (!this.isOp(this.peek(), ')')) throw new ShellParseError('unclosed ( subshell');
      this.p++;
      return { type: 'group', body, subshell: true, redirects: this.parseRedirects() };
    }
    if (this.isWord(t, '{')) {
      this.p++;
      const body = this.parseList(new Set(['}']));
      if (!this.isWord(this.peek(), '}')) throw new ShellParseError('unclosed { group');
      this.p++;
      return { type: 'group', body, subshell: false, redirects: this.parseRedirects() };
    }
    if (t.k === 'word' && this.isWord(t, t.w.raw)) {
      const kw = t.w.raw;
      if ((kw === 'while' || kw === 'until') && !stop.has(kw)) return this.parseWhile(kw);
      if ((TERMINATORS.has(kw) && !stop.has(kw)) || PREFIX_KEYWORDS.has(kw)) {
        // Keywords of compound commands we parse loosely: `if …; then …; fi` is a list of commands.
        this.p++;
        const next = this.peek();
        if (!next || next.k === 'nl' || (next.k === 'op' && next.v !== '(')) return { type: 'list', items: [] };
        return this.parseCommand(stop) ?? { type: 'list', items: [] };
      }
      if (stop.has(kw)) return null;
      if (kw === 'for' || kw === 'select') return this.parseFor(kw);
      if (kw === 'case') return this.parseCase();
      if (kw === 'function') {
        this.p++;
        const name = this.peek();
        if (!this.wordTok(name)) throw new ShellParseError('function without a name');
        this.p++;
        if (this.isOp(this.peek(), '(') && this.isOp(this.toks[this.p + 1], ')')) this.p += 2;
        while (this.peek()?.k === 'nl') this.p++;
        const body = this.parseCommand(stop);
        if (!body) throw new ShellParseError('function without a body');
        return { type: 'function', name: wordLiteral(name.w), body };
      }
      if (kw === '[[') {
        // A test expression: words until ]] (its operators are not shell operators).
        this.p++;
        const words: Word[] = [t.w];
        while (this.peek() && !this.isWord(this.peek(), ']]')) {
          const x = this.toks[this.p++];
          if (x.k === 'word') words.push(x.w);
          else if (x.k === 'redir' && x.r.target) words.push(x.r.target);
        }
        if (this.isWord(this.peek(), ']]')) this.p++;
        return { type: 'simple', assigns: [], words, redirects: this.parseRedirects() };
      }
    }
    // name () compound — a function definition.
    if (t.k === 'word' && this.isOp(this.toks[this.p + 1], '(') && this.isOp(this.toks[this.p + 2], ')')) {
      this.p += 3;
      while (this.peek()?.k === 'nl') this.p++;
      const body = this.parseCommand(stop);
      if (!body) throw new ShellParseError('function without a body');
      return { type: 'function', name: wordLiteral(t.w), body };
    }
    return this.parseSimple();
  }

  /** `do BODY done` after a loop header; a loop without them is a syntax error, as in bash. */
  private parseLoopBody(kw: string): Node {
    while (this.peek()?.k === 'nl' || this.isOp(this.peek(), ';')) this.p++;
    if (!this.isWord(this.peek(), 'do')) throw new ShellParseError(`${kw} without do`);
    this.p++;
    const body = this.parseList(new Set(['done']));
    if (!this.isWord(this.peek(), 'done')) throw new ShellParseError(`${kw} without done`);
    this.p++;
    return body;
  }

  private parseWhile(kw: 'while' | 'until'): Node {
    this.p++;
    const cond = this.parseList(new Set(['do']));
    const body = this.parseLoopBody(kw);
    return { type: 'loop', kind: kw, cond, words: [], body, redirects: this.parseRedirects() };
  }

  private parseFor(kw: string): Node {
    this.p++;
    const words: Word[] = [];
    let arith: string | undefined;
    while (this.peek() && this.peek()!.k !== 'nl' && !this.isOp(this.peek(), ';') && !this.isWord(this.peek(), 'do')) {
      const x = this.toks[this.p++];
      if (x.k === 'word') words.push(x.w);
      if (x.k === 'arith') {
        arith = x.src;
        break;
      }
    }
    const body = this.parseLoopBody(kw);
    return { type: 'loop', kind: 'for', cond: null, words, arith, body, redirects: this.parseRedirects() };
  }

  private parseCase(): Node {
    this.p++;
    const subject = this.peek();
    const words: Word[] = [];
    if (this.wordTok(subject)) {
      words.push(subject.w);
      this.p++;
    }
    while (this.peek()?.k === 'nl') this.p++;
    if (this.isWord(this.peek(), 'in')) this.p++;
    const items: { node: Node; op: string }[] = [{ node: { type: 'header', keyword: 'case', words }, op: ';' }];
    for (;;) {
      while (this.peek()?.k === 'nl' || this.isOp(this.peek(), ';')) this.p++;
      const t = this.peek();
      if (!t) throw new ShellParseError('case without esac');
      if (this.isWord(t, 'esac')) {
        this.p++;
        break;
      }
      // pattern list up to )
      if (this.isOp(t, '(')) this.p++;
      while (this.peek() && !this.isOp(this.peek(), ')')) this.p++;
      if (!this.isOp(this.peek(), ')')) throw new ShellParseError('case pattern without )');
      this.p++;
      const body = this.parseList(new Set(['esac']));
      items.push({ node: body, op: ';' });
      const sep = this.peek();
      if (sep && sep.k === 'op' && (sep.v === ';;' || sep.v === ';&' || sep.v === ';;&')) this.p++;
    }
    return { type: 'list', items };
  }

  private parseSimple(): Node | null {
    const assigns: Assign[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const t = this.peek();
      if (!t) break;
      if (t.k === 'redir') {
        redirects.push(t.r);
        this.p++;
        continue;
      }
      if (t.k !== 'word') break;
      if (!words.length) {
        const a = asAssignment(t.w);
        if (a) {
          assigns.push(a);
          this.p++;
          // `arr=(a b c)`: skip the array body.
          if (this.isOp(this.peek(), '(') && t.w.raw.endsWith('=')) {
            let depth = 0;
            while (this.peek()) {
              const x = this.toks[this.p++];
              if (x.k === 'op' && x.v === '(') depth++;
              if (x.k === 'op' && x.v === ')' && --depth === 0) break;
            }
          }
          continue;
        }
      }
      words.push(t.w);
      this.p++;
    }
    if (!assigns.length && !words.length && !redirects.length) {
      const t = this.peek();
      if (t && t.k === 'op' && !['(', ')'].includes(t.v)) throw new ShellParseError(`unexpected "${t.v}"`);
      return null;
    }
    return { type: 'simple', assigns, words, redirects };
  }
}

function asAssignment(w: Word): Assign | null {
  const first = w.segs[0];
  if (!first || first.t !== 'lit' || first.q) return null;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=/.exec(first.v);
  if (!m) return null;
  const restLit = first.v.slice(m[0].length);
  const segs: Seg[] = [...(restLit ? [{ t: 'lit' as const, v: restLit, q: false }] : []), ...w.segs.slice(1)];
  return { name: m[1], value: { segs, raw: w.raw.slice(w.raw.indexOf('=') + 1) }, append: m[3] === '+' };
}

/** Parses a command line into an AST. Throws ShellParseError on malformed input. */
export function parseShell(src: string, depth = 0): Node {
  const toks = new Lexer(src).run();
  return new Parser(toks, depth).parseProgram();
}
