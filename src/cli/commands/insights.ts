import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../insights-cmd.ts'));
  program
    .command('insights')
    .description('usage analytics from state.db: tokens, cost, sessions, models, tools, activity')
    .option('--days <n>', 'how many days back (default 30)')
    .option('--source <source>', 'only sessions of this source (cli, telegram, cron, …)')
    .option('--json', 'print the report as JSON')
    .action(run('insights'));
}
