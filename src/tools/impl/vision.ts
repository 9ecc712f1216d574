// vision_analyze's implementation, loaded on the first call.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ToolOutcome } from '../../agent/types.ts';
import { privateUrlsAllowed } from '../../policy/ssrf.ts';
import { resolvePath } from '../defs/read-file.ts';
import { fail, ok } from '../result.ts';
import type { AuxiliaryModel, ToolContext } from '../types.ts';
import { fitForVision } from '../../media/image-fit.ts';
import type { VisionArgs } from '../defs/vision.ts';
import { FetchBlockedError, safeFetch } from '../web/fetch.ts';
import { websiteBlocked } from '../web/website-policy.ts';

const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

/** The image type from its first bytes. */
export function sniffImage(b: Uint8Array): string | null {
  const at = (sig: number[], off = 0) => sig.every((x, i) => b[off + i] === x);
  if (at([0x89, 0x50, 0x4e, 0x47])) return 'image/png';
  if (at([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (at([0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (at([0x52, 0x49, 0x46, 0x46]) && at([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (at([0x42, 0x4d])) return 'image/bmp';
  if (at([0x66, 0x74, 0x79, 0x70], 4)) {
    // ISO-BMFF: the major brand, then compatible brands, say AVIF or HEIC/HEIF.
    const brands = String.fromCharCode(...b.subarray(8, Math.min(b.length, 8 + Math.min(64, (b[2] << 8) | b[3]))));
    if (/^avi[fs]/.test(brands) || (/^mif1/.test(brands) && /avif/.test(brands))) return 'image/avif';
    if (/^(heic|heix|heim|heis|hevc|hevx|mif1|msf1)/.test(brands)) return 'image/heic';
  }
  return null;
}

export async function runVision(a: VisionArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const s = ctx;
  const aux = s.auxiliary?.('vision');
  if (!aux) return fail('No vision model is configured. Set auxiliary.vision (provider/model) in config.yaml, or use a main model that accepts images.');
  let bytes: Buffer;
  let mime: string | null;
  const src = a.image_url.trim();
  if (/^data:image\//i.test(src)) {
    const m = /^data:(image\/[\w.+-]+);base64,(.*)$/is.exec(src);
    if (!m) return fail('The data URL is not a base64 image.');
    bytes = Buffer.from(m[2], 'base64');
    mime = m[1];
  } else if (/^https?:\/\//i.test(src)) {
    const timeout = Number((s.config.auxiliary?.vision as { download_timeout?: number } | undefined)?.download_timeout) || 30;
    try {
      const r = await safeFetch(src, { allowPrivate: privateUrlsAllowed(s.env, s.config), signal: ctx.signal, timeoutMs: timeout * 1000, maxBytes: MAX_IMAGE_BYTES, headers: { accept: 'image/*' }, blocked: (u) => websiteBlocked(s, u) });
      if (r.status >= 400) return fail(`Could not download the image: HTTP ${r.status}.`);
      if (r.truncated) return fail(`The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`);
      bytes = r.body;
      mime = sniffImage(bytes) ?? (r.contentType.startsWith('image/') ? r.contentType.split(';')[0] : null);
    } catch (e) {
      return fail(e instanceof FetchBlockedError ? e.message : `Could not download the image: ${(e as Error).message}`);
    }
  } else {
    const path = src.startsWith('file://') ? fileURLToPath(src) : resolvePath(src, s.cwd);
    if (!existsSync(path)) return fail(`File not found: ${path}`);
    if (statSync(path).size > MAX_IMAGE_BYTES) return fail(`${path} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`);
    bytes = readFileSync(path);
    mime = sniffImage(bytes);
  }
  if (!mime) return fail('That is not an image format the vision model can read (PNG, JPEG, GIF, WebP, BMP, HEIC, AVIF).');
  let fitted;
  try {
    fitted = await fitForVision(bytes, mime, s.env, ctx.signal);
  } catch (e) {
    return fail((e as Error).message);
  }
  const r = await askVision(aux, fitted.bytes, fitted.mime, a.question, ctx.signal);
  if ('error' in r) return fail(`The vision model failed: ${r.error}`);
  return ok({ success: true, analysis: r.text, model: aux.model, ...(fitted.note ? { image_note: fitted.note } : {}) });
}

const VISION_SYSTEM = 'You analyze images precisely. Answer the question about the image; describe what you actually see, transcribe visible text exactly, and say when something is unclear.';

/** One question about one image to the auxiliary vision model. */
export async function askVision(aux: AuxiliaryModel, bytes: Buffer, mime: string, question: string, signal: AbortSignal, system = VISION_SYSTEM): Promise<{ text: string } | { error: string }> {
  const stream = aux.stream({
    model: aux.model,
    system,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: question },
          { type: 'image_url', image_url: { url: `data:${mime};base64,${bytes.toString('base64')}` } },
        ],
      },
    ],
    tools: [],
    signal,
    maxTokens: 2000,
  });
  for await (const _ of stream) {
    /* the answer is read from the result */
  }
  const res = await stream.result();
  if (res.stopReason === 'error' || res.stopReason === 'aborted') return { error: res.error?.message ?? res.stopReason };
  const content = res.message.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
  return { text: text.trim() };
}
