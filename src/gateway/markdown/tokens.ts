// The one Markdown tokenizer of the gateway: the model's Markdown → a small tree every chat
// platform's serializer (serializers.ts) writes in its own syntax (Telegram HTML, Matrix HTML,
// Slack mrkdwn, WhatsApp, plain text). Only what models write and chats can show: fenced code,
// headings, inline code, bold, italics, strikethrough and links to http(s) addresses; everything
// else is text. Inline marks never cross a line.
//
// Rules (kept from the per-platform converters this replaced):
// - a fence is ``` + an info string + a newline … up to the next ``` (a fence still open at the end
//   of the text — a reply being streamed — runs to the end when it opened at the start of a line);
// - a heading is a line `#`…`######`, a space, then its text;
// - `code` (or ``code``, ```code``` on one line) is code; nothing inside it is Markdown;
// - **bold** and __bold__, *italic* and _italic_, ***both*** (not inside a word: snake_case_names and 2*3*4
//   stay as they are; a mark next to a space inside does not count: 2 ** 3 ** 4), ~~struck~~;
// - [label](https://…) is a link (other schemes stay text).

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'strong'; mark: '**' | '__'; children: Inline[] }
  | { t: 'em'; mark: '*' | '_'; children: Inline[] }
  | { t: 'strike'; children: Inline[] }
  | { t: 'link'; url: string; children: Inline[] };

export type Node =
  | Inline
  /** `body`: the lines between the fences, with the newline before the closing fence. */
  | { t: 'fence'; lang: string; body: string; closed: boolean }
  | { t: 'heading'; level: number; children: Inline[] };

const OPEN_FENCE = /```([^\n`]*)\n/g;

/** The text → nodes (fences, headings and inline nodes; newlines are in text nodes). */
export function tokenize(md: string): Node[] {
  const out: Node[] = [];
  let at = 0;
  OPEN_FENCE.lastIndex = 0;
  for (let m = OPEN_FENCE.exec(md); m; m = OPEN_FENCE.exec(md)) {
    const bodyStart = m.index + m[0].length;
    const close = md.indexOf('```', bodyStart);
    const lineStart = /^ {0,3}$/.test(md.slice(md.lastIndexOf('\n', m.index - 1) + 1, m.index));
    if (close < 0 && !lineStart) continue;
    prose(md.slice(at, m.index), out);
    const end = close < 0 ? md.length : close;
    out.push({ t: 'fence', lang: m[1].trim(), body: md.slice(bodyStart, end), closed: close >= 0 });
    at = close < 0 ? md.length : close + 3;
    OPEN_FENCE.lastIndex = at;
    if (close < 0) break;
  }
  prose(md.slice(at), out);
  return merge(out) as Node[];
}

function prose(text: string, out: Node[]): void {
  if (!text) return;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (i > 0) out.push({ t: 'text', text: '\n' });
    const h = /^(#{1,6})[ \t]+(.+)$/.exec(line);
    if (h) out.push({ t: 'heading', level: h[1].length, children: inline(h[2]) });
    else out.push(...inline(line));
  });
}

const wordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** One line's inline nodes. */
export function inline(s: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ t: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c !== '`' && c !== '[' && c !== '*' && c !== '_' && c !== '~') {
      text += c;
      i++;
      continue;
    }
    const rest = s.slice(i);
    let m: RegExpExecArray | null;
    if (c === '`' && (m = /^(`{1,3})([^`\n]+)\1(?!`)/.exec(rest))) {
      flush();
      out.push({ t: 'code', text: m[2] });
      i += m[0].length;
      continue;
    }
    if (c === '[' && (m = /^\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/.exec(rest))) {
      flush();
      out.push({ t: 'link', url: m[2], children: inline(m[1]) });
      i += m[0].length;
      continue;
    }
    if (c === '*' && s.startsWith('***', i) && s[i - 1] !== c) {
      // ***bold italics***
      const close = closing(s, i + 3, '***');
      if (close > 0 && marked(s.slice(i + 3, close))) {
        flush();
        out.push({ t: 'strong', mark: '**', children: [{ t: 'em', mark: '*', children: inline(s.slice(i + 3, close)) }] });
        i = close + 3;
        continue;
      }
    }
    if ((c === '*' || c === '_') && s[i + 1] === c && s[i - 1] !== c && !(c === '_' && wordChar(s[i - 1]))) {
      const mark = c === '*' ? '**' : '__';
      const close = closing(s, i + 2, mark);
      if (close > 0 && marked(s.slice(i + 2, close))) {
        flush();
        out.push({ t: 'strong', mark, children: inline(s.slice(i + 2, close)) });
        i = close + 2;
        continue;
      }
    }
    if (c === '~' && (m = /^~~([^~\n]+)~~/.exec(rest))) {
      flush();
      out.push({ t: 'strike', children: inline(m[1]) });
      i += m[0].length;
      continue;
    }
    if ((c === '*' || c === '_') && s[i + 1] !== c && s[i - 1] !== c && !wordChar(s[i - 1])) {
      const close = closing(s, i + 1, c);
      if (close > 0 && s[close + 1] !== c && marked(s.slice(i + 1, close))) {
        flush();
        out.push({ t: 'em', mark: c, children: inline(s.slice(i + 1, close)) });
        i = close + 1;
        continue;
      }
    }
    text += c;
    i++;
  }
  flush();
  return merge(out) as Inline[];
}

/** Emphasis holds something besides marks (a rule of asterisks is not bold). */
const marked = (inner: string) => /[^*_~\s]/.test(inner);

/**
 * Where the mark that closes an emphasis opened at `from` is, or -1: not across a code span, not
 * after a space, not before a letter or digit, and never around nothing or a space.
 */
function closing(s: string, from: number, mark: string): number {
  if (from >= s.length || /\s/.test(s[from])) return -1;
  for (let j = from; j < s.length; j++) {
    if (s[j] === '`') {
      const code = /^(`{1,3})[^`\n]+\1/.exec(s.slice(j));
      if (code) {
        j += code[0].length - 1;
        continue;
      }
    }
    if (s.startsWith(mark, j) && j > from && !/\s/.test(s[j - 1]) && !wordChar(s[j + mark.length])) {
      // `**a** b**`: the first closer wins; a single mark must not be half of a double one.
      if (mark.length === 1 && s[j + 1] === mark) {
        j++;
        continue;
      }
      return j;
    }
  }
  return -1;
}

function merge(nodes: Node[]): Node[] {
  const out: Node[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.t === 'text' && last?.t === 'text') out[out.length - 1] = { t: 'text', text: last.text + n.text };
    else out.push(n);
  }
  return out;
}
