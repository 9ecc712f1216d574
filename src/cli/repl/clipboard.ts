// The clipboard for /copy and /paste: an OSC 52 escape (works over SSH and in tmux with
// set-clipboard on) plus the desktop's clipboard program when there is one.
import { spawnSync } from 'node:child_process';

const WRITERS: [string, string[]][] = [
  ['wl-copy', []],
  ['xclip', ['-selection', 'clipboard']],
  ['xsel', ['--clipboard', '--input']],
  ['pbcopy', []],
];

const IMAGE_READERS: [string, string[]][] = [
  ['wl-paste', ['--type', 'image/png']],
  ['xclip', ['-selection', 'clipboard', '-t', 'image/png', '-o']],
  ['pngpaste', ['-']],
];

function hasDisplay(env: NodeJS.ProcessEnv): boolean {
  return !!(env.WAYLAND_DISPLAY || env.DISPLAY) || process.platform === 'darwin';
}

/** Copies `text`; `write` sends the OSC 52 escape to the terminal. Returns how it was copied. */
export function copyToClipboard(text: string, write: (s: string) => void, env: NodeJS.ProcessEnv = process.env): string {
  const ways: string[] = [];
  if (hasDisplay(env)) {
    for (const [cmd, args] of WRITERS) {
      const r = spawnSync(cmd, args, { input: text, timeout: 3000 });
      if (!r.error && r.status === 0) {
        ways.push(cmd);
        break;
      }
    }
  }
  const b64 = Buffer.from(text, 'utf8').toString('base64');
  // Inside tmux the escape is passed through to the outer terminal.
  const seq = `\x1b]52;c;${b64}\x07`;
  write(env.TMUX ? `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\` : seq);
  ways.push('the terminal (OSC 52)');
  return `to the clipboard via ${ways.join(' and ')}`;
}

/** An image on the clipboard as a data: URL, or null. */
export function clipboardImage(env: NodeJS.ProcessEnv = process.env): string | null {
  if (!hasDisplay(env)) return null;
  for (const [cmd, args] of IMAGE_READERS) {
    const r = spawnSync(cmd, args, { timeout: 3000, maxBuffer: 25 * 1024 * 1024 });
    if (!r.error && r.status === 0 && r.stdout?.length && r.stdout.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      return `data:image/png;base64,${r.stdout.toString('base64')}`;
    }
  }
  return null;
}
