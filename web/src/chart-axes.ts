// Axes for the dashboard's charts: ranges that start at 0 and end at a round number just above the
// data (a day that cost $0 draws a $0–$1 axis, not uPlot's default 0–100), integer steps for
// counts, and an axis as wide as its longest label so nothing is clipped. Pure functions (unit-tested).

/** The smallest 1, 2, 2.5 or 5 × 10^n at or above v (v > 0). */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

/** [0, a round top] for values that are never negative; `empty` is the top when everything is 0. */
export function zeroBasedRange(max: number | null | undefined, empty: number): [number, number] {
  const m = typeof max === 'number' && Number.isFinite(max) ? max : 0;
  return [0, m > 0 ? niceCeil(m * 1.05) : empty];
}

/** Steps uPlot may pick for counts: whole numbers only. */
export const COUNT_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 2.5e4, 5e4, 1e5, 2e5, 2.5e5, 5e5, 1e6, 2e6, 2.5e6, 5e6, 1e7, 2e7, 5e7, 1e8, 1e9];

/** Steps for money, down to a tenth of a cent. */
export const MONEY_INCRS = [0.001, 0.002, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 1e4];

export function compactCount(x: number): string {
  return x >= 1e6 ? `${+(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${+(x / 1e3).toFixed(1)}k` : String(Math.round(x));
}

/** A dollar label with the decimals the axis step needs, the same for every label of the axis ($0.005, $0.25, $12). */
export function moneyLabel(x: number, step: number): string {
  const decimals = step >= 1 && Number.isInteger(step) ? 0 : step >= 0.01 ? 2 : 3;
  return `$${x.toFixed(decimals)}`;
}

/** Pixels an axis needs for its longest label (measured with the axis font), plus ticks and gap. */
export function axisWidth(labels: readonly string[] | null | undefined, measure: (text: string) => number, extra: number): number {
  const longest = (labels ?? []).reduce((a, v) => (v.length > a.length ? v : a), '');
  return Math.ceil(extra + (longest ? measure(longest) : 0)) + 2;
}
