// Discord's platform-native events for plugins (`gateway_platform_event`), normalized as Hermes does:
// message edits and deletes (the author is the actor; the bot's own edits are noise and never sent;
// a delete discord.js did not have cached carries no author and never fires) and thread created /
// renamed (the thread's owner is the actor, since Discord's event names none). Payloads are plain,
// capped strings: no SDK objects. The gateway authorizes the actor before any plugin sees the event.
import type { InboundHandlers, SessionSource } from '../types.ts';

type Emit = NonNullable<InboundHandlers['platformEvent']>;
type Built = { payload: Record<string, unknown>; source: SessionSource } | null;

const cap = (v: unknown, n: number): string | null => (v === undefined || v === null || v === '' ? null : String(v).slice(0, n));

/** The channel's `(threadId, chatId)`: in a thread both are the thread's id (Hermes's payload key). */
function where(ch: any): { threadId: string | null; chatId: string | null; parentId: string | null } {
  if (!ch?.id) return { threadId: null, chatId: null, parentId: null };
  const thread = !!ch.isThread?.();
  return { threadId: thread ? String(ch.id) : null, chatId: String(ch.id), parentId: thread && ch.parentId ? String(ch.parentId) : null };
}

function message(m: any, extra: (m: any, author: any) => Record<string, unknown>): Built {
  const author = m?.author;
  if (!author || author.bot) return null;
  const { threadId, chatId, parentId } = where(m.channel);
  if (!chatId || !m.id || !author.id) return null;
  const dm = !m.guildId;
  return {
    payload: { chat_id: cap(chatId, 128), message_id: cap(m.id, 128), thread_id: cap(threadId, 128), ...extra(m, author) },
    source: {
      platform: 'discord',
      // Sessions key a thread under its parent channel (see discord.ts); the payload keeps Hermes's ids.
      chatId: parentId ?? chatId,
      chatType: dm ? 'dm' : threadId ? 'thread' : 'group',
      userId: String(author.id),
      userHandle: uniqueDiscordName(author),
      userName: author.username,
      threadId: threadId ?? undefined,
      scopeId: m.guildId ?? undefined,
    },
  };
}

function thread(t: any, extra: Record<string, unknown>): Built {
  if (!t?.id || !t.ownerId) return null;
  return {
    payload: { thread_id: cap(t.id, 128), parent_chat_id: cap(t.parentId, 128), ...extra },
    source: { platform: 'discord', chatId: String(t.parentId ?? t.id), chatType: 'thread', userId: String(t.ownerId), threadId: String(t.id), scopeId: t.guildId ?? undefined },
  };
}

/** Subscribes the discord.js client's edit/delete/thread events; `log` hears normalization errors. */
export function watchDiscordEvents(client: { on(event: string, fn: (...args: any[]) => void): unknown }, emit: Emit, log: (line: string) => void): void {
  const fire = (eventType: string, build: () => Built) => {
    try {
      const b = build();
      if (b) emit({ source: b.source, eventType, payload: b.payload });
    } catch (e) {
      log(`discord: ${eventType} event: ${(e as Error).message}`);
    }
  };
  client.on('messageUpdate', (before: any, after: any) =>
    fire('message_edited', () =>
      message(after ?? before, (m) => ({
        text: typeof m.content === 'string' ? m.content.slice(0, 8192) : null,
        edited_at: m.editedAt instanceof Date ? m.editedAt.toISOString().slice(0, 64) : null,
      })),
    ),
  );
  client.on('messageDelete', (m: any) => fire('message_deleted', () => message(m, (_m, author) => ({ author_id: cap(author.id, 128) }))));
  client.on('threadCreate', (t: any) => fire('thread_created', () => thread(t, { name: cap(t?.name, 256), owner_id: cap(t?.ownerId, 128) })));
  client.on('threadUpdate', (before: any, after: any) =>
    fire('thread_renamed', () => (before?.name === after?.name || typeof after?.name !== 'string' ? null : thread(after, { old_name: cap(before?.name, 256), new_name: after.name.slice(0, 256) }))),
  );
}

/** A Discord username only when it is unique (the new username system: discriminator "0"); a legacy `name#1234` is not. */
export function uniqueDiscordName(u: { username?: string; discriminator?: string | null } | null | undefined): string | undefined {
  return u?.username && u.discriminator === '0' ? u.username : undefined;
}
