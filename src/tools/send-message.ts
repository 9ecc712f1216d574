// send_message: deliver a message to another chat (Telegram, Discord, Slack, email) through the
// gateway's delivery router, or, outside the gateway, straight through the platform's API.
import type { Zod } from './zod.ts';
import { defineTool } from './registry.ts';
import { fail, ok } from './result.ts';
import type { MessagingService, ToolServices } from './types.ts';

/** A chat platform has credentials in the environment. */
function anyPlatformConfigured(env: NodeJS.ProcessEnv): boolean {
  return !!(env.TELEGRAM_BOT_TOKEN || env.DISCORD_BOT_TOKEN || env.SLACK_BOT_TOKEN || (env.EMAIL_ADDRESS && env.EMAIL_PASSWORD && env.EMAIL_SMTP_HOST));
}

async function messagingFor(s: ToolServices): Promise<MessagingService> {
  if (s.messaging) return s.messaging;
  // No gateway in this process: a send-only router over the platforms' own APIs (loaded on use).
  const { standaloneRouter } = await import('../gateway/delivery.ts');
  const router = standaloneRouter(s.env, s.config as never);
  return { send: (t, c, o) => router.send(t, c, { origin: o, source: 'send_message' }), list: () => router.listTargets() };
}

export default defineTool({
  name: 'send_message',
  toolset: 'messaging',
  emoji: '📨',
  description:
    'Send a message to another chat (your reply already reaches this one). Targets: "telegram" (home channel), "platform:chat_id[:thread_id]", ' +
    '"slack:#channel", "email:a@b.c", "signal:+1555…", or "origin". action="list" shows the chats you can reach: use it when the user names one. ' +
    '`MEDIA:/abs/path` on its own line attaches a file.',
  schema: (z: Zod) =>
    z.object({
    action: z.enum(['send', 'list']).optional().describe('send (default) or list the reachable chats'),
    target: z.string().optional().describe('Where to send (see description)'),
    message: z.string().optional().describe('The message text'),
  }),
  check: (s) => s.platform !== 'api_server' && s.platform !== 'webhook' && (s.depth ?? 0) === 0 && (!!s.messaging || anyPlatformConfigured(s.env)),
  requirement: (s) =>
    s.platform === 'api_server' || s.platform === 'webhook'
      ? `not offered to ${s.platform === 'api_server' ? 'API server' : 'webhook'} runs`
      : (s.depth ?? 0) > 0
        ? 'not offered to subagents'
        : 'needs a messaging platform: TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN, SLACK_BOT_TOKEN or EMAIL_ADDRESS + EMAIL_PASSWORD + EMAIL_SMTP_HOST (`hermes gateway setup`)',
  async handler(a, ctx) {
    const m = await messagingFor(ctx.services);
    if ((a.action ?? 'send') === 'list') return ok(m.list() as unknown as Record<string, unknown>);
    if (!a.target?.trim()) return fail('send_message needs a `target` (e.g. "telegram" for the home channel, or "telegram:<chat_id>"). Call with action="list" to see reachable chats.');
    if (!a.message?.trim()) return fail('send_message needs a non-empty `message`.');
    const r = await m.send(a.target, a.message, ctx.services.origin);
    if (!r.ok) return fail(r.error ?? 'The message could not be delivered.');
    return ok({ success: true, target: a.target, platform: r.platform ?? null, chat_id: r.chatId ?? null });
  },
});
