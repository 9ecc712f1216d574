// Mattermost over REST + WebSocket against a fake Mattermost server.
import { startFakeMattermost, type FakeMattermost } from '../../helpers/fake-mattermost.ts';
import { runConformance } from './suite.ts';

let mm: FakeMattermost;
const OWNER = 'owneruserid000000000000000';
const STRANGER = 'strangeruserid000000000000';

runConformance({
  platform: 'mattermost',
  limit: 4000,
  owner: OWNER,
  stranger: STRANGER,
  async start() {
    mm = await startFakeMattermost();
    return { env: { MATTERMOST_URL: mm.url, MATTERMOST_TOKEN: mm.token } };
  },
  async ready() {
    const deadline = Date.now() + 10_000;
    while (mm.sockets() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => mm.close(),
  dmChat: (user) => `dm-${user}`,
  async send(user, text, o) {
    const fileIds: string[] = [];
    if (o?.image) {
      mm.files.set('img1', { name: o.image.name, mime: o.image.mimeType, bytes: o.image.bytes });
      fileIds.push('img1');
    }
    mm.userPost({ user, channel: `dm-${user}`, text, fileIds });
  },
  messages: (user) => mm.posts.filter((p) => p.channel_id === `dm-${user}`).map((p) => ({ id: p.id, text: p.message, edits: p.edits })),
  async drop() {
    mm.drop();
  },
  connections: () => mm.connections(),
});
