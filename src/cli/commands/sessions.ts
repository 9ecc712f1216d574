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
    .option('--workspace <needle>', 'only sessions of one workspace (git repository top, else folder): a path part or the folder name')
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
  const maint = lazyActions(() => import('../sessions-maint.ts'));
  const filters = (c: Command, verb: string) =>
    c
      .option('--older-than <age>', `${verb} sessions started before AGE ago (5h, 2d, 1w, a number of days, or a date)`)
      .option('--before <time>', 'started before TIME (an age like 5h, or a date like 2026-07-05 14:30)')
      .option('--after <time>', 'started at or after TIME')
      .option('--newer-than <age>', 'started within the last AGE')
      .option('--source <source>', 'only sessions of this source')
      .option('--title <words>', 'only sessions whose title contains this')
      .option('--min-messages <n>', 'only sessions with at least N messages')
      .option('--max-messages <n>', 'only sessions with at most N messages')
      .option('--dry-run', 'list the matching sessions, change nothing')
      .option('-y, --yes', 'do not ask for confirmation');
  filters(sessions.command('prune').description('delete ended sessions (older than 90 days unless filters say otherwise; archived ones stay)'), 'delete')
    .option('--include-archived', 'archived sessions too')
    .action(maint('prune'));
  filters(sessions.command('archive [sessions...]').description('hide sessions (by id or title, or by filters) from lists, search and --continue; nothing is deleted'), 'archive').action(maint('archive'));
  sessions.command('unarchive <sessions...>').description('show archived sessions again').action(maint('unarchive'));
  sessions.command('optimize').description('reclaim disk space: merge the search index and VACUUM (no data changes)').option('--force', 'even while the gateway has state.db open').action(maint('optimize'));
  sessions
    .command('optimize-storage')
    .description('convert the search index of a state.db from before v23 to the compact v23 layout, then VACUUM (no conversation data changes)')
    .option('--no-vacuum', 'skip the final VACUUM')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--force', 'even while the gateway has state.db open')
    .action(maint('optimizeStorage'));
  sessions
    .command('repair')
    .description('check state.db and rebuild its search index (a backup copy is made first)')
    .option('--check-only', 'only report whether the database is sound')
    .option('--no-backup', 'skip the backup copy')
    .action(maint('repair'));
  sessions
    .command('recover')
    .description('rebuild what can be read of a damaged state.db into a separate new database (the source and the active one are never changed)')
    .requiredOption('--source <db>', 'the damaged state.db, or a preserved copy of it')
    .option('--output <db>', 'the new database to write (required unless --inspect-only)')
    .option('--inspect-only', 'only report which tables and rows can be read')
    .option('--work-dir <dir>', 'existing folder for the disposable source copy (default: beside the output)')
    .option('--chunk-size <n>', 'rows per batch (default 1000)')
    .option('--allow-partial', 'salvage around damaged rows; every skipped range is recorded in the report')
    .option('--report <file>', 'JSON report path (default <output>.recovery.json)')
    .action(maint('recover'));
  sessions.command('browse').description('pick a session interactively (type to search) and resume it').option('--source <source>', 'only this source').option('--limit <n>', 'how many to load (default 500)').action(maint('browse'));
  sessions.command('rename <session> <title...>').description('set a session’s title').action(run('rename'));
  sessions.command('stats').description('how much is stored: sessions, messages, tokens, size').option('--json', 'print JSON').action(run('stats'));
}
