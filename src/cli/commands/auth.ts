import { Option, type Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const auth = program.command('auth').description('credential pools and sign-ins (auth.json): add, list, remove, reset, refresh, priority, status, logout');
  const run = lazyActions(() => import('../auth-cmd.ts'));
  auth.action(run('overview'));
  auth
    .command('add <provider>')
    .description('add an API key or sign in with OAuth (nous, openai-codex, qwen-oauth; anthropic (Claude Pro/Max) and copilot with --type oauth)')
    .addOption(new Option('--type <type>', 'api-key or oauth (default: oauth for nous, openai-codex, qwen-oauth)').choices(['api-key', 'api_key', 'oauth']))
    .option('--api-key <key>', 'the key (without it: prompted, or read from stdin)')
    .option('--label <label>', 'a name for the credential in `hermes auth list`')
    .option('--priority <n>', 'place it at this position (0 = tried first)')
    .option('--portal-url <url>', 'Nous Portal URL (default https://portal.nousresearch.com)')
    .option('--inference-url <url>', 'Nous inference URL')
    .option('--client-id <id>', 'OAuth client id (Nous)')
    .option('--scope <scope>', 'OAuth scope (Nous)')
    .option('--no-browser', 'do not open a browser; only print the sign-in link')
    .option('--accept-risk', 'Claude Pro/Max sign-in (anthropic --type oauth): go ahead after the warning about Anthropic’s consumer terms without being asked (needed without a terminal)')
    .option('--timeout <seconds>', 'stop waiting for the sign-in after this long')
    .action(run('add'));
  auth.command('list [provider]').alias('ls').description('the credentials of each pool, in the order they are used (keys never shown)').action(run('list'));
  auth.command('remove <provider> [target]').alias('rm').description('remove a credential: its number in `hermes auth list`, its id or its label').action(run('remove'));
  auth.command('reset <provider> [target]').description('clear cooldowns (rate-limited / exhausted) of a pool or one credential').action(run('reset'));
  auth.command('refresh <provider> [target]').description('renew OAuth sign-ins now (all of the provider’s, or one) and clear their cooldown').action(run('refresh'));
  auth.command('priority <provider> <target> <priority>').description('move a credential to a position (0 = tried first)').action(run('priority'));
  auth.command('status [provider]').description('whether you are signed in to a provider').action(run('status'));
  auth.command('logout [provider]').description('forget a provider’s sign-in (default: the active one)').action(run('logout'));
}
