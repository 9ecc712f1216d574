// `hermes --tui` (or HERMES_TUI=1, or display.interface: tui): the full-screen terminal UI over the
// same session, command registry and history as the REPL. Ink and React load here only, so
// `hermes --version`, the one-shot and the REPL never pay for them.
//
// Settings: display.tui_alt_screen (default true; `--no-alt-screen` for one run) draws on the
// alternate screen with the TUI's own scrolling; off, the transcript goes to the terminal's
// scrollback (copy-friendly). display.mouse_tracking (default on; off|false to leave the mouse to
// the terminal) scrolls with the wheel. HERMES_TUI_THEME / COLORFGBG pick light or dark colours;
// NO_COLOR turns colours off.

import { PassThrough } from 'node:stream';
import type { ChatOptions } from '../cli/commands/chat.ts';
import { interactiveHooks, onSignals, type InteractiveChat } from '../cli/interactive.ts';
import { banner } from '../cli/repl/banner.ts';
import { goodbyeLines } from '../cli/repl/driver.ts';
import { Terminal } from '../cli/repl/term.ts';
import { readySummary } from '../mcp/session.ts';
import { MOUSE_OFF, MOUSE_ON } from './commands.ts';
import { TuiController } from './controller.ts';
import { makeTheme } from './theme.ts';

/** Whether the TUI draws full screen (alternate screen) or inline; the mouse setting. */
export function tuiSettings(opts: { altScreen?: boolean }, display: Record<string, unknown> | undefined): { fullscreen: boolean; mouse: boolean } {
  const fullscreen = opts.altScreen ?? display?.tui_alt_screen !== false;
  const m = display?.mouse_tracking;
  const mouse = fullscreen && !(m === false || m === 'off' || m === 'false');
  return { fullscreen, mouse };
}

export async function runTui(chat: InteractiveChat, opts: ChatOptions): Promise<void> {
  const { session } = chat;
  const display = chat.ctx.loaded.config.display;
  const { fullscreen, mouse } = tuiSettings(opts, display);
  const theme = makeTheme(process.env, true);
  const s = theme.style;
  // React picks its production build from NODE_ENV when it loads (the bundle has it built in); the
  // variable is put back at once so commands the agent runs (npm, builds) do not inherit it.
  const key = 'NODE_ENV';
  const nodeEnv = process.env[key];
  process.env[key] = 'production';
  let mount: typeof import('./components/App.ts').mount;
  try {
    ({ mount } = await import('./components/App.ts'));
  } finally {
    if (nodeEnv === undefined) delete process.env[key];
    else process.env[key] = nodeEnv;
  }

  const intro = banner(session, s, process.stdout.columns || 100);
  const mcp = chat.mcp;
  const mcpLines = [...(mcp && readySummary(mcp) ? [`  ${s.dim('mcp     ')} ${readySummary(mcp)}`] : []), ...(mcp?.warnings() ?? []).map((w) => s.yellow(`⚠ ${w}`))];
  intro.splice(Math.max(0, intro.length - 2), 0, ...mcpLines);
  for (const w of [...session.warnings, ...chat.quickWarnings]) intro.push(s.yellow(`⚠ ${w}`));
  const r = chat.restored;
  if (r) intro.push(`↻ Resuming ${r.title ? `“${r.title}” ` : ''}(${r.sessionId}), ${r.history.length} messages.`, ...(r.cwdNote ? [r.cwdNote] : []));

  const out = process.stdout;
  const term = new Terminal({ input: process.stdin, output: out });
  const c = new TuiController({
    session,
    registry: chat.registry,
    history: chat.history,
    home: chat.ctx.home,
    db: chat.db,
    theme,
    fullscreen,
    mouse,
    intro,
    firstMessagePrefix: chat.firstMessagePrefix,
    hooks: interactiveHooks(session, chat.historyFile, opts, () => [
      `Screen:   TUI, ${fullscreen ? 'full screen' : 'inline (copy-friendly)'}, mouse ${c.mouse ? 'on' : 'off'}, ${theme.style.color ? `${theme.name} colours` : 'no colours'}`,
    ]),
    size: () => ({ cols: Math.max(20, out.columns || 80), rows: Math.max(8, out.rows || 24) }),
    write: (str) => void out.write(str),
  });
  chat.setNotify((line) => c.note(line));

  // Ink draws; the keyboard is ours (the REPL's decoder: pastes, Alt+Enter, mouse reports), so Ink
  // gets a stdin it never reads.
  const quietStdin = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  term.start((keys) => c.onKeys(keys));
  if (c.mouse) out.write(MOUSE_ON);
  const ink = mount(c, { stdout: out, stdin: quietStdin, stderr: process.stderr });
  // An editor (Ctrl+G) or the shell (Ctrl+Z) gets the terminal as it was before the TUI; Ink then
  // draws the whole screen again.
  c.o.cooked = <T>(fn: () => T) =>
    term.cooked(async () => {
      if (c.mouse) out.write(MOUSE_OFF);
      try {
        if (!c.inkSuspend) return await fn();
        let result: T | undefined;
        await c.inkSuspend(async () => void (result = await fn()));
        return result as T;
      } finally {
        if (c.mouse) out.write(MOUSE_ON);
      }
    });

  const onResize = () => c.changed();
  out.on('resize', onResize);
  const offSignals = onSignals(
    () => c.quit(),
    () => c.interruptSignal(),
  );
  // A fault while drawing ends Ink's app: leave with the error instead of waiting forever.
  let crashed: Error | null = null;
  try {
    await Promise.race([c.run(), ink.waitUntilExit().then(() => c.quit(), (e: unknown) => void (crashed = e instanceof Error ? e : new Error(String(e))))]);
  } finally {
    offSignals();
    out.off('resize', onResize);
    ink.unmount();
    await ink.waitUntilExit().catch(() => undefined);
    if (c.mouse) out.write(MOUSE_OFF);
    term.restore();
  }
  if (crashed) {
    process.stderr.write(`hermes: the TUI stopped: ${(crashed as Error).message}. \`hermes --cli\` opens the classic REPL.\n`);
    if (process.env.HERMES_DEBUG) process.stderr.write(`${(crashed as Error).stack}\n`);
    process.exitCode = 1;
  }
  out.write(`${(c.exitLines.length ? c.exitLines : goodbyeLines(session)).map((l) => s.dim(l)).join('\n')}\n`);
  await chat.close();
  process.exit(process.exitCode ?? 0);
}
