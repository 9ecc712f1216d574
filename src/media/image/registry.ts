// The image generation providers by name (fal, openai; plugins add more). Light: availability
// checks run at start-up.
import { falImages } from './fal.ts';
import { openaiImages } from './openai.ts';
import { Providers } from '../providers.ts';
import { pluginExtension, pluginExtensions } from '../../plugins/extensions.ts';
import type { GeneratedImage, ImageGenConfig, ImageProvider, ImageResult } from './types.ts';

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

type Obj = Record<string, unknown>;

/**
 * A provider a plugin registered (ctx.register_image_gen_provider): an object with `name` and
 * `generate(request)` resolving to `{ images: [{ url } | { data: Buffer | base64 }], model }`;
 * `unavailable(env, config)` (or Python-style `is_available()`) and `canEdit(config)` are optional.
 * Built-in names win: a plugin cannot shadow fal or openai.
 */
function pluginProvider(name: string): ImageProvider | undefined {
  const e = pluginExtension<Obj>('image_provider', name);
  if (!e) return undefined;
  const v = e.value;
  const fn = (k: string) => (typeof v[k] === 'function' ? (v[k] as (...a: unknown[]) => unknown).bind(v) : undefined);
  return {
    name: e.name,
    unavailable(env, cfg) {
      const why = fn('unavailable');
      if (why) return (why(env, cfg) as string | null | undefined) || null;
      const ok = fn('is_available') ?? fn('isAvailable');
      return ok && !ok() ? `is not available (plugin ${e.owner})` : null;
    },
    canEdit: (cfg) => !!(fn('canEdit') ?? fn('can_edit'))?.(cfg),
    async generate(req) {
      const gen = fn('generate');
      if (!gen) throw new Error(`the ${e.name} image provider (plugin ${e.owner}) has no generate() function`);
      const out = (await gen(req)) as Partial<ImageResult> & Obj;
      const images = ((Array.isArray(out?.images) ? out.images : []) as Obj[]).map((i): GeneratedImage => {
        const data = typeof i.data === 'string' ? Buffer.from(i.data, 'base64') : i.data instanceof Uint8Array ? Buffer.from(i.data) : typeof i.b64_json === 'string' ? Buffer.from(i.b64_json, 'base64') : undefined;
        return { ...(typeof i.url === 'string' ? { url: i.url } : {}), ...(data ? { data } : {}), ...(typeof i.mime === 'string' ? { mime: i.mime } : {}) };
      });
      return { images, model: typeof out?.model === 'string' ? out.model : e.name };
    },
  };
}

export function imageProvider(name: string): ImageProvider | undefined {
  return providers.get(name) ?? pluginProvider(name);
}

/** Why image generation cannot run with the configured provider, with what to do; null when it can. */
export function imageUnavailable(env: NodeJS.ProcessEnv, config: unknown): string | null {
  const cfg = imageConfig(config);
  const name = imageProviderName(cfg);
  const p = imageProvider(name);
  if (!p) return `image_gen.provider is "${name}", which is not a known provider (${[...providers.names(), ...pluginExtensions('image_provider').map((e) => e.name)].join(', ')})`;
  const why = p.unavailable(env, cfg);
  return why ? `the ${name} image provider ${why}` : null;
}
