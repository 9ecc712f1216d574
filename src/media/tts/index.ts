// Text to speech for the text_to_speech tool and the gateway's voice replies: the provider registry
// (edge, openai, elevenlabs; plugins register more), text cleanup and chunking, the output file
// under HERMES_HOME, and Ogg/Opus for platforms whose voice bubbles need it.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OPUS_VOICE_PLATFORMS, joinAudio, sniffAudio, toOpus } from '../audio.ts';
import { ttsConfig, ttsProvider, ttsProviderName, ttsProviderNames } from './registry.ts';
import { preTtsSynthesis } from '../../plugins/media-hooks.ts';

export { registerTtsProvider, ttsConfig, ttsProviderName, ttsUnavailable } from './registry.ts';
export type { TtsConfig, TtsProvider } from './types.ts';

/** Text as it should be spoken: no reasoning blocks, code fences, Markdown markers or link targets. */
export function spokenText(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/(\*\*|__|\*|_|~~|`)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/^\s*MEDIA:\S.*$/gm, '')
    .replace(/\[\[[a-z_]+\]\]/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Splits at sentence ends (then spaces) into pieces of at most `max` characters; never drops text. */
export function splitText(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '), window.lastIndexOf('\n'));
    if (cut < max / 3) cut = window.lastIndexOf(' ');
    if (cut < max / 3) cut = max - 1;
    out.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1);
  }
  if (rest.trim()) out.push(rest.trim());
  return out.filter(Boolean);
}

export interface SpeakOptions {
  text: string;
  home: string;
  env: NodeJS.ProcessEnv;
  config: unknown;
  /** cli | telegram | discord | … (decides Ogg/Opus). */
  platform: string;
  /** An explicit output file (its extension picks the format); default under HERMES_HOME. */
  outputPath?: string;
  speed?: number;
  instructions?: string;
  provider?: string;
  signal?: AbortSignal;
}

export interface SpeakResult {
  file_path: string;
  file_paths: string[];
  media_tag: string;
  provider: string;
  voice_compatible: boolean;
  chunk_count: number;
  note?: string;
}

/** HERMES_HOME/audio_cache when it exists (Hermes homes have it), else HERMES_HOME/cache/audio. */
export function audioDir(home: string): string {
  const legacy = join(home, 'audio_cache');
  const dir = existsSync(legacy) ? legacy : join(home, 'cache', 'audio');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').replace(/\..*/, '') + `_${String(process.hrtime.bigint() % 1_000_000n).padStart(6, '0')}`;

export function mediaTag(paths: string[], voice: boolean): string {
  const lines = paths.map((p) => `MEDIA:${p}`).join('\n');
  return voice ? `[[audio_as_voice]]\n${lines}` : lines;
}

/** `tts.pre_synthesis.required_plugins` (a name or a list of plugin names). */
function requiredTtsPlugins(config: unknown): string[] {
  const raw = (config as { tts?: { pre_synthesis?: { required_plugins?: unknown } } } | undefined)?.tts?.pre_synthesis?.required_plugins;
  const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [];
  return list.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
}

/** Makes the audio; throws an Error whose message says what went wrong and what to do. */
export async function speak(o: SpeakOptions): Promise<SpeakResult> {
  const cfg = ttsConfig(o.config);
  const name = ttsProviderName(cfg, o.provider);
  const provider = ttsProvider(name);
  if (!provider) throw new Error(`Unknown TTS provider "${name}". Use one of: ${ttsProviderNames().join(', ')} (tts.provider in config.yaml).`);
  const why = provider.unavailable(o.env, cfg);
  if (why) throw new Error(`The ${name} TTS provider ${why}. Set it in ~/.hermes/.env, or use tts.provider: edge (no key needed).`);
  const cleaned = spokenText(o.text);
  if (!cleaned) throw new Error('There is nothing to say once formatting is removed.');
  // Plugins' pre_tts_synthesis may block the synthesis or replace the script (fails closed).
  const text = await preTtsSynthesis(o.home, cleaned, name, requiredTtsPlugins(o.config));
  const wantOpus = o.outputPath ? /\.(ogg|opus|oga)$/i.test(o.outputPath) : OPUS_VOICE_PLATFORMS.has(o.platform);
  const format: 'mp3' | 'opus' = wantOpus && provider.nativeOpus ? 'opus' : 'mp3';
  const ext = format === 'opus' ? 'ogg' : 'mp3';
  const base = o.outputPath ?? join(audioDir(o.home), `tts_${stamp()}.${ext}`);
  mkdirSync(dirname(base), { recursive: true });
  const chunks = splitText(text, provider.maxChars);
  const speed = o.speed !== undefined ? Math.max(0.25, Math.min(4, o.speed)) : typeof cfg.speed === 'number' ? cfg.speed : undefined;
  const parts: string[] = [];
  try {
    for (let i = 0; i < chunks.length; i++) {
      const path = chunks.length === 1 ? base.replace(/\.[^./]+$/, `.${ext}`) : base.replace(/\.[^./]+$/, `.chunk${String(i + 1).padStart(3, '0')}.${ext}`);
      await provider.synthesize({ text: chunks[i], outPath: path, format, config: cfg, env: o.env, speed, instructions: o.instructions, signal: o.signal });
      if (!existsSync(path) || statSync(path).size === 0) throw new Error(`The ${name} TTS provider produced no audio.`);
      // A provider that ignored the format (MP3 bytes in a .ogg file) would make a silent bubble.
      const kind = sniffAudio(readFileSync(path).subarray(0, 16));
      if (ext === 'ogg' && kind === 'mp3') {
        renameSync(path, path.replace(/\.ogg$/, '.mp3'));
        parts.push(path.replace(/\.ogg$/, '.mp3'));
      } else parts.push(path);
    }
  } catch (e) {
    for (const p of parts) rmSync(p, { force: true });
    throw e;
  }
  let files = parts;
  if (parts.length > 1) {
    const joined = await joinAudio(parts, base.replace(/\.[^./]+$/, parts[0].slice(parts[0].lastIndexOf('.'))), o.env);
    if (joined) {
      for (const p of parts) if (p !== joined) rmSync(p, { force: true });
      files = [joined];
    }
  }
  let note: string | undefined;
  if (wantOpus && files.some((f) => !f.endsWith('.ogg'))) {
    const converted: string[] = [];
    for (const f of files) {
      if (f.endsWith('.ogg')) {
        converted.push(f);
        continue;
      }
      const ogg = await toOpus(f, o.env, o.signal);
      if (!ogg) {
        note = 'ffmpeg is not installed, so the audio is an MP3 file rather than a voice note (apt-get install ffmpeg).';
        converted.push(f);
        continue;
      }
      if (f !== o.outputPath) rmSync(f, { force: true });
      converted.push(ogg);
    }
    files = converted;
  }
  const voice = wantOpus && files.every((f) => f.endsWith('.ogg'));
  return { file_path: files[0], file_paths: files, media_tag: mediaTag(files, voice), provider: name, voice_compatible: voice, chunk_count: chunks.length, ...(note ? { note } : {}) };
}
