// OpenAI text-to-speech (POST /v1/audio/speech): `tts.openai.model` (gpt-4o-mini-tts), `.voice`
// (alloy), `.base_url` for an OpenAI-compatible server; key `tts.openai.api_key`,
// VOICE_TOOLS_OPENAI_KEY or OPENAI_API_KEY. Writes MP3 or Ogg/Opus natively.
import { writeFileSync } from 'node:fs';
import { httpError, readCapped, section, str, type TtsConfig, type TtsProvider } from './types.ts';

export function openaiKey(env: NodeJS.ProcessEnv, cfg: TtsConfig): string {
  return str(section(cfg, 'openai').api_key) || env.VOICE_TOOLS_OPENAI_KEY || env.OPENAI_API_KEY || '';
}

export const openaiTts: TtsProvider = {
  name: 'openai',
  nativeOpus: true,
  maxChars: 4096,
  unavailable: (env, cfg) => (openaiKey(env, cfg) ? null : 'needs VOICE_TOOLS_OPENAI_KEY (or OPENAI_API_KEY, or tts.openai.api_key)'),
  async synthesize(req) {
    const o = section(req.config, 'openai');
    const key = openaiKey(req.env, req.config);
    if (!key) throw new Error('OpenAI TTS needs VOICE_TOOLS_OPENAI_KEY or OPENAI_API_KEY.');
    const base = str(o.base_url, 'https://api.openai.com/v1').replace(/\/+$/, '');
    const body: Record<string, unknown> = {
      model: str(o.model, 'gpt-4o-mini-tts'),
      voice: str(o.voice, 'alloy'),
      input: req.text,
      response_format: req.format,
    };
    if (req.speed !== undefined && req.speed !== 1) body.speed = req.speed;
    if (req.instructions) body.instructions = req.instructions;
    if (str(o.language)) body.lang_code = str(o.language);
    const r = await fetch(`${base}/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: req.signal ?? AbortSignal.timeout(60_000) });
    if (!r.ok) throw await httpError(r, 'OpenAI TTS');
    writeFileSync(req.outPath, await readCapped(r, 'OpenAI TTS'));
  },
};
