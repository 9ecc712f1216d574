import { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { COMMAND_MODULES } from './commands/index.ts';
import { CliError, reportAndExit } from './errors.ts';
import { ProfileError } from '../state/profiles.ts';
import { addGlobalOptions, applyProfile, firstPositional } from './global-flags.ts';

export function buildProgram(): Command {
  const program = new Command('hermes')
    .description('Hermes Agent: an AI agent for your terminal, editor and chat apps')
    .version(`hermes ${pkg.version}`, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'run in this profile (its own HERMES_HOME under profiles/<name>)')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error:/, 'hermes:')) })
    // Options before a subcommand are hermes's own (`hermes -m x chat`); after it, the subcommand's.
    .enablePositionalOptions();
  addGlobalOptions(program);
  for (const register of COMMAND_MODULES) register(program);
  return program;
}

/** The first word of argv that is neither an option nor an option's value (the command's name). */
function commandWord(program: Command, argv: string[]): string | undefined {
  const chat = program.commands.find((c) => c.name() === 'chat');
  const options = [...program.options, ...(chat?.options ?? [])];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return undefined;
    if (!a.startsWith('-')) return a;
    if (a.includes('=')) continue;
    const o = options.find((x) => x.short === a || x.long === a);
    if (o?.required || (o?.optional && argv[i + 1] !== undefined && !argv[i + 1].startsWith('-'))) i++;
  }
  return undefined;
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
    // `hermes <word>` where <word> is no built-in command: maybe an enabled plugin's command.
    const word = commandWord(program, argv);
    if (word && !program.commands.some((c) => c.name() === word || c.aliases().includes(word))) await (await import('../plugins/cli-commands.ts')).addPluginCliCommands(program, word);
    const unknown = unknownCommand(program, argv);
    if (unknown) throw new CliError(unknown, 2);
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    reportAndExit(err);
  }
}

/**
 * `hermes frobnicate`: chat is the default command and takes no words, so a first word that is no
 * command's name or alias is a typo (or a prompt typed without -z). One message saying which.
 */
export function unknownCommand(program: Command, argv: string[]): string | null {
  const word = firstPositional(argv);
  if (word === null) return null;
  const names = [...program.commands.flatMap((c) => [c.name(), ...c.aliases()]), 'help'];
  if (names.includes(word)) return null;
  const near = closest(word, names.filter((n) => n !== 'chat')); // `hermes what is…`: a prompt, not a typo of chat
  const hint = near ? ` Did you mean \`hermes ${near}\`?` : '';
  const words = argv.slice(argv.indexOf(word) + 1).filter((a) => !a.startsWith('-'));
  const ask = /\s/.test(word) || !/^[a-z][a-z0-9-]*$/i.test(word) || (words.length > 0 && !near) ? ` To ask Hermes something, use \`hermes -z "…"\` or \`hermes chat -q "…"\`.` : '';
  return `'${word}' is not a hermes command.${hint}${ask} Run \`hermes --help\` for the list.`;
}

/** The name at the smallest edit distance from `word`, if it is close enough to be a typo. */
function closest(word: string, names: string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const d = editDistance(word.toLowerCase(), n);
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best !== null && bestD <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
