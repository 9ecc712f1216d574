// Slack through @slack/bolt in Socket Mode against a fake Slack (Web API + Socket Mode WebSocket).
import { startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.ts';
import { runConformance } from './suite.ts';

let sl: FakeSlack;
const dm = (user: string) => `D${user.slice(1)}`;

runConformance({
  platform: 'slack',
  limit: 39_000,
  owner: 'UOWNER01',
  stranger: 'USTRANGE',
  impostor: 'UIMPOST9',
  async start() {
    sl = await startFakeSlack();
    return { env: { SLACK_BOT_TOKEN: sl.botToken, SLACK_APP_TOKEN: sl.appToken, SLACK_API_URL: sl.apiUrl } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (sl.sockets() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => sl.close(),
  dmChat: (user) => dm(user),
  async send(user, text, o) {
    if (o?.image) {
      sl.files.set('F0IMG', { bytes: o.image.bytes, mimetype: o.image.mimeType, name: o.image.name });
      sl.userMessage({ user, channel: dm(user), text, files: [{ id: 'F0IMG' }] });
      return;
    }
    sl.userMessage({ user, channel: dm(user), text, displayName: o?.displayName });
  },
  messages: (user) => sl.messages.filter((m) => m.channel === dm(user)).map((m) => ({ id: m.ts, text: m.text, edits: m.edits })),
  async drop() {
    sl.drop();
  },
  connections: () => sl.connections(),
});
