import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const peer = program.command('peer').description('other Hermes gateways this one can message, bot to bot (add, list, remove, dm)');
  const run = lazyActions(() => import('../peer-cmd.ts'));
  peer
    .command('add <name>')
    .description("register a peer: its API server URL and key (the key goes to .env as HERMES_PEER_<NAME>_KEY)")
    .option('--url <url>', "the peer's API server, e.g. http://10.0.0.5:8642")
    .option('--key <key>', "the peer's API_SERVER_KEY")
    .option('--note <text>', 'what this peer is')
    .action(run('add'));
  peer.command('list').alias('ls').description('list peers (never their keys)').option('--json', 'print as JSON').action(run('list'));
  peer.command('remove <name>').alias('rm').description('forget a peer and its key').action(run('remove'));
  peer
    .command('dm <peer> [message...]')
    .description("send a message to a peer's Bot Chat (<peer> or <peer>/<agent>) and print the reply")
    .option('-q, --query <text>', 'the message')
    .option('--query-file <path>', 'read the message from a file (- for stdin)')
    .action(run('dm'));
}
