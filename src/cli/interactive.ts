// What the two interactive chats (the REPL and the full-screen TUI) set up the same way: the state
// store, the session (with --resume/--continue, preloaded skills, MCP servers and the first-run
// wizard), the slash-command registry with quick commands, and the input history; and how they wind
// down. Each surface then adds its own screen.

import { join, resolve } from 'node:path';
import { createCommandRegistry } from '../commands/builtin.ts';
import { registerQuickCommands } from '../commands/quick.ts';
import type { CommandRegistry, SurfaceHooks } from '../commands/registry.ts';
import type { McpManager } from '../mcp/manager.ts';
import { startCliMcp } from '../mcp/session.ts';
import type { Session } from '../session/session.ts';
import type { SessionStore } from '../state/store/index.ts';
import { flushPending } from '../state/pending.ts';
import { createCliSession, explicitFrom, findResumeTarget, loadCliPlugins, openStore, preloadedSkills, restoreWorkspaceDir, type Restored } from './chat.ts';
import type { ChatOptions } from './commands/chat.ts';
import { loadContext, type CliContext } from './context.ts';
import { CliError } from './errors.ts';
import { clipboardImage, copyToClipboard } from './repl/clipboard.ts';
import { HISTORY_FILE, History } from './repl/history.ts';
import { gatewayPorts } from '../gateway/command-ports.ts';

export interface InteractiveChat {
  ctx: CliContext;
  db: SessionStore;
  session: Session;
  registry: CommandRegistry;
  /** Problems with `quick_commands` in config.yaml, for the surface to show. */
  quickWarnings: string[];
  mcp: McpManager | null;
  history: History;
  historyFile: string;
  restored: Restored | undefined;
  /** Text put before the first message (-s/--skills). */
  firstMessagePrefix: string | undefined;
  /** Where MCP news goes once the surface runs (stdout until then). */
  setNotify(fn: (line: string) => void): void;
  /** Waits briefly for background work, closes the session and the store. */
  close(): Promise<void>;
}

/**
 * Sets up an interactive chat, or returns null when the first-run wizard ended the run. `onContext`
 * sees the configuration as soon as it is read (the TUI starts loading its UI then).
 */
export async function openInteractive(opts: ChatOptions, onContext?: (ctx: CliContext) => void): Promise<InteractiveChat | null> {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new CliError('The interactive chat needs a terminal. To ask one question and print the answer, use `hermes chat -q "…"` (or pipe the question on stdin).', 2);
  }
  let ctx = loadContext({ strict: true });
  onContext?.(ctx);
  const db = await openStore(ctx);
  const restored = await findResumeTarget(db, opts);
  const firstMessagePrefix = preloadedSkills(ctx, opts);
  // MCP servers: slow ones keep connecting in the background and their tools join when ready. Their
  // news goes to the surface once it runs.
  let notify: (line: string) => void = (line) => void process.stdout.write(`${line}\n`);
  // Plugins and shell hooks load before the screen takes the terminal (new hooks ask for consent here).
  await loadCliPlugins(ctx, opts, true);
  const mcp = await startCliMcp(ctx, explicitFrom(opts).toolsets, 5000);
  const extra = { store: db, restored, mcp, onMcpEvent: (line: string) => notify(line) };
  let session: Session;
  try {
    session = createCliSession(ctx, opts, true, extra);
  } catch (e) {
    // First run: nothing configured yet. Set it up now, then carry on into the chat.
    // (Also when config.yaml is there but empty: nothing in it to lose, and no provider is guessed.)
    const emptied = !!ctx.loaded.empty && e instanceof CliError && e.message.startsWith(ctx.loaded.path);
    if (!(e instanceof CliError) || (!emptied && (ctx.loaded.exists || !/No LLM provider configured/.test(e.message)))) throw e;
    process.stdout.write(emptied ? `${ctx.loaded.path} is empty (no settings): starting \`hermes setup\`.\n` : 'No provider is set up yet: starting `hermes setup`.\n');
    const { runWizard } = await import('./setup.ts');
    await runWizard({}, 'setup');
    if (process.exitCode) return null;
    ctx = loadContext({ strict: true });
    session = createCliSession(ctx, opts, true, extra);
  }
  const ext = ctx.loaded.config.skills?.external_dirs;
  const registry = createCommandRegistry({ home: ctx.home, externalDirs: Array.isArray(ext) ? ext : [] });
  const quick = registerQuickCommands(registry, ctx.loaded.config);
  const historyFile = join(ctx.home, HISTORY_FILE);
  const history = new History(historyFile);
  // The dashboard's Chat tab: this session's events beside the terminal (src/session/event-link.ts).
  const unlinkDashboard = process.env.HERMES_DASHBOARD_EVENTS ? (await import('../session/event-link.ts')).linkSessionEvents(session) : () => {};
  return {
    ctx,
    db,
    session,
    registry,
    quickWarnings: quick.warnings,
    mcp,
    history,
    historyFile,
    restored,
    firstMessagePrefix,
    setNotify: (fn) => void (notify = fn),
    async close() {
      unlinkDashboard();
      // Give a running background review (memory, skills) a moment to finish.
      await Promise.race([session.idle(), new Promise((r) => setTimeout(r, 15_000).unref())]);
      await session.close('cli_close');
      await db.close();
      // auth.json updates still being written (credential pool status) finish first.
      await flushPending();
    },
  };
}

/** Which interactive surface `hermes` / `hermes chat` opens: --cli and --tui win, then HERMES_TUI, then display.interface. */
export function wantsTui(opts: { tui?: boolean; cli?: boolean }, env: NodeJS.ProcessEnv, config: { display?: { interface?: unknown } } | undefined): boolean {
  if (opts.cli) return false;
  if (opts.tui) return true;
  const flag = env.HERMES_TUI;
  if (flag !== undefined && flag !== '') return ['1', 'true', 'yes', 'on'].includes(flag.toLowerCase());
  return String(config?.display?.interface ?? '').toLowerCase() === 'tui';
}

/** Status lines only an interactive surface knows, for /status (plus the surface's own). */
export function interactiveHooks(session: Session, historyFile: string, opts: ChatOptions, more: () => string[] = () => []): SurfaceHooks {
  return {
    // /platforms and /handoff ask the gateway through this port (commands never import it).
    gatewayPorts,
    // /resume: back to the folder the resumed session worked in; the agent's tools follow.
    changeDir: (dir) => {
      const line = restoreWorkspaceDir(dir, opts);
      if (line && dir && resolve(dir) === process.cwd()) {
        session.workIn(process.cwd());
      }
      return line;
    },
    // /copy: OSC 52 through the terminal (works over SSH), plus a clipboard program when there is one.
    copy: async (text) => copyToClipboard(text, (seq) => void process.stdout.write(seq)),
    // /paste: an image on the clipboard (wl-paste, xclip, pngpaste).
    pasteImage: async () => clipboardImage(),
    statusLines: () => [
      `Directory: ${session.info.cwd}`,
      `Input:    busy mode ${session.prefs.busyInputMode} · tool progress ${session.prefs.toolProgress} · history ${historyFile}`,
      ...more(),
    ],
  };
}

/** SIGTERM and SIGHUP end the chat; SIGINT (`kill -INT`) does what Ctrl+C does. Returns the undo. */
export function onSignals(stop: () => void, interrupt: () => void): () => void {
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
  process.on('SIGINT', interrupt);
  return () => {
    process.off('SIGTERM', stop);
    process.off('SIGHUP', stop);
    process.off('SIGINT', interrupt);
  };
}
