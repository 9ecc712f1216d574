// Display skins in Hermes's format: a skin names colours (hex) for parts of the terminal UI, spinner
// faces and verbs, branding (agent name, prompt symbol, welcome/goodbye) and the tool-line prefix.
// Built-in skins are below; HERMES_HOME/skins/<name>.yaml adds or overrides one (missing keys come
// from the default skin). `display.skin` in config.yaml picks it; /skin switches and saves it.
// The busy indicator style (/indicator) is one of INDICATOR_STYLES, saved as display.indicator_style.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface Skin {
  name: string;
  description: string;
  colors: Record<string, string>;
  spinner: { waiting_faces?: string[]; thinking_faces?: string[]; thinking_verbs?: string[] };
  branding: { agent_name?: string; welcome?: string; goodbye?: string; response_label?: string; prompt_symbol?: string; help_header?: string };
  tool_prefix: string;
  /** Where a user skin was read from. */
  path?: string;
}

const persona = (who: string, symbol: string, goodbye: string): Skin['branding'] => ({
  agent_name: `${who} Agent`,
  welcome: `Welcome to ${who} Agent! Type your message or /help for commands.`,
  goodbye,
  response_label: ` ${symbol} ${who} `,
  prompt_symbol: symbol,
});

export const BUILTIN_SKINS: Record<string, Skin> = {
  default: {
    name: 'default',
    description: 'Classic Hermes: gold accents, cyan prompt',
    colors: { banner_title: '#F2C14E', banner_accent: '#E8A33D', ui_accent: '#E8A33D', prompt: '#4FC3F7', ui_ok: '#66BB6A', ui_error: '#EF5350', ui_warn: '#FFA726' },
    spinner: {},
    branding: { ...persona('Hermes', '☤', 'Goodbye! ☤'), prompt_symbol: '❯' },
    tool_prefix: '┊',
  },
  ares: {
    name: 'ares',
    description: 'War-god theme: crimson and bronze',
    colors: { banner_title: '#C9A86A', banner_accent: '#D9483B', ui_accent: '#D9483B', prompt: '#EFE3CC', ui_ok: '#7BC96F', ui_error: '#EF5350', ui_warn: '#E8A33D' },
    spinner: { waiting_faces: ['(⚔)', '(⛨)', '(▲)'], thinking_faces: ['(⚔)', '(⛨)', '(▲)', '(⌁)'], thinking_verbs: ['forging', 'marching', 'holding the line', 'tempering steel', 'raising the shield'] },
    branding: persona('Ares', '⚔', 'Farewell, warrior! ⚔'),
    tool_prefix: '╎',
  },
  mono: {
    name: 'mono',
    description: 'Monochrome: plain grayscale',
    colors: { banner_title: '#E6E6E6', banner_accent: '#AAAAAA', ui_accent: '#AAAAAA', prompt: '#D0D0D0', ui_ok: '#BBBBBB', ui_error: '#DDDDDD', ui_warn: '#999999' },
    spinner: {},
    branding: { ...persona('Hermes', '☤', 'Goodbye! ☤'), prompt_symbol: '❯' },
    tool_prefix: '┊',
  },
  slate: {
    name: 'slate',
    description: 'Cool blue, for developers',
    colors: { banner_title: '#82B4F2', banner_accent: '#8FA6FA', ui_accent: '#82B4F2', prompt: '#C9D1D9', ui_ok: '#63CFA5', ui_error: '#F5A071', ui_warn: '#E4A853' },
    spinner: {},
    branding: { ...persona('Hermes', '☤', 'Goodbye! ☤'), prompt_symbol: '❯' },
    tool_prefix: '┊',
  },
  daylight: {
    name: 'daylight',
    description: 'Light theme for bright terminals: dark text, blue accents',
    colors: { banner_title: '#0F172A', banner_accent: '#1D4ED8', ui_accent: '#2563EB', prompt: '#111827', ui_ok: '#15803D', ui_error: '#B91C1C', ui_warn: '#B45309' },
    spinner: {},
    branding: { ...persona('Hermes', '☤', 'Goodbye! ☤'), prompt_symbol: '❯' },
    tool_prefix: '│',
  },
  poseidon: {
    name: 'poseidon',
    description: 'Ocean-god theme: deep blue and seafoam',
    colors: { banner_title: '#A6DCFF', banner_accent: '#5BB6F2', ui_accent: '#5BB6F2', prompt: '#E8F6FF', ui_ok: '#6DD5AE', ui_error: '#D94F4F', ui_warn: '#5BB6F2' },
    spinner: { waiting_faces: ['(≈)', '(Ψ)', '(∿)'], thinking_faces: ['(Ψ)', '(∿)', '(≈)', '(◌)'], thinking_verbs: ['charting currents', 'sounding the depth', 'reading the swell', 'steering the trident'] },
    branding: persona('Poseidon', 'Ψ', 'Fair winds! Ψ'),
    tool_prefix: '│',
  },
};

export const INDICATOR_STYLES = ['kaomoji', 'emoji', 'unicode', 'ascii'] as const;
export type IndicatorStyle = (typeof INDICATOR_STYLES)[number];

/** Spinner frames per indicator style; kaomoji uses the skin's thinking faces when it has some. */
export function indicatorFrames(style: string, skin?: Skin): string[] {
  switch (style) {
    case 'kaomoji':
      return skin?.spinner.thinking_faces?.length ? skin.spinner.thinking_faces : ['(｡•̀ᴗ-)', '(•̀ᴗ•́)', '(◕‿◕)', '(⌐■_■)', '(¬‿¬)'];
    case 'emoji':
      return ['🌑', '🌒', '🌓', '🌔', '🌕', '🌖', '🌗', '🌘'];
    case 'ascii':
      return ['|', '/', '-', '\\'];
    default:
      return ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  }
}

export const skinsDir = (home: string) => join(home, 'skins');

function userSkin(home: string, name: string): Skin | null {
  for (const ext of ['yaml', 'yml']) {
    const path = join(skinsDir(home), `${name}.${ext}`);
    if (!existsSync(path)) continue;
    let data: unknown;
    try {
      data = parseYaml(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`${path} is not valid YAML: ${(e as Error).message}`);
    }
    const d = (data && typeof data === 'object' ? data : {}) as Partial<Skin>;
    const base = BUILTIN_SKINS[typeof (d as { base?: unknown }).base === 'string' ? String((d as { base?: unknown }).base) : ''] ?? BUILTIN_SKINS.default;
    return {
      name: typeof d.name === 'string' && d.name ? d.name : name,
      description: typeof d.description === 'string' ? d.description : `Custom skin (${path})`,
      colors: { ...base.colors, ...(d.colors && typeof d.colors === 'object' ? d.colors : {}) },
      spinner: { ...base.spinner, ...(d.spinner && typeof d.spinner === 'object' ? d.spinner : {}) },
      branding: { ...base.branding, ...(d.branding && typeof d.branding === 'object' ? d.branding : {}) },
      tool_prefix: typeof d.tool_prefix === 'string' ? d.tool_prefix : base.tool_prefix,
      path,
    };
  }
  return null;
}

/** A skin by name: the user's file first (it may override a built-in), then the built-ins. */
export function loadSkin(home: string, name: string | undefined | null): Skin | null {
  const n = (name ?? 'default').trim() || 'default';
  if (!/^[A-Za-z0-9_.-]+$/.test(n)) return null;
  return userSkin(home, n) ?? BUILTIN_SKINS[n] ?? null;
}

/** Built-in and user skins (user files that fail to parse are left out). */
export function listSkins(home: string): Skin[] {
  const out = new Map(Object.entries(BUILTIN_SKINS));
  if (existsSync(skinsDir(home))) {
    for (const f of readdirSync(skinsDir(home)).sort()) {
      const m = /^([A-Za-z0-9_.-]+)\.ya?ml$/.exec(f);
      if (!m) continue;
      try {
        const s = userSkin(home, m[1]);
        if (s) out.set(m[1], s);
      } catch {
        /* broken file: /skin <name> says why */
      }
    }
  }
  return [...out.values()];
}
