// Grounded citations (Hermes 0.20's grounded answers; its bundled `grounded-citations` skill says how
// to write them): every source a turn's web_search, web_extract or session_search results name gets
// a number for the session, shown to the model beside the result ("[3] example.com/page"); an answer
// that cites `[n]` after its claims ends with a Sources list built from those numbers — the real
// URLs and titles the tools returned, never the model's copy of them. A number no result gave is
// dropped from the answer (a citation that points nowhere is worse than none). An answer without
// citations is left alone.
import type { Message } from '../llm/types.ts';
import type { LoopHook } from './hooks.ts';
import { messageText } from './repair.ts';

export interface Source {
  n: number;
  /** An http(s) URL, or `session:<id>` for a past conversation. */
  ref: string;
  title: string;
}

/** The session's numbered sources (numbers stay stable for the whole session). */
export class SourceBook {
  private readonly byRef = new Map<string, Source>();
  private readonly byN: Source[] = [];

  add(ref: string, title = ''): Source {
    const known = this.byRef.get(ref);
    if (known) {
      if (!known.title && title) known.title = title;
      return known;
    }
    const s = { n: this.byN.length + 1, ref, title: title.trim().slice(0, 160) };
    this.byRef.set(ref, s);
    this.byN.push(s);
    return s;
  }

  get(n: number): Source | undefined {
    return this.byN[n - 1];
  }

  get size(): number {
    return this.byN.length;
  }
}

const CITED_TOOLS = new Set(['web_search', 'web_extract', 'session_search']);
const MAX_WALK = 200;

/** The sources a tool result names: http(s) `url`s and `session_id`s, in order. */
export function sourcesIn(content: string): { ref: string; title: string }[] {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    return [];
  }
  const out: { ref: string; title: string }[] = [];
  const seen = new Set<string>();
  let visited = 0;
  const walk = (v: unknown) => {
    if (visited++ > MAX_WALK || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    const o = v as Record<string, unknown>;
    const title = typeof o.title === 'string' ? o.title : '';
    if (typeof o.url === 'string' && /^https?:\/\//i.test(o.url) && !o.error) {
      if (!seen.has(o.url)) out.push({ ref: o.url, title }), seen.add(o.url);
    } else if (typeof o.session_id === 'string' && o.session_id && !('around_message_id' in o)) {
      const ref = `session:${o.session_id}`;
      if (!seen.has(ref)) out.push({ ref, title }), seen.add(ref);
    }
    for (const k of Object.keys(o)) if (o[k] && typeof o[k] === 'object') walk(o[k]);
  };
  walk(data);
  return out;
}

/** A trailing "Sources" section the model wrote itself (replaced by the canonical one). */
const SOURCES_HEADING = /\n{1,}(?:#{1,6}\s*|\*\*)?(?:Sources|References)(?:\*\*)?:?\s*\n(?:\s*(?:[-*]\s*)?\[\d+\][^\n]*\n?)*\s*$/i;
const MARKER = /\[(\d{1,3})\](?!\()/g;

/** Where `text` is inside a code span or fence (markers there are code, not citations). */
function codeRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(/```[\s\S]*?(?:```|$)|`[^`\n]*`/g)) out.push([m.index!, m.index! + m[0].length]);
  return out;
}

export interface CitedAnswer {
  text: string;
  cited: Source[];
  /** Numbers the answer used that no result gave (removed). */
  unknown: number[];
}

/** The answer with its citations checked against the book and the Sources list appended. */
export function groundAnswer(answer: string, book: SourceBook, link: (s: Source) => string = plainSource): CitedAnswer | null {
  if (!book.size || !/\[\d{1,3}\]/.test(answer)) return null;
  let body = answer.replace(SOURCES_HEADING, '');
  const code = codeRanges(body);
  const inCode = (i: number) => code.some(([a, b]) => i >= a && i < b);
  const cited = new Map<number, Source>();
  const unknown = new Set<number>();
  body = body.replace(MARKER, (m, d: string, at: number) => {
    if (inCode(at)) return m;
    const s = book.get(Number(d));
    if (!s) {
      unknown.add(Number(d));
      return '';
    }
    cited.set(s.n, s);
    return m;
  });
  if (!cited.size && !unknown.size) return null;
  const list = [...cited.values()].sort((a, b) => a.n - b.n);
  const text = list.length ? `${body.trimEnd()}\n\nSources:\n${list.map(link).join('\n')}` : body.trimEnd();
  return { text, cited: list, unknown: [...unknown].sort((a, b) => a - b) };
}

/** `[n] Title — url` (terminals: a footnote). */
export function plainSource(s: Source): string {
  return `[${s.n}] ${s.title ? `${s.title} — ` : ''}${s.ref}`;
}

/** `[n] [Title](url)` (chat apps: their Markdown renders a link). */
export function linkedSource(s: Source): string {
  return /^https?:/.test(s.ref) ? `[${s.n}] [${(s.title || s.ref).replace(/[[\]]/g, '')}](${s.ref})` : plainSource(s);
}

/**
 * The hook: numbers the sources of each result as it comes back (a line after the result), and
 * grounds the final answer. `book` lives as long as the session (its numbers stay valid across turns).
 */
export function citationsHook(book: SourceBook, o: { links?: boolean } = {}): LoopHook {
  return {
    afterToolCall(run) {
      if (!run.tool || !CITED_TOOLS.has(run.tool.name) || run.outcome.isError) return;
      const found = sourcesIn(run.content);
      if (!found.length) return;
      const numbered = found.slice(0, 20).map((f) => book.add(f.ref, f.title));
      run.suffix += `\n\nCite these as ${numbered.map((s) => `[${s.n}] ${s.ref.replace(/^https?:\/\//, '').slice(0, 80)}`).join(' · ')} — put the number right after the claim it supports.`;
    },
    finalAnswer(msg: Message, turn) {
      const grounded = groundAnswer(messageText(msg.content), book, o.links ? linkedSource : plainSource);
      if (!grounded) return;
      msg.content = grounded.text;
      const list = grounded.cited.map(plainSource).join('\n');
      if (list || grounded.unknown.length)
        turn.emit({ type: 'notice', message: `${list ? `Sources:\n${list}` : ''}${grounded.unknown.length ? `${list ? '\n' : ''}(dropped citation${grounded.unknown.length > 1 ? 's' : ''} ${grounded.unknown.map((n) => `[${n}]`).join(' ')}: no result had ${grounded.unknown.length > 1 ? 'those numbers' : 'that number'})` : ''}` });
    },
  };
}
