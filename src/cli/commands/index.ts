// Each module registers its own subcommands; their implementations load lazily on use.
import type { Command } from 'commander';
import acp from './acp.ts';
import auth from './auth.ts';
import batch from './batch.ts';
import chat from './chat.ts';
import config from './config.ts';
import cron from './cron.ts';
import fallback from './fallback.ts';
import dashboard from './dashboard.ts';
import gateway from './gateway.ts';
import hooks from './hooks.ts';
import insights from './insights.ts';
import kanban from './kanban.ts';
import logs from './logs.ts';
import mcp from './mcp.ts';
import memory from './memory.ts';
import onboarding from './onboarding.ts';
import pairing from './pairing.ts';
import plugins from './plugins.ts';
import profile from './profile.ts';
import send from './send.ts';
import sessions from './sessions.ts';
import skills from './skills.ts';
import version from './version.ts';
import webhook from './webhook.ts';
import whatsapp from './whatsapp.ts';

export const COMMAND_MODULES: ((program: Command) => void)[] = [chat, onboarding, acp, auth, batch, config, cron, dashboard, fallback, gateway, hooks, insights, kanban, logs, mcp, memory, pairing, plugins, profile, send, sessions, skills, webhook, whatsapp, version];
