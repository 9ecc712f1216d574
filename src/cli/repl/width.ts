// Display width of terminal text: ANSI sequences take no room, wide (CJK) characters and emoji take
// two columns, combining marks and joiners none. Cursor movement works on grapheme clusters.

// CSI (incl. SGR), OSC (terminated by BEL or ST) and two-byte escapes.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function stripAnsi(s: string): string {
  return s.includes('\x1b') ? s.replace(ANSI, '') : s;
}

// Created on first need: building a segmenter initialises ICU (~10 ms), which most text never needs.
let segmenter: Intl.Segmenter | undefined;
/** Characters that join with their neighbours into one cluster (marks, joiners, selectors, skin tones, flags, tags). */
const CLUSTERING = /[\p{M}\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}\u{1f1e6}-\u{1f1ff}\u{e0020}-\u{e007f}]/u;

/** The grapheme clusters of `s`. */
export function graphemes(s: string): string[] {
  if (/^[\x20-\x7e]*$/.test(s)) return s.split('');
  if (!CLUSTERING.test(s)) return Array.from(s);
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(segmenter.segment(s), (x) => x.segment);
}

const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf}|[\u200b-\u200f\ufe00-\ufe0f])+$/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const REGIONAL = /\p{Regional_Indicator}/u;

function isWideCodePoint(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    cp === 0x2329 ||
    cp === 0x232a ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe10 && cp <= 0xfe19) ||
    (cp >= 0xfe30 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Columns one grapheme cluster takes. */
export function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0)!;
  if (g.length === 1) {
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
    if (cp < 0x300) return 1;
  }
  if (ZERO_WIDTH.test(g)) return 0;
  if (g.includes('\ufe0f') || REGIONAL.test(g)) return 2;
  if (PICTOGRAPHIC.test(g)) return cp >= 0x1f000 || g.length > 2 ? 2 : isWideCodePoint(cp) ? 2 : 1;
  return isWideCodePoint(cp) ? 2 : 1;
}

/** Columns `s` takes on a terminal (ANSI sequences ignored). */
export function stringWidth(s: string): number {
  const plain = stripAnsi(s);
  if (/^[\x20-\x7e]*$/.test(plain)) return plain.length;
  let w = 0;
  for (const g of graphemes(plain)) w += graphemeWidth(g);
  return w;
}

/** Cuts plain text to at most `max` columns, adding `…` when cut. */
export function truncate(s: string, max: number): string {
  if (max <= 0) return '';
  if (stringWidth(s) <= max) return s;
  let out = '';
  let w = 0;
  for (const g of graphemes(stripAnsi(s))) {
    const gw = graphemeWidth(g);
    if (w + gw > max - 1) break;
    out += g;
    w += gw;
  }
  return out + '…';
}

/**
 * Cuts styled text to at most `max` columns, keeping its escape sequences (and resetting the style at
 * the cut).
 */
export function truncateAnsi(s: string, max: number): string {
  if (stringWidth(s) <= max) return s;
  let out = '';
  let w = 0;
  let i = 0;
  ANSI.lastIndex = 0;
  while (i < s.length) {
    ANSI.lastIndex = i;
    const m = ANSI.exec(s);
    const next = m && m.index === i ? m : null;
    if (next) {
      out += next[0];
      i += next[0].length;
      continue;
    }
    const end = m ? m.index : s.length;
    for (const g of graphemes(s.slice(i, end))) {
      const gw = graphemeWidth(g);
      if (w + gw > max - 1) return out + '…\x1b[0m';
      out += g;
      w += gw;
    }
    i = end;
  }
  return out;
}

/**
 * Wraps plain text to `cols` columns on word boundaries (a word longer than a line is cut). A
 * wrapped line continues under its text: after a `  —  ` separator when it has one (command lists:
 * `  /name  —  what it does`), else under its own indent. Styled lines are left as they are.
 */
export function wrapWords(text: string, cols: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (cols < 20 || line.includes('\x1b') || stringWidth(line) <= cols) {
      out.push(line);
      continue;
    }
    const dash = line.indexOf(' —  ');
    const lead = /^\s*/.exec(line)![0].length;
    let hang = dash >= 0 ? stringWidth(line.slice(0, dash + 4)) : lead + 2;
    if (hang > cols / 2) hang = lead + 2;
    const pad = ' '.repeat(hang);
    let cur = '';
    let width = 0;
    const flush = () => {
      out.push(cur.trimEnd());
      cur = pad;
      width = hang;
    };
    for (const token of line.split(/(\s+)/)) {
      if (!token) continue;
      const w = stringWidth(token);
      if (/^\s+$/.test(token)) {
        if (width + w <= cols) {
          cur += token;
          width += w;
        }
        continue;
      }
      if (width + w > cols && width > hang) flush();
      if (w > cols - hang) {
        // A word longer than the room: cut it.
        let rest = token;
        while (stringWidth(rest) > cols - width) {
          const gs = graphemes(rest);
          let take = '';
          let tw = 0;
          for (const g of gs) {
            const gw = graphemeWidth(g);
            if (width + tw + gw > cols) break;
            take += g;
            tw += gw;
          }
          cur += take;
          rest = rest.slice(take.length);
          flush();
        }
        cur += rest;
        width += stringWidth(rest);
        continue;
      }
      cur += token;
      width += w;
    }
    if (cur.trim()) out.push(cur.trimEnd());
  }
  return out;
}

const SGR = /^\x1b\[([0-9;:]*)m$/;

/** Which attribute an SGR parameter sets or clears (so the styles in force stay a short list). */
function sgrSlot(p: string): { slot: string; clear: boolean } | null {
  const n = Number(p.split(':')[0]);
  if (n === 1 || n === 2) return { slot: 'weight', clear: false };
  if (n === 22) return { slot: 'weight', clear: true };
  if (n >= 3 && n <= 9) return { slot: `a${n}`, clear: false };
  if (n >= 23 && n <= 29) return { slot: `a${n - 20}`, clear: true };
  if ((n >= 30 && n <= 38) || (n >= 90 && n <= 97)) return { slot: 'fg', clear: false };
  if (n === 39) return { slot: 'fg', clear: true };
  if ((n >= 40 && n <= 48) || (n >= 100 && n <= 107)) return { slot: 'bg', clear: false };
  if (n === 49) return { slot: 'bg', clear: true };
  return null;
}

/** The SGR state after `seq`, as slot → sequence (an empty map after a reset). */
function applySgr(state: Map<string, string>, params: string): void {
  if (params === '' || params === '0') {
    state.clear();
    return;
  }
  const ps = params.split(';');
  for (let i = 0; i < ps.length; i++) {
    let p = ps[i];
    // 38;5;n / 38;2;r;g;b (and 48 for the background) take their arguments along.
    if ((p === '38' || p === '48') && (ps[i + 1] === '5' || ps[i + 1] === '2')) {
      const take = ps[i + 1] === '5' ? 2 : 4;
      p = ps.slice(i, i + 1 + take).join(';');
      i += take;
    }
    if (p === '0') {
      state.clear();
      continue;
    }
    const slot = sgrSlot(p);
    if (!slot) continue;
    if (slot.clear) state.delete(slot.slot);
    else state.set(slot.slot, `\x1b[${p}m`);
  }
}

/**
 * Wraps styled text to lines of at most `width` columns: at the last space when there is one on the
 * line, else mid-word. Styles carry over: a cut line ends with a reset and the next one opens with
 * the styles in force at the cut. Other escape sequences (hyperlinks) pass through.
 */
export function wrapAnsi(s: string, width: number): string[] {
  const w = Math.max(1, width);
  if (stringWidth(s) <= w) return [s];
  const out: string[] = [];
  const state = new Map<string, string>();
  const active = () => [...state.values()].join('');
  let line = '';
  let lineW = 0;
  /** The last space on the line: where it can be cut, and the styles in force there. */
  let cut: { at: number; w: number; active: string } | null = null;
  const close = (text: string) => (text.includes('\x1b[') ? `${text}\x1b[0m` : text);
  let i = 0;
  while (i < s.length) {
    ANSI.lastIndex = i;
    const m = ANSI.exec(s);
    if (m && m.index === i) {
      const seq = m[0];
      const sgr = SGR.exec(seq);
      if (sgr) applySgr(state, sgr[1]);
      line += seq;
      i += seq.length;
      continue;
    }
    const end = m ? m.index : s.length;
    for (const g of graphemes(s.slice(i, end))) {
      const gw = graphemeWidth(g);
      if (lineW + gw > w && lineW > 0) {
        if (g === ' ') {
          // A space at the cut is dropped.
          out.push(close(line));
          line = active();
          lineW = 0;
          cut = null;
          continue;
        }
        if (cut && cut.w > 0) {
          out.push(close(line.slice(0, cut.at)));
          line = cut.active + line.slice(cut.at + 1);
          lineW = lineW - cut.w - 1;
        } else {
          out.push(close(line));
          line = active();
          lineW = 0;
        }
        cut = null;
      }
      if (g === ' ') cut = { at: line.length, w: lineW, active: active() };
      line += g;
      lineW += gw;
    }
    i = end;
  }
  if (line) out.push(close(line));
  return out;
}

/** The last lines of `lines` that fit in `maxRows` rows (the first kept line cut from the left). */
export function fitTail(lines: string[], maxRows: number, cols: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const w = stringWidth(lines[i]);
    const rows = Math.max(1, Math.ceil(w / cols));
    if (used + rows <= maxRows) {
      out.unshift(lines[i]);
      used += rows;
      continue;
    }
    const room = maxRows - used;
    if (room > 0) {
      const plain = stripAnsi(lines[i]);
      const g = graphemes(plain);
      let tail = '';
      let tw = 0;
      for (let j = g.length - 1; j >= 0; j--) {
        const gw = stringWidth(g[j]);
        if (tw + gw > room * cols - 2) break;
        tail = g[j] + tail;
        tw += gw;
      }
      out.unshift(`…${tail}`);
    }
    break;
  }
  return out;
}

