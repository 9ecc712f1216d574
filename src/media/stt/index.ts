// Speech to text for voice messages (gateway) and push-to-talk (REPL): the provider registry
// (local engines, Groq, OpenAI; plugins register more) and Hermes's choice of provider: an explicit
// `stt.provider` is honoured (no silent cloud fallback); otherwise local, then Groq, then OpenAI.
import { existsSync } from 'node:fs';
import { groqStt, openaiStt } from './openai.ts';
import { localCommandStt, localStt } from './local.ts';
import { Providers } from '../providers.ts';
import type { SttConfig, SttProvider } from './types.ts';
import { preTranscription } from '../../plugins/media-hooks.ts';

export type { SttConfig, SttProvider } from './types.ts';

const providers = new Providers<SttProvider>('STT', [localStt, localCommandStt, groqStt, openaiStt]);

/** Adds a provider (plugins). Built-in names cannot be replaced. */
export const registerSttProvider = (p: SttProvider): void => providers.register(p);

export function sttConfig(config: unknown): SttConfig {
  const s = (config as { stt?: unknown } | undefined)?.stt;
  return s && typeof s === 'object' ? (s as SttConfig) : {};
}

export function sttEnabled(cfg: SttConfig): boolean {
  const e = cfg.enabled;
  return !(e === false || (typeof e === 'string' && ['0', 'false', 'no', 'off'].includes(e.trim().toLowerCase())));
}

/**
 * The provider to use, or why there is none. `local` is the default (seeded in every config, as in
 * Hermes), so it falls back to the cloud providers when no local engine is installed; any other
 * `stt.provider` is the user's explicit choice.
 */
export function chooseStt(env: NodeJS.ProcessEnv, config: unknown): { provider: SttProvider } | { error: string } {
  const cfg = sttConfig(config);
  if (!sttEnabled(cfg)) return { error: 'Speech to text is turned off (stt.enabled: false).' };
  const name = String(cfg.provider || 'local').trim().toLowerCase();
  if (name !== 'local') {
    const p = providers.get(name);
    if (!p) return { error: `stt.provider is "${name}", which is not a known provider (${providers.names().join(', ')}).` };
    const why = p.unavailable(env, cfg);
    return why ? { error: `The ${name} speech-to-text provider ${why}.` } : { provider: p };
  }
  for (const n of ['local', 'groq', 'openai']) {
    const p = providers.get(n)!;
    if (!p.unavailable(env, cfg)) return { provider: p };
  }
  return {
    error: 'No speech-to-text provider is available. Set GROQ_API_KEY (free tier) or VOICE_TOOLS_OPENAI_KEY in ~/.hermes/.env, or install a local engine (HERMES_LOCAL_STT_COMMAND, the whisper CLI, or `apt-get install pocketsphinx pocketsphinx-en-us ffmpeg`).',
  };
}

export function sttLanguage(cfg: SttConfig, provider: string, env: NodeJS.ProcessEnv): string | undefined {
  const own = cfg[provider];
  const v = (own && typeof own === 'object' ? (own as { language?: unknown }).language : undefined) ?? cfg.language ?? env.HERMES_LOCAL_STT_LANGUAGE;
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

export interface TranscribeResult {
  success: boolean;
  transcript: string;
  provider: string;
  error?: string;
}

/** Hermes's transcribe_audio: `{success, transcript, provider, error?}`; never throws. */
export async function transcribe(path: string, o: { env: NodeJS.ProcessEnv; config: unknown; signal?: AbortSignal; home?: string; source?: string }): Promise<TranscribeResult> {
  if (!existsSync(path)) return { success: false, transcript: '', provider: 'none', error: `Audio file not found: ${path}` };
  const choice = chooseStt(o.env, o.config);
  if ('error' in choice) return { success: false, transcript: '', provider: 'none', error: choice.error };
  const p = choice.provider;
  const cfg = sttConfig(o.config);
  try {
    // Plugins' pre_transcription may set the model, language or prompt (last writer wins).
    const own = cfg[p.name] && typeof cfg[p.name] === 'object' ? (cfg[p.name] as Record<string, unknown>) : {};
    const model = typeof own.model === 'string' ? own.model : typeof cfg.model === 'string' ? cfg.model : undefined;
    const set = await preTranscription(o.home ?? o.env.HERMES_HOME, { filePath: path, provider: p.name, source: o.source ?? 'unknown', model, language: sttLanguage(cfg, p.name, o.env), prompt: typeof cfg.prompt === 'string' ? cfg.prompt : undefined });
    const config = set.model === model && set.prompt === cfg.prompt ? cfg : { ...cfg, [p.name]: { ...own, model: set.model, prompt: set.prompt } };
    const text = await p.transcribe({ path, config, env: o.env, language: set.language, signal: o.signal });
    return { success: true, transcript: filterHallucination(text), provider: p.name };
  } catch (e) {
    return { success: false, transcript: '', provider: p.name, error: (e as Error).message };
  }
}

/** Phrases Whisper invents from silence or noise; a transcript that is only one of them is empty. */
const HALLUCINATIONS = [
  'thank you for watching',
  'thanks for watching',
  'thank you',
  'thank you very much',
  'subscribe to my channel',
  'please subscribe',
  'like and subscribe',
  'bye',
  'bye bye',
  'you',
  'see you next time',
  'subtitles by the amara.org community',
  'sous-titres réalisés para la communauté d\'amara.org',
  'untertitel im auftrag des zdf',
  'ご視聴ありがとうございました',
  '谢谢观看',
];

export function filterHallucination(text: string): string {
  const t = text.trim();
  const norm = t.toLowerCase().replace(/[.!?,\u3002\uff01]+/g, '').trim();
  if (!norm || HALLUCINATIONS.includes(norm)) return '';
  const words = norm.split(/\s+/);
  if (words.length >= 4 && words.every((w) => w === words[0])) return '';
  return t;
}
