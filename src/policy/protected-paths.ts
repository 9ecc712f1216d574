// The files an agent must not change without a person saying yes: one list for the terminal
// classifier (danger/targets.ts) and the file tools' deny-list (write-safety.ts). Paths are
// relative to the user's home or to HERMES_HOME.

/** Directories under $HOME whose contents are credentials. */
export const HOME_CREDENTIAL_DIRS = ['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.azure', '.config/gh', '.config/gcloud', '.password-store', '.local/share/keyrings'];
/** Directories under $HOME whose contents run at login. */
export const HOME_AUTOSTART_DIRS = ['.config/autostart', '.config/systemd/user', '.local/share/systemd/user', '.config/environment.d', '.config/fish'];
/** Single files under $HOME: credentials and files a shell or git reads and runs. */
export const HOME_FILES = [
  '.netrc', '.pgpass', '.npmrc', '.pypirc', '.git-credentials', '.gitconfig',
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin',
  '.zlogout', '.cshrc', '.tcshrc', '.kshrc', '.mkshrc', '.inputrc', '.pam_environment', '.xprofile', '.xinitrc', '.xsessionrc',
];
/**
 * HERMES_HOME files: its policy, keys, persona, credentials and databases (Hermes itself writes the
 * databases in-process; a tool or command the agent runs must not).
 */
export const HERMES_FILES = [
  'config.yaml', '.env', 'auth.json', 'SOUL.md', '.anthropic_oauth.json', 'processes.json',
  ...['state.db', 'kanban.db'].flatMap((db) => [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]),
];
/** HERMES_HOME directories: code Hermes runs (hooks, plugins, cron jobs and their scripts) and credential stores. */
export const HERMES_DIRS = ['hooks', 'plugins', 'scripts', 'cron', 'mcp-tokens', 'pairing'];

/** `rel` (a path relative to HERMES_HOME, `/`-separated) is one of its control files. */
export function hermesControlPath(rel: string): string | null {
  const r = rel.replace(/^\/+/, '');
  if (HERMES_FILES.includes(r)) return r;
  for (const d of HERMES_DIRS) if (r === d || r.startsWith(`${d}/`)) return `${d}/`;
  // The profiles themselves (created, moved and deleted by a person), and each profile's own control
  // files: profiles/<name>/<control file>. A profile's data (memories, sessions, workspaces) is not.
  if (/^profiles(?:\/[^/]+)?\/?$/.test(r)) return 'profiles/';
  const m = /^profiles\/[^/]+\/(.+)$/.exec(r);
  return m ? hermesControlPath(m[1]) : null;
}

/** `rel` (relative to $HOME) is a credential, login or autostart path. */
export function homeSensitivePath(rel: string): string | null {
  const r = rel.replace(/^\/+/, '');
  if (HOME_FILES.includes(r)) return r;
  for (const d of [...HOME_CREDENTIAL_DIRS, ...HOME_AUTOSTART_DIRS]) if (r === d || r.startsWith(`${d}/`)) return `${d}/`;
  return null;
}

/**
 * HERMES_HOME files that hold credentials (API keys, OAuth tokens): the file tools ask a person
 * before reading them (write_file/patch refuse them through HERMES_FILES/HERMES_DIRS already).
 */
export const HERMES_SECRET_FILES = ['.env', 'auth.json', '.anthropic_oauth.json'];
/** HERMES_HOME directories whose files are credentials. */
export const HERMES_SECRET_DIRS = ['mcp-tokens'];

/** `rel` (relative to HERMES_HOME, `/`-separated) is one of its credential files, or one of a profile's. */
export function hermesSecretPath(rel: string): string | null {
  const r = rel.replace(/^\/+/, '');
  if (HERMES_SECRET_FILES.includes(r)) return r;
  for (const d of HERMES_SECRET_DIRS) if (r === d || r.startsWith(`${d}/`)) return `${d}/`;
  const m = /^profiles\/[^/]+\/(.+)$/.exec(r);
  return m ? hermesSecretPath(m[1]) : null;
}

/**
 * `rel` (relative to $HOME; '' is the home itself) is a folder that holds a credential, login or
 * autostart path (`.config` holds `.config/gh`): moving it aside or unpacking into it reaches them.
 */
export function homeProtectedAncestor(rel: string): boolean {
  const r = rel.replace(/^\/+|\/+$/g, '');
  if (!r) return true;
  for (const p of [...HOME_CREDENTIAL_DIRS, ...HOME_AUTOSTART_DIRS, ...HOME_FILES]) if (p.startsWith(`${r}/`)) return true;
  return false;
}

/**
 * Every protected path as `{ rel, dir }` under $HOME (`home`) and HERMES_HOME (`hermes`; `*` stands
 * for any profile name), for matching a glob (`~/.hermes/c*`) against what it could name.
 */
export function protectedEntries(): { home: { rel: string; dir: boolean }[]; hermes: { rel: string; dir: boolean }[] } {
  const hermes = [...HERMES_FILES.map((rel) => ({ rel, dir: false })), ...HERMES_DIRS.map((rel) => ({ rel, dir: true }))];
  return {
    home: [...HOME_FILES.map((rel) => ({ rel, dir: false })), ...[...HOME_CREDENTIAL_DIRS, ...HOME_AUTOSTART_DIRS].map((rel) => ({ rel, dir: true }))],
    hermes: [...hermes, { rel: 'profiles', dir: false }, { rel: 'profiles/*', dir: false }, ...hermes.map((e) => ({ rel: `profiles/*/${e.rel}`, dir: e.dir }))],
  };
}
