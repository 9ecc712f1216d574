// `hermes send` to DingTalk, Feishu, QQ Bot and Weixin as a person runs it: the real binary, no
// gateway running, each platform's send-only client from the registry against its fake API.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeDingTalk, type FakeDingTalk } from '../helpers/fake-dingtalk.ts';
import { startFakeFeishu, type FakeFeishu } from '../helpers/fake-feishu.ts';
import { startFakeIlink, type FakeIlink } from '../helpers/fake-ilink.ts';
import { startFakeQQ, type FakeQQ } from '../helpers/fake-qq.ts';

describe('hermes send to the Chinese platforms', () => {
  let dt: FakeDingTalk;
  let fs: FakeFeishu;
  let qq: FakeQQ;
  let wx: FakeIlink;
  let home: string;
  let env: Record<string, string>;

  before(async () => {
    [dt, fs, qq, wx] = await Promise.all([startFakeDingTalk(), startFakeFeishu(), startFakeQQ(), startFakeIlink()]);
    home = tempHome();
    env = {
      DINGTALK_CLIENT_ID: dt.clientId,
      DINGTALK_CLIENT_SECRET: dt.clientSecret,
      DINGTALK_API_BASE: dt.url,
      FEISHU_APP_ID: fs.appId,
      FEISHU_APP_SECRET: fs.appSecret,
      FEISHU_DOMAIN: fs.url,
      QQ_APP_ID: qq.appId,
      QQ_CLIENT_SECRET: qq.secret,
      QQ_API_BASE: qq.url,
      QQ_TOKEN_URL: qq.tokenUrl,
      QQBOT_HOME_CHANNEL: 'HOMEOPENID0001',
      QQ_MARKDOWN_SUPPORT: 'false',
      WEIXIN_ACCOUNT_ID: wx.accountId,
      WEIXIN_TOKEN: wx.token,
      WEIXIN_BASE_URL: wx.url,
    };
  });
  after(async () => {
    await Promise.all([dt.close(), fs.close(), qq.close(), wx.close()]);
  });

  test('DingTalk (robot OpenAPI), Feishu (IM API), QQ Bot (home channel, QQBOT_HOME_CHANNEL)', async () => {
    const d = await hermes(['send', '--to', 'dingtalk:manager01', 'build **green**'], { home, env });
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual(dt.sent.map((s) => [s.via, s.chat, s.text]), [['otm', 'dm:manager01', 'build **green**']]);
    const f = await hermes(['send', '--to', 'feishu:oc_team', 'deploy done'], { home, env });
    assert.equal(f.code, 0, f.stderr);
    assert.ok(fs.sent.some((s) => s.chat_id === 'oc_team' && s.text === 'deploy done' && s.msg_type === 'post'), JSON.stringify(fs.sent));
    const q = await hermes(['send', '--to', 'qqbot', '--json', 'nightly report'], { home, env });
    assert.equal(q.code, 0, q.stderr);
    assert.deepEqual(JSON.parse(q.stdout), { success: true, platform: 'qqbot', chat_id: 'HOMEOPENID0001' });
    assert.deepEqual(qq.sent.map((s) => [s.chat, s.kind, s.text, s.msgType]), [['HOMEOPENID0001', 'c2c', 'nightly report', 0]]);
  });

  test('Weixin uses the context token Hermes saved; without one iLink refuses and the command says so', async () => {
    const dir = join(home, 'weixin', 'accounts');
    mkdirSync(dir, { recursive: true });
    // A message from the friend, fetched the way the gateway polls it, gives the context token the
    // gateway would have saved.
    wx.userMessage({ user: 'friend@im.wechat', text: 'hello' });
    const r = await fetch(`${wx.url}/ilink/bot/getupdates`, { method: 'POST', headers: { authorization: `Bearer ${wx.token}`, authorizationtype: 'ilink_bot_token', 'ilink-app-id': 'bot', 'content-type': 'application/json' }, body: '{}' });
    const token = ((await r.json()) as { msgs: { context_token: string }[] }).msgs[0].context_token;
    writeFileSync(join(dir, `${wx.accountId}.context-tokens.json`), JSON.stringify({ 'friend@im.wechat': token }));
    const ok = await hermes(['send', '--to', 'weixin:friend@im.wechat', 'dinner at 7'], { home, env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(wx.sent.map((s) => [s.to, s.text]), [['friend@im.wechat', 'dinner at 7']]);
    const no = await hermes(['send', '--to', 'weixin:stranger@im.wechat', 'hi'], { home, env });
    assert.equal(no.code, 1);
    assert.match(no.stderr, /iLink refused the message: invalid context_token/);
  });
});
