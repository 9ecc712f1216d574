// Transcription on this machine, with what is installed (nothing is downloaded at run time):
//  - HERMES_LOCAL_STT_COMMAND: a shell template with {input_path} {output_dir} {language} {model}
//    placeholders (Hermes's `local_command`), e.g. whisper.cpp's `whisper-cli -m model.bin -f {input_path} -otxt -of {output_dir}/out`;
//  - the `whisper` CLI (openai-whisper) on PATH, as Hermes finds it;
//  - CMU PocketSphinx from Debian (`apt-get install pocketsphinx pocketsphinx-en-us`: the engine and
//    its US-English model come as packages), fed 16 kHz WAV made by ffmpeg. English only, and far
//    less accurate than Whisper, but it runs without a key or a network.
// Hermes's default `local` engine, faster-whisper, is a Python package that downloads its model on
// first use; there is no equivalent here.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { ffmpegPath, findProgram, run } from '../ffmpeg.ts';
import { str } from '../http.ts';
import { sttSection, type SttProvider, type SttRequest } from './types.ts';

const SPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

function quote(v: string): string {
  return `'${v.replace(/'/g, "'\\''")}'`;
}

/** Fills `{name}` placeholders with shell-quoted values (`{{`/`}}` stay literal braces). */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template
    .replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name: string | undefined) => {
      if (m === '{{') return '\u0000L';
      if (m === '}}') return '\u0000R';
      return name !== undefined && name in values ? quote(values[name]) : m;
    })
    .replace(/\u0000L/g, '{')
    .replace(/\u0000R/g, '}');
}

function commandTemplate(env: NodeJS.ProcessEnv): string | null {
  const t = env.HERMES_LOCAL_STT_COMMAND?.trim();
  if (t) return t;
  const whisper = findProgram('whisper', env);
  return whisper ? `${quote(whisper)} {input_path} --model {model} --output_format txt --output_dir {output_dir} --language {language}` : null;
}

function sphinx(env: NodeJS.ProcessEnv): string | null {
  const bin = findProgram('pocketsphinx_continuous', env);
  return bin && existsSync(SPHINX_MODEL) ? bin : null;
}

/** Which local engine would run: command, sphinx, or null. */
export function localEngine(env: NodeJS.ProcessEnv): 'command' | 'sphinx' | null {
  if (commandTemplate(env)) return 'command';
  if (sphinx(env) && ffmpegPath(env)) return 'sphinx';
  return null;
}

function sh(command: string, env: NodeJS.ProcessEnv, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, signal });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`the STT command exited with ${code}: ${(err || out).trim().split('\n').slice(-3).join(' ').slice(0, 400)}`));
    });
  });
}

async function viaCommand(template: string, req: SttRequest): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-stt-'));
  try {
    const cfg = sttSection(req.config, 'local');
    const model = str(cfg.model, 'base');
    const cmd = renderTemplate(template, { input_path: req.path, output_dir: dir, language: req.language || 'en', model });
    const stdout = await sh(cmd, req.env, 300_000, req.signal);
    const txt = readdirSync(dir).find((f) => f.endsWith('.txt'));
    return (txt ? readFileSync(join(dir, txt), 'utf8') : stdout).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function viaSphinx(bin: string, req: SttRequest): Promise<string> {
  const ffmpeg = ffmpegPath(req.env);
  if (!ffmpeg) throw new Error('PocketSphinx needs ffmpeg to convert the audio (apt-get install ffmpeg).');
  const dir = mkdtempSync(join(tmpdir(), 'hermes-stt-'));
  try {
    const wav = join(dir, `${basename(req.path, extname(req.path)) || 'audio'}.wav`);
    await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-i', req.path, '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', wav], { timeoutMs: 120_000, signal: req.signal });
    const r = await run(bin, ['-infile', wav, '-logfn', '/dev/null'], { timeoutMs: 300_000, signal: req.signal });
    return r.stdout.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const localStt: SttProvider = {
  name: 'local',
  local: true,
  unavailable: (env) =>
    localEngine(env)
      ? null
      : 'has no engine here: set HERMES_LOCAL_STT_COMMAND (e.g. whisper.cpp), install the whisper CLI, or `apt-get install pocketsphinx pocketsphinx-en-us ffmpeg`',
  async transcribe(req) {
    const t = commandTemplate(req.env);
    if (t) return viaCommand(t, req);
    const bin = sphinx(req.env);
    if (bin) return viaSphinx(bin, req);
    throw new Error('No local speech-to-text engine is installed.');
  },
};

/** Hermes's `local_command`: only the command template (or the whisper CLI). */
export const localCommandStt: SttProvider = {
  name: 'local_command',
  local: true,
  unavailable: (env) => (commandTemplate(env) ? null : 'needs HERMES_LOCAL_STT_COMMAND or the whisper CLI on PATH'),
  async transcribe(req) {
    const t = commandTemplate(req.env);
    if (!t) throw new Error('Set HERMES_LOCAL_STT_COMMAND or install the whisper CLI.');
    return viaCommand(t, req);
  },
};
