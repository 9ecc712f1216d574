// Where Hermes keeps its files: HERMES_HOME (default ~/.hermes), created on first use.
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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
