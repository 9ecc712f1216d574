import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const pairing = program.command('pairing').description('approve people who messaged the bot (DM pairing codes)');
  const run = lazyActions(() => import('../gateway-cmd.ts'));
  pairing.command('list', { isDefault: true }).description('pending requests and approved users').option('--platform <name>', 'only this platform').option('--json', 'print as JSON').action(run('pairingList'));
  pairing.command('approve <platform> <code>').description('approve the user who got this pairing code').action(run('pairingApprove'));
  pairing.command('revoke <platform> <user-id>').description('remove an approved user').action(run('pairingRevoke'));
  pairing.command('clear-pending').description('drop all pending pairing requests').option('--platform <name>', 'only this platform').action(run('pairingClearPending'));
}
