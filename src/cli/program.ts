import { Command, type CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { COMMAND_MODULES } from './commands/index.ts';
import { CliError, reportAndExit } from './errors.ts';
import { nearest } from '../commands/suggest.ts';

export function buildProgram(): Command {
  const program = new Command('hermes')
    .description('Hermes Agent: an AI agent for your terminal, editor and chat apps')
    .version(`hermes ${pkg.version}`, '-V, --version', 'print the version');
  for (const register of COMMAND_MODULES) register(program);
  guardCommands(program);
  return program;
}

const commandPath = (c: Command): string => (c.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name());

function subcommandNames(parent: Command): string[] {
  return parent.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).flatMap((c) => [c.name(), ...c.aliases()]);
}

function findSubcommand(parent: Command, name: string): Command | undefined {
  return parent.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

function unknownCommand(parent: Command, typed: string): never {
  const path = commandPath(parent);
  // An alias and its command are one suggestion, under the command's name.
  const near = [...new Set(nearest(typed, subcommandNames(parent)).map((n) => findSubcommand(parent, n)!.name()))].slice(0, 2);
  const hint = near.length ? ` Did you mean ${near.map((n) => `\`${path} ${n}\``).join(' or ')}?` : '';
  throw new CliError(`unknown command '${parent.parent ? `${parent.name()} ` : ''}${typed}'.${hint} (\`${path} --help\` lists the commands.)`, 2);
}

/**
 * Every level of the command tree, from the commands registered: a word that names no subcommand is
 * an unknown command with the nearest suggestion, also where a default subcommand (`hermes` →
 * chat, `hermes sessions` → list) would otherwise receive it as a stray argument. A default that
 * takes arguments of its own still gets them, unless the word is a near miss of a command; so does
 * a command with its own action beside its subcommands (`hermes auth`).
 * Usage errors (unknown option, missing argument) exit 2 with one `hermes:` line, at every level.
 */
function guardCommands(cmd: Command): void {
  cmd
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error:/, 'hermes:').replace(/\n\(Did you mean (\S+)\?\)/, '. Did you mean `$1`?')) })
    .exitOverride(exitOnCommanderError);
  if (!cmd.commands.length) return;
  cmd.hook('preSubcommand', (parent, sub) => {
    const first = parent.args[0];
    if (first === undefined || first.startsWith('-') || findSubcommand(parent, first)) return;
    // Reached by default dispatch with a word that names no subcommand.
    if (sub.registeredArguments.length && !nearest(first, subcommandNames(parent)).length) return;
    unknownCommand(parent, first);
  });
  cmd.on('command:*', (operands: string[]) => unknownCommand(cmd, operands[0]));
  // A command with subcommands and an action of its own (`hermes auth` → an overview): a word it
  // does not take is a mistyped subcommand, not an argument.
  const own = cmd as unknown as { _actionHandler?: unknown };
  if (own._actionHandler && !cmd.registeredArguments.length) {
    cmd.allowExcessArguments(true);
    cmd.hook('preAction', (self, actionCommand) => {
      const first = actionCommand === cmd ? cmd.args[0] : undefined;
      if (first !== undefined && !first.startsWith('-')) unknownCommand(cmd, first);
    });
  }
  for (const c of cmd.commands) guardCommands(c);
}

function exitOnCommanderError(err: CommanderError): never {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
  process.exit(err.exitCode === 0 ? 0 : 2);
}

export async function main(argv: string[]): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    reportAndExit(err);
  }
}
