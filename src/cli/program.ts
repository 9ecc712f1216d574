import { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { COMMAND_MODULES } from './commands/index.ts';
import { CliError, reportAndExit } from './errors.ts';
import { resolveProfileHome } from '../state/profiles.ts';

export function buildProgram(): Command {
  const program = new Command('hermes')
    .description('Hermes Agent: an AI agent for your terminal, editor and chat apps')
    .version(`hermes ${pkg.version}`, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'run in this profile (its own HERMES_HOME under profiles/<name>)')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error:/, 'hermes:')) });
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

/**
 * Takes `-p/--profile <name>` out of argv (anywhere before `--`) and points HERMES_HOME at that
 * profile before anything reads it, as Hermes does; without the flag, the sticky default
 * (`hermes profile use`) applies. Returns the remaining arguments.
 */
function applyProfile(argv: string[]): string[] {
  let flag: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '-p' || a === '--profile') {
      flag = argv[++i];
      if (flag === undefined || flag.startsWith('-')) throw new CliError(`${a} needs a profile name (see \`hermes profile list\`).`);
    } else if (a.startsWith('--profile=')) flag = a.slice('--profile='.length);
    else rest.push(a);
  }
  let home: string | undefined;
  try {
    home = resolveProfileHome(flag);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  if (home) process.env.HERMES_HOME = home;
  return rest;
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
    argv = applyProfile(argv);
    // `hermes <word>` where <word> is no built-in command: maybe an enabled plugin's command.
    const word = commandWord(program, argv);
    if (word && !program.commands.some((c) => c.name() === word || c.aliases().includes(word))) await (await import('../plugins/cli-commands.ts')).addPluginCliCommands(program, word);
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    reportAndExit(err);
  }
}
