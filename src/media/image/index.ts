// image_generate's work: pick the provider (image_gen.provider, FAL by default), send the prompt
// (and any source images for an edit), and save what comes back under HERMES_HOME so the gateway
// can deliver it as a photo (`MEDIA:<path>`), whichever provider made it.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateUrlsAllowed } from '../../policy/ssrf.ts';
import { imageConfig, imageProvider, imageProviderName } from './registry.ts';
import type { AspectRatio } from './types.ts';

export { imageUnavailable, registerImageProvider } from './registry.ts';

const MAX_IMAGE = 40 * 1024 * 1024;
const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

function sniff(b: Uint8Array): string | null {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return 'image/gif';
  if (String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return null;
}

/** HERMES_HOME/image_cache when it exists (Hermes homes have it), else HERMES_HOME/cache/images. */
export function imageDir(home: string): string {
  const legacy = join(home, 'image_cache');
  const dir = existsSync(legacy) ? legacy : join(home, 'cache', 'images');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A source image for an edit as the provider takes it: URLs as they are, local files as data: URIs. */
function sourceOf(src: string, cwd: string): string {
  const s = src.trim();
  if (/^(https?:|data:)/i.test(s)) return s;
  const path = s.startsWith('file://') ? fileURLToPath(s) : resolve(cwd, s);
  if (!existsSync(path)) throw new Error(`Source image not found: ${path}`);
  if (statSync(path).size > 20 * 1024 * 1024) throw new Error(`Source image ${path} is larger than 20 MB.`);
  const bytes = readFileSync(path);
  const mime = sniff(bytes);
  if (!mime) throw new Error(`${path} is not a PNG, JPEG, GIF or WebP image.`);
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

export interface GenerateOptions {
  prompt: string;
  aspectRatio?: string;
  imageUrl?: string;
  referenceImageUrls?: string[];
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: unknown;
  signal?: AbortSignal;
  /**
   * Downloads a generated image over the network, SSRF-checked (the image_generate tool passes
   * src/tools/web/fetch.ts `safeFetch`; media sits below the tools and does not import them).
   */
  fetchUrl: (url: string, o: { allowPrivate: boolean; signal?: AbortSignal; timeoutMs: number; maxBytes: number; headers: Record<string, string> }) => Promise<{ status: number; truncated: boolean; body: Buffer }>;
}

export interface GenerateResult {
  success: true;
  /** The saved file (what to deliver: `MEDIA:<image>`). */
  image: string;
  images: string[];
  /** Where the provider served it, when it was a URL. */
  image_url?: string;
  modality: 'text' | 'image';
  provider: string;
  model: string;
  media_tag: string;
}

export async function generateImage(o: GenerateOptions): Promise<GenerateResult> {
  const cfg = imageConfig(o.config);
  const name = imageProviderName(cfg);
  const provider = imageProvider(name);
  if (!provider) throw new Error(`Unknown image provider "${name}" (image_gen.provider).`);
  const why = provider.unavailable(o.env, cfg);
  if (why) throw new Error(`Image generation is unavailable: the ${name} provider ${why}.`);
  if (!o.prompt.trim()) throw new Error('Prompt is required and must be a non-empty string.');
  const aspect = (['landscape', 'square', 'portrait'].includes(String(o.aspectRatio)) ? o.aspectRatio : 'landscape') as AspectRatio;
  const sources = [o.imageUrl, ...(o.referenceImageUrls ?? [])].filter((x): x is string => !!x && !!x.trim()).map((s) => sourceOf(s, o.cwd));
  const out = await provider.generate({ prompt: o.prompt, aspect, sources, config: cfg, env: o.env, signal: o.signal });
  const dir = imageDir(o.home);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  const saved: string[] = [];
  for (const [i, img] of out.images.entries()) {
    let bytes = img.data;
    if (!bytes && img.url) bytes = await download(img.url, o);
    if (!bytes) continue;
    const mime = sniff(bytes) ?? img.mime ?? '';
    if (!EXT[mime]) throw new Error(`The ${name} provider returned something that is not an image (${mime || 'unknown type'}).`);
    const file = join(dir, `img_${stamp}_${crypto.randomUUID().slice(0, 8)}${i ? `_${i}` : ''}.${EXT[mime]}`);
    writeFileSync(file, bytes, { mode: 0o600 });
    saved.push(file);
  }
  if (!saved.length) throw new Error(`The ${name} provider returned no images.`);
  const firstUrl = out.images[0]?.url;
  return {
    success: true,
    image: saved[0],
    images: saved,
    ...(firstUrl && !firstUrl.startsWith('data:') ? { image_url: firstUrl } : {}),
    modality: sources.length ? 'image' : 'text',
    provider: name,
    model: out.model,
    media_tag: saved.map((p) => `MEDIA:${p}`).join('\n'),
  };
}

/** Fetches a generated image from the provider's CDN (SSRF-checked like any URL; data: URIs decoded). */
async function download(url: string, o: GenerateOptions): Promise<Buffer> {
  if (url.startsWith('data:')) {
    const m = /^data:[^;,]*(;base64)?,(.*)$/s.exec(url);
    if (!m) throw new Error('The provider returned a malformed data URI.');
    return m[1] ? Buffer.from(m[2], 'base64') : Buffer.from(decodeURIComponent(m[2]));
  }
  const r = await o.fetchUrl(url, { allowPrivate: privateUrlsAllowed(o.env, o.config as never), signal: o.signal, timeoutMs: 60_000, maxBytes: MAX_IMAGE, headers: { accept: 'image/*' } });
  if (r.status >= 400) throw new Error(`Could not download the generated image: HTTP ${r.status}.`);
  if (r.truncated) throw new Error(`The generated image is larger than ${MAX_IMAGE / 1024 / 1024} MB.`);
  return r.body;
}

