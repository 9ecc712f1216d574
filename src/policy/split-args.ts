// Splits a command line into words the way slash-command arguments and shell-hook commands are
// written: "double quotes" (backslash escapes inside), 'single quotes', or runs of non-space.
// Not a shell parser (src/policy/shell-parse.ts is one): no expansion, no operators.
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return out;
}
