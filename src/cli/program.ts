import { Command, type CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import registerChat from './commands/chat.ts';
import { COMMAND_MODULES } from './commands/index.ts';
import { CliError, reportAndExit } from './errors.ts';
import { ProfileError } from '../state/profiles.ts';
import { addGlobalOptions, applyProfile, applyRootFlags, firstPositional, type GlobalOptions } from './global-flags.ts';
import { editDistance, nearest } from '../commands/suggest.ts';

/** The whole command tree, or (`only`) the root with that one module's commands. */
export function buildProgram(only?: (program: Command) => void): Command {
  const program = new Command('hermes')
    .description('Hermes Agent: an AI agent for your terminal, editor and chat apps')
    .version(`hermes ${pkg.version}`, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'run in this profile (its own HERMES_HOME under profiles/<name>)')
    // Options before a subcommand are hermes's own (`hermes -m x chat`); after it, the subcommand's.
    .enablePositionalOptions();
  addGlobalOptions(program);
  program.hook('preAction', () => {
    const note = applyRootFlags(program.opts() as GlobalOptions);
    if (note) process.stderr.write(`${note}\n`);
  });
  for (const register of only ? [only] : COMMAND_MODULES) register(program);
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

function unknownSubcommand(parent: Command, typed: string): never {
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
    unknownSubcommand(parent, first);
  });
  cmd.on('command:*', (operands: string[]) => unknownSubcommand(cmd, operands[0]));
  // A command with subcommands and an action of its own (`hermes auth` → an overview): a word it
  // does not take is a mistyped subcommand, not an argument.
  const own = cmd as unknown as { _actionHandler?: unknown };
  if (own._actionHandler && !cmd.registeredArguments.length) {
    cmd.allowExcessArguments(true);
    cmd.hook('preAction', (self, actionCommand) => {
      const first = actionCommand === cmd ? cmd.args[0] : undefined;
      if (first !== undefined && !first.startsWith('-')) unknownSubcommand(cmd, first);
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
  // `hermes … chat …` (the one-shot, the REPL) needs no other command to parse and run: the rest of
  // the tree is not built. Help lists every command, so it builds them all.
  const chatOnly = firstPositional(argv) === 'chat' && !argv.some((a) => a === '-h' || a === '--help');
  const program = buildProgram(chatOnly ? registerChat : undefined);
  try {
    try {
      argv = applyProfile(argv);
    } catch (e) {
      if (e instanceof ProfileError) throw new CliError(e.message);
      throw e;
    }
    // `hermes <word>` where <word> is no built-in command: maybe an enabled plugin's command.
    const word = firstPositional(argv);
    if (word && !program.commands.some((c) => c.name() === word || c.aliases().includes(word))) await (await import('./plugin-commands.ts')).addPluginCliCommands(program, word);
    const unknown = unknownCommand(program, argv);
    if (unknown) throw new CliError(unknown, 2);
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    reportAndExit(err);
  }
}

/** Python Hermes's commands for its desktop app and graphical features: refused by name, not as typos. */
const NOT_OFFERED = new Set(['desktop', 'gui', 'computer-use', 'pets', 'journey', 'learning', 'memory-graph']);

/**
 * `hermes frobnicate`: chat is the default command and takes no words, so a first word that is no
 * command's name or alias is a typo (or a prompt typed without -z). One message saying which.
 */
export function unknownCommand(program: Command, argv: string[]): string | null {
  const word = firstPositional(argv);
  if (word === null) return null;
  const names = [...program.commands.flatMap((c) => [c.name(), ...c.aliases()]), 'help'];
  if (names.includes(word)) return null;
  if (NOT_OFFERED.has(word)) return `\`hermes ${word}\` is a desktop/graphical feature of Python Hermes that this build does not offer: it serves terminals, chat apps, editors and the web dashboard (\`hermes dashboard\`).`;
  const near = nearest(word, names.filter((n) => n !== 'chat'))[0]; // `hermes what is…`: a prompt, not a typo of chat
  const hint = near ? ` Did you mean \`hermes ${near}\`?` : '';
  // A prefix match (`what` → whatsapp) is offered, but only a close misspelling is taken for a typo.
  const typo = !!near && editDistance(word.toLowerCase(), near) <= Math.max(1, Math.floor((word.length + 1) / 3));
  const words = argv.slice(argv.indexOf(word) + 1).filter((a) => !a.startsWith('-'));
  const ask = /\s/.test(word) || !/^[a-z][a-z0-9-]*$/i.test(word) || (words.length > 0 && !typo) ? ` To ask Hermes something, use \`hermes -z "…"\` or \`hermes chat -q "…"\`.` : '';
  return `unknown command '${word}'.${hint}${ask} (\`hermes --help\` lists the commands.)`;
}
