// What the gateway core does around deliveries: a message delivered into a known chat is mirrored
// into that conversation, the chats it knows are listed for send_message, and chats whose message a
// previous process took but never answered are told after a restart.
import { t } from '../i18n/index.ts';
import type { Message } from '../llm/types.ts';
import type { KnownChat } from './delivery.ts';
import type { Dedupe, GatewayRunner } from './runner.ts';
import { sourceFromDict, type SessionIndex } from './session-store.ts';
import type { PlatformAdapter } from './types.ts';

/** A message delivered into a chat the gateway knows is mirrored into that conversation. */
export async function mirrorDelivery(r: GatewayRunner, now: () => number, d: { platform: string; chatId: string; threadId?: string; content: string; source: string }): Promise<void> {
  if (d.source.startsWith('cron:')) return; // cron deliveries stay out of chat history (alternation safety)
  for (const e of r.index.find(d.platform, d.chatId, d.threadId)) {
    const warm = r.cache.peek(e.session_key);
    const note: Message = { role: 'assistant', content: d.content, timestamp: now() / 1000 };
    // A running turn is never touched (its messages are being written in order). Consecutive
    // assistant messages are fine: wire adapters that need alternation merge them.
    if (warm) {
      if (warm.lane?.running || !warm.session.addNote(note)) continue;
    }
    try {
      if (await r.transcripts.getStoredSession(e.session_id)) await r.transcripts.appendMessage(e.session_id, note);
    } catch {
      /* mirroring is best effort */
    }
  }
}

/** The chats the gateway has talked in, as delivery targets. */
export function knownChats(index: SessionIndex): KnownChat[] {
  const seen = new Set<string>();
  const out: KnownChat[] = [];
  for (const e of index.all()) {
    if (!e.origin) continue;
    const s = sourceFromDict(e.origin);
    const target = `${s.platform}:${s.chatId}${s.threadId ? `:${s.threadId}` : ''}`;
    if (seen.has(target) || !s.chatId) continue;
    seen.add(target);
    out.push({ target, platform: s.platform, name: s.chatName ?? s.userName, type: s.chatType });
  }
  return out;
}

/** Chats whose message a previous process took but never answered learn about it now. */
export async function reportUnfinished(adapter: PlatformAdapter, dedupe: Dedupe, log: (line: string) => void): Promise<void> {
  const mine = dedupe.unfinished().filter((u) => u.platform === adapter.name);
  const chats = new Map<string, { chatId: string; threadId?: string; keys: string[] }>();
  for (const u of mine) {
    const k = `${u.chatId}:${u.threadId ?? ''}`;
    const c = chats.get(k) ?? { chatId: u.chatId, threadId: u.threadId, keys: [] };
    c.keys.push(u.key);
    chats.set(k, c);
  }
  for (const c of chats.values()) {
    if (adapter.name === 'email' || adapter.name === 'api_server' || adapter.name === 'webhook') {
      for (const k of c.keys) dedupe.finishKey(k);
      continue;
    }
    const r = await adapter.send(c.chatId, t('gateway.restarted'), { threadId: c.threadId });
    if (r.ok) for (const k of c.keys) dedupe.finishKey(k);
    else log(`gateway: could not tell ${adapter.name}:${c.chatId} about an unfinished message: ${r.error}`);
  }
}
