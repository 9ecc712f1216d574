// Syntax colours for code blocks in answers, one line at a time as the answer streams: keywords,
// strings, comments, numbers, literals, types and calls for the languages models write most. State
// (an open block comment, multi-line string) carries from line to line inside one fence. A fence
// without a known language keeps the plain code colour.

import type { Style } from './style.ts';

export interface HighlightState {
  /** The closing delimiter of a block comment or multi-line string still open, and its kind. */
  open: { close: string; kind: 'comment' | 'string' } | null;
}

interface Lang {
  keywords: Set<string>;
  literals: Set<string>;
  lineComment: string[];
  blockComment?: [string, string];
  /** Single-line string quotes. */
  quotes: string[];
  /** Delimiters of strings that may span lines (`, """, '''). */
  multiline: string[];
  /** Capitalised identifiers are types. */
  types?: boolean;
  caseInsensitive?: boolean;
  /** $VAR / ${VAR} (shells). */
  variables?: boolean;
}

const words = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

const C_LIKE_LITERALS = words('true false null nullptr NULL nil');
const JS = words(
  'break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of static get set from as implements interface package private protected public type enum declare namespace abstract readonly keyof infer is satisfies',
);

const LANGS: Record<string, Lang> = {
  js: { keywords: JS, literals: words('true false null undefined NaN Infinity'), lineComment: ['//'], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: ['`'], types: true },
  python: {
    keywords: words('and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case self'),
    literals: words('True False None'),
    lineComment: ['#'],
    quotes: ['"', "'"],
    multiline: ['"""', "'''"],
    types: true,
  },
  shell: {
    keywords: words('if then else elif fi for while until do done case esac in function return local export readonly unset set source alias echo exit cd'),
    literals: words('true false'),
    lineComment: ['#'],
    quotes: ['"', "'"],
    multiline: [],
    variables: true,
  },
  json: { keywords: words(''), literals: words('true false null'), lineComment: [], quotes: ['"'], multiline: [] },
  go: {
    keywords: words('break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var'),
    literals: words('true false nil iota'),
    lineComment: ['//'],
    blockComment: ['/*', '*/'],
    quotes: ['"', "'"],
    multiline: ['`'],
    types: true,
  },
  rust: {
    keywords: words('as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while'),
    literals: words('true false None Some Ok Err'),
    lineComment: ['//'],
    blockComment: ['/*', '*/'],
    quotes: ['"'],
    multiline: [],
    types: true,
  },
  c: {
    keywords: words(
      'auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class namespace template typename public private protected virtual override new delete using try catch throw final import package extends implements interface boolean byte var val fun when object companion data sealed func let guard defer struct protocol extension where in is as async await internal sealed readonly string bool',
    ),
    literals: C_LIKE_LITERALS,
    lineComment: ['//'],
    blockComment: ['/*', '*/'],
    quotes: ['"', "'"],
    multiline: [],
    types: true,
  },
  ruby: {
    keywords: words('alias and begin break case class def defined? do else elsif end ensure for if in module next not or redo rescue retry return self super then undef unless until when while yield require attr_accessor'),
    literals: words('true false nil'),
    lineComment: ['#'],
    quotes: ['"', "'"],
    multiline: [],
    types: true,
  },
  sql: {
    keywords: words(
      'select from where and or not insert into values update set delete create table index view drop alter add column primary key foreign references join left right inner outer full on group by order having limit offset as distinct union all case when then else end is in like between exists returning with default constraint unique check begin commit rollback',
    ),
    literals: words('null true false'),
    lineComment: ['--'],
    blockComment: ['/*', '*/'],
    quotes: ["'", '"'],
    multiline: [],
    caseInsensitive: true,
  },
  yaml: { keywords: words(''), literals: words('true false null yes no on off ~'), lineComment: ['#'], quotes: ['"', "'"], multiline: [] },
  toml: { keywords: words(''), literals: words('true false'), lineComment: ['#', ';'], quotes: ['"', "'"], multiline: ['"""', "'''"] },
  css: { keywords: words('important media import supports keyframes from to'), literals: words(''), lineComment: [], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: [] },
  html: { keywords: words(''), literals: words(''), lineComment: [], blockComment: ['<!--', '-->'], quotes: ['"', "'"], multiline: [] },
};

const ALIASES: Record<string, string> = {
  javascript: 'js',
  jsx: 'js',
  mjs: 'js',
  cjs: 'js',
  ts: 'js',
  typescript: 'js',
  tsx: 'js',
  py: 'python',
  python3: 'python',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  fish: 'shell',
  console: 'shell',
  shellscript: 'shell',
  dockerfile: 'shell',
  makefile: 'shell',
  jsonc: 'json',
  json5: 'json',
  golang: 'go',
  rs: 'rust',
  'c++': 'c',
  cpp: 'c',
  cc: 'c',
  h: 'c',
  hpp: 'c',
  java: 'c',
  kotlin: 'c',
  kt: 'c',
  swift: 'c',
  cs: 'c',
  csharp: 'c',
  php: 'c',
  scala: 'c',
  dart: 'c',
  rb: 'ruby',
  postgres: 'sql',
  postgresql: 'sql',
  sqlite: 'sql',
  mysql: 'sql',
  yml: 'yaml',
  ini: 'toml',
  scss: 'css',
  less: 'css',
  xml: 'html',
  svg: 'html',
  vue: 'html',
};

/** The language spec for a fence's info string, or null (no colours beyond the code colour). */
export function languageOf(info: string): string | null {
  const l = info.trim().toLowerCase();
  if (l === 'diff' || l === 'patch') return 'diff';
  if (LANGS[l]) return l;
  return ALIASES[l] ?? null;
}

const NUMBER = /^(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z]*/;
const IDENT = /^[A-Za-z_$][\w$]*[?!]?/;

/** Colours one line of code in `lang` (a name from languageOf); `state` carries across lines. */
export function highlightLine(line: string, lang: string | null, s: Style, state: HighlightState): string {
  if (!s.color) return line;
  if (!lang) return s.cyan(line);
  if (lang === 'diff') return diffLine(line, s);
  const L = LANGS[lang];
  const comment = (t: string) => s.gray(t);
  const str = (t: string) => s.green(t);
  let out = '';
  let i = 0;
  if (state.open) {
    const end = line.indexOf(state.open.close);
    const paint = state.open.kind === 'comment' ? comment : str;
    if (end < 0) return paint(line);
    out += paint(line.slice(0, end + state.open.close.length));
    i = end + state.open.close.length;
    state.open = null;
  }
  // YAML / TOML keys at the start of a line.
  if ((lang === 'yaml' || lang === 'toml') && i === 0) {
    const m = /^(\s*-?\s*)([\w.$-]+|"[^"]*"|'[^']*'|\[[^\]]*\])(\s*[:=])/.exec(line);
    if (m) {
      out += m[1] + s.cyan(m[2]) + m[3];
      i = m[0].length;
    }
  }
  let plain = '';
  const flush = () => {
    out += plain;
    plain = '';
  };
  while (i < line.length) {
    const rest = line.slice(i);
    const lc = L.lineComment.find((c) => rest.startsWith(c) && (c !== '#' || lang !== 'shell' || i === 0 || /\s/.test(line[i - 1])));
    if (lc) {
      flush();
      out += comment(rest);
      break;
    }
    if (L.blockComment && rest.startsWith(L.blockComment[0])) {
      flush();
      const end = rest.indexOf(L.blockComment[1], L.blockComment[0].length);
      if (end < 0) {
        out += comment(rest);
        state.open = { close: L.blockComment[1], kind: 'comment' };
        break;
      }
      out += comment(rest.slice(0, end + L.blockComment[1].length));
      i += end + L.blockComment[1].length;
      continue;
    }
    const ml = L.multiline.find((q) => rest.startsWith(q));
    if (ml) {
      flush();
      const end = findClose(rest, ml, ml.length);
      if (end < 0) {
        out += str(rest);
        state.open = { close: ml, kind: 'string' };
        break;
      }
      out += str(rest.slice(0, end + ml.length));
      i += end + ml.length;
      continue;
    }
    const q = L.quotes.find((c) => rest.startsWith(c));
    // A lone apostrophe in prose-like shell text or Rust lifetimes is not a string start.
    if (q && !(q === "'" && lang === 'rust')) {
      flush();
      const end = findClose(rest, q, 1);
      const token = end < 0 ? rest : rest.slice(0, end + 1);
      // JSON: a string followed by ':' is a key.
      out += lang === 'json' && /^\s*:/.test(rest.slice(token.length)) ? s.cyan(token) : str(token);
      i += token.length;
      continue;
    }
    if (L.variables && rest[0] === '$') {
      const m = /^\$(?:\{[^}]*\}|[A-Za-z_][\w]*|[0-9@#?*!$-])/.exec(rest);
      if (m) {
        flush();
        out += s.cyan(m[0]);
        i += m[0].length;
        continue;
      }
    }
    const prev = i > 0 ? line[i - 1] : '';
    if (/\d/.test(rest[0]) && !/[\w$]/.test(prev)) {
      const m = NUMBER.exec(rest);
      if (m) {
        flush();
        out += s.yellow(m[0]);
        i += m[0].length;
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(rest[0]) && !/[\w$]/.test(prev)) {
      const m = IDENT.exec(rest)!;
      const w = m[0];
      const key = L.caseInsensitive ? w.toLowerCase() : w;
      flush();
      if (L.keywords.has(key)) out += s.magenta(w);
      else if (L.literals.has(key)) out += s.yellow(w);
      else if (lang === 'html' && prev === '<') out += s.cyan(w);
      else if (lang === 'html' && line[i - 2] === '<' && prev === '/') out += s.cyan(w);
      else if (/^\s*\(/.test(rest.slice(w.length)) && lang !== 'css') out += s.blue(w);
      else if (L.types && /^[A-Z][a-z0-9]/.test(w) && w.length > 1) out += s.cyan(w);
      else out += w;
      i += w.length;
      continue;
    }
    plain += rest[0];
    i++;
  }
  flush();
  return out;
}

/** Index of the closing `q` in `s` from `from` on (backslash escapes skipped), or -1. */
function findClose(s: string, q: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\' && q !== "'''" && q !== '"""') {
      i++;
      continue;
    }
    if (s.startsWith(q, i)) return i;
  }
  return -1;
}

/** A line of a unified diff: additions green, deletions red, hunks cyan, headers dim. */
export function diffLine(line: string, s: Style): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return s.dim(line);
  if (line.startsWith('+')) return s.green(line);
  if (line.startsWith('-')) return s.red(line);
  if (line.startsWith('@@')) return s.cyan(line);
  return line;
}
