// A text-to-speech provider: one file each (edge.ts, openai.ts, elevenlabs.ts), registered in
// index.ts; a plugin adds its own with registerTtsProvider().

/** `tts:` from config.yaml (provider sections are read by each provider). */
export type TtsConfig = Record<string, unknown> & { provider?: string; speed?: number };

export interface TtsRequest {
  text: string;
  /** Where the audio goes; its format is `format`. */
  outPath: string;
  /** mp3, or opus in an Ogg container (voice notes). Ask for opus only from providers with nativeOpus. */
  format: 'mp3' | 'opus';
  config: TtsConfig;
  env: NodeJS.ProcessEnv;
  /** 0.25–4.0; 1 is normal. */
  speed?: number;
  /** Voice-design guidance (tone, pacing…) for providers that take it. */
  instructions?: string;
  signal?: AbortSignal;
}

export interface TtsProvider {
  name: string;
  /** Writes Ogg/Opus itself when asked (no ffmpeg needed for voice notes). */
  nativeOpus: boolean;
  /** Longest text one request takes; longer text is split into chunks. */
  maxChars: number;
  /** Why the provider cannot run here (missing key…), or null. */
  unavailable(env: NodeJS.ProcessEnv, config: TtsConfig): string | null;
  synthesize(req: TtsRequest): Promise<void>;
}

export { configSection as section } from '../providers.ts';

export { httpError, readCapped, str } from '../http.ts';
