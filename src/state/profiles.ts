// Profiles as Hermes keeps them: each named profile is its own HERMES_HOME under
// `<root>/profiles/<name>/`, "default" is the root itself, and `<root>/active_profile` holds the
// sticky default that `hermes profile use` sets. The -p/--profile flag, `hermes profile …`, the gateway
// and plugins all resolve profiles here.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { defaultHermesRoot, hermesHome, normalizeProfileName } from './paths.ts';

/** Names that cannot be profiles (they collide with Hermes itself or common commands). */
export const RESERVED_PROFILE_NAMES = ['hermes', 'default', 'test', 'tmp', 'root', 'sudo'];
export const ACTIVE_PROFILE_FILE = 'active_profile';

export class ProfileError extends Error {}

export const profilesRoot = (env: NodeJS.ProcessEnv = process.env) => join(defaultHermesRoot(env), 'profiles');

/** A profile name as stored (lower case, `default` case-insensitive); throws ProfileError on a bad one. */
export function canonicalProfile(name: string): string {
  try {
    return normalizeProfileName(name);
  } catch (e) {
    throw new ProfileError((e as Error).message);
  }
}

/** The HERMES_HOME of a profile (whether or not it exists). */
export function profileDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const n = canonicalProfile(name);
  return n === 'default' ? defaultHermesRoot(env) : join(profilesRoot(env), n);
}

export function profileExists(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const n = canonicalProfile(name);
  if (n === 'default') return true;
  try {
    return statSync(profileDir(n, env)).isDirectory();
  } catch {
    return false;
  }
}

/** The home of an existing profile; a missing one is an error that says how to create it. */
export function existingProfileDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const n = canonicalProfile(name);
  if (!profileExists(n, env)) throw new ProfileError(`Profile '${n}' does not exist. Create it with: hermes profile create ${n}`);
  return profileDir(n, env);
}

/** Which profile a HERMES_HOME is: `default` (the root), its name under profiles/, or `custom`. */
export function profileNameOf(home: string = hermesHome(), env: NodeJS.ProcessEnv = process.env): string {
  const h = resolve(home);
  const root = resolve(defaultHermesRoot(env));
  if (h === root) return 'default';
  if (basename(dirname(h)) === 'profiles' && dirname(dirname(h)) === root && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(basename(h))) return basename(h);
  return 'custom';
}

/** The sticky default (`<root>/active_profile`), or `default` when none is set or it is unreadable. */
export function stickyProfile(env: NodeJS.ProcessEnv = process.env): string {
  try {
    const raw = readFileSync(join(defaultHermesRoot(env), ACTIVE_PROFILE_FILE), 'utf8').replace(/^\uFEFF/, '').trim();
    return raw ? canonicalProfile(raw) : 'default';
  } catch {
    return 'default';
  }
}

/** Sets the sticky default; `default` removes the file, as Hermes does. */
export function setStickyProfile(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const n = canonicalProfile(name);
  if (n !== 'default' && !profileExists(n, env)) throw new ProfileError(`Profile '${n}' does not exist. Create it with: hermes profile create ${n}`);
  const root = defaultHermesRoot(env);
  const path = join(root, ACTIVE_PROFILE_FILE);
  if (n === 'default') {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(root, { recursive: true, mode: 0o700 });
  writeFileSync(`${path}.tmp`, `${n}\n`);
  renameSync(`${path}.tmp`, path);
}

/**
 * The HERMES_HOME a run uses: `-p <name>` when given, else an explicit HERMES_HOME that already is a
 * profile directory, else the sticky default. Returns undefined when HERMES_HOME stays as it is.
 */
export function resolveProfileHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag !== undefined) return existingProfileDir(flag, env);
  const home = env.HERMES_HOME?.trim();
  if (home && profileNameOf(home, env) !== 'default') return undefined;
  const sticky = stickyProfile(env);
  if (sticky === 'default') return undefined;
  if (!profileExists(sticky, env)) return undefined; // a stale sticky default (profile deleted by hand): ignored
  return profileDir(sticky, env);
}

/** Whether a directory exists (helper shared by profile commands). */
export const dirExists = (p: string) => existsSync(p) && statSync(p).isDirectory();
