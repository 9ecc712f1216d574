// Flags given to `hermes` itself (before any subcommand, or with none), as Python Hermes takes them:
// `hermes -z "…"`, `hermes -m model --provider p -c`, `hermes -p work chat`, `hermes -w`, …
// `-p/--profile` is taken out of argv before commander sees it, because it decides HERMES_HOME for
// everything that follows (and Hermes accepts it anywhere on the line).
import type { Command } from 'commander';
import { ProfileError, resolveProfileHome } from '../state/profiles.ts';
import { collectList } from './errors.ts';

/** The options `hermes` takes before a subcommand; `chat` takes the same ones after it. */
export interface GlobalOptions {
  oneshot?: string;
  usageFile?: string;
  model?: string;
  provider?: string;
  reasoning?: string;
  toolsets?: string;
  resume?: string;
  continue?: string | boolean;
  in?: string;
  worktree?: boolean;
  skills?: string[];
  yolo?: boolean;
  passSessionId?: boolean;
  ignoreUserConfig?: boolean;
  ignoreRules?: boolean;
  safeMode?: boolean;
  checkpoints?: boolean;
  /** false with --no-restore-cwd: resuming keeps the current folder. */
  restoreCwd?: boolean;
  acceptHooks?: boolean;
  tui?: boolean;
  cli?: boolean;
  dev?: boolean;
}

/** Options of `hermes` that take a value (so the profile scan does not read a value as a flag). */
export const VALUE_FLAGS = new Set(['-z', '--oneshot', '-m', '--model', '--provider', '-t', '--toolsets', '-r', '--resume', '-s', '--skills', '--usage-file', '--in', '-q', '--query', '--query-file', '--source', '--max-turns', '--image', '--base-url', '--reasoning']);
export const OPTIONAL_VALUE_FLAGS = new Set(['-c', '--continue']);

/**
 * Takes `-p/--profile <name>` out of argv (anywhere before `--`, never from an option's value or
 * what follows `mcp add … --args`) and points HERMES_HOME at that profile before anything reads
 * it, as Hermes does; without the flag, the sticky default (`hermes profile use`) applies.
 * Returns the remaining arguments; a bad or missing profile throws ProfileError (state/profiles).
 */
export function applyProfile(argv: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  let name: string | undefined;
  let at = -1;
  let take = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--args' && argv.slice(0, i).includes('mcp')) break;
    if (a === '-p' || a === '--profile') {
      name = argv[i + 1];
      if (name === undefined || name.startsWith('-')) throw new ProfileError(`${a} needs a profile name (see \`hermes profile list\`).`);
      at = i;
      take = 2;
      break;
    }
    if (a.startsWith('--profile=')) {
      name = a.slice('--profile='.length);
      at = i;
      take = 1;
      break;
    }
    if (VALUE_FLAGS.has(a)) i++;
    else if (OPTIONAL_VALUE_FLAGS.has(a) && i + 1 < argv.length && !argv[i + 1].startsWith('-')) i++;
  }
  const home = resolveProfileHome(name, env);
  if (home) env.HERMES_HOME = home;
  return at < 0 ? argv : [...argv.slice(0, at), ...argv.slice(at + take)];
}

/** Registers the global options on `hermes` (and, via `chatOnly`, the ones chat adds). */
export function addGlobalOptions(cmd: Command): Command {
  return cmd
    .option('-z, --oneshot <prompt>', 'scripted one-shot: send one prompt, print only the final answer (no banner, tool lines or session line)')
    .option('--usage-file <path>', 'with -z: write a JSON usage report (tokens, cost, model) to this file, even when the run fails')
    .option('-m, --model <model>', 'model for this run')
    .option('--provider <id>', 'provider for this run (openrouter, anthropic, openai, custom, …)')
    .option('--reasoning <level>', REASONING_HELP)
    .option('-t, --toolsets <list>', 'comma-separated toolsets to enable for this run')
    .option('-r, --resume <session>', 'resume a session by id or title ("latest": the most recent)')
    .option('-c, --continue [name]', 'continue the most recent session, or the latest one titled <name>')
    .option('--in <dir>', 'change into <dir> first; with -c / --resume latest, pick that workspace’s latest session')
    .option('--no-restore-cwd', 'when resuming, stay in this folder instead of going back to the session’s recorded one')
    .option('-w, --worktree', 'work in an isolated git worktree (kept on exit only if it has commits not pushed, or uncommitted changes)')
    .option('-s, --skills <name>', 'preload a skill (repeatable or comma-separated)', collectList)
    .option('--yolo', 'do not ask before dangerous commands (hardline blocks still apply)')
    .option('--pass-session-id', 'put the session id in the system prompt')
    .option('--ignore-user-config', 'ignore config.yaml and use the built-in defaults (.env credentials still load)')
    .option('--ignore-rules', 'skip AGENTS.md, SOUL.md, .cursorrules, memory and preloaded skills')
    .option('--safe-mode', 'troubleshooting: no user config, rules, memory, MCP servers or hooks (implies --ignore-user-config --ignore-rules)')
    .option('--checkpoints', 'snapshot the working directory before file edits (restore with /rollback)')
    .option('--accept-hooks', 'approve the shell hooks in config.yaml without asking, for this run and any command (also HERMES_ACCEPT_HOOKS=1)')
    .option('--tui', 'open the full-screen terminal UI instead of the classic REPL')
    .option('--cli', 'open the classic REPL (overrides HERMES_TUI and display.interface: tui)')
    .option('--dev', 'with --tui: accepted as Hermes takes it (its TUI runs from sources); this TUI is part of hermes, so nothing changes');
}

/**
 * What the root's own flags mean for whatever command runs: --accept-hooks approves shell hooks for
 * every agent this process starts (chat, gateway, cron), through HERMES_ACCEPT_HOOKS. Returns a note
 * for the person, if any.
 */
export function applyRootFlags(o: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (o.acceptHooks) env.HERMES_ACCEPT_HOOKS = '1';
  if (o.dev && !o.tui) return 'hermes: --dev only matters with --tui (and this TUI needs no separate build); ignored.';
  return undefined;
}

export const REASONING_LEVELS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra'];
export const REASONING_HELP = `reasoning effort for this run (${REASONING_LEVELS.join(', ')}); overrides agent.reasoning_effort`;

/** --reasoning's level, checked; `none` turns reasoning off for the run. */
export function reasoningLevel(v: string): string {
  const l = v.trim().toLowerCase();
  if (!REASONING_LEVELS.includes(l)) throw new Error(`--reasoning takes one of ${REASONING_LEVELS.join(', ')}; got "${v}".`);
  return l;
}

/** Environment switches the isolation flags stand for, inherited by child processes. */
export function applyIsolationFlags(o: GlobalOptions, env: NodeJS.ProcessEnv = process.env): void {
  if (o.safeMode) {
    env.HERMES_SAFE_MODE = '1';
    o.ignoreUserConfig = true;
    o.ignoreRules = true;
  }
  if (o.ignoreUserConfig) env.HERMES_IGNORE_USER_CONFIG = '1';
  if (o.ignoreRules) env.HERMES_IGNORE_RULES = '1';
}

/** The first word of argv that is not an option or an option's value: the subcommand hermes would run. */
export function firstPositional(argv: string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return null;
    if (!a.startsWith('-') || a === '-') return a;
    if (a.includes('=')) continue;
    if (VALUE_FLAGS.has(a)) i++;
    else if (OPTIONAL_VALUE_FLAGS.has(a) && i + 1 < argv.length && !argv[i + 1].startsWith('-')) i++;
  }
  return null;
}
