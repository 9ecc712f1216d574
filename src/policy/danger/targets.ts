// Files a command writes, edits, deletes or reads: block devices, system files, credentials and
// login files under $HOME, Hermes's own control files and secrets under HERMES_HOME, and project
// .env/config files. A glob is matched against every protected path it could name.
import { posix } from 'node:path';
import { HERMES_SECRET_FILES, hermesControlPath, hermesSecretPath, homeProtectedAncestor, homeSensitivePath, protectedEntries } from '../protected-paths.ts';
import type { Redirect } from '../shell-lex.ts';
import { canonPath, DYN, type Scope } from './context.ts';
import { wordText } from './expand.ts';
import { addFinding, F } from './findings.ts';
import { globToRegExp, hasGlob } from './glob.ts';

export const BLOCK_DEVICE = /^\/dev\/(?:(?:sd|hd|vd|xvd|nvme|mmcblk|md|dm-|loop|nbd|sr)[a-z0-9]*$|r?disk\d|mapper\/|disk\/by-(?:id|uuid|path|label|partuuid|partlabel)\/)/;
export const SYSTEM_WRITE = /^\/(?:etc|boot|private\/(?:etc|var|tmp|home))(?:\/|$)|^\/(?:usr\/(?:s?bin|lib|libexec)|s?bin|lib(?:32|64)?|var\/spool\/cron)\//;

/**
 * How a command touches a file: `create` replaces or creates it (redirect, tee, cp/mv/install
 * onto it), `edit` changes it in place (sed -i, perl -i, truncate), `delete` removes it.
 */
export type WriteKind = 'create' | 'edit' | 'delete';

const ENV_NAME = /^\.env(?:\.[^/]+)?$|^\.envrc$/;
const CONFIG_NAME = /^config\.ya?ml$/;

/** The project secret/config file rule: the file name decides, not the verb. */
function projectSecret(c: string): boolean {
  const parts = c.split('/');
  const name = parts[parts.length - 1];
  if (ENV_NAME.test(name) || CONFIG_NAME.test(name)) return true;
  return parts.length >= 2 && parts[parts.length - 2] === 'config' && /\.ya?ml$/.test(name);
}

/** Protected system paths a glob could name (besides those under $HOME and HERMES_HOME). */
const SYSTEM_ENTRIES = [
  ...['/etc', '/boot', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/libexec', '/bin', '/sbin', '/lib', '/lib64', '/var/spool/cron', '/root/.ssh', '/private/etc'].map((p) => ({ abs: p, dir: true })),
  ...['/proc/sysrq-trigger', '/dev/sda', '/dev/vda', '/dev/xvda', '/dev/hda', '/dev/nvme0n1', '/dev/mmcblk0', '/dev/disk0'].map((p) => ({ abs: p, dir: false })),
];

const segRe = new Map<string, RegExp>();
function segMatch(pat: string, name: string): boolean {
  if (name === '*' || pat === name) return true;
  if (!hasGlob(pat)) return false;
  // As in bash: a glob matches a leading dot only when it is written.
  if (name.startsWith('.') && !pat.startsWith('.')) return false;
  let re = segRe.get(pat);
  if (!re) segRe.set(pat, (re = globToRegExp(pat)));
  return re.test(name);
}

/** The absolute form of a path as written, or null (a relative path with no known directory). */
function absolute(t: string, scope: Scope): string | null {
  const home = scope.ctx.home || '/nonexistent-home';
  let p = t === '~' || t.startsWith('~/') ? home + t.slice(1) : t;
  if (!p.startsWith('/')) {
    if (!scope.cwd) return null;
    p = `${scope.cwd}/${p}`;
  }
  return posix.normalize(p);
}

/**
 * The protected paths a glob (`~/.hermes/c*`, `/et?/passwd`, `> /dev/sd?`) could name, as
 * concrete paths; `secrets` limits it to Hermes's secret files.
 */
type Cand = { segs: string[]; dir: boolean };
const candCache = new Map<string, { all: Cand[]; secrets: Cand[] }>();

/** The protected paths (split), for this home and HERMES_HOME; built once per pair. */
function candidates(scope: Scope): { all: Cand[]; secrets: Cand[] } {
  const { home, hermesHome, hermesRoot } = scope.ctx;
  const key = `${home}\0${hermesHome}\0${hermesRoot}`;
  let c = candCache.get(key);
  if (c) return c;
  const all: { abs: string; dir: boolean }[] = [];
  const secrets: { abs: string; dir: boolean }[] = [];
  const e = protectedEntries();
  if (home) for (const x of e.home) all.push({ abs: `${home}/${x.rel}`, dir: x.dir });
  for (const h of new Set([hermesHome, hermesRoot])) {
    if (!h) continue;
    for (const x of e.hermes) all.push({ abs: `${h}/${x.rel}`, dir: x.dir });
    for (const f of HERMES_SECRET_FILES) secrets.push({ abs: `${h}/${f}`, dir: false }, { abs: `${h}/profiles/*/${f}`, dir: false });
  }
  all.push(...SYSTEM_ENTRIES);
  const split = (l: { abs: string; dir: boolean }[]) => l.map((x) => ({ segs: x.abs.split('/'), dir: x.dir }));
  c = { all: split(all), secrets: split(secrets) };
  if (candCache.size > 16) candCache.clear();
  candCache.set(key, c);
  return c;
}

/**
 * The protected paths a glob (`~/.hermes/c*`, `/et?/passwd`, `> /dev/sd?`) could name, as
 * concrete paths; `secrets` limits it to Hermes's secret files.
 */
export function globHits(t: string, scope: Scope, secrets = false): string[] {
  const abs = absolute(t, scope);
  if (!abs) return [];
  const segsP = abs.split('/');
  const cands = secrets ? candidates(scope).secrets : candidates(scope).all;
  const hits: string[] = [];
  for (const c of cands) {
    const segsC = c.segs;
    if (segsP.length < segsC.length || (segsP.length > segsC.length && !c.dir)) continue;
    let ok = true;
    for (let i = 0; ok && i < segsC.length; i++) ok = segMatch(segsP[i], segsC[i]);
    if (!ok) continue;
    hits.push([...segsC, ...segsP.slice(segsC.length)].map((s) => (hasGlob(s) || s === '*' ? 'x' : s)).join('/'));
  }
  return hits;
}

/** Records what writing `t` means. */
export function checkWriteTarget(t: string, scope: Scope, kind: WriteKind = 'create'): void {
  if (!t || t.includes(DYN)) return;
  if (hasGlob(t)) {
    const hit = globHits(t, scope)[0];
    if (hit) checkWriteTarget(hit, scope, kind);
  }
  if (kind !== 'delete' && BLOCK_DEVICE.test(t)) return addFinding(scope.findings, F.ddDevice);
  const c = canonPath(t, scope);
  if (c === null) return;
  if (c.startsWith('@H')) {
    const what = hermesControlPath(c.slice(2));
    if (what) addFinding(scope.findings, F.selfWrite(what === '.env' ? 'secrets (.env)' : what));
    return;
  }
  if (c === '~' || c.startsWith('~/')) {
    if (homeSensitivePath(c.slice(2))) addFinding(scope.findings, F.sensitiveWrite);
    else if (kind === 'create' && projectSecret(c)) addFinding(scope.findings, F.projectSecret);
    return;
  }
  if (kind !== 'delete' && BLOCK_DEVICE.test(c)) return addFinding(scope.findings, F.ddDevice);
  if (c === '/proc/sysrq-trigger') return addFinding(scope.findings, F.sysrq);
  if (/^\/(root|home\/[^/]+)\/\.ssh(\/|$)/.test(c)) return addFinding(scope.findings, F.sensitiveWrite);
  if (kind !== 'delete' && SYSTEM_WRITE.test(c)) return addFinding(scope.findings, F.etcWrite);
  if (kind === 'create' && projectSecret(c)) addFinding(scope.findings, F.projectSecret);
}

/** `t` names one of Hermes's secret files (or, with a glob, could). */
export function isSecretPath(t: string, scope: Scope): boolean {
  if (!t || t.includes(DYN)) return false;
  const c = canonPath(t, scope);
  if (c?.startsWith('@H') && hermesSecretPath(c.slice(2))) return true;
  return hasGlob(t) && globHits(t, scope, true).length > 0;
}

/** An argument that names a file to read: the word itself, `opt=FILE`, `@FILE`, `name=@FILE`. */
export function argPaths(a: string): string[] {
  const out = [a];
  const eq = a.indexOf('=');
  if (eq > 0) out.push(a.slice(eq + 1));
  const at = a.indexOf('@');
  if (at >= 0 && at < a.length - 1) out.push(a.slice(at + 1));
  return out;
}

/**
 * A folder where unpacking or copying unknown files can replace protected ones: the home itself,
 * a folder holding credentials or login files (`~/.ssh`, `~/.config`), Hermes's home or its
 * control folders, a folder above HERMES_HOME, `/` and the system folders. Null for others.
 */
export function protectedFolder(t: string, scope: Scope): string | null {
  const c = canonPath(t, scope);
  if (c === null) return null;
  if (c === '~') return 'the home directory';
  if (c.startsWith('@H')) return c === '@H' || hermesControlPath(c.slice(2)) ? "Hermes's home" : null;
  if (c.startsWith('~/')) return homeSensitivePath(c.slice(2)) || homeProtectedAncestor(c.slice(2)) ? c : null;
  if (!c.startsWith('/')) return null;
  if (c === '/' || /^\/(etc|boot|usr|bin|sbin|lib\w*|root|var|sys|proc|dev|private)$/.test(c) || SYSTEM_WRITE.test(c)) return c;
  const hh = scope.ctx.hermesHome;
  if (hh && hh.startsWith(`${c}/`)) return `${c} (it holds Hermes's home)`;
  return null;
}

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

export function checkRedirects(redirects: Redirect[], scope: Scope): void {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.heredoc) continue; // the body is data for the command (stdinTexts reads it)
    const t = wordText(r.target, scope);
    if (WRITE_REDIRECTS.has(r.op) || (r.op === '>&' && !/^\d+$|^-$/.test(t))) checkWriteTarget(t, scope);
    if ((r.op === '<' || r.op === '<>') && isSecretPath(t, scope)) addFinding(scope.findings, F.secretRead);
  }
}
