// Cost estimates from a small per-million-token price table (USD, list prices at the time of
// writing). Estimates only: providers' own billing is authoritative. Unknown model → null.

import { findProvider } from './catalog.ts';
import type { Usage } from './types.ts';

export interface ModelPrice {
  /** USD per million non-cached input tokens. */
  input: number;
  output: number;
  /** Defaults to 10% of input. */
  cacheRead?: number;
  /** Defaults to input (OpenAI-style: no surcharge). */
  cacheWrite?: number;
}

// Keys are matched against the normalised model id (vendor prefix and date suffix removed, dots as
// hyphens): the longest key that the id starts with wins.
export const PRICES: Record<string, ModelPrice> = {
  // Anthropic (cache write = 1.25× input for the 5-minute TTL)
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  // OpenAI
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4-1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4-1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4-1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  // Google
  'gemini-2-5-pro': { input: 1.25, output: 10, cacheRead: 0.31 },
  'gemini-2-5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075 },
  'gemini-2-5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gemini-2-0-flash': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  // DeepSeek
  'deepseek-chat': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'deepseek-v3': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  // Moonshot / Kimi
  'kimi-k2': { input: 0.6, output: 2.5, cacheRead: 0.15 },
  'kimi-k2-turbo': { input: 1.15, output: 8, cacheRead: 0.15 },
  // Z.AI GLM
  'glm-4-6': { input: 0.6, output: 2.2, cacheRead: 0.11 },
  'glm-4-5': { input: 0.6, output: 2.2, cacheRead: 0.11 },
  'glm-4-5-air': { input: 0.2, output: 1.1, cacheRead: 0.03 },
  // xAI
  'grok-4': { input: 3, output: 15, cacheRead: 0.75 },
  'grok-code-fast-1': { input: 0.2, output: 1.5, cacheRead: 0.02 },
  // MiniMax
  'minimax-m2': { input: 0.3, output: 1.2, cacheRead: 0.03 },
};

/** `anthropic/claude-sonnet-4.5-20250929` → `claude-sonnet-4-5`. */
export function normaliseModelId(model: string): string {
  let m = model.trim().toLowerCase();
  m = m.slice(m.lastIndexOf('/') + 1);
  m = m.replace(/:.*$/, '');
  m = m.replace(/\./g, '-');
  m = m.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
  return m;
}

export function priceFor(model: string): ModelPrice | undefined {
  const m = normaliseModelId(model);
  let best = '';
  for (const key of Object.keys(PRICES)) {
    if (key.length > best.length && (m === key || m.startsWith(`${key}-`) || m.startsWith(key))) best = key;
  }
  return best ? PRICES[best] : undefined;
}

/**
 * Estimated USD cost of one call, or null when the price is unknown (the model is not in the table,
 * or the provider is your own endpoint). Reasoning tokens are part of output tokens on every wire,
 * so they are not added again.
 */
export function estimateCostUsd(model: string, provider: string, usage: Usage): number | null {
  // Your own server (custom, a named endpoint, a local one) bills nothing we know of, whatever the
  // model is called: a local "gpt-4.1" is not OpenAI's price list.
  const spec = findProvider(provider.startsWith('custom:') ? 'custom' : provider);
  if (!spec || spec.isCustom || spec.quirks.noKeyRequired) return null;
  const p = priceFor(model);
  if (!p) return null;
  const cacheRead = p.cacheRead ?? p.input * 0.1;
  const cacheWrite = p.cacheWrite ?? p.input;
  const cost =
    (usage.input_tokens * p.input + usage.output_tokens * p.output + usage.cache_read_tokens * cacheRead + usage.cache_write_tokens * cacheWrite) /
    1_000_000;
  return Math.round(cost * 1e8) / 1e8;
}
