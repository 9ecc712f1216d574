// Messaging-only slash commands (surface `gateway`), added to the one command registry by the
// gateway: /approve, /deny, /sethome, /start, and the gateway's own /stop and /queue (which act on
// the chat's queue of waiting messages, not only on the session).
import { t } from '../i18n/index.ts';
import type { CommandContext, CommandDef, SurfaceHooks } from '../commands/registry.ts';
import type { SessionSource } from './types.ts';

export interface GatewayCommandHooks extends SurfaceHooks {
  gateway: {
    source: SessionSource;
    running: boolean;
    stop(): { wasRunning: boolean; dropped: number };
    approve(choice: 'once' | 'session' | 'always' | 'deny'): boolean;
    setHome(): string;
    /** Queues a prompt to run after the current turn; returns how many wait. */
    queue(text: string): number;
  };
}

const gw = (ctx: CommandContext) => (ctx.hooks as GatewayCommandHooks).gateway;

export function gatewayCommands(): CommandDef[] {
  return [
    {
      name: 'approve',
      args: '[session|always]',
      description: 'approve the command the agent is waiting on (once, for this session, or always)',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      completions: ['session', 'always'],
      run(ctx, args) {
        const a = args.trim().toLowerCase();
        const choice = a === 'session' || a === 'always' ? a : a === '' || a === 'once' ? 'once' : null;
        if (!choice) return { output: t('gateway.approve_usage') };
        return { output: gw(ctx).approve(choice) ? t(`gateway.approved_${choice}`) : t('gateway.nothing_pending') };
      },
    },
    {
      name: 'deny',
      description: 'deny the command the agent is waiting on',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx) {
        return { output: gw(ctx).approve('deny') ? t('gateway.denied') : t('gateway.nothing_pending') };
      },
    },
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
    {
      name: 'sethome',
      aliases: ['set-home'],
      description: 'make this chat the home channel (where cron reports and deliveries go)',
      category: 'config',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx) {
        const src = gw(ctx).source;
        const saved = gw(ctx).setHome();
        return { output: t('gateway.sethome', { platform: src.platform, saved }) };
      },
    },
    {
      name: 'start',
      description: 'say hello',
      category: 'info',
      surfaces: ['gateway'],
      midTurn: true,
      run() {
        return { output: t('gateway.start') };
      },
    },
  ];
}
