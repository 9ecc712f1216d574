// Each module registers its own subcommands; their implementations load lazily on use.
import type { Command } from 'commander';
import chat from './chat.ts';
import config from './config.ts';
import cron from './cron.ts';
import version from './version.ts';

export const COMMAND_MODULES: ((program: Command) => void)[] = [chat, config, cron, version];
