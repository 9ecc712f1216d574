// Static word expansion: quote removal, brace expansion, ${IFS}, variables assigned earlier in the
// same command, $HOME/$HERMES_HOME, and the output of substitutions and pipelines that can be
// known without running anything (`$(echo rm)`, `echo cm0gLXJmIC8= | base64 -d`, a heredoc fed
// to cat). What only the run would know becomes a DYN marker.
import { parseDoubleQuoted, type Seg, type Word } from '../shell-lex.ts';
import { parseShell, type Node } from '../shell-parse.ts';
import { base, DECODE, DOWNLOAD, DYN, PIDS, PROC, type Scope } from './context.ts';
import { globToRegExp } from './glob.ts';
import { analyzeScript } from './walk.ts';

type Ch = { c: string; kind: 'lit' | 'q' | 'exp' | 'ifs' };

export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'nc', 'ncat', 'netcat', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET', 'iwr', 'invoke-webrequest', 'irm', 'invoke-restmethod']);
export const DECODERS = new Set(['base64', 'base32', 'basenc', 'xxd', 'openssl', 'gunzip', 'zcat', 'rev', 'uudecode', 'tr', 'gzip', 'bzcat', 'xzcat']);

const mk = (s: string, kind: Ch['kind']): Ch[] => [...s].map((c) => ({ c, kind }));

/** Markers for what a substitution's commands do (its output is only known at run time). */
function runTimeMarks(scope: Scope, from: number): string {
  let m = '';
  const cmds = scope.commands.slice(from).map((c) => base(c[0] ?? '').toLowerCase());
  if (cmds.some((n) => DOWNLOADERS.has(n))) m += DOWNLOAD;
  if (cmds.some((n) => DECODERS.has(n))) m += DECODE;
  if (cmds.some((n) => n === 'pgrep' || n === 'pidof')) m += PIDS;
  return m;
}

function segChars(seg: Seg, scope: Scope): Ch[] {
  switch (seg.t) {
    case 'lit':
      return mk(seg.v, seg.q ? 'q' : 'lit');
    case 'var': {
      if (seg.name === 'IFS' && !seg.op) return seg.q ? mk(' ', 'q') : [{ c: ' ', kind: 'ifs' }];
      // ${IFS:0:1} and friends are still whitespace.
      if (seg.name === 'IFS' && seg.op && !DEFAULT_OPS.has(seg.op)) return seg.q ? mk(' ', 'q') : [{ c: ' ', kind: 'ifs' }];
      const known = scope.vars.get(seg.name);
      if (known === undefined && !seg.op) {
        if (seg.name === 'HOME') return mk('~', 'q');
        if (seg.name === 'HERMES_HOME') return mk(scope.ctx.hermesHome || '~/.hermes', 'q');
        if (seg.name === 'PWD' && scope.cwd) return mk(scope.cwd, seg.q ? 'q' : 'exp');
      }
      const value = seg.op ? varOp(seg, known ?? builtinVar(seg.name, scope), scope) : known;
      if (value === undefined) return mk(`${DYN}$${seg.name}`, 'q');
      return mk(value, seg.q ? 'q' : 'exp');
    }
    case 'cmd': {
      const before = scope.commands.length;
      analyzeScript(seg.src, scope);
      const out = staticOutput(seg.src, scope);
      if (out === null) return mk(`${DYN}$(…)${runTimeMarks(scope, before)}`, 'q');
      return mk(out.replace(/\n+$/, ''), seg.q ? 'q' : 'exp');
    }
    case 'proc': {
      const before = scope.commands.length;
      analyzeScript(seg.src, scope);
      const out = seg.dir === '<' ? staticOutput(seg.src, scope) : null;
      const marks = runTimeMarks(scope, before);
      if (out !== null) {
        scope.procs.push({ text: out, marks });
        return mk(`/dev/fd/63${PROC}${scope.procs.length - 1}`, 'q');
      }
      return mk(`/dev/fd/63${DYN}${marks}`, 'q');
    }
    case 'arith':
      return mk('0', 'q');
  }
}

const DEFAULT_OPS = new Set([':-', '-', ':=', '=']);

/** Variables the shell sets itself, when known: HOME (the real path, so `${HOME%/*}` works), … */
function builtinVar(name: string, scope: Scope): string | undefined {
  if (name === 'HOME') return scope.ctx.home || '~';
  if (name === 'HERMES_HOME') return scope.ctx.hermesHome || undefined;
  if (name === 'PWD') return scope.cwd ?? undefined;
  return undefined;
}

/**
 * The text of a `${…}` operator's word (a default, a pattern): its substitutions are analyzed
 * (`${x:-$(rm -rf ~)}` runs that command), its quotes removed.
 */
function opWord(arg: string, scope: Scope): string {
  if (!/[$`'"\\]/.test(arg)) return arg;
  return parseDoubleQuoted(arg)
    .flatMap((g) => segChars(g, scope))
    .map((c) => c.c)
    .join('')
    .replace(/["']/g, '');
}

/** `${name<op>arg}` for a known (or unset) value, as bash computes it; undefined when unknowable. */
function varOp(seg: Extract<Seg, { t: 'var' }>, v: string | undefined, scope: Scope): string | undefined {
  const op = seg.op!;
  const arg = seg.arg === undefined ? '' : opWord(seg.arg, scope);
  if (op === '#len') return v === undefined ? undefined : String(v.length);
  if (DEFAULT_OPS.has(op)) return v === undefined || (op.startsWith(':') && v === '') ? arg : v;
  if (op === ':+' || op === '+') return v === undefined || (op === ':+' && v === '') ? '' : arg;
  if (v === undefined || v.includes(DYN) || arg.includes(DYN)) return undefined;
  if (op === ':?' || op === '?') return v;
  if (op === '^^' || op === '^') return op === '^' ? v.charAt(0).toUpperCase() + v.slice(1) : v.toUpperCase();
  if (op === ',,' || op === ',') return op === ',' ? v.charAt(0).toLowerCase() + v.slice(1) : v.toLowerCase();
  if (op === ':') {
    const m = /^\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?$/.exec(arg);
    if (!m) return undefined;
    const from = Number(m[1]) < 0 ? Math.max(0, v.length + Number(m[1])) : Number(m[1]);
    if (m[2] === undefined) return v.slice(from);
    const len = Number(m[2]);
    return len < 0 ? v.slice(from, v.length + len) : v.slice(from, from + len);
  }
  if (op === '#' || op === '##' || op === '%' || op === '%%') {
    const re = globToRegExp(arg);
    const longest = op.length === 2;
    if (op.startsWith('#')) {
      for (let i = longest ? v.length : 0; longest ? i >= 0 : i <= v.length; i += longest ? -1 : 1) if (re.test(v.slice(0, i))) return v.slice(i);
    } else {
      for (let i = longest ? 0 : v.length; longest ? i <= v.length : i >= 0; i += longest ? 1 : -1) if (re.test(v.slice(i))) return v.slice(0, i);
    }
    return v;
  }
  if (op === '/' || op === '//') {
    const slash = seg.arg?.indexOf('/') ?? -1;
    const pat = slash < 0 ? arg : opWord(seg.arg!.slice(0, slash), scope);
    const rep = slash < 0 ? '' : opWord(seg.arg!.slice(slash + 1), scope);
    if (!pat || /[*?[]/.test(pat)) return undefined;
    return op === '//' ? v.split(pat).join(rep) : v.replace(pat, () => rep);
  }
  return undefined;
}

/** Bash brace expansion on unquoted braces (`{rm,-rf,/}` → three words), capped. */
function braceExpand(chars: Ch[], budget = { n: 64 }): Ch[][] {
  const isLit = (i: number, c: string) => chars[i]?.kind === 'lit' && chars[i].c === c;
  for (let open = 0; open < chars.length; open++) {
    if (!isLit(open, '{') || (open > 0 && chars[open - 1].c === '$')) continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = open; j < chars.length; j++) {
      if (isLit(j, '{')) depth++;
      else if (isLit(j, '}')) {
        depth--;
        if (depth === 0) {
          close = j;
          break;
        }
      } else if (isLit(j, ',') && depth === 1) commas.push(j);
    }
    if (close < 0) return [chars];
    const pre = chars.slice(0, open);
    const post = chars.slice(close + 1);
    const alts: Ch[][] = [];
    if (commas.length) {
      let from = open + 1;
      for (const c of [...commas, close]) {
        alts.push(chars.slice(from, c));
        from = c + 1;
      }
    } else {
      const inner = chars.slice(open + 1, close).map((x) => x.c).join('');
      const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(inner);
      if (!m) continue;
      const num = /\d/.test(m[1]);
      const a = num ? Number(m[1]) : m[1].charCodeAt(0);
      const b = num ? Number(m[2]) : m[2].charCodeAt(0);
      const step = a <= b ? 1 : -1;
      for (let v = a; alts.length < 16; v += step) {
        alts.push(mk(num ? String(v) : String.fromCharCode(v), 'lit'));
        if (v === b) break;
      }
    }
    const out: Ch[][] = [];
    for (const alt of alts) {
      if (budget.n-- <= 0) break;
      out.push(...braceExpand([...pre, ...alt, ...post], budget));
    }
    return out;
  }
  return [chars];
}

/** Expands one word into argv entries (brace expansion, then field splitting of expansions). */
export function expandWord(w: Word, scope: Scope, braces = true): string[] {
  // Fast path: only literal text, no brace expansion to do (most words).
  if (w.segs.every((g) => g.t === 'lit' && (g.q || !braces || !g.v.includes('{')))) {
    const text = w.segs.map((g) => (g as { v: string }).v).join('');
    return text || w.segs.some((g) => g.t === 'lit' && g.q) ? [text] : [];
  }
  const chars = w.segs.flatMap((g) => segChars(g, scope));
  const variants = braces ? braceExpand(chars) : [chars];
  const out: string[] = [];
  for (const v of variants) {
    let cur = '';
    let has = false;
    for (const ch of v) {
      const splits = ch.kind === 'ifs' || (ch.kind === 'exp' && /\s/.test(ch.c));
      if (splits) {
        if (has) out.push(cur);
        cur = '';
        has = false;
        continue;
      }
      cur += ch.c;
      has = true;
    }
    // A word made only of quotes ("") is an empty argument; an empty expansion disappears.
    if (has || (v.length === 0 && w.segs.some((g) => g.t === 'lit' && g.q))) out.push(cur);
  }
  return out;
}

/** Segments (from parseDoubleQuoted) expanded to text: their substitutions are analyzed. */
export function segCharsText(segs: Seg[], scope: Scope): string {
  return segs
    .flatMap((g) => segChars(g, scope))
    .map((c) => c.c)
    .join('');
}

export function wordText(w: Word, scope: Scope): string {
  return expandWord(w, scope, false).join(' ');
}

/** The text a heredoc or here-string feeds to a command (unquoted heredocs are expanded). */
export function stdinTexts(node: Extract<Node, { type: 'simple' }>, scope: Scope): string[] {
  const out: string[] = [];
  for (const r of node.redirects) {
    if (r.heredoc) out.push(r.heredoc.quoted ? r.heredoc.body : parseDoubleQuoted(r.heredoc.body).flatMap((g) => segChars(g, scope)).map((c) => c.c).join(''));
    else if (r.op === '<<<' && r.target) out.push(wordText(r.target, scope) + '\n');
  }
  return out;
}

// -------------------------------------------------------------------------------------------
// Output known without running anything

/** A scratch copy of the scope: expanding words for a look must not record findings twice. */
function scratch(scope: Scope): Scope {
  return { ...scope, findings: [], commands: [], procs: scope.procs };
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function decodeBase32(s: string): string | null {
  const clean = s.replace(/[=\s]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = BASE32.indexOf(ch);
    if (i < 0) return null;
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out).toString('latin1');
}

/** `tr SET1 SET2` with literal sets and a-z ranges. */
function trMap(set1: string, set2: string, input: string): string | null {
  const expand = (s: string): string | null => {
    if (/\[:|\\/.test(s)) return null;
    let o = '';
    for (let i = 0; i < s.length; i++) {
      if (s[i + 1] === '-' && i + 2 < s.length) {
        for (let c = s.charCodeAt(i); c <= s.charCodeAt(i + 2); c++) o += String.fromCharCode(c);
        i += 2;
      } else o += s[i];
    }
    return o;
  };
  const a = expand(set1);
  const b = expand(set2);
  if (a === null || b === null || !b.length) return null;
  let out = '';
  for (const ch of input) {
    const i = a.indexOf(ch);
    out += i < 0 ? ch : b[Math.min(i, b.length - 1)];
  }
  return out;
}

/** What a decoding command makes of `input`, or null when that is not knowable. */
function transform(argv: string[], input: string): string | null {
  const name = base(argv[0] ?? '');
  const args = argv.slice(1);
  const has = (...flags: string[]) => args.some((a) => flags.includes(a) || (/^-[A-Za-z]+$/.test(a) && flags.some((f) => f.length === 2 && a.includes(f[1]))));
  switch (name) {
    case 'cat':
      return args.length === 0 || (args.length === 1 && args[0] === '-') ? input : null;
    case 'base64':
      if (has('-d', '--decode', '-D')) return Buffer.from(input.replace(/\s+/g, ''), 'base64').toString('latin1');
      return args.every((a) => /^-w\d*$|^--wrap/.test(a)) ? Buffer.from(input, 'latin1').toString('base64') + '\n' : null;
    case 'base32':
      return has('-d', '--decode') ? decodeBase32(input) : null;
    case 'xxd':
      return has('-r') && has('-p', '-ps', '-plain') ? Buffer.from(input.replace(/[^0-9a-fA-F]/g, ''), 'hex').toString('latin1') : null;
    case 'openssl':
      return (args[0] === 'base64' || args[0] === 'enc') && has('-d') && (args[0] === 'base64' || args.includes('-base64') || args.includes('-a'))
        ? Buffer.from(input.replace(/\s+/g, ''), 'base64').toString('latin1')
        : null;
    case 'rev':
      return input
        .split('\n')
        .map((l) => [...l].reverse().join(''))
        .join('\n');
    case 'tr':
      return args.length === 2 ? trMap(args[0], args[1], input) : null;
    default:
      return null;
  }
}

/** What one simple command prints, when that is knowable (echo/printf of literals, cat of a heredoc, …). */
function simpleOutput(node: Extract<Node, { type: 'simple' }>, scope: Scope, input: string | null): string | null {
  const s = scratch(scope);
  const argv = node.words.flatMap((w) => expandWord(w, s, false));
  if (argv.some((a) => a.includes(DYN))) return null;
  const fed = stdinTexts(node, s);
  if (fed.length) input = fed.join('');
  // Output sent elsewhere, or input from a file: not knowable here (stderr redirects are fine).
  if (node.redirects.some((r) => !r.heredoc && r.op !== '<<<' && r.fd !== 2)) return null;
  const name = base(argv[0] ?? '');
  if (name === 'echo') {
    const args = argv.slice(1);
    let interpret = false;
    while (args.length && /^-[neE]+$/.test(args[0])) interpret ||= args.shift()!.includes('e');
    const text = args.join(' ');
    return (interpret ? text.replace(/\\n/g, '\n').replace(/\\t/g, '\t') : text) + '\n';
  }
  if (name === 'printf' && argv[1] !== undefined) {
    const fmt = argv[1].replace(/\\n/g, '\n').replace(/\\t/g, '\t');
    let k = 2;
    const s2 = fmt.replace(/%[sdb]/g, () => argv[k++] ?? '');
    return k < argv.length ? s2 + argv.slice(k).join('') : s2;
  }
  if ((name === 'which' || name === 'type') && argv.length >= 2) return `/usr/bin/${base(argv[argv.length - 1])}`;
  if (name === 'command' && argv[1] === '-v' && argv[2]) return `/usr/bin/${base(argv[2])}`;
  if (name === 'basename' && argv[1]) return base(argv[1]);
  if (input === null) return null;
  return transform(argv, input);
}

function nodeOutput(node: Node, scope: Scope): string | null {
  if (node.type === 'list') return node.items.length === 1 && node.items[0].op !== '&' ? nodeOutput(node.items[0].node, scope) : null;
  if (node.type === 'simple') return simpleOutput(node, scope, null);
  if (node.type === 'pipeline' && !node.negated) return pipelineOutput(node.cmds, scope);
  return null;
}

/** What a pipeline's stages print, stage by stage, when every stage is knowable. */
export function pipelineOutput(cmds: Node[], scope: Scope): string | null {
  let out: string | null = null;
  for (let i = 0; i < cmds.length; i++) {
    const n = cmds[i];
    if (n.type !== 'simple') return null;
    out = simpleOutput(n, scope, i === 0 ? null : out);
    if (out === null || out.length > 64 * 1024) return null;
  }
  return out;
}

/** What `$( … )` prints, when that is knowable statically. */
export function staticOutput(src: string, scope: Scope): string | null {
  let ast: Node;
  try {
    ast = parseShell(src, scope.depth + 1);
  } catch {
    return null;
  }
  return nodeOutput(ast, scope);
}
