// The output cap (`max_tokens`) of the conversation's requests when config sets none, as Hermes sends
// it on chat completions: the provider's default when it has one (a custom endpoint's 65,536 keeps
// servers that would otherwise stop after a few hundred tokens going), else the model's own ceiling
// for Anthropic-style models (Claude, MiniMax, Qwen3) that proxies cap low when nothing is asked.
// The Anthropic wire sets its own (it requires one); the Responses wire sends none.
import { defaultMaxTokens } from './anthropic.ts';
import { findProvider } from './catalog.ts';
import type { ApiMode } from './types.ts';

const ANTHROPIC_STYLE: [RegExp, number | ((model: string) => number)][] = [
  [/claude/, defaultMaxTokens],
  [/minimax/, 131_072],
  [/qwen3/, 65_536],
];

export function defaultOutputCap(rt: { apiMode: ApiMode; provider: string; model: string }): number | undefined {
  if (rt.apiMode !== 'chat_completions') return undefined;
  const spec = findProvider(rt.provider) ?? (rt.provider.startsWith('custom:') ? findProvider('custom') : undefined);
  if (spec?.defaultMaxTokens) return spec.defaultMaxTokens;
  const m = rt.model.toLowerCase().replace(/\./g, '-');
  for (const [re, v] of ANTHROPIC_STYLE) if (re.test(m)) return typeof v === 'number' ? v : v(m);
  return undefined;
}

/** `model.max_tokens` from config: a positive whole number, else undefined. */
export function configuredOutputCap(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
