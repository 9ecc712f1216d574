// iMessage through BlueBubbles: webhooks registered with a fake BlueBubbles server, replies over its REST API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeBlueBubbles, type FakeBlueBubbles } from '../../helpers/fake-bluebubbles.ts';
import { until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let bb: FakeBlueBubbles;
const dm = (user: string) => `iMessage;-;${user}`;

runConformance({
  platform: 'bluebubbles',
  limit: 4000,
  owner: '+15551234567',
  stranger: 'stranger@icloud.example',
  impostor: '+15550000666',
  noDisplayName: 'BlueBubbles reports the sender’s handle (phone number or Apple ID) only',
  noEdits: 'iMessage messages are sent whole (split at 4000)',
  noConnection: 'messages arrive as webhooks; there is no connection to drop',
  async start() {
    bb = await startFakeBlueBubbles();
    return { env: { BLUEBUBBLES_SERVER_URL: bb.url, BLUEBUBBLES_PASSWORD: bb.password, BLUEBUBBLES_WEBHOOK_PORT: '0', BLUEBUBBLES_REQUIRE_MENTION: 'true' } };
  },
  async ready() {
    await until(() => bb.webhooks.length === 1, 10_000, 'the webhook registration');
  },
  stop: () => bb.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    let attachment: string | undefined;
    if (o?.image) {
      attachment = `att-${Date.now()}`;
      bb.attachments.set(attachment, { bytes: o.image.bytes, mime: o.image.mimeType, name: o.image.name });
    }
    assert.deepEqual(await bb.inbound(user, text, { attachment }), [200]);
  },
  messages: (user) => bb.sent.filter((s) => s.chatGuid === dm(user)).map((s) => ({ id: s.guid, text: s.text, edits: 0 })),
  async drop() {},
  connections: () => 1,
  extra(ctx) {
    test('bluebubbles: a webhook without the password is refused', async () => {
      assert.deepEqual(await bb.inbound('+15551234567', 'forged', { password: 'wrong' }), [401]);
      assert.ok(bb.webhooks[0].url.includes(`password=${bb.password}`), 'the registered URL carries the password');
    });

    test('bluebubbles: in a group the bot answers only to its wake word', async () => {
      const { llm } = ctx();
      const group = 'iMessage;+;chat900';
      const before = llm.requests.length;
      await bb.inbound('+15551234567', 'dinner at 7?', { group });
      llm.enqueue({ text: 'Seven works.' });
      await bb.inbound('+15551234567', 'Hermes, does 7 work?', { group });
      await until(() => bb.sent.some((s) => s.chatGuid === group && /Seven works\./.test(s.text)), 15_000, 'the group answer');
      const asked = llm.requests.slice(before);
      assert.equal(asked.length, 1);
      assert.match(JSON.stringify(asked[0].body.messages.at(-1).content), /does 7 work\?/);
    });

    test('bluebubbles: chat info comes from the server', async () => {
      const { gw } = ctx();
      const a = gw.adapters.find((x) => x.name === 'bluebubbles')!;
      assert.deepEqual(await a.chatInfo!('+15551234567'), { name: '+15551234567', type: 'dm' });
      assert.deepEqual(await a.chatInfo!('iMessage;+;chat900'), { name: 'Family', type: 'group' });
    });
  },
});
