// Chat features across adapters, end to end through the gateway: reactions as acknowledgements,
// voice notes without and with a speech-to-text provider (a local command, Hermes's
// HERMES_LOCAL_STT_COMMAND) and a voice-note reply (Signal's voiceNote), the attachment size cap,
// PII hashing of phone-number ids, and a platform registered the way a plugin registers one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { registerPlatform, unregisterPlatform } from '../../src/gateway/platforms/registry.ts';
import type { InboundHandlers, PlatformAdapter, SendResult } from '../../src/gateway/types.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeMattermost, type FakeMattermost } from '../helpers/fake-mattermost.ts';
import { startFakeSignal, type FakeSignal } from '../helpers/fake-signal.ts';
import { startFakeSpeechApis } from '../helpers/fake-tts.ts';
import { gatewayHome, until } from './helpers.ts';

const OWNER = 'owneruserid000000000000000';
const lastUser = (llm: FakeLlm) => {
  const r = llm.requests[llm.requests.length - 1];
  return r.body.messages[r.body.messages.length - 1];
};

describe('chat features on Mattermost', () => {
  let llm: FakeLlm;
  let mm: FakeMattermost;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    mm = await startFakeMattermost();
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { MATTERMOST_URL: mm.url, MATTERMOST_TOKEN: mm.token, MATTERMOST_ALLOWED_USERS: OWNER }, yaml: 'gateway:\n  max_attachment_mb: 0.001\n' });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    await until(() => mm.sockets() > 0, 10_000, 'the websocket');
  });
  after(async () => {
    await gw?.shutdown('test done');
    await mm?.close();
    await llm?.close();
  });

  test('👀 while the agent works, ✅ when it is done', async () => {
    llm.enqueue({ text: 'Done thinking.', delayMs: 300 });
    const id = mm.userPost({ user: OWNER, channel: `dm-${OWNER}`, text: 'think about it' });
    await until(() => mm.posts.find((p) => /Done thinking/.test(p.message)), 10_000, 'the reply');
    await until(() => mm.calls.find((c) => c.method === 'POST' && c.path === '/reactions' && c.body?.emoji_name === 'white_check_mark'), 5000, 'the ✅');
    const reacts = mm.calls.filter((c) => c.path === '/reactions' || c.path.includes('/reactions/'));
    assert.deepEqual(
      reacts.map((c) => `${c.method} ${c.body?.emoji_name ?? c.path.split('/').pop()}`),
      ['POST eyes', 'DELETE eyes', 'POST white_check_mark'],
    );
    assert.ok(reacts.every((c) => (c.body?.post_id ?? c.path.split('/')[4]) === id), 'on the person’s message');
  });

  test('a file over gateway.max_attachment_mb is not downloaded; the model is told why', async () => {
    mm.files.set('big1', { name: 'huge.pdf', mime: 'application/pdf', bytes: Buffer.alloc(5000, 1) });
    llm.enqueue({ text: 'That file is too big for me.' });
    mm.userPost({ user: OWNER, channel: `dm-${OWNER}`, text: 'read this', fileIds: ['big1'] });
    await until(() => mm.posts.find((p) => /too big for me/.test(p.message)), 10_000, 'the reply');
    assert.match(String(lastUser(llm).content), /huge\.pdf" of 0\.0 MB; it is over the attachment size limit \(gateway\.max_attachment_mb\)/);
    assert.ok(!mm.calls.some((c) => c.path === '/files/big1'), 'never fetched');
  });
});

describe('voice notes and PII on Signal', () => {
  let llm: FakeLlm;
  let sg: FakeSignal;
  let gw: RunningGateway;
  const OWNER_NUM = '+15551110000';

  before(async () => {
    llm = await startFakeLlm();
    sg = await startFakeSignal();
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { SIGNAL_HTTP_URL: sg.url, SIGNAL_ACCOUNT: sg.account, SIGNAL_ALLOWED_USERS: OWNER_NUM }, yaml: 'privacy:\n  redact_pii: true\n' });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    await until(() => sg.streams() > 0, 10_000, 'the event stream');
  });
  after(async () => {
    await gw?.shutdown('test done');
    await sg?.close();
    await llm?.close();
  });

  const sentTo = (n: string) => sg.rpcs.filter((r) => r.method === 'send' && r.params.recipient?.[0] === n).map((r) => String(r.params.message));

  const cfg = () => gw.runner.config as unknown as Record<string, Record<string, unknown>>;

  test('a voice note with no speech-to-text provider able to run gets a clear answer (with the fix) and no turn', async () => {
    cfg().stt.provider = 'groq';
    try {
      sg.attachments.set('voice1', Buffer.from('OggS fake opus'));
      const before = llm.requests.length;
      sg.userMessage({ from: OWNER_NUM, name: OWNER_NUM, text: '', attachments: [{ id: 'voice1', contentType: 'audio/ogg', filename: 'voice.ogg', size: 14, voiceNote: true }] });
      await until(() => sentTo(OWNER_NUM).find((m) => /voice messages/.test(m)), 10_000, 'the reply');
      assert.match(sentTo(OWNER_NUM)[0], /I can't listen to voice messages here\. The groq speech-to-text provider needs GROQ_API_KEY/);
      assert.equal(llm.requests.length, before, 'no turn for a message nobody can read');
    } finally {
      cfg().stt.provider = 'local';
    }
  });

  test('with a local speech-to-text command the transcript reaches the model; /voice on answers with a Signal voice note', async () => {
    gw.runner.env.HERMES_LOCAL_STT_COMMAND = 'printf "turn on the lights (from %s)" "$(basename {input_path})" > {output_dir}/out.txt';
    const opus = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(400, 7)]);
    const apis = await startFakeSpeechApis({ mp3: Buffer.alloc(10), ogg: opus });
    cfg().tts = { provider: 'openai', openai: { base_url: `${apis.url}/openai/v1`, api_key: 'sk-voice-good', voice: 'nova' } };
    try {
      sg.userMessage({ from: OWNER_NUM, name: OWNER_NUM, text: '/voice on' });
      await until(() => sentTo(OWNER_NUM).find((m) => /Voice replies: on/.test(m)), 10_000, 'the /voice reply');
      llm.enqueue({ text: 'Lights on.' });
      sg.attachments.set('voice2', Buffer.from('OggS fake opus 2'));
      sg.userMessage({ from: OWNER_NUM, name: OWNER_NUM, text: '', attachments: [{ id: 'voice2', contentType: 'audio/ogg', filename: 'v2.ogg', size: 16, voiceNote: true }] });
      await until(() => sentTo(OWNER_NUM).find((m) => /Lights on/.test(m)), 10_000, 'the reply');
      assert.match(String(lastUser(llm).content), /voice message; transcript: turn on the lights \(from voice2-v2\.ogg\)/);
      const voice = await until(() => sg.rpcs.find((r) => r.method === 'send' && r.params.voiceNote === true), 10_000, 'the voice note');
      assert.match(String(voice.params.attachments[0]), /^data:audio\/ogg;filename=tts_[\w]+\.ogg;base64,/);
      assert.deepEqual(Buffer.from(String(voice.params.attachments[0]).split('base64,')[1], 'base64'), opus, 'the Ogg/Opus the TTS API made, sent as a voice note');
      const speech = apis.calls.find((c) => c.path === '/openai/v1/audio/speech');
      assert.equal(speech?.json.response_format, 'opus');
      assert.equal(speech?.json.input, 'Lights on.');
    } finally {
      delete gw.runner.env.HERMES_LOCAL_STT_COMMAND;
      await apis.close();
    }
  });

  test('privacy.redact_pii: the model sees a hashed id, never the phone number', async () => {
    const sys = JSON.stringify(llm.requests[llm.requests.length - 1].body.messages[0]);
    assert.doesNotMatch(sys, /15551110000/);
    assert.match(sys, /a direct message with \\"user_[0-9a-f]{12}\\"/, 'the phone-number name is hashed too');
  });
});

describe('a platform registered like a plugin', () => {
  test('registerPlatform: configured, created and answered without touching the core', async () => {
    const sent: string[] = [];
    let inbound: InboundHandlers | null = null;
    class EchoAdapter implements PlatformAdapter {
      readonly name = 'echo_chat';
      readonly maxMessageLength = 500;
      readonly supportsButtons = false;
      async connect(h: InboundHandlers) {
        inbound = h;
      }
      async disconnect() {}
      async send(_chat: string, text: string): Promise<SendResult> {
        sent.push(text);
        return { ok: true, messageId: String(sent.length) };
      }
    }
    registerPlatform({ name: 'echo_chat', label: 'Echo', kind: 'chat', maxMessageLength: 500, configured: (env) => !!env.ECHO_CHAT_TOKEN, create: async () => new EchoAdapter() });
    const llm = await startFakeLlm();
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { ECHO_CHAT_TOKEN: 'x', ECHO_CHAT_ALLOWED_USERS: 'u1' } });
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false });
    try {
      await until(() => inbound, 5000, 'the connect');
      llm.enqueue({ text: 'Hello from a plugin platform. '.repeat(30) });
      inbound!.message({ source: { platform: 'echo_chat', chatId: 'c1', chatType: 'dm', userId: 'u1' }, messageId: 'm1', text: 'hi' });
      await until(() => sent.length >= 2, 10_000, 'the split reply');
      assert.ok(sent.every((s) => s.length <= 500), 'split at the plugin’s own limit');
      const r = await gw.runner.router.send('echo_chat:c1', 'delivered', {});
      assert.ok(r.ok);
      assert.equal(sent[sent.length - 1], 'delivered');
    } finally {
      await gw.shutdown('test');
      await llm.close();
      unregisterPlatform('echo_chat');
    }
  });
});
