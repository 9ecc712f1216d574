// Voice through the gateway, end to end on Telegram: the real grammy adapter against the fake Bot
// API, speech to text against a fake Groq transcription API (chosen by Hermes's auto order: no local
// engine on PATH, GROQ_API_KEY set), text to speech against a fake Edge read-aloud service (MP3,
// turned into Ogg/Opus by ffmpeg), the fake LLM in between. /voice on → a voice note in gets a
// voice note (sendVoice, a valid Ogg/Opus file) back; /voice off → text only; nothing to
// transcribe with → a clear reply that says how to fix it, and no turn.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { noFfmpeg, probe, tone } from '../helpers/audio.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { multipart, startFakeEdge, startFakeSpeechApis, type FakeEdge, type FakeSpeechApis } from '../helpers/fake-tts.ts';
import { tmp } from '../tools/helpers.ts';
import { gatewayHome, until, type TestHome } from './helpers.ts';

const OWNER = 111;
const writeTmp = (bytes: Buffer) => {
  const file = join(tmp('hermes-voice-out-'), 'reply.ogg');
  writeFileSync(file, bytes);
  return file;
};
const OTHER = 222;

describe('telegram voice notes through the gateway', { skip: noFfmpeg ?? false }, () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let edge: FakeEdge;
  let apis: FakeSpeechApis;
  let t: TestHome;
  let gw: RunningGateway;
  let n = 0;

  const lastUser = () => {
    const r = llm.requests[llm.requests.length - 1];
    return String(r.body.messages[r.body.messages.length - 1].content);
  };
  const textTo = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));
  /** A voice note from `chat`, as Telegram delivers it (Ogg/Opus, `message.voice`). */
  const voiceNote = (chat: number) => {
    const id = `VOICE${++n}`;
    tg.files.set(`files/${id}`, tone('ogg', 1, 330));
    tg.pushRaw({ message: { message_id: 9000 + n, date: 0, chat: { id: chat, type: 'private', first_name: 'O' }, from: { id: chat, is_bot: false, first_name: 'O' }, voice: { file_id: id, file_unique_id: `u${id}`, duration: 1, mime_type: 'audio/ogg' } } });
    return id;
  };
  /** Sends a text and waits for its answer: every earlier turn in that chat (and its voice note) is done by then. */
  const settle = async (chat: number) => {
    llm.enqueue({ text: `settled ${++n}` });
    tg.userMessage({ chatId: chat, text: 'and now?' });
    await tg.waitFor(textTo(chat, new RegExp(`settled ${n}`)), 15_000, 'the settling reply');
  };
  const voices = (chat: number) => tg.calls.filter((c) => c.method === 'sendVoice' && Number(c.params.chat_id) === chat);

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    edge = await startFakeEdge(tone('mp3', 1));
    apis = await startFakeSpeechApis({ mp3: tone('mp3', 1), ogg: tone('ogg', 1), transcript: () => 'what is the weather in Paris' });
    // A PATH with ffmpeg but no local speech-to-text engine: Hermes's auto choice falls to Groq.
    const bin = join(tmp('hermes-voice-bin-'), 'bin');
    mkdirSync(bin);
    for (const p of ['ffmpeg', 'ffprobe', 'sh']) symlinkSync(p === 'sh' ? '/bin/sh' : `/usr/bin/${p}`, join(bin, p));
    t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { PATH: bin, TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: `${OWNER},${OTHER}`, GROQ_API_KEY: 'gsk-good', GROQ_BASE_URL: `${apis.url}/groq/openai/v1`, EDGE_TTS_ENDPOINT: edge.endpoint },
    });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });
  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await edge?.close();
    await apis?.close();
    await llm?.close();
  });

  test('/voice on: a voice note is transcribed, the model answers, and the answer comes back as an Ogg/Opus voice note', async () => {
    tg.userMessage({ chatId: OWNER, text: '/voice on' });
    await tg.waitFor(textTo(OWNER, /Voice replies: on/), 10_000, 'the /voice reply');
    llm.enqueue({ text: 'It is **sunny** in Paris today.' });
    voiceNote(OWNER);
    const voice = await tg.waitFor((c) => c.method === 'sendVoice' && Number(c.params.chat_id) === OWNER, 20_000, 'the voice reply');
    assert.match(lastUser(), /voice message; transcript: what is the weather in Paris/, 'the transcript reached the model');
    const stt = apis.calls.find((c) => c.path === '/groq/openai/v1/audio/transcriptions');
    assert.ok(stt, 'transcribed by Groq (auto choice: no local engine)');
    assert.equal(multipart(stt).model.data.toString(), 'whisper-large-v3-turbo');
    assert.ok(tg.calls.some(textTo(OWNER, /It is <b>sunny<\/b> in Paris/)), 'the text reply is sent too');
    assert.match(edge.requests[edge.requests.length - 1].ssml, />It is sunny in Paris today\.</, 'spoken without the Markdown');
    const p = probe(writeTmp(voice.params.voice.bytes));
    assert.match(p.format, /ogg/);
    assert.equal(p.codec, 'opus');
    assert.ok(p.duration > 0.5, String(p.duration));
    assert.ok(!tg.calls.some((c) => c.method === 'sendAudio'), 'a voice note, not an audio file');
  });

  test('/voice on answers voice with voice, but text with text; /voice off answers voice with text', async () => {
    const before = voices(OWNER).length;
    await settle(OWNER);
    assert.equal(voices(OWNER).length, before, 'voice_only: a typed message gets no voice note');
    tg.userMessage({ chatId: OWNER, text: '/voice off' });
    await tg.waitFor(textTo(OWNER, /Voice replies: off/), 10_000, 'the /voice off reply');
    llm.enqueue({ text: 'Still sunny.' });
    voiceNote(OWNER);
    await tg.waitFor(textTo(OWNER, /Still sunny/), 15_000, 'the text reply');
    assert.match(lastUser(), /transcript: what is the weather in Paris/);
    await settle(OWNER);
    assert.equal(voices(OWNER).length, before, 'no voice note when /voice is off');
  });

  test('voice.auto_tts: a chat never set speaks every reply', async () => {
    const v = (gw.runner.config as unknown as { voice: Record<string, unknown> }).voice;
    v.auto_tts = true;
    try {
      llm.enqueue({ text: 'Spoken by default.' });
      tg.userMessage({ chatId: OTHER, text: 'hello' });
      const voice = await tg.waitFor((c) => c.method === 'sendVoice' && Number(c.params.chat_id) === OTHER, 20_000, 'the voice reply');
      assert.ok(voice.params.voice.size > 100);
    } finally {
      v.auto_tts = false;
    }
  });

  test('the agent speaks for itself (text_to_speech): its voice note goes by sendVoice, with no second one', async () => {
    tg.userMessage({ chatId: OTHER, text: '/voice tts' });
    await tg.waitFor(textTo(OTHER, /Voice replies: tts/), 10_000, 'the /voice tts reply');
    const before = voices(OTHER).length;
    llm.enqueue({ toolCalls: [{ name: 'text_to_speech', arguments: { text: 'A short poem, read aloud.' } }] });
    llm.setHandler((req) => {
      const tool = [...req.body.messages].reverse().find((m: { role: string }) => m.role === 'tool');
      return { text: `Here is your poem.\n${JSON.parse(String(tool.content)).media_tag}` };
    });
    try {
      tg.userMessage({ chatId: OTHER, text: 'read me a poem' });
      await tg.waitFor(textTo(OTHER, /Here is your poem/), 20_000, 'the reply');
      await tg.waitForCount((c) => c.method === 'sendVoice' && Number(c.params.chat_id) === OTHER, before + 1, 20_000);
    } finally {
      llm.setHandler(null);
    }
    await settle(OTHER);
    // Mode "all" speaks the settling answer too; that voice note must come after its text, i.e. the
    // poem's turn sent exactly one (the agent's own, from `[[audio_as_voice]]` + MEDIA).
    const [poem, next] = await tg.waitForCount((c) => c.method === 'sendVoice' && Number(c.params.chat_id) === OTHER, before + 2, 20_000).then((v) => v.slice(before));
    const settledAt = tg.calls.findIndex(textTo(OTHER, new RegExp(`settled ${n}`)));
    assert.ok(tg.calls.indexOf(poem) < settledAt && tg.calls.indexOf(next) > settledAt, 'one voice note for the poem, one for the next answer');
    assert.equal(probe(writeTmp(poem.params.voice.bytes)).codec, 'opus');
    assert.ok(!tg.calls.some((c) => c.method === 'sendMessage' && /MEDIA:|audio_as_voice/.test(String(c.params.text))), 'the tags are not shown');
  });

  test('stt.enabled: false: the model gets the file, nobody is told voice is off', async () => {
    const stt = (gw.runner.config as unknown as { stt: Record<string, unknown> }).stt;
    stt.enabled = false;
    try {
      llm.enqueue({ text: 'I got an audio file.' });
      const id = voiceNote(OWNER);
      await tg.waitFor(textTo(OWNER, /I got an audio file/), 15_000, 'the reply');
      assert.match(lastUser(), new RegExp(`voice message, saved at .*audio_cache/u${id}\\.ogg \\(speech to text is off: stt\\.enabled is false\\)`));
      assert.ok(!tg.calls.some(textTo(OWNER, /can't listen/)));
    } finally {
      stt.enabled = true;
    }
  });

  test('nothing can transcribe: a clear reply with the fix, and no turn', async () => {
    const env = gw.runner.env;
    delete env.GROQ_API_KEY;
    try {
      const calls = llm.requests.length;
      voiceNote(OWNER);
      const reply = await tg.waitFor(textTo(OWNER, /can't listen to voice messages/), 10_000, 'the not-configured reply');
      assert.match(reply.params.text, /No speech-to-text provider is available\. Set GROQ_API_KEY \(free tier\) or VOICE_TOOLS_OPENAI_KEY in ~\/\.hermes\/\.env, or install a local engine/);
      assert.equal(llm.requests.length, calls, 'no turn for a message nobody can read');
      // An explicit provider that cannot run says so by name (no silent fallback).
      const stt = (gw.runner.config as unknown as { stt: Record<string, unknown> }).stt;
      const was = stt.provider;
      stt.provider = 'openai';
      env.GROQ_API_KEY = 'gsk-good';
      voiceNote(OWNER);
      const named = await tg.waitFor(textTo(OWNER, /openai speech-to-text provider/), 10_000, 'the explicit-provider reply');
      assert.match(named.params.text, /VOICE_TOOLS_OPENAI_KEY/);
      assert.equal(llm.requests.length, calls);
      stt.provider = was;
    } finally {
      env.GROQ_API_KEY = 'gsk-good';
    }
  });
});
