// The gateway's own /stop and /queue (surface `gateway`), which replace the shared ones in the
// gateway's registry: they act on the chat's queue of waiting messages, not only on the session.
// The other chat commands (/approve, /deny, /sethome, /start, /restart, /platform, /commands) are
// the shared registry's (src/commands/chat.ts) through SurfaceHooks.chat.
import { t } from '../i18n/index.ts';
import type { ChatPlatformRow, CommandContext, CommandDef, SurfaceHooks } from '../commands/registry.ts';

/** The gateway process as the chat commands reach it (the daemon sets it on the runner). */
export interface GatewayControl {
  /** Drains running turns, stops, and starts the gateway again; false when a restart is under way. */
  restart(requestedBy: { platform: string; chatId: string; threadId?: string }): boolean;
  platforms(): ChatPlatformRow[];
  pause(name: string): string;
  resume(name: string): string;
}

export interface GatewayCommandHooks extends SurfaceHooks {
  gateway: {
    running: boolean;
    stop(): { wasRunning: boolean; dropped: number };
    /** Queues a prompt to run after the current turn; returns how many wait. */
    queue(text: string): number;
  };
}

const gw = (ctx: CommandContext) => (ctx.hooks as GatewayCommandHooks).gateway;

export function gatewayCommands(): CommandDef[] {
  return [
    {
      name: 'stop',
      description: 'stop the running task and drop queued messages',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx) {
        const r = gw(ctx).stop();
        return { output: r.wasRunning ? (r.dropped ? t('gateway.stopped_dropped', { count: r.dropped }) : t('gateway.stopped')) : t('commands.nothing_running'), action: 'stop' };
      },
    },
    {
      name: 'queue',
      aliases: ['q'],
      args: '<prompt>',
      description: 'run a prompt after the current task',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx, args) {
        if (!args) return { output: t('commands.queue_usage') };
        if (!gw(ctx).running) return { send: args };
        return { output: t('gateway.queued', { count: gw(ctx).queue(args) }) };
      },
    },
  ];
}
