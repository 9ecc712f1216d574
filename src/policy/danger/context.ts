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
  /**
   * Set inside a container, chroot or another machine: its paths are not the host's, except
   * under a bind mount (`-v /:/host`, `chroot DIR`), where `source` is the host path (as written,
   * resolved from the host's working directory).
   */
  mounts?: { target: string; source: string }[];
  /** The host's context and working directory, for paths under a mount. */
  host?: PathContext;
  hostCwd?: string | null;
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
  /** Links made earlier in this command line (`ln -s / r`): canonical link → canonical target. */
  links: Map<string, string>;
}

export function newScope(ctx: PathContext, cwd: string | null): Scope {
  return { vars: new Map(), depth: 0, findings: [], commands: [], functions: new Set(), ctx, cwd, detached: false, madeExecutable: false, procs: [], links: new Map() };
}

/**
 * The scope of a command run somewhere else: a container or another machine (`mounts` empty),
 * or a root built from host folders (`chroot DIR`, `docker run -v SRC:DST`, `bwrap --bind`).
 * Its working directory is unknown; findings are shared with the caller.
 */
export function elsewhere(scope: Scope, mounts: { target: string; source: string }[] = []): Scope {
  const host = scope.ctx.host ?? scope.ctx;
  const hostCwd = scope.ctx.host ? (scope.ctx.hostCwd ?? null) : scope.cwd;
  // Nested (a chroot inside a container): a source is a path of the current root, so it is
  // resolved through its mounts to the host path behind it.
  if (scope.ctx.host) {
    const hostScope: Scope = { ...scope, ctx: host, cwd: hostCwd };
    mounts = mounts.map((m) => {
      const c = canonPath(m.source, scope);
      return c !== null && /^[/~@]/.test(c) ? { target: m.target, source: absPath(c, hostScope) } : m;
    });
  }
  const ctx: PathContext = { home: '', hermesHome: '', hermesRoot: '', raw: scope.ctx.raw, mounts: mounts.map((m) => ({ target: posix.normalize(m.target).replace(/(.)\/+$/, '$1'), source: m.source })), host, hostCwd };
  return { ...scope, ctx, cwd: null, vars: new Map(scope.vars), links: new Map() };
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
  if (!t) return null;
  // /proc/<pid>/root is the root directory seen by that process: `/proc/self/root/etc` is /etc.
  if (t.startsWith('/proc/') || t.startsWith('//')) t = procAlias(t, scope) ?? t;
  if (isDynamic(t)) return null;
  const home = scope.ctx.home;
  const homeAbs = home || '/nonexistent-home';
  let p = t;
  if (p === '~' || p.startsWith('~/')) p = homeAbs + p.slice(1);
  else if (p.startsWith('~')) {
    // ~+ is $PWD, ~- $OLDPWD, ~name that user's home.
    const m = /^~([^/]*)(.*)$/s.exec(p)!;
    if (m[1] === '+') {
      if (!scope.cwd) return canonPath(`.${m[2]}`, scope);
      p = scope.cwd + m[2];
    } else if (m[1] === '-') return null;
    else if (/^[a-z_][a-z0-9_.-]*\$?$/i.test(m[1])) p = (m[1] === 'root' ? '/root' : `${home ? posix.dirname(homeAbs) : '/home'}/${m[1]}`) + m[2];
  }
  if (!p.startsWith('/')) {
    if (!scope.cwd) {
      const n = posix.normalize(p).replace(/^(\.\/)+/, '');
      if (n.startsWith('../') || n === '..') return null;
      return scope.links.size ? throughLinks(n, scope) : n;
    }
    p = `${scope.cwd}/${p}`;
  }
  p = posix.normalize(p);
  if (p.length > 1) p = p.replace(/\/+$/, '');
  // In a container or chroot: a bind-mounted path is the host path behind it.
  const mounts = scope.ctx.mounts;
  if (mounts && scope.ctx.host) {
    let best: { target: string; source: string } | null = null;
    for (const m of mounts) if ((p === m.target || p.startsWith(m.target === '/' ? '/' : `${m.target}/`)) && (!best || m.target.length > best.target.length)) best = m;
    if (best) {
      const rest = best.target === '/' ? p : p.slice(best.target.length);
      return canonPath(best.source.replace(/\/+$/, '') + (rest.startsWith('/') || !rest ? rest : `/${rest}`) || '/', { ...scope, ctx: scope.ctx.host, cwd: scope.ctx.hostCwd ?? null, links: new Map() });
    }
  }
  const c = fold(p, scope.ctx);
  return scope.links.size ? throughLinks(c, scope) : c;
}

/** `/proc/self/root/…`, `/proc/<pid>/root/…` → `/…`; `/proc/self/cwd/…` → the working directory. */
function procAlias(t: string, scope: Scope): string | null {
  const n = t.replace(/\/{2,}/g, '/');
  const m = /^\/proc\/([^/]*)\/(root|cwd)(?=\/|$)(.*)$/s.exec(n);
  if (!m) return n === t ? null : n;
  if (m[2] === 'root') return m[3] || '/';
  // init's working directory is /; ours is the known one; any other process's is unknown.
  if (m[1] === '1') return m[3] || '/';
  if ((m[1] === 'self' || m[1] === 'thread-self') && scope.cwd) return scope.cwd + m[3];
  return null;
}

/** A canonical path through links made earlier in the command line. */
function throughLinks(c: string, scope: Scope): string {
  for (let hop = 0; hop < 4; hop++) {
    let next: string | null = null;
    for (const [link, target] of scope.links) {
      if (c === link) next = target;
      else if (c.startsWith(`${link}/`)) next = target === '/' ? c.slice(link.length) : target + c.slice(link.length);
      if (next !== null) break;
    }
    if (next === null || next === c) return c;
    c = next;
  }
  return c;
}

/** Home folded to `~`, HERMES_HOME (and the default root) to `@H`, for an absolute normalized path. */
function fold(p: string, ctx: PathContext): string {
  const { home, hermesHome, hermesRoot } = ctx;
  const homeAbs = home || '/nonexistent-home';
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
