// Signal through the signal-cli HTTP daemon (SSE in, JSON-RPC out) against a fake daemon.
import { startFakeSignal, type FakeSignal } from '../../helpers/fake-signal.ts';
import { runConformance } from './suite.ts';

let sg: FakeSignal;

runConformance({
  platform: 'signal',
  limit: 8000,
  owner: '+15551110000',
  stranger: '+15552220000',
  impostor: '+15553330000',
  noEdits: 'signal-cli cannot edit sent messages here, so replies arrive whole (split at 8000)',
  async start() {
    sg = await startFakeSignal();
    return { env: { SIGNAL_HTTP_URL: sg.url, SIGNAL_ACCOUNT: sg.account } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (sg.streams() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => sg.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    const attachments = o?.image ? [{ id: `att${Date.now()}`, contentType: o.image.mimeType, filename: o.image.name, size: o.image.bytes.length }] : undefined;
    if (o?.image) sg.attachments.set(attachments![0].id, o.image.bytes);
    sg.userMessage({ from: user, text, attachments, name: o?.displayName });
  },
  messages: (user) => sg.rpcs.filter((r) => r.method === 'send' && r.params.recipient?.[0] === user).map((r) => ({ id: String(r.timestamp), text: String(r.params.message), edits: 0 })),
  async drop() {
    sg.drop();
  },
  connections: () => sg.connections(),
});
