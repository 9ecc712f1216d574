import type { Command } from 'commander';
import { collectList, lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const memory = program.command('memory').description('the external memory provider (one beside the built-in MEMORY.md / USER.md)');
  const run = lazyActions(() => import('../memory-cmd.ts'));
  memory.action(run('status'));
  memory.command('status').description('the active provider, its settings and a connection test').action(run('status'));
  memory
    .command('setup [provider]')
    .description('choose a provider and configure it (prompts on a terminal), then test the connection')
    .option('--set <key=value>', 'a setting of the provider (repeatable), e.g. --set api_key=… --set host=http://localhost:8888', collectList)
    .action(run('setup'));
  memory.command('off').description('turn the external provider off (built-in memory stays on)').action(run('off'));
}
