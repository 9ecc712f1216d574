// Colours for the TUI: none with NO_COLOR / TERM=dumb, and shades chosen for the terminal's
// background. The background is HERMES_TUI_THEME (light, dark, or its hex colour), else the
// COLORFGBG hint xterm-like terminals set, else dark.

import { colorEnabled, makeStyle, type Style, type Theme } from '../cli/repl/style.ts';

export interface TuiTheme {
  name: Theme;
  style: Style;
  /** Ink colour names for borders (undefined = the terminal's default colour). */
  border: string | undefined;
  accent: string | undefined;
  warn: string | undefined;
}

/** Light or dark, from a hex background colour (`ffffff`, `#1a1a2e`). */
function fromHex(hex: string): Theme | null {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const n = parseInt(m[1], 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 ? 'light' : 'dark';
}

export function detectTheme(env: NodeJS.ProcessEnv): Theme {
  const want = (env.HERMES_TUI_THEME ?? '').trim().toLowerCase();
  if (want === 'light' || want === 'dark') return want;
  const hex = want ? fromHex(want) : null;
  if (hex) return hex;
  // COLORFGBG="fg;bg" (or "fg;default;bg"): background 7 or 9–15 is a light one.
  const parts = (env.COLORFGBG ?? '').split(';');
  const bg = Number(parts[parts.length - 1]);
  if (parts.length >= 2 && Number.isInteger(bg)) return bg === 7 || (bg >= 9 && bg <= 15) ? 'light' : 'dark';
  return 'dark';
}

export function makeTheme(env: NodeJS.ProcessEnv, isTty: boolean): TuiTheme {
  const name = detectTheme(env);
  const color = colorEnabled(env, isTty);
  const style = makeStyle(color, name);
  if (!color) return { name, style, border: undefined, accent: undefined, warn: undefined };
  return { name, style, border: 'gray', accent: name === 'light' ? 'blue' : 'cyan', warn: 'yellow' };
}
