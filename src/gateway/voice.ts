// The gateway's voice: voice notes in are transcribed with the media speech-to-text providers
// (src/media/stt: local engines, Groq, OpenAI; Hermes's choice from `stt.enabled` / `stt.provider`),
// and replies are spoken with the media text-to-speech providers (src/media/tts: Edge, OpenAI,
// ElevenLabs) when the chat's /voice mode asks (gateway_voice_mode.json; `voice.auto_tts` is the
// default for chats never set). Platforms that play voice bubbles get Ogg/Opus sent as a voice note;
// the rest get an audio file. The media modules load on first use (not with the gateway).

type Obj = Record<string, unknown>;

export interface VoiceContext {
  home: string;
  env: NodeJS.ProcessEnv;
  config: Obj;
}

/** `stt.enabled: false` (Hermes then hands the model the file instead of a transcript, and says nothing). */
export async function sttDisabled(config: Obj): Promise<boolean> {
  const { sttConfig, sttEnabled } = await import('../media/stt/index.ts');
  return !sttEnabled(sttConfig(config));
}

/**
 * Why nothing can transcribe a voice note here (with the fix), or null when a provider is ready.
 * Null too when STT is switched off on purpose: that is not a problem to report to the person.
 */
export async function sttUnavailableReason(c: VoiceContext): Promise<string | null> {
  const { chooseStt, sttConfig, sttEnabled } = await import('../media/stt/index.ts');
  if (!sttEnabled(sttConfig(c.config))) return null;
  const choice = chooseStt(c.env, c.config);
  return 'error' in choice ? choice.error : null;
}

/** The words of an audio file, or why there are none. */
export async function transcribeVoice(path: string, c: VoiceContext, signal?: AbortSignal): Promise<{ text: string; provider: string } | { error: string }> {
  const { transcribe } = await import('../media/stt/index.ts');
  const r = await transcribe(path, { env: c.env, config: c.config, signal, home: c.home, source: 'gateway' });
  if (!r.success) return { error: r.error ?? 'transcription failed' };
  return { text: r.transcript.trim(), provider: r.provider };
}

/** Whether this chat's reply should also be spoken (its /voice mode, else `voice.auto_tts`). */
let voiceModule: typeof import('../media/voice.ts') | undefined;

export async function voiceReplyWanted(c: VoiceContext, platform: string, chatId: string, inboundWasVoice: boolean): Promise<boolean> {
  // (Asked for every reply: the module is imported once, not looked up again each time.)
  const { chatKey, voiceModeFor, wantsVoiceReply } = (voiceModule ??= await import('../media/voice.ts'));
  return wantsVoiceReply(voiceModeFor(c.home, chatKey(platform, chatId), c.config), inboundWasVoice);
}

/**
 * The reply spoken into a file for `platform`: Ogg/Opus (`voice: true`) where the platform plays
 * voice notes and the audio could be made so, else an audio file (MP3). Throws with what to do.
 */
export async function speakReply(text: string, c: VoiceContext & { platform: string; signal?: AbortSignal }): Promise<{ paths: string[]; voice: boolean; provider: string }> {
  const { speak } = await import('../media/tts/index.ts');
  const r = await speak({ text: text.slice(0, 4000), home: c.home, env: c.env, config: c.config, platform: c.platform, signal: c.signal });
  return { paths: r.file_paths, voice: r.voice_compatible, provider: r.provider };
}
