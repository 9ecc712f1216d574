// The WhatsApp Business Cloud API: signed webhooks into the adapter's own server, replies through a
// fake Graph API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningGateway } from '../../../src/gateway/daemon.ts';
import type { WhatsAppCloudAdapter } from '../../../src/gateway/platforms/whatsapp-cloud.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { runConformance } from './suite.ts';

let g: FakeGraph;
let hook = '';
let n = 0;

runConformance({
  platform: 'whatsapp_cloud',
  limit: 4096,
  owner: '15551234567',
  stranger: '15559876543',
  impostor: '15550000666',
  noEdits: 'Cloud API messages cannot be edited; replies are sent whole (split at 4096)',
  noConnection: 'messages arrive as webhooks; there is no connection to drop',
  async start() {
    g = await startFakeGraph();
    return { env: { WHATSAPP_CLOUD_PHONE_NUMBER_ID: g.phoneNumberId, WHATSAPP_CLOUD_ACCESS_TOKEN: g.token, WHATSAPP_CLOUD_APP_SECRET: g.appSecret, WHATSAPP_CLOUD_VERIFY_TOKEN: 'verify-me', WHATSAPP_CLOUD_WEBHOOK_HOST: '127.0.0.1', WHATSAPP_CLOUD_WEBHOOK_PORT: '0', WHATSAPP_CLOUD_GRAPH_URL: g.url } };
  },
  async ready(gw: RunningGateway) {
    const a = gw.adapters.find((x) => x.name === 'whatsapp_cloud') as WhatsAppCloudAdapter;
    hook = `http://127.0.0.1:${a.port}/whatsapp/webhook`;
  },
  stop: () => g.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    const id = `wamid.IN${++n}`;
    if (o?.image) {
      g.media.set(`media-in-${n}`, { bytes: o.image.bytes, mime: o.image.mimeType });
      assert.equal(await g.deliver(hook, [{ from: user, id, timestamp: '1700000000', type: 'image', image: { id: `media-in-${n}`, mime_type: o.image.mimeType, caption: text } }], [{ wa_id: user, name: 'Tester' }]), 200);
      return;
    }
    assert.equal(await g.deliver(hook, [{ from: user, id, timestamp: '1700000000', type: 'text', text: { body: text } }], [{ wa_id: user, name: o?.displayName ?? 'Tester' }]), 200);
  },
  messages: (user) => g.sent.filter((s) => s.to === user && s.type === 'text').map((s) => ({ id: s.id, text: String(s.body.text.body), edits: 0 })),
  async drop() {},
  connections: () => 1,
  extra() {
    test('whatsapp_cloud webhook: the GET handshake needs the verify token; unsigned or mis-signed posts are refused', async () => {
      // Runs after the suite's gateway is up (same file, same fake).
      const ok = await fetch(`${hook}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=abc123`);
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), 'abc123');
      assert.equal((await fetch(`${hook}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=x`)).status, 403);
      assert.equal(await g.deliver(hook, [{ from: '15551234567', id: 'wamid.FORGED', type: 'text', text: { body: 'forged' } }], [], 'f'.repeat(32)), 401);
      const unsigned = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(unsigned.status, 401);
    });
  },
});

