// LINE through @line/bot-sdk against a fake Messaging API: signed webhooks in, reply/push out.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunningGateway } from '../../../src/gateway/daemon.ts';
import type { LineAdapter } from '../../../src/gateway/platforms/line.ts';
import { startFakeLine, type FakeLine } from '../../helpers/fake-line.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let line: FakeLine;
let endpoint = '';
const OWNER = `U${'a'.repeat(32)}`;
const STRANGER = `U${'b'.repeat(32)}`;
const GROUP = `C${'c'.repeat(32)}`;

runConformance({
  platform: 'line',
  limit: 4500,
  owner: OWNER,
  stranger: STRANGER,
  impostor: `U${'6'.repeat(32)}`,
  noDisplayName: 'webhook events carry the userId only (names come from the profile API, which the adapter does not ask)',
  noEdits: 'LINE messages cannot be edited; replies are sent whole (split at 4500)',
  noConnection: 'events arrive as webhooks; there is no connection to drop',
  async start() {
    line = await startFakeLine();
    return { env: { LINE_CHANNEL_ACCESS_TOKEN: line.token, LINE_CHANNEL_SECRET: line.secret, LINE_HOST: '127.0.0.1', LINE_PORT: '0', LINE_API_BASE: line.url, LINE_DATA_API_BASE: line.url, LINE_ALLOWED_GROUPS: GROUP, LINE_PUBLIC_URL: 'https://hermes.example.test', LINE_REQUIRE_MENTION_IN_GROUPS: 'true' } };
  },
  async ready(gw: RunningGateway) {
    endpoint = `http://127.0.0.1:${(gw.adapters.find((a) => a.name === 'line') as LineAdapter).port}/line/webhook`;
  },
  stop: () => line.close(),
  dmChat: (user) => user,
  async send(user, text) {
    assert.equal(await line.webhook(endpoint, { user, text }), 200);
  },
  messages: (user) => line.sent.filter((s) => s.to === user).map((s) => ({ id: s.id, text: s.text, edits: 0 })),
  noImages: 'a LINE picture is a message of its own, without words; the line-specific image case covers it',
  async drop() {},
  connections: () => 1,
  extra(ctx) {
    test('line: a webhook signed with another secret is refused', async () => {
      assert.equal(await line.webhook(endpoint, { user: OWNER, text: 'forged' }, { secret: 'f'.repeat(32) }), 401);
    });

    test('line: the first reply uses the free reply token, the rest are pushed', async () => {
      const { llm } = ctx();
      const before = line.sent.length;
      llm.enqueue({ text: 'Short answer via reply.' });
      await line.webhook(endpoint, { user: OWNER, text: 'quick one' });
      const m = await until(() => line.sent.slice(before).find((s) => /Short answer via reply\./.test(s.text)), 15_000, 'the reply');
      assert.equal(m.via, 'reply');
      llm.enqueue({ text: 'Pushed because the token had expired.' });
      await line.webhook(endpoint, { user: OWNER, text: 'another', expiredToken: true });
      const p = await until(() => line.sent.find((s) => /Pushed because/.test(s.text)), 15_000, 'the pushed reply');
      assert.equal(p.via, 'push');
    });

    test('line: in an allowed group the bot answers only when mentioned; other groups are ignored', async () => {
      const { llm } = ctx();
      const before = llm.requests.length;
      await line.webhook(endpoint, { user: OWNER, group: GROUP, text: 'no mention here' });
      await line.webhook(endpoint, { user: OWNER, group: `C${'d'.repeat(32)}`, text: 'other group', mentionSelf: true });
      llm.enqueue({ text: 'Group answer.' });
      await line.webhook(endpoint, { user: OWNER, group: GROUP, text: 'what now?', mentionSelf: true });
      await until(() => line.sent.some((s) => s.to === GROUP && /Group answer\./.test(s.text)), 15_000, 'the group answer');
      const asked = llm.requests.slice(before);
      assert.equal(asked.length, 1);
      assert.doesNotMatch(JSON.stringify(asked[0].body.messages.at(-1).content), /@Hermes/);
    });

    test('line: an image message reaches the model', async () => {
      const { llm } = ctx();
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      llm.enqueue({ text: 'I see a pixel.' });
      const id = '100000000000001';
      line.content.set(id, { bytes: png, type: 'image/png' });
      assert.equal(await line.webhook(endpoint, { user: OWNER, image: id }), 200);
      await until(() => line.sent.some((s) => /I see a pixel\./.test(s.text)), 15_000, 'the answer about the image');
      const user = llm.requests.at(-1)!.body.messages.at(-1);
      assert.ok(Array.isArray(user.content));
      assert.equal(user.content.find((p: { type: string }) => p.type === 'image_url').image_url.url, `data:image/png;base64,${png.toString('base64')}`);
    });

    test('line: an image goes out as a URL on LINE_PUBLIC_URL that we serve, by an unguessable token', async () => {
      const { gw } = ctx();
      const a = gw.adapters.find((x) => x.name === 'line') as LineAdapter;
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      const file = join(mkdtempSync(join(tmpdir(), 'line-')), 'chart.png');
      writeFileSync(file, png);
      const r = await a.sendMedia!(OWNER, file);
      assert.ok(r.ok, JSON.stringify(r));
      const msg = line.sent.at(-1)!.messages[0];
      assert.equal(msg.type, 'image');
      assert.match(msg.originalContentUrl ?? '', /^https:\/\/hermes\.example\.test\/line\/media\/[\w-]{20,}\/chart\.png$/);
      const local = msg.originalContentUrl!.replace('https://hermes.example.test', `http://127.0.0.1:${a.port}`);
      const got = await fetch(local);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), png);
      assert.equal((await fetch(local.replace(/media\/[\w-]+\//, 'media/guessed/'))).status, 404);
    });
  },
});
