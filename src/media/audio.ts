// Audio files for chat platforms: what a file really is (from its bytes), MP3/WAV → Ogg/Opus for
// voice notes (Telegram, WhatsApp, Signal, Matrix, Feishu play only Opus as a voice bubble) and
// joining chunks. ffmpeg does the conversions; without it an MP3 is sent as a normal audio file
// (and MP3 chunks are joined frame to frame).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { ffmpegPath, run } from './ffmpeg.ts';
import { stripId3 } from './tts/edge.ts';

export type AudioKind = 'mp3' | 'ogg' | 'wav' | 'flac' | 'm4a' | 'webm' | 'unknown';

export function sniffAudio(b: Uint8Array): AudioKind {
  const s = (o: number, n: number) => String.fromCharCode(...b.subarray(o, o + n));
  if (b.length >= 4 && s(0, 4) === 'OggS') return 'ogg';
  if (b.length >= 12 && s(0, 4) === 'RIFF' && s(8, 4) === 'WAVE') return 'wav';
  if (b.length >= 4 && s(0, 4) === 'fLaC') return 'flac';
  if (b.length >= 8 && s(4, 4) === 'ftyp') return 'm4a';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'webm';
  if (b.length >= 3 && s(0, 3) === 'ID3') return 'mp3';
  if (b.length >= 2 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0) return 'mp3';
  return 'unknown';
}

/** Platforms whose voice bubbles need Ogg/Opus. */
export const OPUS_VOICE_PLATFORMS = new Set(['telegram', 'matrix', 'feishu', 'whatsapp', 'signal']);

/** `in` (any format ffmpeg reads) → mono 48 kHz Ogg/Opus next to it; null when ffmpeg is missing. */
export async function toOpus(inPath: string, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<string | null> {
  const ffmpeg = ffmpegPath(env);
  if (!ffmpeg) return null;
  const out = join(dirname(inPath), `${basename(inPath).replace(/\.[^.]+$/, '')}.ogg`);
  await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-i', inPath, '-vn', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '48k', '-application', 'voip', out], { timeoutMs: 120_000, signal });
  return out;
}

/** Joins audio chunks of one format: MP3 frames concatenate as they are; Ogg needs ffmpeg (null without it). */
export async function joinAudio(parts: string[], out: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (parts.length === 1) return parts[0];
  const ffmpeg = ffmpegPath(env);
  if (!ffmpeg && out.endsWith('.mp3')) {
    writeFileSync(out, Buffer.concat(parts.map((p, i) => (i ? stripId3(readFileSync(p)) : readFileSync(p)))));
    return out;
  }
  if (!ffmpeg) return null;
  const list = `${out}.txt`;
  writeFileSync(list, parts.map((p) => `file '${p.replace(/'/g, "'\\''")}'`).join('\n'));
  await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', out], { timeoutMs: 120_000 });
  return out;
}
