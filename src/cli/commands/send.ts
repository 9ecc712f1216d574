import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../send-cmd.ts'));
  program
    .command('send [message]')
    .description('send a message to a configured platform without the agent (scripts, CI); exit 0 sent, 1 failed, 2 usage')
    .option('-t, --to <target>', "where: 'telegram' (home channel), 'telegram:<chat>[:<thread>]', 'discord:#ops', 'signal:+15551234567'…")
    .option('-f, --file <path>', "read the message from a text file ('-' for stdin); attach files with MEDIA:<path> lines")
    .option('-s, --subject <line>', 'a header line before the message')
    .option('-l, --list', 'list targets (optionally of one platform: hermes send --list telegram)')
    .option('-q, --quiet', 'print nothing when it worked')
    .option('--json', 'print the result as JSON')
    .action(run('sendCommand'));
}
