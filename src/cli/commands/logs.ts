import type { Command } from 'commander';
import { lazyActions } from '../errors.ts';

export default function register(program: Command): void {
  const run = lazyActions(() => import('../logs-cmd.ts'));
  program
    .command('logs [log]')
    .description('show HERMES_HOME/logs: agent (default), errors, gateway, gui, or `list` for the files')
    .option('-n, --lines <n>', 'how many recent lines (default 50)')
    .option('-f, --follow', 'keep printing new lines (Ctrl+C stops)')
    .option('--level <level>', 'only this level and above: DEBUG, INFO, WARNING, ERROR, CRITICAL')
    .option('--session <id>', 'only lines of this session (id or part of it)')
    .option('--since <when>', 'only lines newer than this: 30m, 1h, 2d')
    .option('--component <name>', 'only lines of one component: agent, tools, gateway, cron, cli, gui')
    .action(run('logs'));
}
