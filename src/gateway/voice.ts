// The voice seam: speech-to-text for voice messages in, text-to-speech for voice replies out.
// Providers register here (issue 18 adds them: local Whisper, OpenAI, Groq, Edge TTS…); the
// gateway only asks `speechToText(config)` / `textToSpeech(config)`. Config is Hermes's:
// `stt: {enabled, provider}` and `tts: {provider}`, `voice: {auto_tts}`. With no provider the
// gateway tells the person that voice is not configured instead of guessing.

export interface SpeechToText {
  readonly name: string;
  /** The words spoken in an audio file. */
  transcribe(path: string, o?: { mimeType?: string; language?: string }): Promise<string>;
}

export interface TextToSpeech {
  readonly name: string;
  /** Writes speech for `text` to a file and returns it (ogg/opus is what chat apps play as voice notes). */
  synthesize(text: string, o?: { voice?: string }): Promise<{ path: string; mimeType: string }>;
}

type Obj = Record<string, unknown>;
type Factory<T> = (settings: Obj, env: NodeJS.ProcessEnv) => T | null;

const sttProviders = new Map<string, Factory<SpeechToText>>();
const ttsProviders = new Map<string, Factory<TextToSpeech>>();

export function registerSpeechToText(name: string, factory: Factory<SpeechToText>): void {
  sttProviders.set(name, factory);
}

export function registerTextToSpeech(name: string, factory: Factory<TextToSpeech>): void {
  ttsProviders.set(name, factory);
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function pick<T>(section: unknown, providers: Map<string, Factory<T>>, env: NodeJS.ProcessEnv): T | null {
  const s = isObj(section) ? section : {};
  if (s.enabled === false) return null;
  const name = typeof s.provider === 'string' ? s.provider : '';
  const factory = name ? providers.get(name) : undefined;
  if (!factory) return null;
  return factory(isObj(s[name]) ? (s[name] as Obj) : s, env);
}

export function speechToText(config: Obj, env: NodeJS.ProcessEnv): SpeechToText | null {
  return pick(config.stt, sttProviders, env);
}

export function textToSpeech(config: Obj, env: NodeJS.ProcessEnv): TextToSpeech | null {
  return pick(config.tts, ttsProviders, env);
}

/** Why voice in does not work, in words for the person who sent one. */
export function sttUnavailableReason(config: Obj): string {
  const s = isObj(config.stt) ? config.stt : {};
  if (s.enabled === false) return 'speech-to-text is switched off (stt.enabled: false in config.yaml)';
  const name = typeof s.provider === 'string' ? s.provider : '';
  if (name && !sttProviders.has(name)) return `the speech-to-text provider "${name}" (stt.provider) is not available in this version`;
  return 'speech-to-text is not configured (set stt.provider in ~/.hermes/config.yaml)';
}

/** Reply with a voice note: `voice.auto_tts: true`, or the person spoke to us and TTS is configured. */
export function wantsVoiceReply(config: Obj, inboundWasVoice: boolean): boolean {
  const v = isObj(config.voice) ? config.voice : {};
  return v.auto_tts === true || (inboundWasVoice && v.reply_in_kind !== false);
}
