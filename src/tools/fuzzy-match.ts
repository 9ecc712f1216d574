// Find-and-replace with fuzzy strategies, tried in order until one finds the text:
//   exact → line_trimmed → whitespace_normalized → indentation_flexible → escape_normalized →
//   trimmed_boundary → unicode_normalized → block_anchor.
// Line-based strategies match whole lines; the replacement is re-indented to the file's
// indentation when the model's indentation differed.

export interface Span {
  start: number;
  end: number;
}

export interface MatchResult {
  strategy: string;
  spans: Span[];
  /** For line-based matches: the text actually replaced may need re-indenting. */
  lineBased: boolean;
}

interface Line {
  text: string;
  start: number;
  /** End offset, excluding the newline. */
  end: number;
}

function splitLines(s: string): Line[] {
  const out: Line[] = [];
  let pos = 0;
  for (;;) {
    const nl = s.indexOf('\n', pos);
    if (nl < 0) {
      out.push({ text: s.slice(pos), start: pos, end: s.length });
      return out;
    }
    out.push({ text: s.slice(pos, nl).replace(/\r$/, ''), start: pos, end: s[nl - 1] === '\r' ? nl - 1 : nl });
    pos = nl + 1;
  }
}

function exact(content: string, needle: string): Span[] {
  const spans: Span[] = [];
  if (!needle) return spans;
  let i = content.indexOf(needle);
  while (i >= 0) {
    spans.push({ start: i, end: i + needle.length });
    i = content.indexOf(needle, i + needle.length);
  }
  return spans;
}

/** Whole-line window matches of `needle` lines under a line normalizer. */
function lineMatch(content: string, needle: string, norm: (l: string) => string): Span[] {
  const want = needle.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n').map(norm);
  if (!want.some((l) => l.trim())) return [];
  const lines = splitLines(content);
  const normed = lines.map((l) => norm(l.text));
  const spans: Span[] = [];
  const first = want[0];
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (normed[i] !== first) continue;
    let ok = true;
    for (let j = 1; j < want.length; j++)
      if (normed[i + j] !== want[j]) {
        ok = false;
        break;
      }
    if (ok) {
      spans.push({ start: lines[i].start, end: lines[i + want.length - 1].end });
      i += want.length - 1;
    }
  }
  return spans;
}

const UNICODE_MAP: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B\u2032]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g, ' '],
  [/[\u200B\u200C\u200D\uFEFF]/g, ''],
];

export function unicodeNormalize(s: string): string {
  let out = s;
  for (const [re, r] of UNICODE_MAP) out = out.replace(re, r);
  return out;
}

function similarity(a: string, b: string): number {
  a = a.trim();
  b = b.trim();
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  // Bigram Dice coefficient: cheap and good enough for lines.
  const grams = (s: string) => {
    const m = new Map<string, number>();
    for (let i = 0; i < s.length - 1; i++) m.set(s.slice(i, i + 2), (m.get(s.slice(i, i + 2)) ?? 0) + 1);
    return m;
  };
  const ga = grams(a);
  const gb = grams(b);
  let inter = 0;
  for (const [g, n] of ga) inter += Math.min(n, gb.get(g) ?? 0);
  return (2 * inter) / (Math.max(a.length - 1, 1) + Math.max(b.length - 1, 1));
}

/** First and last lines as anchors, the middle similar enough (≥ 50% on average). */
function blockAnchor(content: string, needle: string): Span[] {
  const want = needle.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  if (want.length < 3) return [];
  const lines = splitLines(content);
  const spans: Span[] = [];
  const f = want[0].trim();
  const l = want[want.length - 1].trim();
  if (!f || !l) return [];
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (lines[i].text.trim() !== f || lines[i + want.length - 1].text.trim() !== l) continue;
    let sim = 0;
    for (let j = 1; j < want.length - 1; j++) sim += similarity(lines[i + j].text, want[j]);
    if (sim / (want.length - 2) >= 0.5) spans.push({ start: lines[i].start, end: lines[i + want.length - 1].end });
  }
  return spans;
}

export function findMatches(content: string, needle: string): MatchResult | null {
  const tries: [string, () => Span[], boolean][] = [
    ['exact', () => exact(content, needle), false],
    ['line_trimmed', () => lineMatch(content, needle, (s) => s.trim()), true],
    ['whitespace_normalized', () => lineMatch(content, needle, (s) => s.replace(/[ \t]+/g, ' ').trim()), true],
    ['indentation_flexible', () => lineMatch(content, needle, (s) => s.replace(/^[ \t]+/, '')), true],
    [
      'escape_normalized',
      () => (/\\[nt]/.test(needle) ? exact(content, needle.replace(/\\n/g, '\n').replace(/\\t/g, '\t')) : []),
      false,
    ],
    [
      'trimmed_boundary',
      () => {
        const t = needle.replace(/^\s*\n/, '').replace(/\n\s*$/, '').trim();
        return t && t !== needle ? exact(content, t) : [];
      },
      false,
    ],
    ['unicode_normalized', () => lineMatch(content, needle, (s) => unicodeNormalize(s).replace(/[ \t]+/g, ' ').trim()), true],
    ['block_anchor', () => blockAnchor(content, needle), true],
  ];
  for (const [strategy, run, lineBased] of tries) {
    const spans = run();
    if (spans.length) return { strategy, spans, lineBased };
  }
  return null;
}

const indentOf = (s: string) => /^[ \t]*/.exec(s)![0];

/**
 * The replacement for a line-based match, re-indented: the model's base indentation (first
 * non-blank line of old_string) becomes the file's (first non-blank line of the matched text).
 */
export function reindent(matched: string, oldString: string, newString: string): string {
  const firstNonBlank = (s: string) => s.split('\n').find((l) => l.trim()) ?? '';
  const fileIndent = indentOf(firstNonBlank(matched));
  const oldIndent = indentOf(firstNonBlank(oldString));
  if (fileIndent === oldIndent) return newString;
  return newString
    .split('\n')
    .map((l) => {
      if (!l.trim()) return l;
      if (l.startsWith(oldIndent)) return fileIndent + l.slice(oldIndent.length);
      return fileIndent + l.replace(/^[ \t]*/, '');
    })
    .join('\n');
}

/** 1-based line number of an offset. */
export function lineAt(content: string, offset: number): number {
  let n = 1;
  for (let i = content.indexOf('\n'); i >= 0 && i < offset; i = content.indexOf('\n', i + 1)) n++;
  return n;
}

export interface ReplaceResult {
  content?: string;
  count?: number;
  strategy?: string;
  error?: string;
  /** The edit is already in the file. */
  alreadyApplied?: boolean;
}

/** Applies one find-and-replace to `content` with the fuzzy strategies and Hermes's guards. */
export function fuzzyReplace(content: string, oldString: string, newString: string, replaceAll: boolean): ReplaceResult {
  if (!oldString.trim()) return { error: 'old_string is empty. Give the exact text to replace (read the file first), or use write_file to create a file.' };
  if (oldString === newString) return { error: 'old_string and new_string are identical; there is nothing to change.' };
  const m = findMatches(content, oldString);
  if (!m) {
    if (newString.trim() && content.includes(newString)) return { content, count: 0, strategy: 'none', alreadyApplied: true };
    return { error: 'old_string was not found in the file. Read the file again (read_file) and copy the exact text, including indentation.' };
  }
  if (m.spans.length > 1 && !replaceAll) {
    const where = m.spans.slice(0, 5).map((s) => {
      const ln = lineAt(content, s.start);
      const text = content.slice(s.start, s.end).split('\n')[0].trim();
      return `L${ln}: ${text.length > 80 ? text.slice(0, 80) + '…' : text}`;
    });
    return {
      error: `old_string matches ${m.spans.length} places (${m.strategy}). Add surrounding lines to make it unique, or set replace_all: true. Matches: ${where.join(' | ')}`,
    };
  }
  if (m.spans.length > 1 && m.strategy === 'block_anchor') return { error: 'old_string only matched approximately, in several places; replace_all is refused for approximate matches. Give the exact text.' };
  // Escape drift: the model escaped quotes (\' or \") that the file does not have.
  if (m.strategy !== 'exact' && /\\['"]/.test(oldString) && /\\['"]/.test(newString) && !m.spans.some((s) => /\\['"]/.test(content.slice(s.start, s.end))))
    return { error: 'old_string and new_string contain escaped quotes (\\" or \\\') that are not in the file. Send the text exactly as it appears, without extra escaping.' };
  let out = '';
  let pos = 0;
  for (const s of m.spans) {
    const matched = content.slice(s.start, s.end);
    let repl = newString;
    if (m.strategy === 'escape_normalized' && !/\\[nt]/.test(matched)) repl = newString.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
    if (m.lineBased) {
      repl = reindent(matched, oldString, repl.replace(/\n$/, ''));
      if (/\r\n/.test(content)) repl = repl.replace(/\r?\n/g, '\r\n');
    }
    out += content.slice(pos, s.start) + repl;
    pos = s.end;
  }
  out += content.slice(pos);
  return { content: out, count: m.spans.length, strategy: m.strategy };
}
