// Each module registers its own subcommands; their implementations load lazily on use.
import type { Command } from 'commander';
import batch from './batch.ts';
import chat from './chat.ts';
import config from './config.ts';
import cron from './cron.ts';
import sessions from './sessions.ts';
import skills from './skills.ts';
import version from './version.ts';

export const COMMAND_MODULES: ((program: Command) => void)[] = [chat, batch, config, cron, sessions, skills, version];
