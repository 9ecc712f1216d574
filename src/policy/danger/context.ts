// What the analysis carries through a command line: the findings so far, variables assigned
// earlier, the working directory when it is known, and where home and HERMES_HOME are, so every
// spelling of a path (`~/…`, `$HOME/…`, `"$HERMES_HOME/…"`, absolute, relative after `cd`) is
// judged as the same file.
import { posix } from 'node:path';
import { hermesControlPath } from '../protected-paths.ts';
import type { Finding } from './findings.ts';

/** Text standing in for something only known at run time. */
export const DYN = '\u0000';
/** Appended to a run-time value whose command downloads something (curl, wget, …). */
export const DOWNLOAD = '\u0001download';
/** … decodes something (base64 -d, xxd -r, …). */
export const DECODE = '\u0001decode';
/** … looks up process ids (pgrep, pidof). */
export const PIDS = '\u0001pids';
/** A process substitution whose output is known: `\u0002<index into Scope.procs>`. */
export const PROC = '\u0002';

export interface PathContext {
  /** The user's home directory ('' when unknown). */
  home: string;
  /** HERMES_HOME (the active profile). */
  hermesHome: string;
  /** The default Hermes root, `~/.hermes` (profiles live under it). */
  hermesRoot: string;
  /** The whole command line as written (some classes look at the text, as Hermes does). */
  raw: string;
}

export interface Scope {
  vars: Map<string, string>;
  depth: number;
  findings: Finding[];
  commands: string[][];
  functions: Set<string>;
  ctx: PathContext;
  /** The working directory, when known (absolute). */
  cwd: string | null;
  /** The command being analyzed runs detached (`&`, nohup, setsid). */
  detached: boolean;
  /** Files made executable earlier in this command line (`chmod +x f && ./f`). */
  madeExecutable: boolean;
  /** Process substitutions whose output is known (`text`) and what made it (`marks`), by PROC index. */
  procs: { text: string; marks: string }[];
}

export function newScope(ctx: PathContext, cwd: string | null): Scope {
  return { vars: new Map(), depth: 0, findings: [], commands: [], functions: new Set(), ctx, cwd, detached: false, madeExecutable: false, procs: [] };
}

export const base = (p: string): string => {
  const s = p.replace(/^\\+/, '');
  const i = s.lastIndexOf('/');
  return i >= 0 ? s.slice(i + 1) : s;
};

export const isDynamic = (s: string): boolean => s.includes(DYN);

const under = (p: string, dir: string): string | null => {
  if (!dir || dir === '/') return null;
  if (p === dir) return '';
  return p.startsWith(dir + '/') ? p.slice(dir.length) : null;
};

/**
 * A path as the classifier compares it: home folded to `~`, HERMES_HOME (and the default root
 * `~/.hermes`) folded to `@H`, `.`/`..` resolved, relative paths joined to the known working
 * directory. Relative paths stay relative when the directory is unknown. Null when the path is
 * only known at run time.
 */
export function canonPath(t: string, scope: Scope): string | null {
  if (!t || isDynamic(t)) return null;
  const { home, hermesHome, hermesRoot } = scope.ctx;
  const homeAbs = home || '/nonexistent-home';
  let p = t;
  if (p === '~' || p.startsWith('~/')) p = homeAbs + p.slice(1);
  else if (!p.startsWith('/')) {
    if (!scope.cwd) {
      const n = posix.normalize(p).replace(/^(\.\/)+/, '');
      return n.startsWith('../') || n === '..' ? null : n;
    }
    p = `${scope.cwd}/${p}`;
  }
  p = posix.normalize(p);
  if (p.length > 1) p = p.replace(/\/+$/, '');
  // Under HERMES_HOME (or the default root ~/.hermes): `@H…` for the directory itself and its
  // control files; anything else there is an ordinary path (HERMES_HOME may even be $HOME).
  for (const h of [hermesHome, hermesRoot]) {
    const rest = under(p, h);
    if (rest !== null && (rest === '' || hermesControlPath(rest))) return `@H${rest}`;
  }
  const rest = under(p, homeAbs);
  if (rest !== null) return `~${rest}`;
  return p;
}

/** Absolute form of a canonical path (for `cd`). */
export function absPath(c: string, scope: Scope): string {
  if (c.startsWith('@H')) return (scope.ctx.hermesHome || `${scope.ctx.home}/.hermes`) + c.slice(2);
  if (c.startsWith('~')) return (scope.ctx.home || '/nonexistent-home') + c.slice(1);
  return c;
}
