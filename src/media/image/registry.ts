// The image generation providers by name (fal, openai; plugins add more). Light: availability
// checks run at start-up.
import { falImages } from './fal.ts';
import { openaiImages } from './openai.ts';
import { Providers } from '../providers.ts';
import type { ImageGenConfig, ImageProvider } from './types.ts';

const providers = new Providers<ImageProvider>('image', [falImages, openaiImages]);

/** Adds a provider (plugins). Built-in names cannot be replaced. */
export const registerImageProvider = (p: ImageProvider): void => providers.register(p);

export function imageConfig(config: unknown): ImageGenConfig {
  const c = (config as { image_gen?: unknown } | undefined)?.image_gen;
  return c && typeof c === 'object' ? (c as ImageGenConfig) : {};
}

export function imageProviderName(cfg: ImageGenConfig): string {
  return (typeof cfg.provider === 'string' && cfg.provider.trim() ? cfg.provider.trim() : 'fal').toLowerCase();
}

export function imageProvider(name: string): ImageProvider | undefined {
  return providers.get(name);
}

/** Why image generation cannot run with the configured provider, with what to do; null when it can. */
export function imageUnavailable(env: NodeJS.ProcessEnv, config: unknown): string | null {
  const cfg = imageConfig(config);
  const name = imageProviderName(cfg);
  const p = providers.get(name);
  if (!p) return `image_gen.provider is "${name}", which is not a known provider (${providers.names().join(', ')})`;
  const why = p.unavailable(env, cfg);
  return why ? `the ${name} image provider ${why}` : null;
}
