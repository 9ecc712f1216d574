// Real audio for tests: short tones made with ffmpeg, and ffprobe's view of a file (the check that
// a produced file is a valid MP3 or Ogg/Opus stream).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmp } from '../tools/helpers.ts';

export const noFfmpeg: string | null =
  spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0 && spawnSync('ffprobe', ['-version'], { stdio: 'ignore' }).status === 0 ? null : 'ffmpeg/ffprobe are not installed (apt-get install ffmpeg)';

/** A tone of `secs` seconds: mp3 (24 kHz mono frames without ID3/Xing headers, as Edge streams it), ogg (Opus), wav. */
export function tone(kind: 'mp3' | 'ogg' | 'wav', secs = 1, freq = 440): Buffer {
  const out = join(tmp('hermes-audio-'), `tone.${kind}`);
  const codec = kind === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '48k', '-ar', '24000', '-write_xing', '0', '-id3v2_version', '0'] : kind === 'ogg' ? ['-c:a', 'libopus', '-b:a', '32k', '-ar', '48000'] : ['-c:a', 'pcm_s16le', '-ar', '16000'];
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=${freq}:duration=${secs}`, '-ac', '1', ...codec, out]);
  if (r.status !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
  return readFileSync(out);
}

export interface Probe {
  format: string;
  codec: string;
  duration: number;
}

/** What ffprobe reads from a file; throws when it is not audio ffprobe can decode. */
export function probe(path: string): Probe {
  const r = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,codec_type:format=format_name,duration', '-of', 'json', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffprobe rejected ${path}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { streams: { codec_name: string; codec_type: string }[]; format: { format_name: string; duration: string } };
  const audio = j.streams.find((s) => s.codec_type === 'audio');
  if (!audio) throw new Error(`${path} has no audio stream`);
  // Decode it all: a truncated or garbled file fails here.
  const d = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'null', '-'], { encoding: 'utf8' });
  if (d.status !== 0 || d.stderr.trim()) throw new Error(`${path} does not decode cleanly: ${d.stderr}`);
  return { format: j.format.format_name, codec: audio.codec_name, duration: Number(j.format.duration) };
}
