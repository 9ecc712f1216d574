// text_to_speech: speak text with the configured provider (Edge by default, no key; OpenAI;
// ElevenLabs) into an audio file, returned as a MEDIA: tag the gateway delivers — a voice bubble on
// Telegram and the other Opus platforms. Providers live in src/media/tts/.
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';
import { ttsUnavailable } from '../../media/tts/registry.ts';

const schema = (z: Zod) =>
  z.object({
    text: z.string().min(1).describe('The text to convert to speech. Long text is split into chunks per provider limits (OpenAI 4096 characters, ElevenLabs 5000) without truncation.'),
    output_path: z.string().optional().describe('Optional custom file path to save the audio (.mp3 or .ogg). Defaults to HERMES_HOME/audio_cache/tts_<timestamp>.mp3 (.ogg on voice-note platforms).'),
    speed: z.coerce.number().min(0.25).max(4).optional().describe('Playback speed multiplier. 1.0 = normal, 0.5 = very slow, 2.0 = fast. Range 0.25-4.0. Overrides tts.speed in config.yaml.'),
    instructions: z.string().optional().describe("Optional voice-design guidance: tone, emotion, pacing (e.g. 'Speak in a cheerful, excited whisper'). Used by the OpenAI backend; ignored by others."),
    provider: z.string().optional().describe('Optional TTS provider override (edge, openai, elevenlabs, or a plugin provider). When omitted, tts.provider from config.yaml is used.'),
  });

export default defineTool({
  name: 'text_to_speech',
  toolset: 'tts',
  emoji: '🔊',
  description:
    'Convert text to speech audio. Returns a MEDIA: tag that the platform delivers as native audio: a voice bubble on Telegram (and other voice-note platforms), an audio attachment elsewhere. Include the media_tag in your response to send it. Voice and provider are user-configured (tts.provider), not chosen by you.',
  schema,
  check: (s) => ttsUnavailable(s.env, s.config) === null,
  requirement: (s) => ttsUnavailable(s.env, s.config),
  async handler(a, ctx) {
    const s = ctx;
    const { fail } = await import('../result.ts');
    let out: string | undefined;
    if (a.output_path) {
      const { isAbsolute, resolve } = await import('node:path');
      if (a.output_path.split(/[\\/]/).includes('..')) return fail(`output_path contains a '..' component: ${a.output_path}. Use an absolute path or one relative to the working directory without '..'.`, { success: false });
      out = isAbsolute(a.output_path) ? a.output_path : resolve(s.cwd, a.output_path.replace(/^~(?=\/)/, s.env.HOME ?? '~'));
      const { writeCheck } = await import('../file-state.ts');
      const denied = await writeCheck(s, out);
      if (denied) return fail(denied, { success: false });
    }
    const { speak } = await import('../../media/tts/index.ts');
    try {
      const r = await speak({ text: a.text, home: s.home, env: s.env, config: s.config, platform: s.platform, outputPath: out, speed: a.speed, instructions: a.instructions, provider: a.provider, signal: ctx.signal });
      return JSON.stringify({ success: true, ...r });
    } catch (e) {
      return fail(`TTS generation failed: ${(e as Error).message}`, { success: false });
    }
  },
});
