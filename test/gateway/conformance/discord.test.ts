// Discord through discord.js against a fake Discord (REST v10 + Gateway WebSocket).
import { startFakeDiscord, type FakeDiscord } from '../../helpers/fake-discord.ts';
import { runConformance } from './suite.ts';

let dc: FakeDiscord;
const OWNER = '100000000000000001';
const STRANGER = '100000000000000002';
const IMPOSTOR = '100000000000000003';
const dm = (user: string) => `2${user.slice(1)}`;

runConformance({
  platform: 'discord',
  limit: 2000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: IMPOSTOR,
  async start() {
    dc = await startFakeDiscord();
    return { env: { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_BASE: dc.apiBase } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (dc.sockets() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => dc.close(),
  dmChat: (user) => dm(user),
  async send(user, text, o) {
    if (o?.image) {
      dc.files.set('400000000000000001', { bytes: o.image.bytes, type: o.image.mimeType, name: o.image.name });
      dc.userMessage({ user, channel: dm(user), text, attachments: ['400000000000000001'] });
      return;
    }
    // The fake's name is both the username and the global (display) name.
    dc.userMessage({ user, channel: dm(user), text, username: o?.displayName });
  },
  messages: (user) => dc.messages.filter((m) => m.channel_id === dm(user)).map((m) => ({ id: m.id, text: m.content, edits: m.edits })),
  async drop() {
    dc.drop();
  },
  connections: () => dc.connections(),
});
