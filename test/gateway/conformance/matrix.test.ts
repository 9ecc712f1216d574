// Matrix through matrix-js-sdk against a fake homeserver (long-polled /sync).
import { startFakeMatrix, type FakeMatrix } from '../../helpers/fake-matrix.ts';
import { runConformance, type BotMessage } from './suite.ts';

let mx: FakeMatrix;
const OWNER = '@alice:fake.test';
const STRANGER = '@mallory:fake.test';
const IMPOSTOR = '@eve:evil.test';
const roomOf = (user: string) => `!dm-${user.slice(1).split(':')[0]}:fake.test`;
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

runConformance({
  platform: 'matrix',
  limit: 16_000,
  owner: OWNER,
  stranger: STRANGER,
  impostor: IMPOSTOR,
  async start() {
    mx = await startFakeMatrix();
    mx.room(roomOf(OWNER), [OWNER]);
    mx.room(roomOf(STRANGER), [STRANGER]);
    // The impostor's display name in their room is the owner's user id (the suite's pose).
    mx.room(roomOf(IMPOSTOR), [IMPOSTOR], { [IMPOSTOR]: OWNER });
    return { env: { MATRIX_HOMESERVER: mx.url, MATRIX_ACCESS_TOKEN: mx.token, MATRIX_USER_ID: mx.botId } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (mx.polling() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => mx.close(),
  dmChat: (user) => roomOf(user),
  async send(user, text, o) {
    if (o?.image) {
      const id = `img${Date.now()}`;
      mx.media.set(id, { bytes: o.image.bytes, type: o.image.mimeType });
      mx.userMessage({ roomId: roomOf(user), sender: user, content: { msgtype: 'm.image', body: text, filename: o.image.name, url: `mxc://fake.test/${id}`, info: { mimetype: o.image.mimeType, size: o.image.bytes.length } } });
      return;
    }
    // (displayName: the impostor's member display name is set when its room is made, in start.)
    mx.userMessage({ roomId: roomOf(user), sender: user, body: text });
  },
  messages(user) {
    const out = new Map<string, BotMessage>();
    for (const e of mx.events) {
      if (e.room_id !== roomOf(user) || e.sender !== mx.botId || e.type !== 'm.room.message') continue;
      const rel = e.content['m.relates_to'];
      if (rel?.rel_type === 'm.replace') {
        const m = out.get(rel.event_id);
        if (m) out.set(m.id, { ...m, text: String(e.content['m.new_content'].formatted_body ?? e.content['m.new_content'].body), edits: m.edits + 1 });
      } else out.set(e.event_id, { id: e.event_id, text: String(e.content.formatted_body ?? e.content.body), edits: 0 });
    }
    return [...out.values()];
  },
  plain: (html) =>
    unescape(
      html
        .replace(/<pre><code class="language-([^"]*)">/g, '```$1\n')
        .replace(/<pre><code>/g, '```\n')
        .replace(/<\/code><\/pre>/g, '\n```')
        .replace(/<br>/g, '\n')
        .replace(/<[^>]+>/g, ''),
    ),
  async drop() {
    mx.drop();
  },
  connections: () => mx.connections(),
});
