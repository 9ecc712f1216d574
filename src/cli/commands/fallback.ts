import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const fallback = program.command('fallback').description('the fallback providers tried in order when the primary model fails');
  const run = lazyActions(() => import('../fallback-cmd.ts'));
  fallback.action(run('list'));
  fallback.command('list').alias('ls').description('show the fallback chain').action(run('list'));
  fallback
    .command('add')
    .description('append a provider + model to the chain (prompts on a terminal)')
    .option('--provider <id>', 'provider id, or the name of an endpoint under providers:')
    .option('-m, --model <model>', 'model to use on it')
    .option('--base-url <url>', 'endpoint (default: the provider’s)')
    .option('--api-mode <mode>', 'wire format (chat_completions, anthropic_messages, codex_responses)')
    .action(run('add'));
  fallback.command('remove [number]').alias('rm').description('remove an entry (its number in `hermes fallback list`)').action(run('remove'));
  fallback.command('clear').description('remove every entry').option('-y, --yes', 'do not ask for confirmation').action(run('clear'));
}
