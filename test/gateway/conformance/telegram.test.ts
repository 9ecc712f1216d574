// Telegram through grammy against the fake Bot API (long polling).
import { startFakeTelegram, type FakeTelegram } from '../../helpers/fake-telegram.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type BotMessage } from './suite.ts';

let tg: FakeTelegram;
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

runConformance({
  platform: 'telegram',
  limit: 4096,
  owner: '111',
  stranger: '222',
  impostor: '333',
  async start() {
    tg = await startFakeTelegram();
    return { env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_REACTIONS: 'true' } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (tg.pollers() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => tg.close(),
  dmChat: (user) => user,
  async send(user, text, o) {
    if (o?.image) {
      const id = `IMG${Date.now()}`;
      tg.files.set(`files/${id}`, o.image.bytes);
      tg.pushRaw({ message: { message_id: Date.now() % 1e6, date: 0, chat: { id: Number(user), type: 'private', first_name: 'U' }, from: { id: Number(user), is_bot: false, first_name: 'U' }, caption: text, document: { file_id: id, file_unique_id: `u${id}`, file_name: o.image.name, mime_type: o.image.mimeType } } });
      return;
    }
    // An impostor has no username and the owner's id as first name (what the outside probe did).
    tg.userMessage({ chatId: Number(user), text, ...(o?.displayName !== undefined ? { firstName: o.displayName } : { username: `user${user}` }) });
  },
  messages(user) {
    const out = new Map<number, BotMessage>();
    for (const c of tg.calls) {
      if (Number(c.params.chat_id) !== Number(user)) continue;
      if (c.method === 'sendMessage' && c.messageId) out.set(c.messageId, { id: String(c.messageId), text: String(c.params.text), edits: 0 });
      if (c.method === 'editMessageText') {
        const m = out.get(Number(c.params.message_id));
        if (m) out.set(Number(m.id), { ...m, text: String(c.params.text), edits: m.edits + 1 });
      }
    }
    return [...out.values()];
  },
  plain: (html) =>
    unescape(
      html
        .replace(/<pre><code class="language-([^"]*)">/g, '```$1\n')
        .replace(/<\/code><\/pre>/g, '\n```')
        .replace(/<pre>/g, '```\n')
        .replace(/<\/pre>/g, '\n```')
        .replace(/<[^>]+>/g, ''),
    ),
  async drop() {
    tg.dropPolling();
  },
  connections: () => tg.connections(),
  extra() {
    test('telegram: with TELEGRAM_REACTIONS=true the message gets 👀 while working, then 👍', () => {
      const r = tg.calls.filter((c) => c.method === 'setMessageReaction' && Number(c.params.chat_id) === 111);
      assert.ok(r.length >= 3, `reactions: ${JSON.stringify(r.map((c) => c.params.reaction))}`);
      assert.deepEqual(r.slice(0, 3).map((c) => (c.params.reaction as { emoji: string }[]).map((x) => x.emoji)), [['👀'], [], ['👍']]);
    });
  },
});
