// DingTalk in Stream Mode through the real dingtalk-stream SDK against a fake DingTalk: frames in
// over its WebSocket, replies through the session webhook, proactive sends through the robot OpenAPI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayRecord } from '../../../src/gateway/log.ts';
import { startFakeDingTalk, type FakeDingTalk } from '../../helpers/fake-dingtalk.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let dt: FakeDingTalk;
const OWNER = 'staff0001';
const STRANGER = 'staff0099';
const IMPOSTOR = 'staff0666';

runConformance({
  platform: 'dingtalk',
  limit: 20_000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: IMPOSTOR,
  noEdits: 'robot messages cannot be edited (AI-card streaming is not built); replies are sent whole, split at 20000',
  async start() {
    dt = await startFakeDingTalk();
    return { env: { DINGTALK_CLIENT_ID: dt.clientId, DINGTALK_CLIENT_SECRET: dt.clientSecret, DINGTALK_API_BASE: dt.url }, yaml: 'platforms:\n  dingtalk:\n    require_mention: true\n' };
  },
  async ready() {
    await until(() => dt.sockets() > 0, 10_000, 'the stream socket');
  },
  stop: () => dt.close(),
  dmChat: (user) => `cid-dm-${user}`,
  async send(user, text, o) {
    let picture: string | undefined;
    if (o?.image) {
      picture = `code-${dt.files.size + 1}`;
      dt.files.set(picture, { bytes: o.image.bytes, type: o.image.mimeType });
    }
    dt.userMessage({ user, text, picture, nick: o?.displayName });
  },
  messages: (user) => dt.sent.filter((s) => s.chat === `cid-dm-${user}` || s.chat === `dm:${user}`).map((s, i) => ({ id: String(i), text: s.text, edits: 0 })),
  async drop() {
    dt.drop();
  },
  connections: () => dt.connections(),
  extra(ctx) {
    test('dingtalk: its log lines go to the gateway.platforms.dingtalk logger (any registered platform does)', () => {
      assert.deepEqual(gatewayRecord('dingtalk: stream closed (1006)'), { name: 'gateway.platforms.dingtalk', message: 'stream closed (1006)' });
      assert.equal(gatewayRecord('cron: tick').name, 'gateway.cron');
    });
    test('dingtalk: every frame is acknowledged; group messages need the structured @mention when require_mention is on', async () => {
      assert.ok(dt.acks.some((a) => a.startsWith('frame-msg')), 'callback frames are acked');
      const { llm } = ctx();
      dt.userMessage({ user: OWNER, text: 'chatter in the group', group: 'cidGroup1' });
      llm.enqueue({ text: 'Group answer.' });
      dt.userMessage({ user: OWNER, text: '@Hermes help', group: 'cidGroup1', atBot: true });
      await until(() => dt.sent.find((s) => s.chat === 'cidGroup1' && /Group answer\./.test(s.text)), 15_000, 'the group answer');
      assert.equal(llm.requests.filter((r) => JSON.stringify(r.body).includes('chatter in the group')).length, 0, 'unmentioned chatter is ignored');
    });
    test('dingtalk: with no fresh session webhook, a delivery goes through the robot OpenAPI', async () => {
      const { gw } = ctx();
      const r = await gw.runner.router.send('dingtalk:staff0777', 'Proactive hello.', { source: 'test' });
      assert.ok(r.ok, JSON.stringify(r));
      const m = dt.sent.find((s) => s.via === 'otm' && s.chat === 'dm:staff0777');
      assert.ok(m && /Proactive hello\./.test(m.text) && m.msgtype === 'sampleMarkdown', JSON.stringify(dt.sent.slice(-2)));
      const g = await gw.runner.router.send('dingtalk:cidGroupX', 'To the group.', { source: 'test' });
      assert.ok(g.ok && dt.sent.some((s) => s.via === 'group' && s.chat === 'cidGroupX'));
    });
  },
});
