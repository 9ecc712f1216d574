import { Command, Option } from 'commander';
import { action, collectList } from '../errors.ts';
import { REASONING_HELP, type GlobalOptions } from '../global-flags.ts';

export interface ChatOptions extends GlobalOptions {
  query?: string;
  queryFile?: string;
  oneshotExit?: boolean;
  baseUrl?: string;
  quiet?: boolean;
  verbose?: boolean;
  maxTurns?: string;
  source?: string;
  image?: string[];
  /** Set by --in: -c / --resume latest only look at sessions in this folder. */
  workspace?: string;
  /** The full-screen TUI instead of the REPL (src/tui/). */
  tui?: boolean;
  /** The classic REPL, whatever HERMES_TUI or display.interface say. */
  cli?: boolean;
  /** TUI: false = draw in the normal screen (copy-friendly) instead of the alternate screen. */
  altScreen?: boolean;
  /** Approve new shell hooks (config.yaml `hooks:`) without asking. */
  acceptHooks?: boolean;
}

export function addChatOptions(cmd: Command): Command {
  return cmd
    .option('-q, --query <text>', 'ask one question, print the answer and exit')
    .option('--query-file <path>', 'read the question from a file (- = stdin)')
    .option('--oneshot', 'answer and exit (implied by -q)')
    .option('-m, --model <model>', 'model for this run')
    .option('--provider <id>', 'provider for this run (openrouter, anthropic, openai, custom, …)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint for this run')
    .option('--reasoning <level>', REASONING_HELP)
    .option('-t, --toolsets <list>', 'comma-separated toolsets to enable (e.g. file,terminal,web or all)')
    .option('-s, --skills <name>', 'preload a skill (repeatable)', collectList)
    .option('-Q, --quiet', 'print only the final answer on stdout')
    .option('-v, --verbose', 'show more detail about tools and retries')
    .option('--yolo', 'do not ask before dangerous commands (hardline blocks still apply)')
    .option('--max-turns <n>', 'maximum tool-calling iterations for each turn')
    .option('-r, --resume <session>', 'resume a session by id or title')
    .option('-c, --continue [name]', 'continue the most recent session')
    .option('--in <dir>', 'change into <dir> first; with -c / --resume latest, pick that workspace’s latest session')
    .option('--no-restore-cwd', 'when resuming, stay in this folder instead of going back to the session’s')
    .option('-w, --worktree', 'work in an isolated git worktree')
    .option('--checkpoints', 'snapshot the working directory before file edits (restore with /rollback)')
    .option('--source <tag>', 'session source tag (default cli)')
    .option('--ignore-rules', 'do not load AGENTS.md / .hermes.md / CLAUDE.md project rules, SOUL.md or memory')
    .option('--ignore-user-config', 'ignore config.yaml and use the built-in defaults (.env credentials still load)')
    .option('--safe-mode', 'no user config, rules, memory, MCP servers or hooks')
    .option('--pass-session-id', 'put the session id in the system prompt')
    .option('--accept-hooks', 'approve the shell hooks in config.yaml without asking (also HERMES_ACCEPT_HOOKS=1)')
    .addOption(new Option('--image <path>', 'attach an image to the question').argParser(collectList))
    .option('--tui', 'open the full-screen terminal UI instead of the classic REPL')
    .option('--cli', 'open the classic REPL (overrides HERMES_TUI and display.interface: tui)')
    .addOption(new Option('--alt-screen', 'TUI: draw on the alternate screen (the default)').hideHelp())
    .option('--no-alt-screen', 'TUI: draw in the normal screen so the transcript stays in the scrollback (copy-friendly)');
}

/** The options given to `hermes` itself, then the ones given to `chat` (which win). */
export function mergedChatOptions(cmd: Command): ChatOptions {
  const root = (cmd.parent?.opts() ?? {}) as ChatOptions;
  const own = { ...(cmd.opts() as ChatOptions) };
  // `chat --oneshot` is a switch; `hermes -z/--oneshot <prompt>` takes the prompt.
  if ((own.oneshot as unknown) === true) {
    own.oneshotExit = true;
    delete own.oneshot;
  }
  const merged: ChatOptions = { ...root };
  for (const [k, v] of Object.entries(own)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  if (root.skills?.length && own.skills?.length) merged.skills = [...root.skills, ...own.skills];
  // --no-restore-cwd is a negation: either level saying so wins over the other's default.
  if (root.restoreCwd === false || own.restoreCwd === false) merged.restoreCwd = false;
  return merged;
}

export default function register(program: Command): void {
  const chat = addChatOptions(program.command('chat', { isDefault: true }).description('chat with Hermes (interactive, or one question with -q)'));
  chat.action(
    action(async () => {
      const { runChat } = await import('../chat.ts');
      await runChat(mergedChatOptions(chat));
    }),
  );
}
