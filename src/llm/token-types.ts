// The token counts every report shows (src/llm/token-summary.ts computes them). Types only, with no
// imports: the dashboard's API types (src/dashboard/api-types.ts) use them, and the web app's
// tsconfig (no Node types) checks that file.

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Part of output. */
  reasoning: number;
}

export interface TokenSummary extends TokenCounts {
  /** input + cacheRead + cacheWrite. */
  prompt: number;
  /** prompt + output. */
  total: number;
  /** Share of the prompt served from the cache, 0–100. */
  cacheHitPct: number;
}
