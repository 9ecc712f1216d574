// Voice mode. In the terminal: push-to-talk (record with sox's `rec` or ALSA's `arecord`, then
// speech to text) and, with TTS on, replies spoken through a player (ffplay, mpv, paplay). In chats:
// Hermes's per-chat reply modes, kept in HERMES_HOME/gateway_voice_mode.json
// ({"telegram:123": "voice_only"}): off (text only), voice_only (a voice reply to a voice message),
// all (a voice reply to every message).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCachedByStamp } from '../state/fsutil.ts';
import { defineSlot, type Slots } from '../state/slots.ts';
import { findProgram } from './ffmpeg.ts';

export type GatewayVoiceMode = 'off' | 'voice_only' | 'all';

export interface VoiceSettings {
  recordKey: string;
  maxRecordingSecs: number;
  /** RMS level (0–32767) below which sound counts as silence. */
  silenceThreshold: number;
  silenceSecs: number;
  autoTts: boolean;
}

export function voiceSettings(config: unknown): VoiceSettings {
  const v = ((config as { voice?: Record<string, unknown> } | undefined)?.voice ?? {}) as Record<string, unknown>;
  const num = (x: unknown, d: number) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : d);
  return {
    recordKey: typeof v.record_key === 'string' && v.record_key ? v.record_key : 'ctrl+b',
    maxRecordingSecs: num(v.max_recording_seconds, 120),
    silenceThreshold: num(v.silence_threshold, 200),
    silenceSecs: num(v.silence_duration, 3),
    autoTts: v.auto_tts === true,
  };
}

// ---- the terminal ------------------------------------------------------------------------------

/** The REPL session's voice state (in a session slot, so /voice and the REPL share it). */
export interface CliVoiceState {
  enabled: boolean;
  tts: boolean;
}

const voiceSlot = defineSlot('voice_mode', (): CliVoiceState => ({ enabled: false, tts: false }));

export function cliVoiceState(slots: Slots): CliVoiceState {
  return slots.get(voiceSlot);
}

export interface Recorder {
  name: 'sox' | 'arecord';
  /** Stops by itself after `silenceSecs` of silence (sox only; arecord stops on the key or the time limit). */
  stopsOnSilence: boolean;
  start(file: string, s: VoiceSettings): ChildProcess;
}

/** A command-line recorder on PATH: sox's `rec` (silence detection) first, then ALSA's `arecord`. */
export function findRecorder(env: NodeJS.ProcessEnv): Recorder | null {
  const rec = findProgram('rec', env);
  if (rec) {
    return {
      name: 'sox',
      stopsOnSilence: true,
      start: (file, s) => {
        const pct = `${Math.max(0.1, (s.silenceThreshold / 32767) * 100).toFixed(2)}%`;
        return spawn(rec, ['-q', '-c', '1', '-r', '16000', '-b', '16', file, 'silence', '1', '0.1', pct, '1', String(s.silenceSecs), pct, 'trim', '0', String(s.maxRecordingSecs)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      },
    };
  }
  const arecord = findProgram('arecord', env);
  if (arecord) {
    return {
      name: 'arecord',
      stopsOnSilence: false,
      start: (file, s) => spawn(arecord, ['-q', '-f', 'S16_LE', '-r', '16000', '-c', '1', '-t', 'wav', '-d', String(Math.ceil(s.maxRecordingSecs)), file], { env, stdio: ['ignore', 'ignore', 'pipe'] }),
    };
  }
  return null;
}

export const NO_RECORDER =
  'No audio recorder found: install sox (`apt-get install sox`, records until you stop talking) or alsa-utils (`apt-get install alsa-utils`, arecord). Voice input needs one; /voice tts still speaks replies.';

/** A recording in progress: `stop()` ends it early; `done` resolves to the WAV file (or rejects). */
export interface Recording {
  stop(): void;
  done: Promise<string>;
}

export function startRecording(rec: Recorder, dir: string, s: VoiceSettings): Recording {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `voice_${Date.now()}.wav`);
  const child = rec.start(file, s);
  let err = '';
  child.stderr?.on('data', (d) => (err += d));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', (e) => reject(new Error(`${rec.name} could not start: ${e.message}`)));
    child.on('close', (code, signal) => {
      const size = existsSync(file) ? statSync(file).size : 0;
      // Stopped by us (SIGINT) is a normal end; the file is complete.
      if (size > 44) resolve(file);
      else reject(new Error(code === 0 || signal ? 'Nothing was recorded.' : `${rec.name} failed: ${err.trim().split('\n').pop() || `exit ${code}`}`));
    });
  });
  return {
    stop: () => {
      if (child.exitCode === null) child.kill('SIGINT');
    },
    done,
  };
}

/** An audio player for spoken replies, or null. */
export function findPlayer(env: NodeJS.ProcessEnv): { name: string; args: (file: string) => [string, string[]] } | null {
  const ffplay = findProgram('ffplay', env);
  if (ffplay) return { name: 'ffplay', args: (f) => [ffplay, ['-nodisp', '-autoexit', '-loglevel', 'quiet', f]] };
  const mpv = findProgram('mpv', env);
  if (mpv) return { name: 'mpv', args: (f) => [mpv, ['--no-video', '--really-quiet', f]] };
  const paplay = findProgram('paplay', env);
  if (paplay) return { name: 'paplay', args: (f) => [paplay, [f]] };
  return null;
}

export function playAudio(file: string, env: NodeJS.ProcessEnv): Promise<void> {
  const p = findPlayer(env);
  if (!p) return Promise.reject(new Error('No audio player found (install ffmpeg for ffplay, or mpv).'));
  const [cmd, args] = p.args(file);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

// ---- chats -------------------------------------------------------------------------------------

const MODES: GatewayVoiceMode[] = ['off', 'voice_only', 'all'];

function modesFile(home: string): string {
  return join(home, 'gateway_voice_mode.json');
}

/** The modes in the file's text: chats with a known mode ({} when the file is missing or malformed). */
function parseModes(text: string | undefined): Record<string, GatewayVoiceMode> {
  if (text === undefined) return {};
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(raw).filter((e): e is [string, GatewayVoiceMode] => MODES.includes(e[1] as GatewayVoiceMode)));
  } catch {
    return {};
  }
}

/** The chats' modes (a copy): the gateway asks for every reply, the file is parsed again only when it changed. */
export function loadVoiceModes(home: string): Record<string, GatewayVoiceMode> {
  return { ...readCachedByStamp(modesFile(home), parseModes) };
}

export function setVoiceMode(home: string, chatKey: string, mode: GatewayVoiceMode): void {
  const all = loadVoiceModes(home);
  all[chatKey] = mode;
  const file = modesFile(home);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The chat's mode; chats never set follow `voice.auto_tts` (all) or stay text-only. */
export function voiceModeFor(home: string, chatKey: string, config: unknown): GatewayVoiceMode {
  return loadVoiceModes(home)[chatKey] ?? (voiceSettings(config).autoTts ? 'all' : 'off');
}

/** Whether a reply in this chat should also be spoken. */
export function wantsVoiceReply(mode: GatewayVoiceMode, inboundWasVoice: boolean): boolean {
  return mode === 'all' || (mode === 'voice_only' && inboundWasVoice);
}

export const chatKey = (platform: string, chatId: string) => `${platform}:${chatId}`;
