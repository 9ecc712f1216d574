// Google Chat as an HTTP-endpoint app against a fake Google (ID-token-signed events in, Chat API out).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import type { RunningGateway } from '../../../src/gateway/daemon.ts';
import type { GoogleChatAdapter } from '../../../src/gateway/platforms/google-chat.ts';
import { startFakeGoogleChat, type FakeGoogleChat } from '../../helpers/fake-google-chat.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let gc: FakeGoogleChat;
let endpoint = '';
const PUBLIC = 'https://hermes.example.test/google-chat/events';
const dm = (user: string) => `spaces/dm-${user}`;

runConformance({
  platform: 'google_chat',
  limit: 4000,
  owner: 'alice@example.com',
  stranger: 'mallory@example.com',
  impostor: 'eve@example.com',
  noConnection: 'events arrive over HTTP; there is no connection to drop',
  async start() {
    gc = await startFakeGoogleChat();
    return { env: { GOOGLE_CHAT_SERVICE_ACCOUNT_JSON: gc.serviceAccountJson, GOOGLE_CHAT_HTTP_EVENTS_URL: PUBLIC, GOOGLE_CHAT_HOST: '127.0.0.1', GOOGLE_CHAT_PORT: '0', GOOGLE_CHAT_API_BASE: gc.url, GOOGLE_CHAT_JWKS_URL: gc.jwksUrl } };
  },
  async ready(gw: RunningGateway) {
    endpoint = `http://127.0.0.1:${(gw.adapters.find((a) => a.name === 'google_chat') as GoogleChatAdapter).port}/google-chat/events`;
  },
  stop: () => gc.close(),
  dmChat: (user) => dm(user.split('@')[0]),
  async send(user, text, o) {
    let media: string | undefined;
    if (o?.image) {
      media = `res-${Date.now()}`;
      gc.media.set(media, { bytes: o.image.bytes, type: o.image.mimeType, name: o.image.name });
    }
    const u = user.split('@')[0];
    assert.equal(await gc.event(endpoint, PUBLIC, { user: u, space: dm(u), dm: true, text, media, displayName: o?.displayName }), 200);
  },
  messages: (user) => gc.messages.filter((m) => m.space === dm(user.split('@')[0])).map((m) => ({ id: m.name, text: m.text, edits: m.edits })),
  async drop() {},
  connections: () => 1,
  extra(ctx) {
    test('google_chat: tokens for another audience, another account, another signer, or none are refused', async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: 'https://accounts.google.com', aud: PUBLIC, email: 'chat@system.gserviceaccount.com', email_verified: true, exp: now + 3600 };
      const e = { user: 'alice', space: dm('alice'), dm: true, text: 'forged' };
      assert.equal(await gc.event(endpoint, PUBLIC, e, { token: '' }), 401);
      assert.equal(await gc.event(endpoint, 'https://elsewhere.example/events', e), 401, 'audience');
      assert.equal(await gc.event(endpoint, PUBLIC, e, { email: 'someone@evil.example' }), 401, 'service account');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      assert.equal(await gc.event(endpoint, PUBLIC, e, { token: gc.sign(claims, privateKey) }), 401, 'signer');
      assert.equal(gc.messages.filter((m) => /forged/.test(m.text)).length, 0);
    });

    test('google_chat: in a space the reply goes to the message thread, mention stripped', async () => {
      const { llm } = ctx();
      llm.enqueue({ text: 'Thread reply.' });
      assert.equal(await gc.event(endpoint, PUBLIC, { user: 'alice', space: 'spaces/ops', text: 'status?', mention: true }), 200);
      const m = await until(() => gc.messages.find((x) => x.space === 'spaces/ops' && /Thread reply\./.test(x.text)), 15_000, 'the space answer');
      assert.match(m.thread ?? '', /^spaces\/ops\/threads\/th\d+$/);
      const asked = llm.requests.at(-1)!.body.messages.at(-1).content;
      assert.match(asked, /status\?$/);
      assert.doesNotMatch(asked, /@Hermes/);
    });
  },
});
