import type { Command } from 'commander';
import pkg from '../../../package.json' with { type: 'json' };

export default function register(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(`hermes ${pkg.version}\n`);
    });
}
