// Each module registers its own subcommands; their implementations load lazily on use.
import type { Command } from 'commander';
import batch from './batch.ts';
import chat from './chat.ts';
import config from './config.ts';
import gateway from './gateway.ts';
import pairing from './pairing.ts';
import sessions from './sessions.ts';
import skills from './skills.ts';
import version from './version.ts';
import webhook from './webhook.ts';

export const COMMAND_MODULES: ((program: Command) => void)[] = [chat, batch, config, gateway, pairing, sessions, skills, webhook, version];
