// Terminal output for the model: escape codes removed, long output capped head and tail.

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][A-Za-z0-9]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keeps the head (40%) and tail (60%) of long output, marking what was cut. */
export function capOutput(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${s.slice(0, head)}\n\n[… ${(s.length - head - tail).toLocaleString('en-US')} characters of output omitted …]\n\n${s.slice(-tail)}`;
}

/** Terminal output for the model: escape codes removed, CRLF (pty) normalized, capped. */
export function cleanOutput(raw: string, max: number): string {
  return capOutput(stripAnsi(raw).replace(/\r+\n/g, '\n'), max);
}
