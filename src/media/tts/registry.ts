// The TTS providers by name: the built-in ones and those plugins register. Light (no SDKs, no
// WebSocket library until a provider speaks), so availability checks can run at start-up.
import { edgeTts } from './edge.ts';
import { elevenlabsTts } from './elevenlabs.ts';
import { openaiTts } from './openai.ts';
import { Providers } from '../providers.ts';
import type { TtsConfig, TtsProvider } from './types.ts';

const providers = new Providers<TtsProvider>('TTS', [edgeTts, openaiTts, elevenlabsTts]);

/** Adds a provider (plugins). Built-in names cannot be replaced. */
export const registerTtsProvider = (p: TtsProvider): void => providers.register(p);

export const ttsProviderNames = (): string[] => providers.names();

export function ttsConfig(config: unknown): TtsConfig {
  const t = (config as { tts?: unknown } | undefined)?.tts;
  return t && typeof t === 'object' ? (t as TtsConfig) : {};
}

/** The provider name to use: the call's, else `tts.provider`, else edge (free; keys never imply consent to paid speech). */
export function ttsProviderName(cfg: TtsConfig, explicit?: string): string {
  const raw = (explicit || (typeof cfg.provider === 'string' ? cfg.provider : '') || 'edge').trim().toLowerCase();
  return raw === 'nous' ? 'openai' : raw;
}

/** Why speech cannot be made with the configured provider, or null. */
export function ttsUnavailable(env: NodeJS.ProcessEnv, config: unknown, explicit?: string): string | null {
  const cfg = ttsConfig(config);
  const name = ttsProviderName(cfg, explicit);
  const p = providers.get(name);
  if (!p) return `tts.provider is "${name}", which is not a known provider (${ttsProviderNames().join(', ')})`;
  const why = p.unavailable(env, cfg);
  return why ? `the ${name} TTS provider ${why}` : null;
}

export function ttsProvider(name: string): TtsProvider | undefined {
  return providers.get(name);
}
