// Transcription over the OpenAI audio API (POST <base>/audio/transcriptions, multipart): OpenAI
// itself (whisper-1; key VOICE_TOOLS_OPENAI_KEY or OPENAI_API_KEY; STT_OPENAI_BASE_URL) and Groq,
// which serves the same API (whisper-large-v3-turbo; GROQ_API_KEY; GROQ_BASE_URL). Voice notes in
// Ogg/Opus are transcoded to m4a with ffmpeg for the models that refuse Ogg.
import { readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ffmpegPath, run } from '../ffmpeg.ts';
import { httpError, str } from '../http.ts';
import { sttSection, type SttProvider, type SttRequest } from './types.ts';

const MAX_BYTES = 25 * 1024 * 1024;
const ACCEPTED = new Set(['.mp3', '.mp4', '.mpeg', '.mpga', '.m4a', '.wav', '.webm', '.ogg', '.oga', '.flac']);
const MIME: Record<string, string> = { '.mp3': 'audio/mpeg', '.m4a': 'audio/mp4', '.mp4': 'audio/mp4', '.wav': 'audio/wav', '.webm': 'audio/webm', '.ogg': 'audio/ogg', '.oga': 'audio/ogg', '.opus': 'audio/ogg', '.flac': 'audio/flac' };

interface Endpoint {
  label: string;
  key: (env: NodeJS.ProcessEnv, cfg: Record<string, unknown>) => string;
  keyName: string;
  base: (env: NodeJS.ProcessEnv, cfg: Record<string, unknown>) => string;
  model: string;
}

async function transcribeWith(e: Endpoint, name: string, req: SttRequest): Promise<string> {
  const cfg = sttSection(req.config, name);
  const key = e.key(req.env, cfg);
  if (!key) throw new Error(`${e.label} transcription needs ${e.keyName}.`);
  const model = str(cfg.model) || str(req.config.model) || e.model;
  let path = req.path;
  let tmp: string | null = null;
  const ext = extname(path).toLowerCase();
  try {
    // gpt-4o(-mini)-transcribe refuse Ogg voice notes; unknown containers are normalised too.
    if ((!ACCEPTED.has(ext) || (/^gpt-/.test(model) && ['.ogg', '.oga', '.opus'].includes(ext))) && ffmpegPath(req.env)) {
      tmp = mkdtempSync(join(tmpdir(), 'hermes-stt-'));
      const out = join(tmp, `${basename(path, ext) || 'audio'}.m4a`);
      await run(ffmpegPath(req.env)!, ['-hide_banner', '-loglevel', 'error', '-y', '-i', path, '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'aac', '-b:a', '32k', out], { timeoutMs: 120_000, signal: req.signal });
      path = out;
    }
    const size = statSync(path).size;
    if (size > MAX_BYTES) throw new Error(`The audio is ${(size / 1024 / 1024).toFixed(1)} MB; ${e.label} takes at most 25 MB.`);
    const form = new FormData();
    const x = extname(path).toLowerCase();
    form.append('file', new Blob([readFileSync(path)], { type: MIME[x] ?? 'application/octet-stream' }), basename(path));
    form.append('model', model);
    form.append('response_format', 'json');
    if (req.language) form.append('language', req.language);
    const base = e.base(req.env, cfg).replace(/\/+$/, '');
    const r = await fetch(`${base}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form, signal: req.signal ?? AbortSignal.timeout(120_000) });
    if (!r.ok) throw await httpError(r, `${e.label} transcription`);
    const j = (await r.json()) as { text?: string };
    return (j.text ?? '').trim();
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

const openaiEndpoint: Endpoint = {
  label: 'OpenAI',
  keyName: 'VOICE_TOOLS_OPENAI_KEY or OPENAI_API_KEY',
  key: (env, cfg) => str(cfg.api_key) || env.VOICE_TOOLS_OPENAI_KEY || env.OPENAI_API_KEY || '',
  base: (env, cfg) => str(cfg.base_url) || env.STT_OPENAI_BASE_URL || 'https://api.openai.com/v1',
  model: 'whisper-1',
};

const groqEndpoint: Endpoint = {
  label: 'Groq',
  keyName: 'GROQ_API_KEY',
  key: (env, cfg) => str(cfg.api_key) || env.GROQ_API_KEY || '',
  base: (env, cfg) => str(cfg.base_url) || env.GROQ_BASE_URL || 'https://api.groq.com/openai/v1',
  model: 'whisper-large-v3-turbo',
};

export const openaiStt: SttProvider = {
  name: 'openai',
  local: false,
  unavailable: (env, cfg) => (openaiEndpoint.key(env, sttSection(cfg, 'openai')) ? null : `needs ${openaiEndpoint.keyName}`),
  transcribe: (req) => transcribeWith(openaiEndpoint, 'openai', req),
};

export const groqStt: SttProvider = {
  name: 'groq',
  local: false,
  unavailable: (env, cfg) => (groqEndpoint.key(env, sttSection(cfg, 'groq')) ? null : 'needs GROQ_API_KEY'),
  transcribe: (req) => transcribeWith(groqEndpoint, 'groq', req),
};
