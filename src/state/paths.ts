// Where Hermes keeps its files: HERMES_HOME (default ~/.hermes), created on first use.
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function hermesHome(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.HERMES_HOME?.trim();
  if (raw) return resolve(expandHome(raw));
  return join(homedir(), '.hermes');
}

export function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return p;
}

/** Directories Hermes creates in HERMES_HOME, as the Python Hermes does. */
const SKELETON = ['cron', 'sessions', 'logs', 'memories', 'pairing', 'hooks', 'image_cache', 'audio_cache', 'skills'];

const ensured = new Set<string>();

/** Creates HERMES_HOME and its skeleton (0700) once per process. Returns the home path. */
export function ensureHome(home: string = hermesHome()): string {
  if (ensured.has(home)) return home;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  for (const d of SKELETON) mkdirSync(join(home, d), { recursive: true, mode: 0o700 });
  ensured.add(home);
  return home;
}

export const paths = {
  config: (home: string) => join(home, 'config.yaml'),
  env: (home: string) => join(home, '.env'),
  soul: (home: string) => join(home, 'SOUL.md'),
  stateDb: (home: string) => join(home, 'state.db'),
  auth: (home: string) => join(home, 'auth.json'),
  logs: (home: string) => join(home, 'logs'),
  memories: (home: string) => join(home, 'memories'),
  skills: (home: string) => join(home, 'skills'),
  cron: (home: string) => join(home, 'cron'),
  processes: (home: string) => join(home, 'processes.json'),
  pairing: (home: string) => join(home, 'pairing'),
  pastes: (home: string) => join(home, 'pastes'),
  cache: (home: string) => join(home, 'cache'),
};

let root: string | undefined;

/**
 * The installed package's root directory (where package.json, skills/ and node_modules live).
 * Works from the sources and from the esbuild bundle in dist/, whose depths differ.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'hermes.mjs'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot locate the hermes package root');
    dir = up;
  }
}

/**
 * The root Hermes home shared by all profiles: HERMES_HOME, unless it is a profile directory
 * (`<root>/profiles/<name>`), in which case its grandparent (Hermes's get_default_hermes_root).
 */
export function defaultHermesRoot(env: NodeJS.ProcessEnv = process.env): string {
  const home = hermesHome(env);
  const parent = dirname(home);
  return basename(parent) === 'profiles' ? dirname(parent) : home;
}

const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** A profile name as Hermes stores it (lower case); throws on a name that cannot be a directory. */
export function normalizeProfileName(name: string): string {
  const n = name.trim().toLowerCase();
  if (!PROFILE_NAME.test(n)) throw new Error(`invalid profile name ${JSON.stringify(name)}: use 1-64 lowercase letters, digits, "-" or "_"`);
  return n;
}

/**
 * The HERMES_HOME a profile runs with: `<root>/profiles/<name>` when that directory exists
 * (Hermes's profile layout), else the root home itself ("default" is always the root).
 */
export function profileHome(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = defaultHermesRoot(env);
  const n = normalizeProfileName(name);
  if (n === 'default') return root;
  const dir = join(root, 'profiles', n);
  return existsSync(dir) ? dir : root;
}
