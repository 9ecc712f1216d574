// "Did you mean …?": the closest of a set of known names to what a person typed (CLI and slash
// commands, config keys, providers, models). Optimal string alignment distance (a swap of
// neighbours costs one), case-folded.

/** Edit distance where insert, delete, substitute and swapping two neighbours each cost 1. */
export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (!n) return m;
  if (!m) return n;
  const d: number[][] = Array.from({ length: n + 1 }, (_, i) => [i, ...new Array<number>(m).fill(0)]);
  for (let j = 1; j <= m; j++) d[0][j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

/**
 * The known names closest to `typed`, best first: a close misspelling (distance at most a third of
 * the length, at least 1) or a name `typed` is a prefix of; only those as close as the closest.
 * Empty when nothing is close.
 */
export function nearest(typed: string, known: Iterable<string>, max = 3): string[] {
  const t = typed.toLowerCase();
  if (!t) return [];
  const limit = Math.max(1, Math.floor((t.length + 1) / 3));
  const scored: { name: string; score: number }[] = [];
  const seen = new Set<string>();
  for (const name of known) {
    if (seen.has(name)) continue;
    seen.add(name);
    const k = name.toLowerCase();
    if (k === t) continue;
    const dist = editDistance(t, k);
    if (dist <= limit) scored.push({ name, score: dist });
    else if (t.length >= 3 && k.startsWith(t)) scored.push({ name, score: limit + 0.5 });
  }
  scored.sort((x, y) => x.score - y.score || Math.abs(x.name.length - t.length) - Math.abs(y.name.length - t.length) || x.name.localeCompare(y.name));
  // Only names as close as the closest one.
  return scored.filter((s) => s.score === scored[0].score).slice(0, max).map((s) => s.name);
}

/** " Did you mean `x`?" (or "`x` or `y`"), or '' when nothing is close. */
export function didYouMean(typed: string, known: Iterable<string>, format: (name: string) => string = (n) => `\`${n}\``): string {
  const near = nearest(typed, known, 2);
  if (!near.length) return '';
  return ` Did you mean ${near.map(format).join(' or ')}?`;
}
