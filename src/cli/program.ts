import { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { COMMAND_MODULES } from './commands/index.ts';
import { CliError, reportAndExit } from './errors.ts';
import { addGlobalOptions, applyProfile, ProfileError } from './global-flags.ts';

export function buildProgram(): Command {
  const program = new Command('hermes')
    .description('Hermes Agent: an AI agent for your terminal, editor and chat apps')
    .version(`hermes ${pkg.version}`, '-V, --version', 'print the version')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error:/, 'hermes:')) })
    // Options before a subcommand are hermes's own (`hermes -m x chat`); after it, the subcommand's.
    .enablePositionalOptions();
  addGlobalOptions(program);
  for (const register of COMMAND_MODULES) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  const program = buildProgram();
  program.exitOverride((err) => {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    process.exit(err.exitCode === 0 ? 0 : 2);
  });
  try {
    try {
      argv = applyProfile(argv);
    } catch (e) {
      if (e instanceof ProfileError) throw new CliError(e.message);
      throw e;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    reportAndExit(err);
  }
}
