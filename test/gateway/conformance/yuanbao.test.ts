// Tencent Yuanbao against a fake Yuanbao bot gateway: signed token, auth-bind over the WebSocket,
// protobuf pushes in (acked), send_c2c_message / send_group_message out, images through the resource API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pb from '../../../src/gateway/platforms/yuanbao-proto.ts';
import { parseFields } from '../../../src/gateway/protobuf.ts';
import { startFakeYuanbao, type FakeYuanbao } from '../../helpers/fake-yuanbao.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let yb: FakeYuanbao;
const OWNER = 'yb_user_owner';
const STRANGER = 'yb_user_stranger';
const IMPOSTOR = 'yb_user_impostor';

test('yuanbao wire format: ConnMsg and push bytes are standard protobuf', () => {
  // head { cmd_type: 1, cmd: "ping" } → 0a 08 | 08 01 | 12 04 "ping"
  assert.equal(pb.encodeConnMsg({ cmdType: 1, cmd: 'ping' }).toString('hex'), '0a08080112047069' + '6e67');
  // status is an int32: a negative one is sign-extended to ten bytes and read back.
  assert.equal(pb.decodeConnMsg(pb.encodeConnMsg({ cmdType: 1, cmd: 'x', status: -3 })).head.status, -3);
  // InboundMessagePush { from_account(2): "a", msg_body(13): [{ msg_type: "TIMTextElem", msg_content { text: "hi" } }] }
  const raw = Buffer.from('1201616a' + '13' + '0a0b54494d54657874456c656d' + '1204' + '0a026869', 'hex');
  const p = pb.decodeInboundPush(raw);
  assert.equal(p.fromAccount, 'a');
  assert.deepEqual(p.msgBody, [{ msgType: 'TIMTextElem', content: { text: 'hi' } }]);
  assert.throws(() => parseFields(Buffer.from([0x12, 0x05, 0x61])), /truncated/);
});

runConformance({
  platform: 'yuanbao',
  limit: 4000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: IMPOSTOR,
  noEdits: 'Yuanbao messages cannot be edited; replies are sent whole, split at 4000',
  async start() {
    yb = await startFakeYuanbao();
    return { env: { YUANBAO_APP_ID: yb.appId, YUANBAO_APP_SECRET: yb.appSecret, YUANBAO_WS_URL: yb.wsUrl, YUANBAO_API_DOMAIN: yb.url } };
  },
  async ready() {
    await until(() => yb.sockets() > 0, 10_000, 'the bound socket');
  },
  stop: () => yb.close(),
  dmChat: (user) => `direct:${user}`,
  async send(user, text, o) {
    yb.userMessage({ user, text, imageUrl: o?.image ? yb.image(o.image.bytes) : undefined, nickname: o?.displayName });
  },
  messages: (user) => yb.sent.filter((s) => s.chat === `direct:${user}`).map((s, i) => ({ id: String(i), text: s.text, edits: 0 })),
  async drop() {
    yb.drop();
  },
  connections: () => yb.connections(),
  extra(ctx) {
    test('yuanbao: token signed and bound again after the drop; pushes acked; sends come from the bot id', () => {
      assert.equal(yb.counts.badSignatures, 0);
      assert.ok(yb.counts.signs >= 2, `re-signed for the reconnect (${yb.counts.signs} signs)`);
      assert.ok(yb.counts.binds >= 2, `bound twice (${yb.counts.binds})`);
      assert.ok(yb.counts.acks >= 5, `pushes acked (${yb.counts.acks})`);
      assert.ok(yb.counts.resources >= 1, 'the image URL was exchanged at the resource API');
      assert.ok(yb.sent.every((s) => s.from === yb.botId), 'from_account is the bot id the sign-token returned');
    });
    test('yuanbao: `hermes send` targets direct:<account>, a bare account and group:<code>', async () => {
      const router = ctx().gw.runner.router;
      for (const [target, chat] of [['yuanbao:direct:wangwu', 'direct:wangwu'], ['yuanbao:zhaoliu', 'direct:zhaoliu'], ['yuanbao:group:G100', 'group:G100']]) {
        const r = await router.send(target, `Note for ${chat}.`, { source: 'test' });
        assert.ok(r.ok, JSON.stringify(r));
        assert.ok(yb.sent.some((s) => s.chat === chat && s.text === `Note for ${chat}.`), `delivered to ${chat}`);
      }
      assert.ok(yb.sent.some((s) => s.cmd === 'send_group_message' && s.chat === 'group:G100'));
    });
    test('yuanbao: in a group the bot answers only when @-mentioned, without the mention in the text', async () => {
      const { llm } = ctx();
      yb.userMessage({ user: OWNER, text: 'secret chatter not for the bot', group: 'G200' });
      llm.enqueue({ text: 'Group answer here.' });
      yb.userMessage({ user: OWNER, text: ' hello group', group: 'G200', mentionBot: true });
      await until(() => yb.sent.find((s) => s.chat === 'group:G200' && /Group answer here\./.test(s.text)), 15_000, 'the group answer');
      const bodies = llm.requests.map((r) => JSON.stringify(r.body));
      assert.ok(!bodies.some((b) => b.includes('secret chatter')), 'an unmentioned group message never reaches the model');
      assert.ok(bodies.some((b) => b.includes('"hello group"')), 'the @mention is not part of the turn');
    });
  },
});
