// WeCom AI Bot over its WebSocket gateway against a fake one: subscribe, callbacks in, replies bound
// to the callback (respond_msg) or proactive (send_msg), encrypted images decrypted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeWeCom, type FakeWeCom } from '../../helpers/fake-wecom.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let wc: FakeWeCom;
const OWNER = 'zhangsan';
const STRANGER = 'lisi';

runConformance({
  platform: 'wecom',
  limit: 4000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: 'mallory666',
  noDisplayName: 'AI-bot callbacks carry from.userid only',
  noEdits: 'AI bot messages cannot be edited; replies are sent whole, split at 4000',
  async start() {
    wc = await startFakeWeCom();
    return { env: { WECOM_BOT_ID: wc.botId, WECOM_SECRET: wc.secret, WECOM_WEBSOCKET_URL: wc.wsUrl }, yaml: 'platforms:\n  wecom:\n    extra:\n      group_policy: allowlist\n      group_allow_from: ["wrAllowedGroup"]\n' };
  },
  async ready() {
    await until(() => wc.sockets() > 0, 10_000, 'the subscribed socket');
  },
  stop: () => wc.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    wc.userMessage({ user, text, image: o?.image ? wc.image(o.image.bytes) : undefined });
  },
  messages: (user) => wc.sent.filter((s) => s.chat === user).map((s, i) => ({ id: String(i), text: s.text, edits: 0 })),
  async drop() {
    wc.drop();
  },
  connections: () => wc.connections(),
  extra(ctx) {
    test('wecom: replies bind to the callback; a chat with no callback gets a proactive aibot_send_msg', async () => {
      assert.ok(wc.sent.some((s) => s.cmd === 'aibot_respond_msg' && s.chat === OWNER));
      const r = await ctx().gw.runner.router.send('wecom:wangwu', 'Proactive note.', { source: 'test' });
      assert.ok(r.ok, JSON.stringify(r));
      assert.ok(wc.sent.some((s) => s.cmd === 'aibot_send_msg' && s.chat === 'wangwu' && /Proactive note\./.test(s.text)));
    });
    test('wecom: group_policy allowlist keeps other groups out; "@Bot" is stripped from commands', async () => {
      const { llm } = ctx();
      wc.userMessage({ user: OWNER, text: '@Hermes secret plans', group: 'wrOtherGroup' });
      llm.enqueue({ text: 'Allowed group answer.' });
      wc.userMessage({ user: OWNER, text: '@Hermes hello group', group: 'wrAllowedGroup' });
      await until(() => wc.sent.find((s) => s.chat === 'wrAllowedGroup' && /Allowed group answer\./.test(s.text)), 15_000, 'the allowed group answer');
      const bodies = llm.requests.map((r) => JSON.stringify(r.body));
      assert.ok(!bodies.some((b) => b.includes('secret plans')), 'a group outside group_allow_from never reaches the model');
      assert.ok(bodies.some((b) => b.includes('"hello group"')), 'the leading @mention is stripped');
    });
  },
});
