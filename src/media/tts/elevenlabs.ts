// ElevenLabs text-to-speech (POST /v1/text-to-speech/<voice_id>): `tts.elevenlabs.voice_id`
// (Adam), `.model_id` (eleven_multilingual_v2), `.base_url`; key ELEVENLABS_API_KEY. MP3, or
// Ogg/Opus natively for voice notes.
import { writeFileSync } from 'node:fs';
import { httpError, readCapped, section, str, type TtsProvider } from './types.ts';

export const elevenlabsTts: TtsProvider = {
  name: 'elevenlabs',
  nativeOpus: true,
  maxChars: 5000,
  unavailable: (env, cfg) => (env.ELEVENLABS_API_KEY || str(section(cfg, 'elevenlabs').api_key) ? null : 'needs ELEVENLABS_API_KEY'),
  async synthesize(req) {
    const o = section(req.config, 'elevenlabs');
    const key = req.env.ELEVENLABS_API_KEY || str(o.api_key);
    if (!key) throw new Error('ElevenLabs TTS needs ELEVENLABS_API_KEY.');
    const base = str(o.base_url, 'https://api.elevenlabs.io').replace(/\/+$/, '');
    const voice = str(o.voice_id, 'pNInz6obpgDQGcFmaJgB');
    const format = req.format === 'opus' ? 'opus_48000_64' : 'mp3_44100_128';
    const body: Record<string, unknown> = { text: req.text, model_id: str(o.model_id, 'eleven_multilingual_v2') };
    if (req.speed !== undefined && req.speed !== 1) body.voice_settings = { speed: Math.max(0.7, Math.min(1.2, req.speed)) };
    const r = await fetch(`${base}/v1/text-to-speech/${encodeURIComponent(voice)}?output_format=${format}`, {
      method: 'POST',
      headers: { 'xi-api-key': key, 'content-type': 'application/json', accept: req.format === 'opus' ? 'audio/ogg' : 'audio/mpeg' },
      body: JSON.stringify(body),
      signal: req.signal ?? AbortSignal.timeout(60_000),
    });
    if (!r.ok) throw await httpError(r, 'ElevenLabs TTS');
    writeFileSync(req.outPath, await readCapped(r, 'ElevenLabs TTS'));
  },
};
