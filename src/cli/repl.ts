// `hermes` / `hermes chat` without a question: the interactive REPL (src/cli/repl/app.ts), or the
// full-screen TUI (src/tui/) when asked for (--tui, HERMES_TUI=1, display.interface: tui). This file
// wires the session, the command registry, history and the terminal together, and hands the
// terminal back on the way out.

import { readySummary } from '../mcp/session.ts';
import type { ChatOptions } from './commands/chat.ts';
import { interactiveHooks, onSignals, openInteractive, wantsTui } from './interactive.ts';
import { recapLines, Repl } from './repl/app.ts';
import { banner } from './repl/banner.ts';
import { colorEnabled, makeStyle } from './repl/style.ts';
import { Terminal } from './repl/term.ts';
import { loadSkin, type Skin } from '../state/skins.ts';

export async function runRepl(opts: ChatOptions): Promise<void> {
  const chat = await openInteractive(opts, (ctx) => {
    // The TUI's code loads while the session starts.
    if (wantsTui(opts, process.env, ctx.loaded.config)) void import('../tui/preload.ts').then((m) => m.preloadTui());
  });
  if (!chat) return;
  if (wantsTui(opts, process.env, chat.ctx.loaded.config)) {
    const { runTui } = await import('../tui/run.ts');
    await runTui(chat, opts);
    return;
  }
  const { session, mcp, restored, historyFile } = chat;
  const style = makeStyle(colorEnabled(process.env, true));
  const term = new Terminal({ input: process.stdin, output: process.stdout });

  // display.skin / display.indicator_style: an unknown or broken skin falls back to the default, with a note.
  const display = chat.ctx.loaded.config.display ?? {};
  let skin: Skin | undefined;
  let skinNote: string | undefined;
  try {
    skin = loadSkin(chat.ctx.home, typeof display.skin === 'string' ? display.skin : 'default') ?? undefined;
    if (!skin) skinNote = `display.skin: no skin named ${String(display.skin)}; using the default (see /skin).`;
  } catch (e) {
    skinNote = `display.skin: ${(e as Error).message}; using the default.`;
  }
  const intro = banner(session, style, process.stdout.columns || 100, skin);
  if (skinNote) intro.push(style.yellow(`⚠ ${skinNote}`));
  // MCP news goes under the banner's facts, above its key hints.
  const mcpLines = [...(mcp && readySummary(mcp) ? [`  ${style.dim('mcp     ')} ${readySummary(mcp)}`] : []), ...(mcp?.warnings() ?? []).map((w) => style.yellow(`⚠ ${w}`))];
  intro.splice(Math.max(0, intro.length - 2), 0, ...mcpLines);
  for (const w of [...session.warnings, ...chat.quickWarnings]) intro.push(style.yellow(`⚠ ${w}`));
  if (chat.quickWarnings.length) intro.push('');
  if (restored) {
    intro.push(`↻ Resuming ${restored.title ? `“${restored.title}” ` : ''}(${restored.sessionId}), ${restored.history.length} messages.`, ...(restored.cwdNote ? [style.dim(restored.cwdNote)] : []), ...recapLines(session.history, style), '');
  }

  const repl = new Repl({
    session,
    registry: chat.registry,
    term,
    style,
    home: chat.ctx.home,
    history: chat.history,
    intro,
    firstMessagePrefix: chat.firstMessagePrefix,
    hooks: {
      ...interactiveHooks(session, historyFile, opts),
      applySkin: (sk) => repl.applySkin(sk),
      applyIndicator: (st) => repl.applyIndicator(st),
    },
    skin,
    indicator: typeof display.indicator_style === 'string' ? display.indicator_style : undefined,
  });

  chat.setNotify((line) => repl.notice(line));
  const offSignals = onSignals(
    () => repl.quit(),
    () => repl.interruptSignal(),
  );
  try {
    await repl.run();
  } finally {
    offSignals();
    term.restore();
  }
  await chat.close();
  // Whatever else is still open (keep-alive sockets, timers) must not keep the process alive.
  process.exit(process.exitCode ?? 0);
}
