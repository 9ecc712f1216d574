// Slack message edits and deletes for plugins (`gateway_platform_event`), in the envelope shapes
// Hermes uses for Discord (`message_edited`, `message_deleted`): Slack delivers both as `message`
// events with a subtype. Only a person's edit counts (link unfurls also arrive as message_changed,
// without `edited`); a delete names no deleter, so the author of the deleted message is the actor.
// The gateway authorizes that actor before any plugin sees the event.
import type { InboundHandlers, SessionSource } from '../types.ts';

type Emit = NonNullable<InboundHandlers['platformEvent']>;

const cap = (v: unknown, n: number): string | null => (v === undefined || v === null || v === '' ? null : String(v).slice(0, n));

/** Handles a `message_changed` / `message_deleted` event; false for any other message. */
export function slackPlatformEvent(ev: any, o: { botUserId: string; teamId?: string; emit?: Emit }): boolean {
  if (ev?.subtype !== 'message_changed' && ev?.subtype !== 'message_deleted') return false;
  const m = ev.subtype === 'message_changed' ? ev.message : ev.previous_message;
  if (!o.emit || !m?.user || m.bot_id || m.user === o.botUserId) return true;
  if (ev.subtype === 'message_changed' && !m.edited) return true;
  const channel = String(ev.channel ?? '');
  const isDm = ev.channel_type === 'im' || channel.startsWith('D');
  const thread = m.thread_ts && m.thread_ts !== m.ts ? String(m.thread_ts) : null;
  const source: SessionSource = { platform: 'slack', chatId: channel, chatType: isDm ? 'dm' : 'thread', userId: String(m.user), threadId: thread ?? undefined, scopeId: ev.team ?? o.teamId };
  const base = { chat_id: cap(channel, 128), message_id: cap(m.ts ?? ev.deleted_ts, 128), thread_id: cap(thread, 128) };
  if (ev.subtype === 'message_changed') {
    const at = Number(m.edited.ts);
    o.emit({ source, eventType: 'message_edited', payload: { ...base, text: typeof m.text === 'string' ? m.text.slice(0, 8192) : null, edited_at: Number.isFinite(at) ? new Date(at * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00') : null } });
  } else o.emit({ source, eventType: 'message_deleted', payload: { ...base, author_id: cap(m.user, 128) } });
  return true;
}
