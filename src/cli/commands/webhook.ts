import type { Command } from 'commander';
import { collectList, lazyActions } from '../errors.ts';


export default function register(program: Command): void {
  const wh = program.command('webhook').description('webhook routes that trigger agent runs (dynamic subscriptions)');
  const run = lazyActions(() => import('../gateway-cmd.ts'));
  wh.command('subscribe <name>')
    .alias('add')
    .description('create or replace a webhook route; prints its URL and secret')
    .option('--prompt <template>', 'prompt template, {dot.path} reads the payload ({__raw__} = all of it)')
    .option('--events <list>', 'accept only these event types (comma-separated)', collectList)
    .option('--skills <list>', 'skills to load for the run (comma-separated)', collectList)
    .option('--deliver <target>', 'where the answer goes: log (default), telegram, discord, slack, email, github_comment, or platform:chat_id')
    .option('--deliver-chat-id <id>', 'chat id for --deliver (default: the platform home channel)')
    .option('--secret <secret>', 'HMAC secret (default: a new random one)')
    .option('--deliver-only', 'skip the agent: deliver the rendered prompt as the message')
    .option('--description <text>', 'what this route is for')
    .action(run('webhookSubscribe'));
  wh.command('list').alias('ls').description('list webhook routes').option('--json', 'print as JSON').action(run('webhookList'));
  wh.command('remove <name>').alias('rm').description('remove a subscription').action(run('webhookRemove'));
  wh.command('test <name>').description('send a signed test event to the running gateway').option('--payload <json>', 'the JSON payload to send', '{"event_type":"test","message":"Hello from hermes webhook test"}').action(run('webhookTest'));
}
