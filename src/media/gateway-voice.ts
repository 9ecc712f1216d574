// What a chat gateway needs for voice, over the providers: the text of a voice message that came in
// (speech to text), and — when the chat's /voice mode asks for it — the reply as a voice note (an
// Ogg/Opus file on the platforms that play those as bubbles). The gateway calls these; they never
// throw (a failure is a note for the log and the conversation goes on in text).
import { transcribe } from './stt/index.ts';
import { speak } from './tts/index.ts';
import { chatKey, voiceModeFor, wantsVoiceReply } from './voice.ts';

export interface VoiceContext {
  home: string;
  env: NodeJS.ProcessEnv;
  config: unknown;
}

/** The words of a voice message, or why there are none (the prompt then names the file instead). */
export async function voiceMessageText(path: string, c: VoiceContext, signal?: AbortSignal): Promise<{ text: string } | { error: string }> {
  const r = await transcribe(path, { env: c.env, config: c.config, signal });
  if (!r.success) return { error: r.error ?? 'transcription failed' };
  return r.transcript ? { text: r.transcript } : { error: 'no speech was heard' };
}

/** The reply as an audio file when this chat's voice mode wants one, else null (with why, when it failed). */
export async function voiceReplyFile(
  reply: string,
  o: VoiceContext & { platform: string; chatId: string; inboundWasVoice: boolean; signal?: AbortSignal },
): Promise<{ path: string; voice: boolean } | { error: string } | null> {
  if (!wantsVoiceReply(voiceModeFor(o.home, chatKey(o.platform, o.chatId), o.config), o.inboundWasVoice)) return null;
  try {
    const r = await speak({ text: reply, home: o.home, env: o.env, config: o.config, platform: o.platform, signal: o.signal });
    return { path: r.file_path, voice: r.voice_compatible };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
