// Feishu / Lark through the real @larksuiteoapi/node-sdk against a fake open platform: events over
// the SDK's protobuf long connection, replies and streaming edits through the IM API; webhook mode's
// encrypted, signed callbacks through the SDK's dispatcher.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FeishuAdapter, feishuSettings } from '../../../src/gateway/platforms/feishu.ts';
import type { InboundMessage } from '../../../src/gateway/types.ts';
import { startFakeFeishu, type FakeFeishu } from '../../helpers/fake-feishu.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let fs: FakeFeishu;
const OWNER = 'ou_owner0001';
const STRANGER = 'ou_stranger99';

runConformance({
  platform: 'feishu',
  limit: 8000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: 'ou_impostor66',
  noDisplayName: 'message events carry the sender’s open_id / union_id / user_id only',
  async start() {
    fs = await startFakeFeishu();
    return { env: { FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: fs.appSecret, FEISHU_DOMAIN: fs.url } };
  },
  async ready() {
    await until(() => fs.sockets() > 0, 10_000, 'the long connection');
  },
  stop: () => fs.close(),
  dmChat: (user) => `oc_dm_${user}`,
  async send(user, text, o) {
    let image: string | undefined;
    if (o?.image) {
      image = `img_v3_${fs.resources.size + 1}`;
      fs.resources.set(image, { bytes: o.image.bytes, type: o.image.mimeType });
    }
    fs.userMessage({ user, text, image });
  },
  messages: (user) => fs.sent.filter((s) => s.chat_id === `oc_dm_${user}`).map((s) => ({ id: s.message_id, text: s.text, edits: s.edits })),
  async drop() {
    fs.drop();
  },
  connections: () => fs.connections(),
  extra(ctx) {
    test('feishu: events are acked with code 200; in groups only an @mention of the bot is answered', async () => {
      assert.ok(fs.acks.length > 0 && fs.acks.every((a) => a.code === 200), JSON.stringify(fs.acks.slice(-3)));
      const { llm } = ctx();
      fs.userMessage({ user: OWNER, text: 'group chatter', chat: 'oc_group1', group: true });
      llm.enqueue({ text: 'Group reply.' });
      fs.userMessage({ user: OWNER, text: 'what time is it?', chat: 'oc_group1', group: true, mentionBot: true });
      await until(() => fs.sent.find((s) => s.chat_id === 'oc_group1' && /Group reply\./.test(s.text)), 15_000, 'the group reply');
      const bodies = llm.requests.map((r) => JSON.stringify(r.body));
      assert.ok(!bodies.some((b) => b.includes('group chatter')), 'unmentioned chatter never reaches the model');
      assert.ok(!bodies.some((b) => b.includes('@_user_1')), 'the mention placeholder is stripped');
    });
    test('feishu: delivery to an open id uses receive_id_type=open_id', async () => {
      const r = await ctx().gw.runner.router.send('feishu:ou_someone', 'Hi by open id.', { source: 'test' });
      assert.ok(r.ok, JSON.stringify(r));
      assert.ok(fs.sent.some((s) => s.chat_id === 'open_id:ou_someone' && /Hi by open id\./.test(s.text)));
    });
    test('feishu webhook mode: encrypted, signed callbacks are read; a bad signature is refused', async () => {
      const env = { FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: fs.appSecret, FEISHU_DOMAIN: fs.url, FEISHU_CONNECTION_MODE: 'webhook', FEISHU_WEBHOOK_PORT: '0', FEISHU_ENCRYPT_KEY: 'enc-key-123', FEISHU_VERIFICATION_TOKEN: 'verify-123' };
      const a = new FeishuAdapter({ settings: feishuSettings(env, {})!, env, config: {}, home: ctx().gw.runner.home, log: () => undefined });
      const got: InboundMessage[] = [];
      await a.connect({ message: (m) => got.push(m) });
      try {
        const url = `http://127.0.0.1:${a.port}/feishu/webhook`;
        await fs.callback(url, fs.event({ user: 'ou_forger', text: 'forged' }), { encryptKey: 'enc-key-123', token: 'verify-123', badSignature: true });
        await fs.callback(url, fs.event({ user: 'ou_webhook', text: 'via callback' }), { encryptKey: 'enc-key-123', token: 'verify-123' });
        await until(() => got.find((m) => m.text === 'via callback'), 10_000, 'the callback message');
        assert.equal(got.filter((m) => m.text === 'forged').length, 0, 'a badly signed callback is dropped');
        assert.equal(got[0].source.userId, 'ou_webhook');
      } finally {
        await a.disconnect();
      }
    });
  },
});
