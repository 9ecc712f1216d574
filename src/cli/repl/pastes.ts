// Long pastes (5 lines or more) are saved under HERMES_HOME/pastes/ and shown in the input as a
// one-line reference; the full text is what gets sent.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { paths } from '../../state/paths.ts';

export const PASTE_MIN_LINES = 5;

const REF = /\[Pasted text: (\d+) lines, [\d,]+ chars \u2192 ([^\]\n]+)\]/g;

export function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

function tildePath(p: string): string {
  const h = homedir();
  return h && p.startsWith(h + sep) ? `~${p.slice(h.length)}` : p;
}

/** Saves a paste (mode 0600) and returns the reference to put in the input. */
export function savePaste(home: string, text: string, now = new Date()): { path: string; reference: string } {
  const dir = paths.pastes(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = (n: number) => String(n).padStart(2, '0');
  const name = `paste_${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}_${randomBytes(2).toString('hex')}.txt`;
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return { path, reference: `[Pasted text: ${lineCount(text)} lines, ${text.length.toLocaleString('en-US')} chars → ${tildePath(path)}]` };
}

/** Replaces paste references (files under HERMES_HOME/pastes only) with their text. */
export function expandPastes(text: string, home: string): string {
  const dir = resolve(paths.pastes(home));
  return text.replace(REF, (whole, _n: string, ref: string) => {
    const abs = resolve(ref.startsWith('~/') ? join(homedir(), ref.slice(2)) : ref);
    if (!abs.startsWith(dir + sep) || !existsSync(abs)) return whole;
    try {
      return readFileSync(abs, 'utf8');
    } catch {
      return whole;
    }
  });
}

export function hasPasteReference(text: string): boolean {
  REF.lastIndex = 0;
  return REF.test(text);
}
