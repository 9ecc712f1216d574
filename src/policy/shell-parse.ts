// A small POSIX/bash command parser for policy decisions. It does not run anything: it turns a
// command line into an AST (lists, pipelines, simple commands, groups, functions) whose words keep
// their quoting and substitutions, so the analyzer can see through quote tricks (`r""m`), command
// substitution, heredocs and `sh -c` strings. Malformed input (unbalanced quotes, unclosed
// substitutions) throws ShellParseError: callers fail closed. The words and their pieces come from
// the lexer (./shell-lex.ts); this file is the grammar.

import { Lexer, ShellParseError, wordLiteral, type Redirect, type Seg, type Tok, type Word } from './shell-lex.ts';

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

const MAX_DEPTH = 24;

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
