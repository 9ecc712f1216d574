// Speech to text: OpenAI and Groq against a local fake of the audio transcription API (multipart
// uploads, transcoding Ogg voice notes for the models that refuse them), a local command template,
// and a real local engine (CMU PocketSphinx from Debian) on speech made by espeak-ng.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chooseStt, filterHallucination, transcribe } from '../../src/media/stt/index.ts';
import { renderTemplate } from '../../src/media/stt/local.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { noFfmpeg, probe, tone } from '../helpers/audio.ts';
import { multipart, startFakeSpeechApis, type FakeSpeechApis } from '../helpers/fake-tts.ts';
import { tmp } from '../tools/helpers.ts';

const NO_LOCAL = { PATH: '/nonexistent' };
const cfg = (stt: Record<string, unknown>) => ({ ...defaultConfig(), stt: { ...defaultConfig().stt, ...stt } });

describe('speech to text: choosing a provider', () => {
  it('auto-detects local, then Groq, then OpenAI; an explicit choice is honoured', () => {
    const name = (env: Record<string, string>, stt: Record<string, unknown> = {}) => {
      const r = chooseStt(env, cfg(stt));
      return 'error' in r ? r.error : r.provider.name;
    };
    assert.equal(name({ ...NO_LOCAL, GROQ_API_KEY: 'g', OPENAI_API_KEY: 'o' }), 'groq');
    assert.equal(name({ ...NO_LOCAL, VOICE_TOOLS_OPENAI_KEY: 'o' }), 'openai');
    assert.equal(name({ ...NO_LOCAL, HERMES_LOCAL_STT_COMMAND: 'echo hi', GROQ_API_KEY: 'g' }), 'local');
    assert.equal(name({ ...NO_LOCAL, GROQ_API_KEY: 'g', OPENAI_API_KEY: 'o' }, { provider: 'openai' }), 'openai');
    assert.match(name({ ...NO_LOCAL, OPENAI_API_KEY: 'o' }, { provider: 'groq' }), /The groq speech-to-text provider needs GROQ_API_KEY/);
    assert.match(name(NO_LOCAL), /No speech-to-text provider is available\. Set GROQ_API_KEY/);
    assert.match(name({ ...NO_LOCAL, GROQ_API_KEY: 'g' }, { enabled: false }), /turned off/);
  });

  it('drops what Whisper hallucinates from silence', () => {
    assert.equal(filterHallucination('Thank you for watching!'), '');
    assert.equal(filterHallucination('you'), '');
    assert.equal(filterHallucination('hello hello hello hello hello'), '');
    assert.equal(filterHallucination('Thank you, that helps.'), 'Thank you, that helps.');
  });

  it('renders command templates with shell-quoted values and literal braces', () => {
    assert.equal(renderTemplate("run {input_path} --out {output_dir} --json '{{\"a\":1}}'", { input_path: "/tmp/it's.ogg", output_dir: '/o' }), "run '/tmp/it'\\''s.ogg' --out '/o' --json '{\"a\":1}'");
  });
});

describe('speech to text against the fake API', { skip: noFfmpeg ?? false }, () => {
  let apis: FakeSpeechApis;
  let voiceNote = '';
  before(async () => {
    apis = await startFakeSpeechApis({ mp3: Buffer.alloc(0), ogg: Buffer.alloc(0), transcript: (c) => `heard ${multipart(c).model.data.toString()}` });
    voiceNote = join(tmp('hermes-stt-'), 'voice.oga');
    writeFileSync(voiceNote, tone('ogg', 1));
  });
  after(() => apis?.close());

  it('OpenAI whisper-1: uploads the voice note as it is', async () => {
    apis.calls.length = 0;
    const r = await transcribe(voiceNote, { env: { ...NO_LOCAL, VOICE_TOOLS_OPENAI_KEY: 'sk-voice-good', STT_OPENAI_BASE_URL: `${apis.url}/openai/v1` }, config: cfg({ provider: 'openai' }) });
    assert.deepEqual(r, { success: true, transcript: 'heard whisper-1', provider: 'openai' });
    const parts = multipart(apis.calls[0]);
    assert.equal(parts.file.filename, 'voice.oga');
    assert.equal(parts.response_format.data.toString(), 'json');
    assert.equal(parts.file.data.subarray(0, 4).toString(), 'OggS');
  });

  it('OpenAI gpt-4o-mini-transcribe: the Ogg voice note is transcoded to m4a first', async () => {
    apis.calls.length = 0;
    const r = await transcribe(voiceNote, { env: { ...NO_LOCAL, PATH: process.env.PATH!, HERMES_LOCAL_STT_COMMAND: '', OPENAI_API_KEY: 'sk-voice-good', STT_OPENAI_BASE_URL: `${apis.url}/openai/v1` }, config: cfg({ provider: 'openai', openai: { model: 'gpt-4o-mini-transcribe' } }) });
    assert.equal(r.success, true, r.error);
    const file = multipart(apis.calls[0]).file;
    assert.equal(file.filename, 'voice.m4a');
    const saved = join(tmp('hermes-stt-'), 'up.m4a');
    writeFileSync(saved, file.data);
    assert.equal(probe(saved).codec, 'aac');
  });

  it('Groq: its own key, base URL, model and the configured language', async () => {
    apis.calls.length = 0;
    const r = await transcribe(voiceNote, { env: { ...NO_LOCAL, GROQ_API_KEY: 'gsk-good', GROQ_BASE_URL: `${apis.url}/groq/openai/v1` }, config: cfg({ provider: 'groq', language: 'de' }) });
    assert.deepEqual(r, { success: true, transcript: 'heard whisper-large-v3-turbo', provider: 'groq' });
    assert.equal(multipart(apis.calls[0]).language.data.toString(), 'de');
  });

  it('a rejected key comes back as an error, not an exception', async () => {
    const r = await transcribe(voiceNote, { env: { ...NO_LOCAL, GROQ_API_KEY: 'gsk-bad', GROQ_BASE_URL: `${apis.url}/groq/openai/v1` }, config: cfg({ provider: 'groq' }) });
    assert.equal(r.success, false);
    assert.match(r.error!, /Groq transcription returned HTTP 401 \(check the API key\): Invalid API Key/);
  });

  it('a local command template (HERMES_LOCAL_STT_COMMAND) writing a .txt', async () => {
    const r = await transcribe(voiceNote, { env: { PATH: process.env.PATH!, HERMES_LOCAL_STT_COMMAND: 'printf "local heard %s" "$(basename {input_path})" > {output_dir}/out.txt' }, config: cfg({}) });
    assert.deepEqual(r, { success: true, transcript: 'local heard voice.oga', provider: 'local' });
  });
});

const noSphinx =
  noFfmpeg ?? (spawnSync('sh', ['-c', 'command -v pocketsphinx_continuous && command -v espeak-ng && test -d /usr/share/pocketsphinx/model/en-us'], { stdio: 'ignore' }).status === 0 ? null : 'pocketsphinx, pocketsphinx-en-us or espeak-ng is not installed');
if (noSphinx) console.log(`# skipping the local speech recognition test: ${noSphinx}`);

describe('speech to text with a real local engine', { skip: noSphinx ?? false }, () => {
  it('PocketSphinx (Debian) transcribes spoken words from an Ogg/Opus voice note', async () => {
    const dir = tmp('hermes-sphinx-');
    const wav = join(dir, 'say.wav');
    spawnSync('espeak-ng', ['-v', 'en-us', '-s', '140', '-w', wav, 'what is the weather like today']);
    const ogg = join(dir, 'voice.ogg');
    spawnSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav, '-c:a', 'libopus', ogg]);
    const r = await transcribe(ogg, { env: { PATH: process.env.PATH! }, config: cfg({}) });
    assert.equal(r.success, true, r.error);
    assert.equal(r.provider, 'local');
    assert.match(r.transcript.toLowerCase(), /weather/);
  });
});
