// What /voice does (src/commands/voice.ts is the registry entry).
import type { ToolSession } from '../tools/types.ts';
import { chooseStt } from '../media/stt/index.ts';
import { ttsUnavailable } from '../media/tts/registry.ts';
import { chatKey, cliVoiceState, findPlayer, findRecorder, NO_RECORDER, setVoiceMode, voiceModeFor, voiceSettings, type GatewayVoiceMode } from '../media/voice.ts';

const MODE_TEXT: Record<GatewayVoiceMode, string> = {
  off: 'off — text replies only',
  voice_only: 'on — a voice message gets a voice reply',
  all: 'tts — every reply comes with a voice note',
};

function sttLine(s: ToolSession): string {
  const c = chooseStt(s.env, s.config);
  return 'error' in c ? `Speech to text: unavailable. ${c.error}` : `Speech to text: ${c.provider.name}`;
}

function ttsLine(s: ToolSession): string {
  const why = ttsUnavailable(s.env, s.config);
  const name = String((s.config as { tts?: { provider?: string } }).tts?.provider || 'edge');
  return why ? `Text to speech: unavailable (${why})` : `Text to speech: ${name}`;
}

export async function voiceCommandAction(s: ToolSession, surface: string, args: string): Promise<string> {
  const sub = args.trim().toLowerCase();
  if (['join', 'channel', 'leave', 'realtime', 'live'].includes(sub)) return 'Discord voice channels are not supported by this Hermes; /voice on|tts|off control voice-note replies.';
  if (surface === 'gateway') {
    const o = s.origin;
    if (!o) return 'Voice replies are set per chat, and this session has no chat.';
    const key = chatKey(o.platform, o.chatId);
    const now = voiceModeFor(s.home, key, s.config);
    const next: GatewayVoiceMode | null = sub === '' ? (now === 'off' ? 'voice_only' : 'off') : sub === 'on' ? 'voice_only' : sub === 'tts' ? 'all' : sub === 'off' ? 'off' : null;
    if (sub === 'status' || next === null) {
      if (next === null && sub !== 'status') return 'Usage: /voice [on|off|tts|status]';
      return [`Voice replies: ${MODE_TEXT[now]}`, sttLine(s), ttsLine(s)].join('\n');
    }
    setVoiceMode(s.home, key, next);
    const warn = next !== 'off' && ttsUnavailable(s.env, s.config) ? `\n⚠️ ${ttsLine(s)}` : '';
    return `🎙️ Voice replies: ${MODE_TEXT[next]}${warn}`;
  }
  const v = cliVoiceState(s.slots);
  const settings = voiceSettings(s.config);
  const key = settings.recordKey.replace(/^ctrl\+/i, 'Ctrl+').replace(/\+(\w)$/, (_m, c: string) => `+${c.toUpperCase()}`);
  const status = () => {
    const rec = findRecorder(s.env);
    const player = findPlayer(s.env);
    return [
      `Voice mode: ${v.enabled ? 'on' : 'off'} · spoken replies: ${v.tts ? 'on' : 'off'}`,
      `Recorder: ${rec ? rec.name : 'none (install sox or alsa-utils)'} · player: ${player ? player.name : 'none (install ffmpeg for ffplay, or mpv)'}`,
      sttLine(s),
      ttsLine(s),
    ].join('\n');
  };
  if (sub === 'status') return status();
  if (sub === '' ? !v.enabled : sub === 'on') {
    v.enabled = true;
    if (settings.autoTts) v.tts = true;
    const rec = findRecorder(s.env);
    const stt = chooseStt(s.env, s.config);
    const problems = [!rec ? NO_RECORDER : null, 'error' in stt ? stt.error : null].filter(Boolean);
    if (problems.length) return `🎙️ Voice mode on, but push-to-talk cannot work yet:\n${problems.join('\n')}`;
    return `🎙️ Voice mode on: press ${key} to talk${rec!.stopsOnSilence ? ` (recording stops after ${settings.silenceSecs}s of silence)` : `, ${key} again to send`}. /voice tts to hear replies.`;
  }
  if (sub === 'off' || sub === '') {
    v.enabled = false;
    v.tts = false;
    return '🎙️ Voice mode off.';
  }
  if (sub === 'tts') {
    v.tts = !v.tts;
    if (!v.tts) return '🔇 Spoken replies off.';
    const why = ttsUnavailable(s.env, s.config);
    if (why) return `🔊 Spoken replies on, but ${why}.`;
    return findPlayer(s.env) ? '🔊 Spoken replies on.' : '🔊 Spoken replies on, but no audio player was found (install ffmpeg for ffplay, or mpv); replies are saved as audio files instead.';
  }
  return 'Usage: /voice [on|off|tts|status]';
}
