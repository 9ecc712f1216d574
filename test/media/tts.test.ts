// text_to_speech against local fakes of each provider's API: Edge's WebSocket protocol, OpenAI's and
// ElevenLabs's HTTP APIs. Every produced file is checked with ffprobe (and fully decoded): MP3 for
// chat files, Ogg/Opus for Telegram voice notes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { secMsGec, splitForEdge, voiceName } from '../../src/media/tts/edge.ts';
import { spokenText, splitText } from '../../src/media/tts/index.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import textToSpeech from '../../src/tools/defs/text-to-speech.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { noFfmpeg, probe, tone } from '../helpers/audio.ts';
import { startFakeEdge, startFakeSpeechApis, type FakeEdge, type FakeSpeechApis } from '../helpers/fake-tts.ts';
import { call, makeServices } from '../tools/helpers.ts';

if (noFfmpeg) console.log(`# skipping TTS tests that need real audio: ${noFfmpeg}`);

describe('edge protocol details', () => {
  it('derives the Sec-MS-GEC token from 5-minute windows of Windows file time', () => {
    const t = Date.UTC(2026, 0, 1, 12, 0, 0);
    assert.match(secMsGec(t), /^[0-9A-F]{64}$/);
    assert.equal(secMsGec(t), secMsGec(t + 299_000));
    assert.notEqual(secMsGec(t), secMsGec(t + 300_000));
  });
  it('expands short voice names', () => {
    assert.equal(voiceName('en-US-AriaNeural'), 'Microsoft Server Speech Text to Speech Voice (en-US, AriaNeural)');
    assert.equal(voiceName('zh-CN-liaoning-XiaobeiNeural'), 'Microsoft Server Speech Text to Speech Voice (zh-CN-liaoning, XiaobeiNeural)');
  });
  it('splits long text under 4096 bytes at spaces, never inside an entity', () => {
    const text = `${'word '.repeat(900)}a &amp; b ${'ü'.repeat(1500)}`;
    const parts = splitForEdge(text);
    assert.ok(parts.length >= 2);
    for (const p of parts) assert.ok(Buffer.byteLength(p) <= 4096);
    assert.equal(parts.join(' ').replace(/\s+/g, ''), text.replace(/\s+/g, ''));
    assert.ok(!parts.some((p) => /&[a-z]*$/.test(p)));
  });
  it('cleans text for speech and chunks without losing any', () => {
    assert.equal(spokenText('<think>plan</think>**Hello** [world](http://x) `code`\n# Title\nMEDIA:/tmp/a.png'), 'Hello world code\nTitle');
    const long = 'One sentence here. '.repeat(400);
    const chunks = splitText(long, 1000);
    assert.ok(chunks.every((c) => c.length <= 1000));
    assert.equal(chunks.join(' ').replace(/\s+/g, ' ').trim(), long.trim());
  });
});

describe('text_to_speech with real audio', { skip: noFfmpeg ?? false }, () => {
  let edge: FakeEdge;
  let apis: FakeSpeechApis;
  let mp3: Buffer;
  let ogg: Buffer;

  before(async () => {
    mp3 = tone('mp3', 1);
    ogg = tone('ogg', 1);
    edge = await startFakeEdge(mp3);
    apis = await startFakeSpeechApis({ mp3, ogg });
  });
  after(async () => {
    await edge?.close();
    await apis?.close();
  });

  function svc(platform: string, tts: Record<string, unknown> = {}, env: Record<string, string> = {}): ToolSession {
    const s = makeServices({ platform });
    (s.config as { tts: Record<string, unknown> }).tts = { provider: 'edge', edge: { voice: 'en-GB-SoniaNeural', endpoint: edge.endpoint }, ...tts };
    Object.assign(s.env, env);
    return s;
  }

  it('Edge (no key): an MP3 file for the CLI, spoken over the real protocol', async () => {
    edge.requests.length = 0;
    const s = svc('cli');
    const r = await call(textToSpeech, { text: 'Hello there, **friend**! <b>bold</b> & co.' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.provider, 'edge');
    assert.equal(r.json.voice_compatible, false);
    assert.match(r.json.file_path, /(audio_cache|cache\/audio)\/tts_\d{8}_\d{6}_\d{6}\.mp3$/);
    assert.equal(r.json.media_tag, `MEDIA:${r.json.file_path}`);
    const p = probe(r.json.file_path);
    assert.equal(p.codec, 'mp3');
    assert.ok(p.duration > 0.8 && p.duration < 1.5, String(p.duration));
    const req = edge.requests[0];
    assert.match(req.config, /"outputFormat":"audio-24khz-48kbitrate-mono-mp3"/);
    assert.match(req.ssml, /<voice name='Microsoft Server Speech Text to Speech Voice \(en-GB, SoniaNeural\)'><prosody pitch='\+0Hz' rate='\+0%' volume='\+0%'>Hello there, friend! &lt;b&gt;bold&lt;\/b&gt; &amp; co\.<\/prosody>/);
    assert.match(String(req.headers['user-agent']), /Edg\/\d+/);
  });

  it('Edge on Telegram: converted to an Ogg/Opus voice note with ffmpeg', async () => {
    const r = await call(textToSpeech, { text: 'A voice note.', speed: 1.25 }, svc('telegram'));
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.voice_compatible, true);
    assert.match(r.json.file_path, /\.ogg$/);
    assert.equal(r.json.media_tag, `[[audio_as_voice]]\nMEDIA:${r.json.file_path}`);
    const p = probe(r.json.file_path);
    assert.equal(p.codec, 'opus');
    assert.equal(p.format, 'ogg');
    assert.ok(!existsSync(r.json.file_path.replace(/\.ogg$/, '.mp3')), 'the intermediate MP3 is removed');
    assert.match(edge.requests.at(-1)!.ssml, /rate='\+25%'/);
  });

  it('Edge: long text goes out in several requests and comes back as one playable file', async () => {
    edge.requests.length = 0;
    const text = 'This sentence is long enough to matter. '.repeat(150);
    const r = await call(textToSpeech, { text }, svc('cli'));
    assert.equal(r.json.success, true, r.raw);
    assert.ok(edge.requests.length >= 2, `${edge.requests.length} requests`);
    const p = probe(r.json.file_path);
    assert.equal(p.codec, 'mp3');
    assert.ok(p.duration > edge.requests.length - 0.5);
  });

  it('Edge: a server clock that is off is learned from the 403 and the token is sent again', async () => {
    edge.clockOffsetMs = 3_600_000;
    const before = edge.rejectedHandshakes;
    try {
      const r = await call(textToSpeech, { text: 'Clock check.' }, svc('cli'));
      assert.equal(r.json.success, true, r.raw);
      assert.equal(edge.rejectedHandshakes, before + 1);
    } finally {
      edge.clockOffsetMs = 0;
    }
  });

  it('Edge without ffmpeg on Telegram: an MP3 attachment and a note saying why', async () => {
    const s = svc('telegram', {}, { PATH: '/nonexistent' });
    const r = await call(textToSpeech, { text: 'No converter here.' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.voice_compatible, false);
    assert.match(r.json.file_path, /\.mp3$/);
    assert.match(r.json.note, /ffmpeg is not installed/);
    assert.equal(probe(r.json.file_path).codec, 'mp3');
  });

  it('OpenAI: native Opus for Telegram, with model, voice, speed and instructions on the wire', async () => {
    apis.calls.length = 0;
    const s = svc('telegram', { provider: 'openai', openai: { model: 'gpt-4o-mini-tts', voice: 'nova', base_url: `${apis.url}/openai/v1` } }, { VOICE_TOOLS_OPENAI_KEY: 'sk-voice-good' });
    const r = await call(textToSpeech, { text: 'Opus please.', speed: 1.5, instructions: 'Calm and slow' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.provider, 'openai');
    assert.equal(r.json.voice_compatible, true);
    assert.deepEqual(apis.calls[0].json, { model: 'gpt-4o-mini-tts', voice: 'nova', input: 'Opus please.', response_format: 'opus', speed: 1.5, instructions: 'Calm and slow' });
    const p = probe(r.json.file_path);
    assert.equal(p.codec, 'opus');
  });

  it('OpenAI: a rejected key is reported with the API’s message', async () => {
    const s = svc('cli', { provider: 'openai', openai: { base_url: `${apis.url}/openai/v1` } }, { OPENAI_API_KEY: 'sk-wrong-key-000' });
    const r = await call(textToSpeech, { text: 'x' }, s);
    assert.equal(r.json.success, false);
    assert.match(r.json.error, /OpenAI TTS returned HTTP 401 \(check the API key\): Incorrect API key provided/);
  });

  it('ElevenLabs: MP3 with the configured voice and model', async () => {
    apis.calls.length = 0;
    const s = svc('discord', { provider: 'elevenlabs', elevenlabs: { voice_id: 'voice-123', model_id: 'eleven_turbo_v2', base_url: `${apis.url}/eleven` } }, { ELEVENLABS_API_KEY: 'el-good' });
    const r = await call(textToSpeech, { text: 'Eleven.' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(apis.calls[0].path, '/eleven/v1/text-to-speech/voice-123?output_format=mp3_44100_128');
    assert.deepEqual(apis.calls[0].json, { text: 'Eleven.', model_id: 'eleven_turbo_v2' });
    assert.equal(probe(r.json.file_path).codec, 'mp3');
  });

  it('an explicit output_path is honoured; traversal and protected paths are refused', async () => {
    const s = svc('cli');
    const out = join(s.cwd, 'greeting.mp3');
    const r = await call(textToSpeech, { text: 'Saved where I asked.', output_path: 'greeting.mp3' }, s);
    assert.equal(r.json.file_path, out);
    assert.equal(probe(out).codec, 'mp3');
    const bad = await call(textToSpeech, { text: 'x', output_path: '../escape.mp3' }, s);
    assert.match(bad.json.error, /'\.\.' component/);
    const env = await call(textToSpeech, { text: 'x', output_path: join(s.home, '.env') }, s);
    assert.equal(env.json.success, false);
    assert.ok(!readFileSync(join(s.cwd, 'greeting.mp3')).equals(Buffer.alloc(0)));
  });
});

describe('text_to_speech availability', () => {
  it('is offered with Edge (no key), hidden with a reason when the chosen provider has no key', () => {
    const reg = new ToolRegistry();
    reg.register(textToSpeech);
    const s = makeServices();
    assert.equal(reg.availability(s)[0].available, true);
    (s.config as { tts: Record<string, unknown> }).tts = { provider: 'elevenlabs' };
    assert.deepEqual(reg.availability(s)[0], { name: 'text_to_speech', toolset: 'tts', available: false, reason: 'the elevenlabs TTS provider needs ELEVENLABS_API_KEY' });
    (s.config as { tts: Record<string, unknown> }).tts = { provider: 'piper' };
    assert.match(reg.availability(s)[0].reason!, /"piper", which is not a known provider \(edge, openai, elevenlabs\)/);
  });
});
