// The messaging service the tools get outside the gateway's chats (CLI, TUI, ACP, `hermes mcp serve`,
// the API server's sessions, subagents): whether any chat platform is configured comes from the
// platform catalog (no adapter or SDK loaded); sending goes through a send-only router over each
// platform's own API, loaded on the first send or list. The gateway gives its chat sessions its own
// service (its live adapters). Surfaces hand it to their Sessions as a port (`standalonePorts`);
// tools see only the MessagingService interface (src/tools/types.ts) and never import the gateway,
// and neither does the Session. Cron runs get no messaging (their toolsets leave it out).
import { cronService } from '../cron/service.ts';
import type { MessagingService, SurfacePorts } from '../tools/types.ts';
import type { DeliveryRouter } from './delivery.ts';
import { configuredChatPlatforms } from './platforms/catalog.ts';

export function standaloneMessaging(env: NodeJS.ProcessEnv, config: object): MessagingService {
  let router: Promise<DeliveryRouter> | null = null;
  const open = () => (router ??= import('./delivery.ts').then((m) => m.standaloneRouter(env, config as Record<string, unknown>)));
  return {
    available: () => configuredChatPlatforms(env, config as Record<string, unknown>).length > 0,
    send: async (target, content, origin, source = 'send_message') => (await open()).send(target, content, { origin, source }),
    list: async () => (await open()).listTargets(),
    close: async () => {
      const r = router;
      router = null;
      if (r) await (await r).close();
    },
  };
}

/** The gateway's service: its own router, always available (it is the messaging process). */
export function routerMessaging(router: DeliveryRouter): MessagingService {
  return {
    available: () => true,
    send: (target, content, origin, source = 'send_message') => router.send(target, content, { origin, source }),
    list: async () => router.listTargets(),
  };
}

/**
 * The ports of every surface outside the gateway's chats (CLI, TUI, ACP, `hermes mcp serve`, the
 * API server's sessions): the send-only messaging above and the cron port. A Session gets them as
 * `ports` (it imports no surface itself).
 */
export const standalonePorts: SurfacePorts = { messaging: standaloneMessaging, cron: cronService };
