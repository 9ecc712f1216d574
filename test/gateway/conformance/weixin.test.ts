// Weixin over a fake Tencent iLink Bot API: long-poll in, context-token replies out, AES-128-ECB
// CDN media decrypted, and Hermes's on-disk cursor and context-token files kept.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeIlink, type FakeIlink } from '../../helpers/fake-ilink.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let wx: FakeIlink;
const OWNER = 'o9cq80owner@im.wechat';
const STRANGER = 'o9cq80stranger@im.wechat';

runConformance({
  platform: 'weixin',
  limit: 2000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: 'o9cq80impostor@im.wechat',
  noDisplayName: 'iLink messages carry from_user_id only',
  noEdits: 'WeChat messages cannot be edited; replies are sent whole, split at 2000',
  noConnection: undefined,
  async start() {
    wx = await startFakeIlink();
    return { env: { WEIXIN_ACCOUNT_ID: wx.accountId, WEIXIN_TOKEN: wx.token, WEIXIN_BASE_URL: wx.url, WEIXIN_CDN_BASE_URL: wx.cdnUrl } };
  },
  async ready() {
    await until(() => wx.polling(), 15_000, 'the long poll');
  },
  stop: () => wx.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    wx.userMessage({ user, text, image: o?.image ? wx.media(o.image.bytes) : undefined });
  },
  messages: (user) => wx.sent.filter((s) => s.to === user).map((s, i) => ({ id: String(i), text: s.text, edits: 0 })),
  async drop() {
    wx.drop();
  },
  connections: () => wx.connections(),
  extra(ctx) {
    test('weixin: the poll cursor and context tokens are kept in Hermes’s files under weixin/accounts', async () => {
      const dir = join(ctx().gw.runner.home, 'weixin', 'accounts');
      const sync = JSON.parse(readFileSync(join(dir, `${wx.accountId}.sync.json`), 'utf8')) as { get_updates_buf: string };
      assert.match(sync.get_updates_buf, /^buf-\d+$/);
      assert.ok(wx.cursors.includes(sync.get_updates_buf) || wx.cursors.at(-1) === sync.get_updates_buf, 'the saved cursor is the one polled with');
      const tokens = JSON.parse(readFileSync(join(dir, `${wx.accountId}.context-tokens.json`), 'utf8')) as Record<string, string>;
      assert.match(tokens[OWNER], /^ctx-/);
      assert.ok(wx.sent.every((s) => s.contextToken), 'every reply echoes a context token');
    });
  },
});
