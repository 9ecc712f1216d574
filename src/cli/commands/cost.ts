import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../cost-cmd.ts'));
  const cost = program.command('cost').description('spend: where the money and tokens went, and the budgets (config.yaml budgets:)');
  cost
    .command('why [target]')
    .description('a day (today, yesterday, YYYY-MM-DD) or a session id: spend by model, by call kind, cache reads vs writes, largest tool results')
    .option('--json', 'print the report as JSON')
    .action(run('why'));
}
