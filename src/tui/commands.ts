// Slash commands the TUI answers itself before the shared registry: the pickers (`/model`,
// `/resume` and `/sessions` without an argument, `/skills` without a filter), `/details` (tool calls
// open or closed) and `/mouse` (wheel scrolling on or off). With arguments, `/model`, `/resume`,
// `/sessions` and `/skills` run from the registry as everywhere else.

import type { CompletionItem } from '../cli/repl/completion.ts';
import { setConfigKey } from '../state/config.ts';
import type { TuiController } from './controller.ts';

export const TUI_COMMANDS: CompletionItem[] = [
  { value: '/details ', label: '/details [collapsed|expanded]', hint: 'open or close tool calls (Ctrl+O one, Alt+↑↓ to pick)' },
  { value: '/mouse ', label: '/mouse [on|off]', hint: 'mouse wheel scrolling (off: the terminal selects text)' },
];

export const MOUSE_ON = '\x1b[?1000h\x1b[?1006h';
export const MOUSE_OFF = '\x1b[?1000l\x1b[?1006l';

/**
 * Runs `raw` when it is a TUI command: returns the line to show, `true` when done without one, or
 * null when the registry should run it.
 */
export function tuiCommand(raw: string, c: TuiController): string | true | null {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(raw.trim());
  if (!m) return null;
  const name = m[1].toLowerCase();
  const args = m[2].trim();
  if (!args && (name === 'model' || name === 'resume' || name === 'sessions' || name === 'skills')) {
    if ((name === 'model' || name === 'resume') && c.busy) return `/${name} cannot run while the agent is working. Wait, or /stop first.`;
    c.openOverlay(name === 'model' ? 'models' : name === 'skills' ? 'skills' : 'sessions');
    return true;
  }
  if (name === 'details') {
    const want = args.toLowerCase();
    if (want && want !== 'collapsed' && want !== 'expanded') return 'Usage: /details [collapsed|expanded]';
    c.detailsOpen = want ? want === 'expanded' : !c.detailsOpen;
    if (c.o.fullscreen) {
      for (const e of c.transcript.entries) {
        if (e.kind !== 'tool') continue;
        e.expanded = c.detailsOpen;
        c.transcript.touch(e);
      }
    }
    return `Tool calls ${c.detailsOpen ? 'open' : 'closed'} by default${c.o.fullscreen ? '' : ' (Ctrl+O prints the last one’s details)'}.`;
  }
  if (name === 'mouse') {
    const want = args.toLowerCase();
    if (want && !['on', 'off'].includes(want)) return 'Usage: /mouse [on|off]';
    if (!c.o.fullscreen) return 'The mouse is the terminal’s in this mode (the transcript is in the scrollback).';
    c.mouse = want ? want === 'on' : !c.mouse;
    c.o.write(c.mouse ? MOUSE_ON : MOUSE_OFF);
    let saved = ' (saved to config.yaml as display.mouse_tracking)';
    try {
      setConfigKey(c.o.home, 'display.mouse_tracking', c.mouse ? 'wheel' : 'off');
    } catch (e) {
      saved = ` (this session only: ${(e as Error).message})`;
    }
    return c.mouse ? `Mouse wheel scrolls the transcript; hold Shift to select text${saved}.` : `Mouse off: the terminal selects text; PgUp/PgDn scroll${saved}.`;
  }
  return null;
}
