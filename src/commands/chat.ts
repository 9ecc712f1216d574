// The messaging chat's commands (surface `gateway`, as Hermes's gateway_only ones): /approve, /deny,
// /sethome, /start, /restart, /platform, /commands and /topic. They act through the chat's ports
// (SurfaceHooks.chat, lent by src/gateway/command-dispatch.ts); in the registry so every surface's
// /help, completion and the dashboard's command list see them where they apply.
import { t } from '../i18n/index.ts';
import type { ChatPorts, CommandContext, CommandDef, CommandRegistry } from './registry.ts';

/** The chat's ports; a command of surface `gateway` run without them says so. */
function chat(ctx: CommandContext): ChatPorts {
  if (!ctx.hooks.chat) throw new Error('this command works in a messaging chat (the gateway)');
  return ctx.hooks.chat;
}

/** Entries per /commands page: Telegram's smaller screen gets 15, as in Hermes. */
export const commandsPageSize = (platform: string) => (platform === 'telegram' ? 15 : 20);

export function chatCommands(registry: () => CommandRegistry): CommandDef[] {
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
        return { output: chat(ctx).approve(choice) ? t(`gateway.approved_${choice}`) : t('gateway.nothing_pending') };
      },
    },
    {
      name: 'deny',
      description: 'deny the command the agent is waiting on',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx) {
        return { output: chat(ctx).approve('deny') ? t('gateway.denied') : t('gateway.nothing_pending') };
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
        const c = chat(ctx);
        return { output: t('gateway.sethome', { platform: c.platform, saved: c.setHome() }) };
      },
    },
    {
      name: 'start',
      description: 'say hello (the platform sends /start when a chat opens)',
      category: 'info',
      surfaces: ['gateway'],
      midTurn: true,
      run() {
        return { output: t('gateway.start') };
      },
    },
    {
      name: 'restart',
      description: 'restart the gateway gracefully, after the running tasks finish',
      category: 'session',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx) {
        const r = chat(ctx).restart();
        if (typeof r === 'string') return { output: r };
        return { output: r.running ? `⏳ Draining ${r.running} active agent(s) before restart...` : "♻ Restarting gateway. If you aren't notified within 60 seconds, restart from the console with `hermes gateway restart`." };
      },
    },
    {
      name: 'platform',
      args: '<list|pause|resume> [name]',
      description: "list the gateway's platforms, or pause / resume retrying a failing one",
      category: 'info',
      surfaces: ['gateway'],
      midTurn: true,
      completions: ['list', 'pause', 'resume'],
      run(ctx, args) {
        const [action = 'list', target = ''] = args.trim().toLowerCase().split(/\s+/).filter(Boolean);
        const c = chat(ctx);
        if (action === 'list') {
          const rows = c.platforms();
          const up = rows.filter((p) => p.state === 'connected').map((p) => p.name).sort();
          const down = rows.filter((p) => p.state !== 'connected');
          const lines = ['Gateway platforms', `Connected: ${up.join(', ') || '(none)'}`];
          if (!down.length) lines.push('Failed/paused: (none)');
          for (const p of down) {
            if (p.state === 'paused') lines.push(`  · ${p.name} — PAUSED${p.lastError ? ` (${p.lastError})` : ''}. Resume with /platform resume ${p.name}.`);
            else if (p.state === 'failed') lines.push(`  · ${p.name} — failed: ${p.lastError ?? 'cannot start'}`);
            else lines.push(`  · ${p.name} — ${p.state}${p.attempts ? ` (attempt ${p.attempts})` : ''}${p.lastError ? `: ${p.lastError}` : ''}`);
          }
          return { output: lines.join('\n') };
        }
        if (action === 'pause' || action === 'resume') {
          if (!target) return { output: `Usage: /platform ${action} <name>` };
          return { output: action === 'pause' ? c.pausePlatform(target) : c.resumePlatform(target) };
        }
        return {
          output: [
            'Usage: /platform <list|pause|resume> [name]',
            '  /platform list — show platform status',
            '  /platform pause <name> — stop retrying a failing platform',
            '  /platform resume <name> — retry a paused platform',
          ].join('\n'),
        };
      },
    },
    {
      name: 'commands',
      args: '[page]',
      description: 'browse every command and skill, a page at a time',
      category: 'info',
      surfaces: ['gateway'],
      midTurn: true,
      run(ctx, args) {
        const raw = args.trim();
        const requested = raw ? Number(raw) : 1;
        if (!Number.isInteger(requested)) return { output: 'Usage: /commands [page]' };
        const defs = registry().list(ctx.surface);
        const isSkill = (d: CommandDef) => d.description.startsWith('skill: ');
        const entries = defs.filter((d) => !isSkill(d)).map((d) => `/${d.name}${d.args ? ` ${d.args}` : ''} — ${d.description}`);
        const skills = defs.filter(isSkill).sort((a, b) => a.name.localeCompare(b.name));
        if (skills.length) entries.push('', 'Skill commands:', ...skills.map((d) => `/${d.name} — ${d.description.slice(7) || 'run this skill'}`));
        const size = commandsPageSize(ctx.hooks.chat?.platform ?? ctx.session.info.platform);
        const pages = Math.max(1, Math.ceil(entries.length / size));
        const page = Math.max(1, Math.min(requested, pages));
        const lines = [`Commands (${entries.length}, page ${page}/${pages})`, '', ...entries.slice((page - 1) * size, page * size)];
        if (pages > 1) lines.push('', [page > 1 ? `/commands ${page - 1} ← previous` : '', page < pages ? `next → /commands ${page + 1}` : ''].filter(Boolean).join(' | '));
        if (page !== requested) lines.push(`(page ${requested} is out of range; showing page ${page})`);
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'topic',
      args: '[session-id | help]',
      description: "Telegram DM topics: this topic's session, or continue a saved session in it",
      category: 'session',
      surfaces: ['gateway'],
      async run(ctx, args) {
        const c = chat(ctx);
        if (c.platform !== 'telegram' || c.chatType !== 'dm') return { output: 'The /topic command is only available in Telegram private chats.' };
        const a = args.trim();
        if (['help', '?', '-h', '--help'].includes(a.toLowerCase())) return { output: TOPIC_HELP };
        if (['off', 'disable', 'stop'].includes(a.toLowerCase())) return { output: 'Each topic of this chat is its own session here, always; there is no topic mode to turn off. Chat in All Messages for one session without topics.' };
        if (a) {
          if (!c.threadId) return { output: 'To restore a session, first create or open a Telegram topic, then send /topic <session-id> inside that topic. To create a new topic, open All Messages and send any message there.' };
          // The topic's conversation continues the saved session, as /resume does for a chat.
          const r = registry().resolve(`/resume ${a}`, ctx.surface);
          if ('error' in r) return { output: r.error };
          return r.def.run(ctx, r.args);
        }
        if (!c.threadId) return { output: TOPIC_HELP };
        const s = ctx.session;
        const row = s.persisted ? await s.info.store?.getSession(s.id) : null;
        return {
          output: `This topic is linked to:\nSession: ${row?.title ?? 'Untitled session'}\nID: ${s.id}\n\nUse /new to replace this topic with a fresh session.\nFor parallel work, open All Messages and send a message there to create another topic.`,
        };
      },
    },
  ];
}

const TOPIC_HELP = [
  'Telegram topics: each topic of this private chat is an independent Hermes session.',
  '  /topic              in a topic: the session it is linked to',
  '  /topic <session-id> in a topic: continue that saved session there',
  '  /new                in a topic: a fresh session for it',
  'To create a topic, open All Messages and send any message there. If the bot has no topics, open @BotFather → your bot → Bot Settings → Threads Settings and turn on Threaded Mode (users allowed to create threads).',
].join('\n');
