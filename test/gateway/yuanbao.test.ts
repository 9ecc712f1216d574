// The Yuanbao adapter on its own against the fake Yuanbao gateway: bad credentials, Hermes's
// dm/group intake policies, reply heartbeats, duplicate pushes, the full-width command slash.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import '../../src/gateway/platforms/builtin.ts';
import { getPlatform } from '../../src/gateway/platforms/registry.ts';
import { YuanbaoAdapter, yuanbaoSettings } from '../../src/gateway/platforms/yuanbao.ts';
import type { InboundMessage } from '../../src/gateway/types.ts';
import { startFakeYuanbao, type FakeYuanbao } from '../helpers/fake-yuanbao.ts';
import { until } from './helpers.ts';

describe('yuanbao adapter', () => {
  let yb: FakeYuanbao;
  const home = mkdtempSync(join(tmpdir(), 'yb-home-'));
  const baseEnv = () => ({ YUANBAO_APP_ID: yb.appId, YUANBAO_APP_SECRET: yb.appSecret, YUANBAO_WS_URL: yb.wsUrl, YUANBAO_API_DOMAIN: yb.url });
  async function start(env: Record<string, string>, config: Record<string, unknown> = {}) {
    const got: InboundMessage[] = [];
    const a = new YuanbaoAdapter({ settings: yuanbaoSettings(env, config)!, env, config, home, log: () => undefined });
    await a.connect({ message: (m) => got.push(m) });
    return { a, got };
  }

  before(async () => {
    yb = await startFakeYuanbao();
  });
  after(() => yb.close());

  test('settings: app id and secret are required; config.yaml extra wins over env', () => {
    assert.equal(yuanbaoSettings({ YUANBAO_APP_ID: 'x' }, {}), null);
    const s = yuanbaoSettings({ YUANBAO_APP_ID: 'env', YUANBAO_APP_SECRET: 's' }, { platforms: { yuanbao: { extra: { app_id: 'cfg', ws_url: 'wss://x/ws' } } } })!;
    assert.equal(s.appId, 'cfg');
    assert.equal(s.wsUrl, 'wss://x/ws');
    assert.equal(s.apiDomain, 'https://bot.yuanbao.tencent.com');
  });

  test('a wrong app secret fails the connect with one clear message', async () => {
    const env = { ...baseEnv(), YUANBAO_APP_SECRET: 'wrong' };
    const a = new YuanbaoAdapter({ settings: yuanbaoSettings(env, {})!, env, config: {}, home, log: () => undefined });
    await assert.rejects(a.connect({ message: () => undefined }), /Yuanbao refused the app credentials: code 40001/);
  });

  test('dm_policy allowlist and group_policy disabled narrow intake; duplicates and the bot itself are dropped', async () => {
    const { a, got } = await start({ ...baseEnv(), YUANBAO_DM_POLICY: 'allowlist', YUANBAO_DM_ALLOW_FROM: 'alice', YUANBAO_GROUP_POLICY: 'disabled', YUANBAO_REQUIRE_MENTION: 'false' });
    try {
      yb.userMessage({ user: 'bob', text: 'let me in' });
      yb.userMessage({ user: 'alice', text: 'in a group', group: 'G1', mentionBot: true });
      yb.userMessage({ user: yb.botId, text: 'echo of myself' });
      yb.userMessage({ user: 'alice', text: 'hello', msgId: 'dup1' });
      yb.userMessage({ user: 'alice', text: 'hello', msgId: 'dup1' });
      yb.userMessage({ user: 'alice', text: '／status' });
      await until(() => got.some((m) => m.text === '/status'), 5000, 'the last message');
      assert.deepEqual(got.map((m) => [m.source.chatId, m.text]), [['direct:alice', 'hello'], ['direct:alice', '/status']]);
      assert.equal(got[0].source.userId, 'alice');
    } finally {
      await a.disconnect();
    }
  });

  test('typing is a RUNNING reply heartbeat, ended by FINISH once the reply is delivered', async () => {
    const { a } = await start(baseEnv());
    try {
      await a.sendTyping('direct:carol');
      await a.sendTyping('group:G9');
      const r = await a.send('direct:carol', 'Done.');
      assert.ok(r.ok, JSON.stringify(r));
      await until(() => yb.heartbeats.length >= 3, 5000, 'the heartbeats');
      assert.deepEqual(yb.heartbeats, [{ chat: 'direct:carol', hb: 1 }, { chat: 'group:G9', hb: 1 }, { chat: 'direct:carol', hb: 2 }]);
    } finally {
      await a.disconnect();
    }
    assert.equal((await a.send('direct:carol', 'late')).ok, false, 'no send after disconnect');
  });

  test('registry: `hermes gateway setup` asks for the app id and secret and its connection test binds the bot; targets parse', async () => {
    const def = getPlatform('yuanbao')!;
    assert.deepEqual(def.setup!.fields.map((f) => [f.key, !!f.secret]), [['YUANBAO_APP_ID', false], ['YUANBAO_APP_SECRET', true]]);
    assert.equal(await def.probe!(baseEnv(), {}), `bot ${yb.botId}`);
    await assert.rejects(def.probe!({ ...baseEnv(), YUANBAO_APP_SECRET: 'nope' }, {}), (e: Error) => /refused the app credentials/.test(e.message) && !e.message.includes('nope'));
    assert.deepEqual(def.parseTarget!('alice'), { chatId: 'direct:alice' });
    assert.deepEqual(def.parseTarget!('group:G1'), { chatId: 'group:G1' });
    assert.ok(def.configured(baseEnv(), {}));
    assert.ok(!def.configured({ YUANBAO_APP_ID: 'x' }, {}));
  });

  test('files arrive as documents: the placeholder URL is exchanged at the resource API, the name kept', async () => {
    const { a, got } = await start(baseEnv());
    try {
      const before = yb.counts.resources;
      yb.userMessage({ user: 'alice', text: 'see attached', file: { url: yb.file(Buffer.from('hello,csv\n1,2\n'), 'text/csv'), name: 'data.csv' } });
      yb.userMessage({ user: 'alice', text: 'and one more thing' });
      await until(() => got.some((m) => m.text === 'and one more thing'), 5000, 'the messages');
      assert.deepEqual(got.map((m) => m.text), ['see attached', 'and one more thing'], 'in order, though the first waited on a download');
      const att = got.find((m) => m.text === 'see attached')!.attachments!;
      assert.equal(att.length, 1);
      assert.equal(att[0].kind, 'document');
      assert.equal(att[0].fileName, 'data.csv');
      assert.equal(readFileSync(att[0].path!, 'utf8'), 'hello,csv\n1,2\n');
      assert.equal(yb.counts.resources, before + 1);
    } finally {
      await a.disconnect();
    }
  });
});
