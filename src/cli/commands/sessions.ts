import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const sessions = program.command('sessions').description('list, search, export and clean up saved conversations (state.db)');
  const run = lazyActions(() => import('../sessions.ts'));
  sessions
    .command('list', { isDefault: true })
    .description('recent sessions, most recently active first')
    .option('--source <source>', 'only this source (cli, telegram, discord, cron, acp, …)')
    .option('-n, --limit <n>', 'how many (default 20)')
    .option('--archived', 'only archived sessions (hidden from the list, search and --continue)')
    .option('--include-archived', 'archived sessions too')
    .option('--json', 'print JSON')
    .action(run('list'));
  sessions.command('show <session>').description('print a session’s details and transcript (id, id prefix or title)').option('--json', 'print JSON').action(run('show'));
  sessions
    .command('search <query...>')
    .description('full-text search over every session’s messages')
    .option('--source <source>', 'only sessions of this source (comma-separated list)')
    .option('--role <role>', 'only messages of this role: user, assistant, tool (comma-separated list)')
    .option('-n, --limit <n>', 'how many results (default 20)')
    .option('--include-archived', 'search archived sessions too')
    .option('--json', 'print JSON')
    .action(run('search'));
  sessions
    .command('export <output>')
    .description('write sessions as JSONL, one session with its messages per line (- = stdout)')
    .option('--session-id <session>', 'only this session (id, id prefix or title)')
    .option('--source <source>', 'only sessions of this source')
    .action(run('exportSessions'));
  sessions.command('delete <session>').description('delete a session and its messages').option('-y, --yes', 'do not ask for confirmation').action(run('remove'));
  sessions
    .command('prune')
    .description('delete ended sessions older than N days')
    .option('--older-than <days>', 'age in days (default 90)')
    .option('--source <source>', 'only sessions of this source')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(run('prune'));
  sessions.command('rename <session> <title...>').description('set a session’s title').action(run('rename'));
  sessions.command('stats').description('how much is stored: sessions, messages, tokens, size').option('--json', 'print JSON').action(run('stats'));
}
