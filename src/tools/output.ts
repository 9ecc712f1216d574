// Terminal output for the model: escape codes removed, long output capped head and tail.

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][A-Za-z0-9]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keeps the head (40%) and tail (60%) of long output, marking what was cut. */
export function capOutput(s: string, max: number, alsoOmitted = 0): string {
  if (s.length <= max && !alsoOmitted) return s;
  const head = Math.min(Math.floor(max * 0.4), s.length);
  const tail = Math.min(max - head, s.length - head);
  return `${s.slice(0, head)}\n\n[… ${(s.length - head - tail + alsoOmitted).toLocaleString('en-US')} characters of output omitted …]\n\n${s.slice(s.length - tail)}`;
}

/**
 * Terminal output for the model: escape codes removed, CRLF (pty) normalized, capped (`dropped`:
 * characters the collector already left out of the middle of a flood, counted in the note).
 */
export function cleanOutput(raw: string, max: number, dropped = 0): string {
  if (dropped || raw.length > max * 4) {
    // Only the ends are shown: clean just those (a flood's middle never reaches the regexes).
    const headN = Math.floor(max * 0.4);
    const tailN = max - headN;
    const a = stripAnsi(raw.slice(0, max * 2)).replace(/\r+\n/g, '\n');
    const b = stripAnsi(raw.slice(-max * 2)).replace(/\r+\n/g, '\n');
    const omitted = raw.length - max * 4 + dropped + Math.max(0, a.length - headN) + Math.max(0, b.length - tailN);
    return `${a.slice(0, headN)}\n\n[… ${omitted.toLocaleString('en-US')} characters of output omitted …]\n\n${b.slice(-tailN)}`;
  }
  return capOutput(stripAnsi(raw).replace(/\r+\n/g, '\n'), max);
}
