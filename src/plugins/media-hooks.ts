// Plugin hooks around speech: `pre_tts_synthesis` (a policy gate before every synthesis: block it,
// or replace the script) and `pre_transcription` (adjust model, language or prompt before the STT
// backend runs). Both are found through the plugin host of HERMES_HOME; nothing runs (and nothing
// else loads) when no plugin registered them.
import { currentPluginHost, pluginHost } from './state.ts';

const hostFor = (home: string | undefined) => (home ? pluginHost(home) : undefined) ?? currentPluginHost();

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** What one `pre_tts_synthesis` round decided. Anything malformed, a throw or a timeout blocks. */
function ttsRound(results: ({ owner: string; value: unknown } | { owner: string; error: string })[]): { block: string } | { text?: string } {
  let text: string | undefined;
  for (const r of results) {
    if ('error' in r) return { block: `the pre_tts_synthesis hook ${r.owner} ${r.error}` };
    const v = r.value;
    if (v === null || v === undefined) continue;
    if (isObj(v) && v.action === 'block') return { block: typeof v.message === 'string' && v.message.trim() ? v.message : `blocked by ${r.owner}` };
    if (isObj(v) && typeof v.text === 'string' && v.text.trim()) {
      text ??= v.text;
      continue;
    }
    return { block: `the pre_tts_synthesis hook ${r.owner} returned something other than null, {action: "block", message} or {text}` };
  }
  return { text };
}

/**
 * Runs `pre_tts_synthesis` for a script about to be spoken: returns the script to synthesize (the
 * same, or a plugin's replacement, which every hook checks again and may not rewrite further), or
 * throws with the block message. Fails closed.
 */
export async function preTtsSynthesis(home: string | undefined, text: string, provider: string, requiredPlugins: readonly string[] = []): Promise<string> {
  const hooks = hostFor(home)?.hooks;
  // tts.pre_synthesis.required_plugins: the policy plugins that must be guarding speech; without
  // one of them loaded with a pre_tts_synthesis hook, nothing is synthesized (fails closed).
  if (requiredPlugins.length) {
    const guarding = new Set((hooks?.list('pre_tts_synthesis') ?? []).map((h) => h.owner.replace(/^plugin:/, '')));
    const missing = requiredPlugins.filter((p) => !guarding.has(p));
    if (missing.length) {
      throw new Error(
        `Speech synthesis was blocked: tts.pre_synthesis.required_plugins needs ${missing.join(', ')} to check each script, and ${missing.length > 1 ? 'they are' : 'it is'} not loaded with a pre_tts_synthesis hook. Enable ${missing.length > 1 ? 'them' : 'it'} (hermes plugins enable <name>) or remove ${missing.length > 1 ? 'them' : 'it'} from config.yaml.`,
      );
    }
  }
  if (!hooks?.has('pre_tts_synthesis')) return text;
  const first = ttsRound(await hooks.invokeAll('pre_tts_synthesis', { text, provider }, { failClosed: true }));
  if ('block' in first) throw new Error(`Speech synthesis was blocked: ${first.block}.`);
  if (first.text === undefined || first.text === text) return text;
  const again = ttsRound(await hooks.invokeAll('pre_tts_synthesis', { text: first.text, provider }, { failClosed: true }));
  if ('block' in again) throw new Error(`Speech synthesis was blocked: ${again.block}.`);
  if (again.text !== undefined && again.text !== first.text) throw new Error('Speech synthesis was blocked: a pre_tts_synthesis hook rewrote an already rewritten script.');
  return first.text;
}

export interface TranscriptionParams {
  model?: string;
  language?: string;
  prompt?: string;
}

/**
 * `pre_transcription`: each dict answer sets `model`, `language` or `prompt` (last writer wins);
 * `file_path` is read-only. A throw or a timeout is logged and skipped.
 */
export async function preTranscription(home: string | undefined, p: { filePath: string; provider: string; source: string } & TranscriptionParams): Promise<TranscriptionParams> {
  const out: TranscriptionParams = { model: p.model, language: p.language, prompt: p.prompt };
  const hooks = hostFor(home)?.hooks;
  if (!hooks?.has('pre_transcription')) return out;
  for (const { value } of await hooks.invoke('pre_transcription', { file_path: p.filePath, provider: p.provider, model: p.model ?? null, language: p.language ?? null, prompt: p.prompt ?? null, source: p.source })) {
    if (!isObj(value)) continue;
    for (const k of ['model', 'language', 'prompt'] as const) if (typeof value[k] === 'string') out[k] = value[k] as string;
  }
  return out;
}
