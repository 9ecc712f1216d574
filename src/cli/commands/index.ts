// Each module registers its own subcommands; their implementations load lazily on use.
import type { Command } from 'commander';
import acp from './acp.ts';
import chat from './chat.ts';
import config from './config.ts';
import mcp from './mcp.ts';
import version from './version.ts';

export const COMMAND_MODULES: ((program: Command) => void)[] = [chat, acp, config, mcp, version];
