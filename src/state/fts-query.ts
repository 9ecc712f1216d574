// Turns whatever a person or model typed into a valid FTS5 query, keeping the useful syntax:
// implicit AND, "quoted phrases", OR / AND / NOT between terms, and prefix* terms. Anything else that
// FTS5 would reject (hyphens, dots, colons, stray quotes, dangling operators) is quoted or dropped.

export const MAX_QUERY_CHARS = 2048;

const OPERATORS = new Set(['AND', 'OR', 'NOT']);
const BAREWORD = /^[\p{L}\p{N}_\u0080-\uFFFF]+$/u;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

type Piece = { kind: 'term'; text: string } | { kind: 'op'; text: string };

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Whether a query has CJK characters (searched through the trigram index). */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

function termFor(raw: string): string | null {
  let word = raw;
  let prefix = false;
  if (word.endsWith('*')) {
    prefix = true;
    word = word.replace(/\*+$/, '');
  }
  word = word.replace(/\*/g, '');
  // Trim punctuation at the edges ("(foo)", "bar," …); keep inner punctuation for quoting.
  word = word.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '');
  if (!word) return null;
  if (BAREWORD.test(word)) return prefix ? `${word}*` : word;
  return prefix ? `${quote(word)}*` : quote(word);
}

/** A safe FTS5 MATCH expression, or '' when nothing searchable remains. */
export function sanitizeFtsQuery(input: string): string {
  const text = input.slice(0, MAX_QUERY_CHARS).replace(/[\u0000-\u001f]/g, ' ');
  const pieces: Piece[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) {
        // Unmatched quote: drop it and read the rest as plain words.
        i++;
        continue;
      }
      const phrase = text.slice(i + 1, end).trim();
      let j = end + 1;
      const prefix = text[j] === '*';
      if (prefix) j++;
      if (phrase.replace(/[^\p{L}\p{N}_]/gu, '')) pieces.push({ kind: 'term', text: `${quote(phrase)}${prefix ? '*' : ''}` });
      i = j;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]) && text[j] !== '"') j++;
    const word = text.slice(i, j);
    i = j;
    if (OPERATORS.has(word)) {
      pieces.push({ kind: 'op', text: word });
      continue;
    }
    const t = termFor(word);
    if (t) pieces.push({ kind: 'term', text: t });
  }
  // Operators need a term on both sides: drop leading, trailing and repeated ones.
  const out: string[] = [];
  let lastWasOp = true;
  for (const p of pieces) {
    if (p.kind === 'op') {
      if (lastWasOp) continue;
      out.push(p.text);
      lastWasOp = true;
    } else {
      out.push(p.text);
      lastWasOp = false;
    }
  }
  while (out.length && OPERATORS.has(out[out.length - 1])) out.pop();
  return out.join(' ');
}

/** Plain words of a query (for LIKE fallbacks and highlighting), without operators or quotes. */
export function queryWords(input: string): string[] {
  return input
    .replace(/["*()]/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !OPERATORS.has(w));
}
