// WhatsApp through the Baileys adapter against a fake Baileys socket (WhatsApp's own wire protocol
// cannot be served locally; everything above the socket is the real adapter and gateway).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeBaileys, fakeDownload, type FakeBaileys } from '../../helpers/fake-baileys.ts';
import { runConformance, type BotMessage } from './suite.ts';
import { until } from '../helpers.ts';

let fb: FakeBaileys;
const jidOf = (user: string) => `${user}@s.whatsapp.net`;

runConformance({
  platform: 'whatsapp',
  limit: 4096,
  owner: '15551234567',
  stranger: '15559876543',
  impostor: '15550000666',
  async start() {
    fb = fakeBaileys();
    return { env: { WHATSAPP_ENABLED: 'true', WHATSAPP_MODE: 'bot' }, deps: { makeSocket: (d: string) => fb.makeSocket(d), download: fakeDownload(fb) } };
  },
  stop: async () => fb.drop(),
  dmChat: (user) => user,
  async send(user, text, o) {
    if (o?.image) {
      fb.media.set('img1', o.image.bytes);
      fb.userMessage({ from: user, image: { id: 'img1', mimetype: o.image.mimeType, caption: text } });
      return;
    }
    fb.userMessage({ from: user, text, name: o?.displayName });
  },
  messages(user) {
    const out = new Map<string, BotMessage>();
    for (const s of fb.sent) {
      if (s.jid !== jidOf(user) || typeof s.content.text !== 'string') continue;
      if (s.content.edit) {
        const m = out.get(s.content.edit.id);
        if (m) out.set(m.id, { ...m, text: s.content.text, edits: m.edits + 1 });
      } else out.set(s.key.id!, { id: s.key.id!, text: s.content.text, edits: 0 });
    }
    return [...out.values()];
  },
  async drop() {
    fb.drop();
  },
  connections: () => fb.connections(),
  extra(ctx) {
    test('whatsapp: own messages are echoes in bot mode; groups need a mention; credentials live under HERMES_HOME', async () => {
      const { llm } = ctx();
      const before = llm.requests.length;
      fb.userMessage({ from: '15550001111', fromMe: true, text: 'an echo of our own message', jid: jidOf('15551234567') });
      fb.userMessage({ from: '15551234567', group: '12036302@g.us', text: 'chatter in the group' });
      llm.enqueue({ text: 'Group answer.' });
      fb.userMessage({ from: '15551234567', group: '12036302@g.us', text: '@15550001111 what time is it?', mentions: [fb.me] });
      await until(() => fb.sent.find((s) => s.jid === '12036302@g.us' && /Group answer/.test(String(s.content.text))), 10_000, 'the group answer');
      const asked = llm.requests.slice(before).map((r) => JSON.stringify(r.body.messages));
      assert.ok(!asked.some((x) => x.includes('echo of our own') || x.includes('chatter in the group')), 'echoes and unmentioned group chatter never reach the model');
      assert.ok(fb.dirs.every((d) => d.endsWith('/whatsapp/session')), 'the Baileys session is under HERMES_HOME/whatsapp/session');
    });
  },
});
