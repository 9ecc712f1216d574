// The bundle gives Ink (and the packages it uses to wrap and cut text) this in place of the
// `string-width` package: Hermes's own display widths (src/cli/repl/width.ts), so Ink lays out
// lines exactly as the transcript wrapped them, and without the emoji regex that costs the first
// frame ~100 ms. Same signature as string-width's default export.

import { graphemes, graphemeWidth, stringWidth } from '../cli/repl/width.ts';

export default function width(s: string, opts?: { countAnsiEscapeCodes?: boolean; ambiguousIsNarrow?: boolean }): number {
  if (typeof s !== 'string' || !s) return 0;
  if (!opts?.countAnsiEscapeCodes) return stringWidth(s);
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let w = 0;
  for (const g of graphemes(s)) w += graphemeWidth(g);
  return w;
}
