// `hermes` / `hermes chat` without a question: the interactive REPL (src/cli/repl/app.ts). This file
// wires the session, the command registry, history and the terminal together, and hands the
// terminal back on the way out.

import { join } from 'node:path';
import { createCommandRegistry } from '../commands/builtin.ts';
import { registerQuickCommands } from '../commands/quick.ts';
import type { SurfaceHooks } from '../commands/registry.ts';
import type { Session } from '../runtime/session.ts';
import { readySummary, startCliMcp } from '../mcp/session.ts';
import { createCliSession, explicitFrom, findResumeTarget, openStateDb, preloadedSkills } from './chat.ts';
import type { ChatOptions } from './commands/chat.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { recapLines, Repl } from './repl/app.ts';
import { banner } from './repl/banner.ts';
import { HISTORY_FILE, History } from './repl/history.ts';
import { colorEnabled, makeStyle } from './repl/style.ts';
import { Terminal } from './repl/term.ts';
import { flushPending } from '../state/pending.ts';

/** Status lines only the REPL knows, for /status. */
function replHooks(session: Session, historyFile: string): SurfaceHooks {
  return {
    statusLines: () => [
      `Directory: ${session.options.cwd}`,
      `Input:    busy mode ${session.prefs.busyInputMode} · tool progress ${session.prefs.toolProgress} · history ${historyFile}`,
    ],
  };
}

export async function runRepl(opts: ChatOptions): Promise<void> {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new CliError('The interactive chat needs a terminal. To ask one question and print the answer, use `hermes chat -q "…"` (or pipe the question on stdin).', 2);
  }
  let ctx = loadContext({ strict: true });
  const db = openStateDb(ctx.home);
  const restored = findResumeTarget(db, opts);
  const firstMessagePrefix = preloadedSkills(ctx, opts);
  // MCP servers: slow ones keep connecting in the background and their tools join when ready. Their
  // news goes to the REPL once it runs.
  let notify: (line: string) => void = (line) => void process.stdout.write(`${line}\n`);
  const mcp = await startCliMcp(ctx, explicitFrom(opts).toolsets, 5000);
  const extra = { store: db, restored, mcp, onMcpEvent: (line: string) => notify(line) };
  let session: Session;
  try {
    session = createCliSession(ctx, opts, true, extra);
  } catch (e) {
    // First run: nothing configured yet. Set it up now, then carry on into the chat.
    if (!(e instanceof CliError) || ctx.loaded.exists || !/No LLM provider configured/.test(e.message)) throw e;
    process.stdout.write('No provider is set up yet: starting `hermes setup`.\n');
    const { runWizard } = await import('./setup.ts');
    await runWizard({}, 'setup');
    if (process.exitCode) return;
    ctx = loadContext({ strict: true });
    session = createCliSession(ctx, opts, true, extra);
  }
  const style = makeStyle(colorEnabled(process.env, true));
  const ext = ctx.loaded.config.skills?.external_dirs;
  const registry = createCommandRegistry({ home: ctx.home, externalDirs: Array.isArray(ext) ? ext : [] });
  const quick = registerQuickCommands(registry, ctx.loaded.config);
  const historyFile = join(ctx.home, HISTORY_FILE);
  const history = new History(historyFile);
  const term = new Terminal({ input: process.stdin, output: process.stdout });

  const intro = banner(session, style, process.stdout.columns || 100);
  // MCP news goes under the banner's facts, above its key hints.
  const mcpLines = [...(mcp && readySummary(mcp) ? [`  ${style.dim('mcp     ')} ${readySummary(mcp)}`] : []), ...(mcp?.warnings() ?? []).map((w) => style.yellow(`⚠ ${w}`))];
  intro.splice(Math.max(0, intro.length - 2), 0, ...mcpLines);
  for (const w of [...session.warnings, ...quick.warnings]) intro.push(style.yellow(`⚠ ${w}`));
  if (quick.warnings.length) intro.push('');
  if (restored) {
    intro.push(`↻ Resuming ${restored.title ? `“${restored.title}” ` : ''}(${restored.sessionId}), ${restored.history.length} messages.`, ...recapLines(session.history, style), '');
  }

  const repl = new Repl({ session, registry, term, style, home: ctx.home, history, intro, firstMessagePrefix, hooks: replHooks(session, historyFile) });

  notify = (line) => repl.notice(line);
  // Background processes and subagents report back into the conversation.
  session.inbox.listening = true;
  const offInbox = session.inbox.on(() => repl.backgroundNotice());
  const stop = () => repl.quit();
  const interrupt = () => repl.interruptSignal();
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
  process.on('SIGINT', interrupt);
  try {
    await repl.run();
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGHUP', stop);
    process.off('SIGINT', interrupt);
    offInbox();
    term.restore();
  }
  // Give a running background review (memory, skills) a moment to finish.
  await Promise.race([session.idle(), new Promise((r) => setTimeout(r, 15_000).unref())]);
  await session.close('cli_close');
  db.close();
  await flushPending();
  // Whatever else is still open (keep-alive sockets, timers) must not keep the process alive.
  process.exit(process.exitCode ?? 0);
}
