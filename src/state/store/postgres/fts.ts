// Full-text search on PostgreSQL with SQLite's query language. Both sides are tokenised here, in
// JavaScript, the way FTS5's unicode61 tokenizer does it (runs of letters and digits, lower-cased,
// Latin diacritics folded), and handed to PostgreSQL as tsvector / tsquery literals: no text-search
// configuration, dictionary or database locale can change what matches. A query is first made safe
// by the same sanitizer as on SQLite (fts-query.ts), then its FTS5 expression — words, "phrases",
// prefix*, AND / OR / NOT with FTS5's precedence (NOT, then AND, then OR) — becomes a tsquery.
import { hasCjk } from '../../fts-query.ts';

/** tsvector limits: positions 1..16383, 256 per lexeme, lexemes under 2 KB, the whole under 1 MB. */
const MAX_POS = 16383;
const MAX_POS_PER_LEXEME = 256;
const MAX_LEXEME_BYTES = 2046;
const MAX_VECTOR_BYTES = 900_000;

/** The words FTS5's unicode61 tokenizer would index, lower-cased with Latin diacritics removed. */
export function ftsWords(text: string): string[] {
  if (!text) return [];
  const folded = /[\u00c0-\u024f]/.test(text) ? text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC') : text;
  return folded.toLowerCase().split(/[^\p{L}\p{N}\p{Co}]+/u).filter(Boolean);
}

const lexeme = (w: string) => `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The tsvector literal for a message's indexed text. */
export function tsvectorLiteral(text: string): string {
  const positions = new Map<string, number[]>();
  let pos = 0;
  let bytes = 0;
  for (const w of ftsWords(text)) {
    pos++;
    if (Buffer.byteLength(w) > MAX_LEXEME_BYTES) continue;
    let list = positions.get(w);
    if (!list) {
      bytes += Buffer.byteLength(w) + 8;
      if (bytes > MAX_VECTOR_BYTES) break;
      positions.set(w, (list = []));
    }
    if (pos <= MAX_POS && list.length < MAX_POS_PER_LEXEME) {
      list.push(pos);
      bytes += 2;
    }
  }
  const parts: string[] = [];
  for (const [w, list] of positions) parts.push(list.length ? `${lexeme(w)}:${list.join(',')}` : lexeme(w));
  return parts.join(' ');
}

/** What the SQLite FTS tables index for a message: its text, the tool's name and the calls. */
export function ftsSource(content: string | null, toolName: string | null, toolCalls: string | null): string {
  return `${content ?? ''} ${toolName ?? ''} ${toolCalls ?? ''}`;
}

/** The trigram column: the same text, for messages with CJK characters that are not tool output. */
export function cjkSource(role: string, content: string | null, toolName: string | null, toolCalls: string | null): string | null {
  if (role === 'tool' || !content || !hasCjk(content)) return null;
  return ftsSource(content, toolName, toolCalls);
}

type Tok = { op: 'AND' | 'OR' | 'NOT' } | { term: string };

function lexTerms(sanitized: string): Tok[] {
  const out: Tok[] = [];
  const re = /"((?:[^"]|"")*)"(\*?)|(\S+)/g;
  for (const m of sanitized.matchAll(re)) {
    const bare = m[3];
    if (bare === 'AND' || bare === 'OR' || bare === 'NOT') {
      out.push({ op: bare });
      continue;
    }
    const prefix = m[1] !== undefined ? m[2] === '*' : bare.endsWith('*');
    const words = ftsWords(m[1] !== undefined ? m[1].replace(/""/g, '"') : bare.replace(/\*+$/, ''));
    if (!words.length) continue;
    const last = words.length - 1;
    const body = words.map((w, i) => `${lexeme(w)}${prefix && i === last ? ':*' : ''}`).join(' <-> ');
    out.push({ term: words.length > 1 ? `(${body})` : body });
  }
  return out;
}

/** A sanitized FTS5 expression (sanitizeFtsQuery's output) as a tsquery literal; '' when empty. */
export function tsqueryFrom(sanitized: string): string {
  const groups: string[][] = [[]];
  let negate = false;
  let lastWasTerm = false;
  for (const t of lexTerms(sanitized)) {
    if ('op' in t) {
      if (!lastWasTerm) continue;
      if (t.op === 'OR') groups.push([]);
      negate = t.op === 'NOT';
      lastWasTerm = false;
      continue;
    }
    groups[groups.length - 1].push(negate ? `!${t.term}` : t.term);
    negate = false;
    lastWasTerm = true;
  }
  const parts = groups.filter((g) => g.some((x) => !x.startsWith('!'))).map((g) => (g.length > 1 ? `(${g.join(' & ')})` : g[0]));
  return parts.join(' | ');
}
