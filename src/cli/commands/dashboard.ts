import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../dashboard-cmd.ts'));
  const dash = program
    .command('dashboard')
    .description('the web dashboard: chat, sessions, config and keys, analytics, logs, cron, skills, gateway')
    .option('--port <port>', 'port to listen on (default 9119)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; anything else needs dashboard.basic_auth)')
    .option('--no-open', 'do not open a browser')
    .option('--insecure', 'ignored (a public bind always needs a login)')
    .action(run('dashboard'));
  dash
    .command('hash-password')
    .description('print an scrypt hash for dashboard.basic_auth.password_hash (reads the password from stdin)')
    .action(run('hashPassword'));
  program
    .command('serve')
    .description('the dashboard without opening a browser (headless: for services and remote machines)')
    .option('--port <port>', 'port to listen on (default 9119)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; anything else needs dashboard.basic_auth)')
    .action(run('serve'));
}
