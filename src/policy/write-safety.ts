// Where the agent's file tools may write. Pure apart from reading the file system to find where a
// write really lands: symlinks are followed (dangling ones and chains included) and a file with
// several hard links is compared, by inode, with the files the deny-list protects.
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { HERMES_DIRS, HERMES_FILES, HERMES_SECRET_DIRS, HERMES_SECRET_FILES, HOME_AUTOSTART_DIRS, HOME_CREDENTIAL_DIRS, HOME_FILES, hermesControlPath, hermesSecretPath, homeSensitivePath } from './protected-paths.ts';

export interface WriteContext {
  /** The user's home directory (for ~/.ssh and friends). */
  userHome: string;
  /** HERMES_HOME. */
  hermesHome: string;
  /** HERMES_WRITE_SAFE_ROOT: when set, writes must stay inside it (`:`-separated roots allowed). */
  safeRoot?: string;
}

const SYSTEM_PREFIXES = ['/etc/', '/boot/', '/usr/bin/', '/usr/sbin/', '/usr/lib/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/usr/lib/systemd/', '/lib/systemd/', '/var/spool/cron/', '/private/etc/', '/private/var/'];
const ENV_TEMPLATES = /^\.env\.(example|sample|template|dist|defaults)$/i;

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** The real path of the nearest existing ancestor of `p`, with the missing rest appended. */
function realDir(p: string): string {
  let dir = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      const up = dirname(dir);
      if (up === dir) return p;
      rest.unshift(basename(dir));
      dir = up;
    }
  }
}

/**
 * Where a write to `path` lands: directories resolved, then the file itself followed while it is
 * a symlink, dangling or not (writing through a dangling link creates its target).
 */
export function realTarget(path: string): string {
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    const full = join(realDir(dirname(p)), basename(p));
    let st: Stats;
    try {
      st = lstatSync(full);
    } catch {
      return full;
    }
    if (!st.isSymbolicLink()) return full;
    p = resolve(dirname(full), readlinkSync(full));
  }
  return resolve(path);
}

/** Every concrete file the deny-list protects (for comparing inodes with a hard-linked target). */
function protectedFiles(ctx: WriteContext): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names.slice(0, 200)) {
      const p = join(dir, n);
      out.push(p);
      if (depth > 0) walk(p, depth - 1);
    }
  };
  for (const f of HOME_FILES) out.push(join(ctx.userHome, f));
  for (const d of [...HOME_CREDENTIAL_DIRS, ...HOME_AUTOSTART_DIRS]) walk(join(ctx.userHome, d), 2);
  for (const root of new Set([ctx.hermesHome, join(ctx.userHome, '.hermes')])) {
    for (const f of HERMES_FILES) out.push(join(root, f));
    for (const d of HERMES_DIRS) walk(join(root, d), 2);
  }
  for (const f of ['passwd', 'shadow', 'group', 'sudoers', 'hosts', 'crontab', 'profile', 'bash.bashrc', 'environment']) out.push(join('/etc', f));
  return out;
}

/** The protected file `target` is a hard link of, if any. */
function hardLinkOf(st: { dev: number; ino: number }, target: string, ctx: WriteContext): string | null {
  for (const p of protectedFiles(ctx)) {
    if (p === target) continue;
    try {
      const o = statSync(p);
      if (o.ino === st.ino && o.dev === st.dev) return p;
    } catch {
      /* not there */
    }
  }
  return null;
}

interface Places {
  hermes: string[];
  home: string[];
  /** Protected entries that are links (or sit under a linked folder): their real path and what they are. */
  linked: [string, string][];
}

const placesCache = new WeakMap<WriteContext, Places>();

/**
 * The protected places of this machine by their real paths too: HERMES_HOME or $HOME reached
 * through a link, and a protected folder or file that is itself a link elsewhere (~/.ssh linked
 * into a synced folder, scripts/ linked into a dotfiles repository). Computed once per context.
 */
function placesOf(ctx: WriteContext): Places {
  const hit = placesCache.get(ctx);
  if (hit) return hit;
  const real = (p: string): string | null => {
    try {
      return realpathSync(p);
    } catch {
      return null;
    }
  };
  const lexHermes = [...new Set([resolve(ctx.hermesHome), resolve(join(ctx.userHome, '.hermes'))])];
  const hermes = new Set(lexHermes);
  const home = new Set([resolve(ctx.userHome)]);
  const linked: [string, string][] = [];
  // realDir(join(lexical, rel)) for the ~80 entries below, at a stat per entry rather than a
  // realpath of every one (hundreds of stats per write). Under a root that exists (`realBase` its
  // real path), an entry whose existing components are no links lands at join(realBase, rel): only
  // an entry with a link on its way is resolved in full. Under a missing root everything is missing:
  // the root's own realDir with `rel` appended.
  const missingRoot = new Map<string, string>();
  const whereIs = (lexical: string, realBase: string, rel: string, rootExists: boolean): string => {
    if (!rootExists) {
      let r = missingRoot.get(lexical);
      if (r === undefined) missingRoot.set(lexical, (r = realDir(lexical)));
      return join(r, rel);
    }
    let at = lexical;
    for (const part of rel.split('/')) {
      at = join(at, part);
      let st: Stats | undefined;
      try {
        st = lstatSync(at, { throwIfNoEntry: false });
      } catch {
        st = undefined; // not a directory, not searchable: realpath stops at the same place
      }
      if (!st) break;
      if (st.isSymbolicLink()) return realDir(join(lexical, rel));
    }
    return join(realBase, rel);
  };
  const check = (lexical: string, realBase: string, rel: string, label: string, rootExists = true) => {
    // Missing entries too: where they would be created (a linked profile without its config.yaml yet).
    const r = whereIs(lexical, realBase, rel, rootExists);
    if (r !== join(realBase, rel)) linked.push([r, label]);
  };
  for (const root of lexHermes) {
    const rr = real(root);
    if (rr) hermes.add(rr);
    const base = rr ?? root;
    for (const e of [...HERMES_FILES, ...HERMES_DIRS]) check(root, base, e, `Hermes's ${e}${HERMES_DIRS.includes(e) ? '/' : ''}`, rr !== null);
    let profiles: string[] = [];
    try {
      profiles = readdirSync(join(root, 'profiles')).slice(0, 50);
    } catch {
      /* none */
    }
    // A profile's own control files (its data — memories, sessions — stays writable, as without links).
    for (const p of profiles) {
      for (const e of [...HERMES_FILES, ...HERMES_DIRS]) check(root, base, join('profiles', p, e), `the Hermes profile ${p}'s ${e}`, rr !== null);
    }
  }
  const rh = real(ctx.userHome);
  if (rh) home.add(rh);
  for (const e of [...HOME_FILES, ...HOME_CREDENTIAL_DIRS, ...HOME_AUTOSTART_DIRS]) check(resolve(ctx.userHome), rh ?? resolve(ctx.userHome), e, `~/${e}`, rh !== null);
  const out = { hermes: [...hermes], home: [...home], linked };
  placesCache.set(ctx, out);
  return out;
}

/**
 * Why `p` (an absolute, resolved path) is on the deny-list, or null. `local: false` for a path on
 * another machine (a remote backend): its links cannot be looked at from here.
 */
export function deniedPath(p: string, ctx: WriteContext, o: { local?: boolean } = {}): string | null {
  const name = basename(p);
  if (name === '.env' || name === '.envrc' || (/^\.env\./i.test(name) && !ENV_TEMPLATES.test(name)))
    return `Writing ${p} is not allowed: .env files hold secrets. Ask the user to edit it, or write a .env.example instead.`;
  const local = o.local !== false;
  const places = local ? placesOf(ctx) : { hermes: [...new Set([ctx.hermesHome, join(ctx.userHome, '.hermes')])], home: [ctx.userHome], linked: [] };
  for (const root of places.hermes) {
    if (!inside(p, root)) continue;
    const what = hermesControlPath(relative(root, p).split(sep).join('/'));
    if (what) return `Writing ${p} is not allowed: it is Hermes's own ${what === '.env' ? 'secrets file' : what.endsWith('/') ? `${what} (code or credentials Hermes loads)` : 'configuration, keys or persona'}. Ask the user, or use \`hermes config\`.`;
  }
  for (const root of places.home) {
    if (!inside(p, root)) continue;
    const what = homeSensitivePath(relative(root, p).split(sep).join('/'));
    if (what) return `Writing ${p} is not allowed: ~/${what} is a credential, login or autostart file.`;
  }
  for (const [r, label] of places.linked) if (inside(p, r)) return `Writing ${p} is not allowed: it is ${label} (reached through a link). Ask the user to change it.`;
  for (const s of SYSTEM_PREFIXES) if (inside(p, s.slice(0, -1))) return `Writing ${p} is not allowed: ${s} is a system directory.`;
  return null;
}

/** Why a write to `path` is refused, or null when it may proceed. */
export function writeDenied(path: string, ctx: WriteContext): string | null {
  const target = realTarget(path);
  for (const p of new Set([resolve(path), target])) {
    const why = deniedPath(p, ctx);
    if (why) return p === target && p !== resolve(path) ? `${why} (${resolve(path)} is a link to it)` : why;
  }
  let st: Stats | null = null;
  try {
    st = statSync(target);
  } catch {
    st = null;
  }
  if (st?.isFile() && st.nlink > 1) {
    const other = hardLinkOf(st, target, ctx);
    if (other) return `Writing ${resolve(path)} is not allowed: it is a hard link to ${other}. ${deniedPath(other, ctx) ?? 'That file is protected.'}`;
  }
  if (ctx.safeRoot) {
    const roots = ctx.safeRoot.split(':').filter(Boolean);
    const ok = roots.some((r) => inside(target, realTarget(r)));
    if (!ok) return `Writing ${target} is not allowed: writes are limited to ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
    if (st?.isFile() && st.nlink > 1) return `Writing ${target} is not allowed: it has ${st.nlink} hard links, so it may also be a file outside ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
  }
  return null;
}

/**
 * The same rules for a file on another machine (an SSH host, a container, a cloud sandbox): `target`
 * is where the write lands there, with links followed on that side, and `hardLinks` its link count.
 * Hard links to protected files cannot be matched by inode from here, so under HERMES_WRITE_SAFE_ROOT
 * a multiply-linked file is refused outright.
 */
export function writeDeniedRemote(path: string, target: string, ctx: WriteContext, o: { hardLinks?: number } = {}): string | null {
  const given = resolve(path);
  for (const p of new Set([given, target])) {
    const why = deniedPath(p, ctx, { local: false });
    if (why) return p === target && p !== given ? `${why} (${given} is a link to it)` : why;
  }
  if (ctx.safeRoot) {
    const roots = ctx.safeRoot.split(':').filter(Boolean);
    if (!roots.some((r) => inside(target, resolve(r)))) return `Writing ${target} is not allowed: writes are limited to ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
    if ((o.hardLinks ?? 1) > 1) return `Writing ${target} is not allowed: it has ${o.hardLinks} hard links, so it may also be a file outside ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
  }
  return null;
}

/**
 * The check made on an opened file, just before writing through its descriptor: `real` is where
 * the descriptor's file is (the kernel's path for it, or the verified directory plus its name) and
 * `st` the descriptor's fstat. Catches a path that was swapped between the first check and the
 * open: a protected place, a hard link to a protected file, or a file outside
 * HERMES_WRITE_SAFE_ROOT.
 */
export function openedFileDenied(real: string, st: { dev: number; ino: number; nlink: number }, ctx: WriteContext): string | null {
  const why = deniedPath(real, ctx);
  if (why) return why;
  if (st.nlink > 1) {
    const other = hardLinkOf(st, real, ctx);
    if (other) return `Writing ${real} is not allowed: it is a hard link to ${other}. ${deniedPath(other, ctx) ?? 'That file is protected.'}`;
  }
  if (ctx.safeRoot) {
    const roots = ctx.safeRoot.split(':').filter(Boolean);
    if (!roots.some((r) => inside(real, realTarget(r)))) return `Writing ${real} is not allowed: writes are limited to ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
    if (st.nlink > 1) return `Writing ${real} is not allowed: it has ${st.nlink} hard links, so it may also be a file outside ${roots.join(', ')} (HERMES_WRITE_SAFE_ROOT).`;
  }
  return null;
}

/** The Hermes homes whose credential files are guarded: HERMES_HOME and ~/.hermes (with their real paths when `local`). */
function hermesRoots(ctx: Pick<WriteContext, 'userHome' | 'hermesHome'>, local: boolean): string[] {
  const out = new Set<string>();
  for (const r of [ctx.hermesHome, join(ctx.userHome, '.hermes')]) {
    out.add(resolve(r));
    if (!local) continue;
    try {
      out.add(realpathSync(r));
    } catch {
      /* not there */
    }
  }
  return [...out];
}

/** Every existing credential file of the Hermes homes and their profiles (this machine). */
export function hermesSecretFiles(ctx: Pick<WriteContext, 'userHome' | 'hermesHome'>): string[] {
  const out: string[] = [];
  const add = (root: string) => {
    for (const f of HERMES_SECRET_FILES) if (existsSync(join(root, f))) out.push(join(root, f));
    for (const d of HERMES_SECRET_DIRS) {
      try {
        for (const n of readdirSync(join(root, d)).slice(0, 200)) out.push(join(root, d, n));
      } catch {
        /* none */
      }
    }
  };
  for (const root of hermesRoots(ctx, true)) {
    add(root);
    try {
      for (const p of readdirSync(join(root, 'profiles')).slice(0, 200)) add(join(root, 'profiles', p));
    } catch {
      /* no profiles */
    }
  }
  return [...new Set(out)];
}

/**
 * Which Hermes credential file (`.env`, `auth.json`, `.anthropic_oauth.json`, `mcp-tokens/…`, also a
 * profile's) a file is: by its real path, or — for a file with several hard links, on this machine —
 * by its inode. The matcher is built once per operation (roots resolved, inodes read on first need).
 * With `local: false` (a remote backend's files) only paths are compared.
 */
export function secretFileMatcher(ctx: Pick<WriteContext, 'userHome' | 'hermesHome'>, o: { local?: boolean } = {}): (real: string, st?: { dev: number; ino: number; nlink: number } | null) => string | null {
  const local = o.local !== false;
  const roots = hermesRoots(ctx, local);
  let inodes: Map<string, string> | null = null;
  return (real, st) => {
    for (const root of roots) {
      if (!inside(real, root)) continue;
      if (hermesSecretPath(relative(root, real).split(sep).join('/'))) return real;
    }
    if (local && st && st.nlink > 1) {
      if (!inodes) {
        inodes = new Map();
        for (const p of hermesSecretFiles(ctx)) {
          try {
            const x = statSync(p);
            inodes.set(`${x.dev}:${x.ino}`, p);
          } catch {
            /* gone */
          }
        }
      }
      return inodes.get(`${st.dev}:${st.ino}`) ?? null;
    }
    return null;
  };
}

/** `secretFileMatcher` for one file. */
export function hermesSecretFile(real: string, st: { dev: number; ino: number; nlink: number } | null, ctx: Pick<WriteContext, 'userHome' | 'hermesHome'>): string | null {
  return secretFileMatcher(ctx)(real, st);
}
