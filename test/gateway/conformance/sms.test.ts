// SMS through Twilio: signed webhooks into the adapter's server, replies through a fake Twilio API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningGateway } from '../../../src/gateway/daemon.ts';
import type { SmsAdapter } from '../../../src/gateway/platforms/sms.ts';
import { startFakeTwilio, type FakeTwilio } from '../../helpers/fake-twilio.ts';
import { runConformance } from './suite.ts';

let tw: FakeTwilio;
let post = '';
const PUBLIC = 'https://hermes.example.test/sms';

runConformance({
  platform: 'sms',
  limit: 1600,
  owner: '+15551234567',
  stranger: '+15559876543',
  impostor: '+15550000666',
  noDisplayName: 'Twilio’s webhook carries the From number only',
  noEdits: 'texts cannot be edited; replies are sent whole (split at 1600)',
  noConnection: 'texts arrive as webhooks; there is no connection to drop',
  async start() {
    tw = await startFakeTwilio();
    return { env: { TWILIO_ACCOUNT_SID: tw.sid, TWILIO_AUTH_TOKEN: tw.token, TWILIO_PHONE_NUMBER: tw.number, SMS_WEBHOOK_URL: PUBLIC, SMS_WEBHOOK_HOST: '127.0.0.1', SMS_WEBHOOK_PORT: '0', TWILIO_API_BASE: tw.url } };
  },
  async ready(gw: RunningGateway) {
    post = `http://127.0.0.1:${(gw.adapters.find((a) => a.name === 'sms') as SmsAdapter).port}/`;
  },
  stop: () => tw.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    const media: string[] = [];
    if (o?.image) {
      tw.media.set('MEimg1', { bytes: o.image.bytes, type: o.image.mimeType });
      media.push('MEimg1');
    }
    assert.equal(await tw.inbound(post, PUBLIC, { from: user, body: text, media }), 200);
  },
  messages: (user) => tw.sent.filter((s) => s.to === user).map((s) => ({ id: s.sid, text: s.body, edits: 0 })),
  async drop() {},
  connections: () => 1,
  extra() {
    test('sms: a webhook signed with another token, or for another URL, is refused', async () => {
      assert.equal(await tw.inbound(post, PUBLIC, { from: '+15551234567', body: 'forged', token: 'not-the-token' }), 403);
      assert.equal(await tw.inbound(post, 'https://elsewhere.example/sms', { from: '+15551234567', body: 'replayed' }), 403);
    });
  },
});
