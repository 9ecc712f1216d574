import type { Command } from 'commander';
import { collectList, lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const hooks = program.command('hooks').description('shell hooks (config.yaml `hooks:`), their consent, and gateway hooks (HERMES_HOME/hooks)');
  const run = lazyActions(() => import('../hooks-cmd.ts'));
  hooks.command('list', { isDefault: true }).description('configured hooks with matcher, timeout and consent status').option('--json', 'print JSON').action(run('list'));
  hooks
    .command('test <event>')
    .description('fire the matching shell hooks with a sample payload and show what each returns')
    .option('--for-tool <name>', 'tool name for pre_tool_call / post_tool_call payloads')
    .option('--payload-file <path>', 'a JSON file with the payload fields to send')
    .option('--arg <key=value>', 'a tool argument for the sample payload (repeatable)', collectList)
    .action(run('test'));
  hooks.command('revoke <command>').description('remove the consent for a hook command (takes effect on the next start)').action(run('revoke'));
  hooks.command('doctor').description('check every configured hook: executable, approved, edited since, JSON output, run time').action(run('doctor'));
}
