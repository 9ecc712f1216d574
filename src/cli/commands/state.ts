import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../state-migrate.ts'));
  const state = program.command('state').description('the state store (state.db, or PostgreSQL with state.backend: postgres)');
  state
    .command('migrate')
    .description("copy this home's state.db into PostgreSQL (same ids and titles; run again to copy what is new)")
    .requiredOption('--to <backend>', 'postgres')
    .option('--url <url>', 'the database (default: HERMES_DATABASE_URL, then state.url)')
    .action(run('stateMigrate'));
}
