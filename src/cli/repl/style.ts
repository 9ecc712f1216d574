// Terminal styles: SGR sequences, or nothing when colour is off (NO_COLOR, TERM=dumb, --no-color).

export interface Style {
  readonly color: boolean;
  bold(s: string): string;
  dim(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
  strike(s: string): string;
  inverse(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
  gray(s: string): string;
  gold(s: string): string;
  /** A 24-bit colour from a hex like #F2C14E (skins); plain without colour or for a bad hex. */
  rgb(hex: string | undefined, s: string): string;
}

const sgr = (open: string, close: string) => (s: string) => (s ? `\x1b[${open}m${s}\x1b[${close}m` : s);
const plain = (s: string) => s;

export function colorEnabled(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return isTty;
}

/** Terminal background the colours are chosen for. */
export type Theme = 'dark' | 'light';

export function makeStyle(color: boolean, theme: Theme = 'dark'): Style {
  if (!color) {
    return {
      color: false,
      bold: plain,
      dim: plain,
      italic: plain,
      underline: plain,
      strike: plain,
      inverse: plain,
      red: plain,
      green: plain,
      yellow: plain,
      blue: plain,
      magenta: plain,
      cyan: plain,
      gray: plain,
      gold: plain,
      rgb: (_hex, s) => s,
    };
  }
  // On a light background the bright colours wash out: darker shades of the same hues.
  const light = theme === 'light';
  return {
    color: true,
    bold: sgr('1', '22'),
    dim: sgr('2', '22'),
    italic: sgr('3', '23'),
    underline: sgr('4', '24'),
    strike: sgr('9', '29'),
    inverse: sgr('7', '27'),
    red: sgr(light ? '38;5;160' : '31', '39'),
    green: sgr(light ? '38;5;28' : '32', '39'),
    yellow: sgr(light ? '38;5;136' : '33', '39'),
    blue: sgr(light ? '38;5;25' : '34', '39'),
    magenta: sgr(light ? '38;5;127' : '35', '39'),
    cyan: sgr(light ? '38;5;30' : '36', '39'),
    gray: sgr(light ? '38;5;243' : '90', '39'),
    gold: sgr(light ? '38;5;130' : '38;5;178', '39'),
    rgb: (hex, s) => {
      const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
      return m && s ? `\x1b[38;2;${parseInt(m[1], 16)};${parseInt(m[2], 16)};${parseInt(m[3], 16)}m${s}\x1b[39m` : s;
    },
  };
}
