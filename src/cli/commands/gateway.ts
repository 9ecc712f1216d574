import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const gw = program.command('gateway').description('the messaging gateway: Telegram, Discord, Slack, email, the OpenAI-compatible API and webhooks');
  const run = lazyActions(() => import('../gateway-cmd.ts'));
  gw.command('run', { isDefault: true })
    .description('run the gateway in the foreground (logs also go to ~/.hermes/logs/gateway.log)')
    .option('--platform <names>', 'only these platforms (comma-separated)')
    .option('-q, --quiet', 'do not echo the log to the terminal')
    .action(run('gatewayRun'));
  gw.command('start').description('start the gateway in the background (or through its installed service)').action(run('gatewayStart'));
  gw.command('stop')
    .description('stop the gateway after running turns finish')
    .option('--timeout <seconds>', 'wait this long for the drain before killing it')
    .action(run('gatewayStop'));
  gw.command('restart').description('stop, then start the gateway').option('--timeout <seconds>', 'drain timeout for the stop').action(run('gatewayRestart'));
  gw.command('status').description('is it running, and which platforms are connected').option('--json', 'print as JSON').action(run('gatewayStatus'));
  gw.command('install')
    .description('install the gateway as a service (systemd user unit on Linux, launchd agent on macOS)')
    .option('--no-start', 'install and enable, but do not start it now')
    .option('--no-manage', 'only write the unit file; do not call systemctl/launchctl')
    .action(run('gatewayInstall'));
  gw.command('uninstall').description('remove the gateway service').option('--no-manage', 'only remove the unit file').action(run('gatewayUninstall'));
  gw.command('setup').description('interactive set-up of messaging platforms (writes .env and config.yaml)').action(run('gatewaySetup'));
  gw.command('list').description('the gateway of every profile: running or stopped, and its platforms').option('--json', 'print as JSON').action(lazyActions(() => import('../gateway-list.ts'))('gatewayList'));
}
