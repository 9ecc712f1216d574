// send_message: deliver a message to another chat (any configured platform: Telegram, Discord, Slack,
// Matrix, email…) through the messaging service the surface gives (the gateway's delivery router, or
// elsewhere a send-only router over the platforms' APIs: src/gateway/messaging.ts).
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import type { ToolSession } from '../types.ts';

/** A chat platform has credentials (.env or config.yaml) and is not switched off, or this is the gateway. */
const available = (s: ToolSession): boolean => s.messaging?.available() ?? false;

export default defineTool({
  name: 'send_message',
  toolset: 'messaging',
  emoji: '📨',
  description:
    'Send to another chat (your reply already reaches this one). action "list" shows reachable targets. MEDIA:/abs/path on its own line attaches a file.',
  schema: (z: Zod) =>
    z.object({
    action: z.enum(['send', 'list']).optional(),
    target: z.string().optional().describe('"<platform>", "<platform>:<chat_id>[:<thread_id>]" or "origin"'),
    message: z.string().optional(),
  }),
  check: (s) => s.platform !== 'api_server' && s.platform !== 'webhook' && (s.depth ?? 0) === 0 && available(s),
  requirement: (s) =>
    s.platform === 'api_server' || s.platform === 'webhook'
      ? `not offered to ${s.platform === 'api_server' ? 'API server' : 'webhook'} runs`
      : (s.depth ?? 0) > 0
        ? 'not offered to subagents'
        : 'needs a messaging platform: none is configured (`hermes gateway setup` sets up Telegram, Discord, Slack, Matrix, Signal, email and the others)',
  async handler(a, ctx) {
    const m = ctx.messaging;
    if (!m) return fail('send_message is not available here: no messaging service.');
    if ((a.action ?? 'send') === 'list') return ok((await m.list()) as unknown as Record<string, unknown>);
    if (!a.target?.trim()) return fail('send_message needs a `target` (e.g. "telegram" for the home channel, or "telegram:<chat_id>"). Call with action="list" to see reachable chats.');
    if (!a.message?.trim()) return fail('send_message needs a non-empty `message`.');
    const r = await m.send(a.target, a.message, ctx.origin);
    if (!r.ok) return fail(r.error ?? 'The message could not be delivered.');
    return ok({ success: true, target: a.target, platform: r.platform ?? null, chat_id: r.chatId ?? null });
  },
});
