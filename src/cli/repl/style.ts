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
}

const sgr = (open: string, close: string) => (s: string) => (s ? `\x1b[${open}m${s}\x1b[${close}m` : s);
const plain = (s: string) => s;

export function colorEnabled(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return isTty;
}

export function makeStyle(color: boolean): Style {
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
    };
  }
  return {
    color: true,
    bold: sgr('1', '22'),
    dim: sgr('2', '22'),
    italic: sgr('3', '23'),
    underline: sgr('4', '24'),
    strike: sgr('9', '29'),
    inverse: sgr('7', '27'),
    red: sgr('31', '39'),
    green: sgr('32', '39'),
    yellow: sgr('33', '39'),
    blue: sgr('34', '39'),
    magenta: sgr('35', '39'),
    cyan: sgr('36', '39'),
    gray: sgr('90', '39'),
    gold: sgr('38;5;178', '39'),
  };
}
