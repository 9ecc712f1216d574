// `hermes acp`: run Hermes as an Agent Client Protocol agent on stdio, for editors (Zed, VS Code…).
import type { Command } from 'commander';
import pkg from '../../../package.json' with { type: 'json' };
import { action } from '../errors.ts';

export default function register(program: Command): void {
  program
    .command('acp')
    .description('run as an ACP agent on stdio for editors (Zed, VS Code, JetBrains…)')
    .option('--check', 'check that a model is configured, then exit')
    .option('--version', 'print the version')
    .option('-v, --verbose', 'log protocol activity to stderr')
    .action(
      action(async (opts: { check?: boolean; verbose?: boolean; version?: boolean }) => {
        if (opts.version) {
          process.stdout.write(`hermes ${pkg.version}\n`);
          return;
        }
        const { runAcp } = await import('../acp-cmd.ts');
        await runAcp(opts);
        // Editor gone: stop whatever is left (MCP children, background processes were closed).
        process.exit(0);
      }),
    );
}
