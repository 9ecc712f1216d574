// Where the agent's file tools may write. Pure apart from resolving symlinks of existing parents.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

export interface WriteContext {
  /** The user's home directory (for ~/.ssh and friends). */
  userHome: string;
  /** HERMES_HOME. */
  hermesHome: string;
  /** HERMES_WRITE_SAFE_ROOT: when set, writes must stay inside it. */
  safeRoot?: string;
}

/** Directories under $HOME whose contents are credentials. */
const HOME_DIRS = ['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.azure', '.config/gh', '.config/gcloud', '.password-store', '.local/share/keyrings'];
/** Single files under $HOME: credentials and shell start-up files. */
const HOME_FILES = ['.netrc', '.pgpass', '.npmrc', '.pypirc', '.git-credentials', '.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zshenv', '.bash_logout'];
const SYSTEM_PREFIXES = ['/etc/', '/boot/', '/usr/bin/', '/usr/sbin/', '/bin/', '/sbin/', '/usr/lib/systemd/', '/lib/systemd/', '/var/spool/cron/'];
/** HERMES_HOME files an agent could use to raise its own privileges or read secrets. */
const HERMES_FILES = ['.env', 'auth.json', 'config.yaml', 'processes.json'];
const ENV_TEMPLATES = /^\.env\.(example|sample|template|dist|defaults)$/i;

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** The path with symlinks of its nearest existing ancestor resolved (so links cannot dodge the list). */
export function realTarget(path: string): string {
  let dir = resolve(path);
  const rest: string[] = [];
  while (!existsSync(dir)) {
    rest.unshift(basename(dir));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  try {
    return join(realpathSync(dir), ...rest);
  } catch {
    return resolve(path);
  }
}

/** Why a write to `path` is refused, or null when it may proceed. */
export function writeDenied(path: string, ctx: WriteContext): string | null {
  const candidates = [...new Set([resolve(path), realTarget(path)])];
  for (const p of candidates) {
    const name = basename(p);
    if (name === '.env' || (/^\.env\./i.test(name) && !ENV_TEMPLATES.test(name)))
      return `Writing ${p} is not allowed: .env files hold secrets. Ask the user to edit it, or write a .env.example instead.`;
    for (const d of HOME_DIRS) if (inside(p, join(ctx.userHome, d))) return `Writing ${p} is not allowed: ~/${d} holds credentials.`;
    for (const f of HOME_FILES) if (p === join(ctx.userHome, f)) return `Writing ${p} is not allowed: it is a credential or shell start-up file.`;
    for (const f of HERMES_FILES)
      if (p === join(ctx.hermesHome, f)) return `Writing ${p} is not allowed: it is Hermes's own ${f === '.env' ? 'secrets file' : 'configuration or state'}. Use \`hermes config\` instead.`;
    for (const s of SYSTEM_PREFIXES) if (inside(p, s.slice(0, -1))) return `Writing ${p} is not allowed: ${s} is a system directory.`;
  }
  if (ctx.safeRoot) {
    const root = realTarget(ctx.safeRoot);
    const target = realTarget(path);
    if (!inside(target, root) && !inside(resolve(path), resolve(ctx.safeRoot)))
      return `Writing ${target} is not allowed: writes are limited to ${root} (HERMES_WRITE_SAFE_ROOT). Relative path from there: ${relative(root, target)}.`;
  }
  return null;
}
