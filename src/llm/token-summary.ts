// The one definition of "tokens" every report uses (`hermes insights`, `/usage`, `hermes sessions
// stats`, the dashboard's Analytics tab): four separate counts and a labelled total.
//
//   input        prompt tokens the provider did not serve from its cache
//   cache read   prompt tokens served from the provider's cache (billed cheaper)
//   cache write  prompt tokens written to the cache (Anthropic; billed dearer)
//   output       generated tokens, reasoning included (reasoning is shown as "of which")
//   prompt       input + cache read + cache write: everything the model read
//   total        prompt + output
//
// Stored usage (state.db sessions.*_tokens, `Usage` in src/llm/types.ts) keeps the same four counts,
// so every surface adds the same numbers.
import type { TokenCounts, TokenSummary } from './token-types.ts';
import type { Usage } from './types.ts';

export type { TokenCounts, TokenSummary } from './token-types.ts';

/** What "total" means, for labels and footnotes. */
export const TOTAL_TOKENS_LABEL = 'total = input + cache read + cache write + output';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);

export function summarizeTokens(c: Partial<TokenCounts>): TokenSummary {
  const input = n(c.input);
  const output = n(c.output);
  const cacheRead = n(c.cacheRead);
  const cacheWrite = n(c.cacheWrite);
  const prompt = input + cacheRead + cacheWrite;
  return { input, output, cacheRead, cacheWrite, reasoning: n(c.reasoning), prompt, total: prompt + output, cacheHitPct: prompt ? (cacheRead / prompt) * 100 : 0 };
}

export function usageSummary(u: Usage): TokenSummary {
  return summarizeTokens({ input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_tokens, cacheWrite: u.cache_write_tokens, reasoning: u.reasoning_tokens });
}

/** Adds summaries (or counts) up. */
export function addTokens(a: Partial<TokenCounts>, b: Partial<TokenCounts>): TokenSummary {
  return summarizeTokens({ input: n(a.input) + n(b.input), output: n(a.output) + n(b.output), cacheRead: n(a.cacheRead) + n(b.cacheRead), cacheWrite: n(a.cacheWrite) + n(b.cacheWrite), reasoning: n(a.reasoning) + n(b.reasoning) });
}

const grouped = (v: number) => Math.round(v).toLocaleString('en-US');

/** "12,345 total (input 10,000 · cache read 2,000 · cache write 0 · output 345, reasoning 100)". */
export function formatTokenSummary(t: TokenSummary, fmt: (v: number) => string = grouped): string {
  const reasoning = t.reasoning ? `, of which reasoning ${fmt(t.reasoning)}` : '';
  return `${fmt(t.total)} total (input ${fmt(t.input)} · cache read ${fmt(t.cacheRead)} · cache write ${fmt(t.cacheWrite)} · output ${fmt(t.output)}${reasoning})`;
}
