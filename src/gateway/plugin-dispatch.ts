// `pre_gateway_dispatch`: plugins see every incoming gateway message before authorization, pairing
// and dispatch, and may drop it (`{"action": "skip", "reason": …}`), replace its text
// (`{"action": "rewrite", "text": …}`) or let it through (`{"action": "allow"}` — authorization
// still runs). The first valid directive decides; a throw or a timeout is logged and skipped (the
// message goes on). Hermes hands plugins its runner object; here `gateway` is a small facade that
// can answer in the same chat, and `event` is the message as a plain snake_case object.
import type { InboundMessage } from './types.ts';
import { currentPluginHost, pluginHost } from '../plugins/state.ts';

export type DispatchDecision = { action: 'skip'; reason: string } | { action: 'rewrite'; text: string } | null;

const EVENT = 'pre_gateway_dispatch';

/** Whether a loaded plugin registered `pre_gateway_dispatch` for this home (cheap). */
export function wantsDispatchHook(home: string): boolean {
  return !!(pluginHost(home) ?? currentPluginHost())?.hooks.has(EVENT);
}

function eventOf(msg: InboundMessage): Record<string, unknown> {
  const s = msg.source;
  return {
    text: msg.text,
    message_id: msg.messageId,
    reply_to: msg.replyTo ?? null,
    attachments: (msg.attachments ?? []).map((a) => ({ kind: a.kind })),
    internal: false,
    source: { platform: s.platform, chat_id: s.chatId, chat_type: s.chatType, chat_name: s.chatName ?? null, user_id: s.userId ?? null, user_name: s.userName ?? null, thread_id: s.threadId ?? null },
  };
}

/** Runs the hook round for one message; null lets it through unchanged. */
export async function preGatewayDispatch(home: string, msg: InboundMessage, o: { sessionKey: string; reply: (text: string) => Promise<unknown> }): Promise<DispatchDecision> {
  const host = pluginHost(home) ?? currentPluginHost();
  if (!host?.hooks.has(EVENT)) return null;
  const results = await host.hooks.invoke(EVENT, {
    event: eventOf(msg),
    gateway: { platform: msg.source.platform, send: (text: string) => o.reply(String(text)) },
    session_store: { session_key: o.sessionKey },
  });
  for (const { value } of results) {
    if (!value || typeof value !== 'object') continue;
    const v = value as Record<string, unknown>;
    if (v.action === 'skip') return { action: 'skip', reason: typeof v.reason === 'string' ? v.reason : '' };
    if (v.action === 'rewrite' && typeof v.text === 'string') return { action: 'rewrite', text: v.text };
    if (v.action === 'allow') return null;
  }
  return null;
}
