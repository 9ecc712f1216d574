import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../whatsapp-cmd.ts'));
  program
    .command('whatsapp')
    .description('set up the WhatsApp bridge and pair it with a phone (QR code)')
    .option('--mode <mode>', 'bot (a separate number) or self-chat (message yourself)')
    .option('--allowed-users <numbers>', 'phone numbers allowed to talk to the agent (country code, no +)')
    .option('--repair', 'forget the saved session and pair again')
    .action(run('whatsappCommand'));
}
