// QQ Bot over a fake QQ Bot Open Platform: WebSocket gateway in (identify, resume after a drop),
// passive replies out through the v2 REST API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeQQ, type FakeQQ } from '../../helpers/fake-qq.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let qq: FakeQQ;
const OWNER = 'E3F1A2B3C4D5E6F70000000000000001';
const STRANGER = 'E3F1A2B3C4D5E6F70000000000000099';

runConformance({
  platform: 'qqbot',
  limit: 4000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: 'E3F1A2B3C4D5E6F70000000000000666',
  noDisplayName: 'C2C and group events carry the author’s openid only',
  noEdits: 'QQ messages cannot be edited; replies are sent whole, split at 4000',
  async start() {
    qq = await startFakeQQ();
    return { env: { QQ_APP_ID: qq.appId, QQ_CLIENT_SECRET: qq.secret, QQ_API_BASE: qq.url, QQ_TOKEN_URL: qq.tokenUrl } };
  },
  async ready() {
    await until(() => qq.sockets() > 0, 10_000, 'the gateway session');
  },
  stop: () => qq.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    let image: string | undefined;
    if (o?.image) {
      image = `img${qq.files.size + 1}`;
      qq.files.set(image, { bytes: o.image.bytes, type: o.image.mimeType });
    }
    qq.userMessage({ user, text, image });
  },
  messages: (user) => qq.sent.filter((s) => s.chat === user).map((s, i) => ({ id: String(i), text: s.text, edits: 0 })),
  async drop() {
    qq.drop();
  },
  connections: () => qq.connections(),
  extra(ctx) {
    test('qqbot: QQ_ALLOWED_USERS (Hermes’s name) is the allowlist; replies are passive Markdown with rising msg_seq; a drop resumes the session', async () => {
      assert.ok(qq.sent.filter((s) => s.chat === OWNER).every((s) => s.msgId && s.msgType === 2), 'passive markdown replies');
      assert.ok(qq.resumes >= 1, `the reconnect resumed the session (identifies ${qq.identifies}, resumes ${qq.resumes})`);
      const { llm } = ctx();
      llm.enqueue({ text: 'Group hello.' });
      qq.userMessage({ user: OWNER, text: 'hi from the group', group: 'GROUPOPENID01' });
      await until(() => qq.sent.find((s) => s.kind === 'group' && /Group hello\./.test(s.text)), 15_000, 'the group reply');
    });
  },
});
