// Images for vision models: dimensions read from the file header (pure JS), and images that are too
// big (bytes or pixels) shrunk with ffmpeg to a JPEG whose longest side is at most 2048 px. Without
// ffmpeg an oversized image is sent as it is when the provider can still take it, else refused
// with a message saying how to fix it.
import { ffmpegPath, run } from './ffmpeg.ts';

export const MAX_SIDE = 2048;
export const TARGET_BYTES = 4 * 1024 * 1024;
/** Above this even an unresized image is refused (providers reject it anyway). */
export const HARD_LIMIT_BYTES = 20 * 1024 * 1024;

/** Width and height from a PNG, JPEG, GIF, WebP or BMP header, or null. */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const u16be = (o: number) => (b[o] << 8) | b[o + 1];
  const u16le = (o: number) => b[o] | (b[o + 1] << 8);
  const u32be = (o: number) => ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3];
  const u32le = (o: number) => b[o] + (b[o + 1] << 8) + (b[o + 2] << 16) + ((b[o + 3] << 24) >>> 0);
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return { width: u16le(6), height: u16le(8) };
  if (b.length >= 26 && b[0] === 0x42 && b[1] === 0x4d) return { width: u32le(18), height: Math.abs(u32le(22) | 0) };
  if (b.length >= 30 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57) {
    const kind = String.fromCharCode(b[12], b[13], b[14], b[15]);
    if (kind === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (kind === 'VP8L') {
      const bits = u32le(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (kind === 'VP8X') return { width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let o = 2;
    while (o + 9 < b.length) {
      if (b[o] !== 0xff) {
        o++;
        continue;
      }
      const marker = b[o + 1];
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { width: u16be(o + 7), height: u16be(o + 5) };
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        o += 2;
        continue;
      }
      o += 2 + u16be(o + 2);
    }
  }
  return null;
}

export interface FittedImage {
  bytes: Buffer;
  mime: string;
  /** How the image was changed, for the result ("resized 4000x3000 → 2048x1536 (ffmpeg)"). */
  note?: string;
}

/** HEIC/HEIF (iPhone photos) and AVIF: accepted everywhere images are, converted when they are sent. */
export const HEIF_MIMES = new Set(['image/heic', 'image/heif', 'image/avif', 'image/heic-sequence', 'image/heif-sequence', 'image/avif-sequence']);

/**
 * A HEIC/HEIF/AVIF image as JPEG, since most providers take only PNG, JPEG, GIF and WebP: converted
 * with ffmpeg when it is installed and can decode it (AVIF from ffmpeg 5, HEIC from 7.1). Otherwise
 * the original goes with its own type, which providers that accept it (Gemini) still read; the note
 * says so. Other images come back unchanged.
 */
export async function commonImageFormat(bytes: Buffer, mime: string, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<FittedImage> {
  if (!HEIF_MIMES.has(mime.toLowerCase())) return { bytes, mime };
  const kind = mime.toLowerCase().includes('avif') ? 'AVIF' : 'HEIC';
  const ffmpeg = ffmpegPath(env);
  if (!ffmpeg) return { bytes, mime, note: `sent as ${kind} (install ffmpeg to convert it to JPEG for providers that do not take ${kind})` };
  try {
    const out = await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-frames:v', '1', '-q:v', '2', '-f', 'image2', '-c:v', 'mjpeg', 'pipe:1'], { input: bytes, timeoutMs: 60_000, signal });
    if (out.stdout.length < 4 || out.stdout[0] !== 0xff || out.stdout[1] !== 0xd8) throw new Error('no JPEG came out');
    return { bytes: out.stdout, mime: 'image/jpeg', note: `converted ${kind} → JPEG (ffmpeg)` };
  } catch {
    return { bytes, mime, note: `sent as ${kind}: this ffmpeg cannot decode it (HEIC needs ffmpeg 7.1 or later)` };
  }
}

/** The image as a vision model should get it: HEIC/AVIF converted, unchanged when small enough, else shrunk with ffmpeg. */
export async function fitForVision(input: Buffer, inputMime: string, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<FittedImage> {
  const common = await commonImageFormat(input, inputMime, env, signal);
  if (HEIF_MIMES.has(common.mime.toLowerCase())) {
    // Not converted: it cannot be resized either, so it goes as it is while providers take its size.
    if (common.bytes.length > HARD_LIMIT_BYTES) throw new Error(`The image is ${(common.bytes.length / 1024 / 1024).toFixed(1)} MB, too large to send, and could not be converted. ${common.note ?? ''}`.trim());
    return common;
  }
  const fitted = await fitCommon(common.bytes, common.mime, env, signal);
  const note = [common.note, fitted.note].filter(Boolean).join('; ');
  return note ? { ...fitted, note } : fitted;
}

async function fitCommon(bytes: Buffer, mime: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<FittedImage> {
  const size = imageSize(bytes);
  const tooBig = bytes.length > TARGET_BYTES || (size !== null && Math.max(size.width, size.height) > MAX_SIDE);
  if (!tooBig) return { bytes, mime };
  const ffmpeg = ffmpegPath(env);
  if (!ffmpeg) {
    if (bytes.length <= HARD_LIMIT_BYTES) return { bytes, mime, note: 'sent at full size (install ffmpeg to have large images resized)' };
    throw new Error(`The image is ${(bytes.length / 1024 / 1024).toFixed(1)} MB, too large to send, and ffmpeg is not installed to shrink it. Install ffmpeg (apt-get install ffmpeg) or use a smaller image.`);
  }
  const scale = `scale='min(${MAX_SIDE},iw)':'min(${MAX_SIDE},ih)':force_original_aspect_ratio=decrease`;
  const out = await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-vf', scale, '-frames:v', '1', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', 'pipe:1'], { input: bytes, timeoutMs: 60_000, signal });
  const after = imageSize(out.stdout);
  const from = size ? `${size.width}x${size.height}` : `${(bytes.length / 1024 / 1024).toFixed(1)} MB`;
  const to = after ? `${after.width}x${after.height}` : `${Math.round(out.stdout.length / 1024)} KB`;
  return { bytes: out.stdout, mime: 'image/jpeg', note: `resized ${from} → ${to} (ffmpeg)` };
}
