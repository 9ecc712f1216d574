// Push-to-talk and spoken replies for the REPL (/voice on, /voice tts). The record key starts a
// recording (sox stops it after a pause; the key again stops it), the clip is transcribed and sent
// as your message; with spoken replies on, the answer is synthesised and played.
import { join } from 'node:path';
import type { Session } from '../../session/session.ts';
import { transcribe } from '../../media/stt/index.ts';
import { audioDir, speak } from '../../media/tts/index.ts';
import { cliVoiceState, findRecorder, NO_RECORDER, playAudio, startRecording, voiceSettings, type Recording } from '../../media/voice.ts';
import type { Style } from './style.ts';

export interface PushToTalkDeps {
  session: Session;
  style: Style;
  /** Prints a line above the prompt. */
  commit(line: string): void;
  /** Sends text as the user's message. */
  send(text: string): void;
}

export class PushToTalk {
  private recording: Recording | null = null;
  private readonly d: PushToTalkDeps;

  constructor(d: PushToTalkDeps) {
    this.d = d;
  }

  private get s() {
    return this.d.session.services;
  }

  /** The record key: start a recording, or stop the one running. */
  async toggle(): Promise<void> {
    if (this.recording) {
      this.recording.stop();
      return;
    }
    const st = this.d.style;
    const rec = findRecorder(this.s.env);
    if (!rec) {
      this.d.commit(st.yellow(NO_RECORDER));
      return;
    }
    const settings = voiceSettings(this.s.config);
    const key = settings.recordKey.replace(/^ctrl\+(\w)$/i, (_m, c: string) => `Ctrl+${c.toUpperCase()}`);
    const r = startRecording(rec, join(audioDir(this.s.home), 'recordings'), settings);
    this.recording = r;
    this.d.commit(st.red(`● recording… (${key} to stop${rec.stopsOnSilence ? `, or pause for ${settings.silenceSecs}s` : ''})`));
    let file: string;
    try {
      file = await r.done;
    } catch (e) {
      this.d.commit(st.yellow(`🎙️ ${(e as Error).message}`));
      return;
    } finally {
      this.recording = null;
    }
    this.d.commit(st.dim('🎙️ transcribing…'));
    const t = await transcribe(file, { env: this.s.env, config: this.s.config, home: this.s.home, source: 'cli' });
    if (!t.success) this.d.commit(st.red(`✗ ${t.error}`));
    else if (!t.transcript) this.d.commit(st.dim('🎙️ (no speech heard)'));
    else this.d.send(t.transcript);
  }

  /** Speaks an answer when spoken replies are on (a file is kept when nothing can play it). */
  async reply(text: string): Promise<void> {
    if (!cliVoiceState(this.s.slots).tts || !text.trim()) return;
    try {
      const r = await speak({ text, home: this.s.home, env: this.s.env, config: this.s.config, platform: 'cli' });
      await playAudio(r.file_path, this.s.env).catch(() => this.d.commit(this.d.style.dim(`🔊 ${r.file_path}`)));
    } catch (e) {
      this.d.commit(this.d.style.yellow(`🔊 ${(e as Error).message}`));
    }
  }
}
