import { Command, Option } from 'commander';
import { action, collectList } from '../errors.ts';

export interface ChatOptions {
  query?: string;
  queryFile?: string;
  oneshot?: boolean;
  model?: string;
  provider?: string;
  baseUrl?: string;
  toolsets?: string;
  skills?: string[];
  quiet?: boolean;
  verbose?: boolean;
  yolo?: boolean;
  maxTurns?: string;
  resume?: string;
  continue?: string | boolean;
  source?: string;
  ignoreRules?: boolean;
  passSessionId?: boolean;
  image?: string[];
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
    .option('-t, --toolsets <list>', 'comma-separated toolsets to enable (e.g. file,terminal,web or all)')
    .option('-s, --skills <name>', 'preload a skill (repeatable)', collectList)
    .option('-Q, --quiet', 'print only the final answer on stdout')
    .option('-v, --verbose', 'show more detail about tools and retries')
    .option('--yolo', 'do not ask before dangerous commands (hardline blocks still apply)')
    .option('--max-turns <n>', 'maximum tool-calling iterations for each turn')
    .option('-r, --resume <session>', 'resume a session by id or title')
    .option('-c, --continue [name]', 'continue the most recent session')
    .option('--source <tag>', 'session source tag (default cli)')
    .option('--ignore-rules', 'do not load AGENTS.md / .hermes.md / CLAUDE.md project rules')
    .option('--pass-session-id', 'put the session id in the system prompt')
    .option('--accept-hooks', 'approve the shell hooks in config.yaml without asking (also HERMES_ACCEPT_HOOKS=1)')
    .addOption(new Option('--image <path>', 'attach an image to the question').argParser(collectList))
    .option('--tui', 'open the full-screen terminal UI instead of the classic REPL')
    .option('--cli', 'open the classic REPL (overrides HERMES_TUI and display.interface: tui)')
    .addOption(new Option('--alt-screen', 'TUI: draw on the alternate screen (the default)').hideHelp())
    .option('--no-alt-screen', 'TUI: draw in the normal screen so the transcript stays in the scrollback (copy-friendly)');
}

export default function register(program: Command): void {
  addChatOptions(program.command('chat', { isDefault: true }).description('chat with Hermes (interactive, or one question with -q)')).action(
    action(async (opts: ChatOptions) => {
      const { runChat } = await import('../chat.ts');
      await runChat(opts);
    }),
  );
}
