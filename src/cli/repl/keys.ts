// Decodes what a terminal sends in raw mode into keys: printable text, control keys, escape
// sequences (arrows, Home/End, modifiers, kitty/modifyOtherKeys Enter variants), bracketed pastes
// and SGR mouse reports (wheel and clicks, when a full-screen surface asked for them).

export type KeyName =
  | 'text'
  | 'paste'
  | 'enter'
  | 'newline'
  | 'tab'
  | 'backtab'
  | 'backspace'
  | 'delete'
  | 'escape'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'home'
  | 'end'
  | 'pageup'
  | 'pagedown'
  | 'insert'
  | 'ctrl'
  | 'meta'
  | 'focus'
  | 'mouse'
  | 'unknown';

export interface MouseEvent {
  /** 'wheelup' / 'wheeldown', or a button press / release. */
  action: 'wheelup' | 'wheeldown' | 'press' | 'release' | 'drag';
  /** 0 left, 1 middle, 2 right (presses). */
  button: number;
  /** 1-based column and row. */
  x: number;
  y: number;
}

export interface Key {
  name: KeyName;
  /** For text/paste: the characters; for ctrl/meta: the letter (lower case) or character. */
  text?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  mouse?: MouseEvent;
  /** The raw sequence. */
  seq: string;
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

const CSI_FINAL: Record<string, KeyName> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end', Z: 'backtab' };
const TILDE: Record<string, KeyName> = { '1': 'home', '2': 'insert', '3': 'delete', '4': 'end', '5': 'pageup', '6': 'pagedown', '7': 'home', '8': 'end' };

function modifiers(code: number): { shift: boolean; meta: boolean; ctrl: boolean } {
  const m = Math.max(0, code - 1);
  return { shift: !!(m & 1), meta: !!(m & 2), ctrl: !!(m & 4) };
}

/** A key from a Unicode code point with modifiers (kitty `CSI u` / xterm modifyOtherKeys). */
function codepointKey(cp: number, mod: number, seq: string): Key {
  const m = modifiers(mod);
  if (cp === 13) return { name: m.shift || m.meta || m.ctrl ? 'newline' : 'enter', seq, ...m };
  if (cp === 9) return { name: m.shift ? 'backtab' : 'tab', seq, ...m };
  if (cp === 127 || cp === 8) return { name: 'backspace', seq, ...m };
  if (cp === 27) return { name: 'escape', seq, ...m };
  const ch = String.fromCodePoint(cp);
  if (m.ctrl) return { name: 'ctrl', text: ch.toLowerCase(), seq, ...m };
  if (m.meta) return { name: 'meta', text: ch, seq, ...m };
  return { name: 'text', text: ch, seq };
}

function mouseKey(body: string, final: string, seq: string): Key {
  const [b, x, y] = body.slice(1).split(';').map(Number);
  if (![b, x, y].every(Number.isFinite)) return { name: 'unknown', seq };
  const m = modifiers(((b >> 2) & 7) + 1);
  let action: MouseEvent['action'];
  if (b & 64) action = (b & 1) === 0 ? 'wheelup' : 'wheeldown';
  else if (b & 32) action = 'drag';
  else action = final === 'm' ? 'release' : 'press';
  return { name: 'mouse', mouse: { action, button: b & 3, x, y }, seq, ...m };
}

function csiKey(body: string, final: string, seq: string): Key {
  if (body.startsWith('<') && (final === 'M' || final === 'm')) return mouseKey(body, final, seq);
  if (final === '~') {
    const parts = body.split(';');
    if (parts[0] === '27' && parts.length >= 3) return codepointKey(Number(parts[2]), Number(parts[1]), seq);
    const name = TILDE[parts[0]];
    const m = parts[1] ? modifiers(Number(parts[1])) : {};
    return name ? { name, seq, ...m } : { name: 'unknown', seq };
  }
  if (final === 'u') {
    const [cp, mod] = body.split(';');
    return codepointKey(Number(cp.split(':')[0]), Number(mod ?? '1'), seq);
  }
  if (final === 'I' || final === 'O') return body === '' ? { name: 'focus', seq } : { name: 'unknown', seq };
  const name = CSI_FINAL[final];
  if (!name) return { name: 'unknown', seq };
  const parts = body.split(';');
  const m = parts.length > 1 ? modifiers(Number(parts[1])) : {};
  return { name, seq, ...m };
}

/**
 * Incremental decoder: `feed` returns the complete keys in a chunk and keeps an unfinished escape
 * sequence or paste for the next chunk.
 */
export class KeyDecoder {
  private pending = '';
  private pasting = false;
  private paste = '';

  feed(chunk: string): Key[] {
    const keys: Key[] = [];
    let s = this.pending + chunk;
    this.pending = '';
    let i = 0;
    let text = '';
    const flushText = () => {
      if (text) keys.push({ name: 'text', text, seq: text });
      text = '';
    };
    while (i < s.length) {
      if (this.pasting) {
        const end = s.indexOf(PASTE_END, i);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          let keep = 0;
          for (let k = Math.min(PASTE_END.length - 1, s.length - i); k > 0; k--) {
            if (PASTE_END.startsWith(s.slice(s.length - k))) {
              keep = k;
              break;
            }
          }
          this.paste += s.slice(i, s.length - keep);
          this.pending = s.slice(s.length - keep);
          return keys;
        }
        this.paste += s.slice(i, end);
        keys.push({ name: 'paste', text: this.paste.replace(/\r\n?/g, '\n'), seq: '' });
        this.paste = '';
        this.pasting = false;
        i = end + PASTE_END.length;
        continue;
      }
      const c = s[i];
      if (c === '\x1b') {
        flushText();
        if (s.startsWith(PASTE_START, i)) {
          this.pasting = true;
          i += PASTE_START.length;
          continue;
        }
        const next = s[i + 1];
        if (next === undefined) {
          keys.push({ name: 'escape', seq: c });
          i++;
          continue;
        }
        if (next === '[') {
          let j = i + 2;
          while (j < s.length && /[0-?]/.test(s[j])) j++;
          while (j < s.length && /[ -/]/.test(s[j])) j++;
          if (j >= s.length) {
            // An unfinished sequence at the end of the chunk.
            if (s.length - i < 32) {
              this.pending = s.slice(i);
              return keys;
            }
            keys.push({ name: 'unknown', seq: s.slice(i) });
            i = s.length;
            continue;
          }
          const seq = s.slice(i, j + 1);
          const body = s.slice(i + 2, j);
          const key = csiKey(body, s[j], seq);
          if (seq === PASTE_START) this.pasting = true;
          else keys.push(key);
          i = j + 1;
          continue;
        }
        if (next === 'O') {
          const f = s[i + 2];
          if (f === undefined) {
            this.pending = s.slice(i);
            return keys;
          }
          const name = CSI_FINAL[f] ?? ({ P: 'unknown', M: 'enter' } as Record<string, KeyName>)[f] ?? 'unknown';
          keys.push({ name, seq: s.slice(i, i + 3) });
          i += 3;
          continue;
        }
        // Alt+key.
        const seq = s.slice(i, i + 2);
        if (next === '\x1b') {
          keys.push({ name: 'escape', seq: c });
          i += 1;
          continue;
        }
        if (next === '\r' || next === '\n') keys.push({ name: 'newline', meta: true, seq });
        else if (next === '\x7f' || next === '\b') keys.push({ name: 'backspace', meta: true, seq });
        else keys.push({ name: 'meta', text: next, meta: true, seq });
        i += 2;
        continue;
      }
      const code = c.charCodeAt(0);
      if (code < 0x20 || code === 0x7f) {
        flushText();
        if (c === '\r') keys.push({ name: 'enter', seq: c });
        else if (c === '\n') keys.push({ name: 'newline', ctrl: true, seq: c });
        else if (c === '\t') keys.push({ name: 'tab', seq: c });
        else if (c === '\x7f' || c === '\b') keys.push({ name: 'backspace', seq: c });
        else if (code === 0) keys.push({ name: 'ctrl', text: ' ', ctrl: true, seq: c });
        else keys.push({ name: 'ctrl', text: String.fromCharCode(code + 96), ctrl: true, seq: c });
        i++;
        continue;
      }
      text += c;
      i++;
    }
    flushText();
    return keys;
  }
}
