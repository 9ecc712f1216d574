// Finding the codex CLI and checking its version: `codex.path` in config.yaml, else `codex` on PATH.
// Versions below MIN_CODEX_VERSION speak an older app-server protocol and are refused.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { expandHome } from '../../state/paths.ts';

export const MIN_CODEX_VERSION = '0.125.0';
export const CODEX_INSTALL_HINT = 'Install the Codex CLI with `npm install -g @openai/codex` (0.125 or newer), or set codex.path in config.yaml.';

export interface CodexBinaryStatus {
  /** The executable that would run, or null when none was found. */
  path: string | null;
  /** e.g. "0.169.0" */
  version: string | null;
  ok: boolean;
  /** Why it is not usable (one line, with the fix). */
  problem?: string;
}

/** "codex-cli 0.169.0" → "0.169.0" (also accepts a bare version or a `v` prefix). */
export function parseCodexVersion(text: string): string | null {
  const m = /(\d+)\.(\d+)\.(\d+)(?:[-+][\w.]+)?/.exec(text);
  return m ? `${m[1]}.${m[2]}.${m[3]}` : null;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

function isExecutableFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The configured path, or `codex` looked up on PATH. */
export function findCodex(configured: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const want = configured?.trim();
  if (want) {
    const p = expandHome(want);
    if (isAbsolute(p) || p.includes('/')) return existsSync(p) ? resolve(p) : null;
    return lookPath(p, env);
  }
  return lookPath('codex', env);
}

function lookPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (isExecutableFile(p)) return p;
  }
  return null;
}

const cache = new Map<string, CodexBinaryStatus>();

/** Finds codex and runs `codex --version` (once per path per process). */
export function codexStatus(configured: string | undefined, env: NodeJS.ProcessEnv, opts: { fresh?: boolean } = {}): CodexBinaryStatus {
  const path = findCodex(configured, env);
  if (!path) {
    const where = configured?.trim() ? `codex.path (${configured.trim()}) does not exist` : 'the codex CLI is not on PATH';
    return { path: null, version: null, ok: false, problem: `${where}. ${CODEX_INSTALL_HINT}` };
  }
  const hit = cache.get(path);
  if (hit && !opts.fresh) return hit;
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', env, timeout: 15_000 });
  let status: CodexBinaryStatus;
  const version = r.status === 0 ? parseCodexVersion(`${r.stdout}`) : null;
  if (!version) status = { path, version: null, ok: false, problem: `\`${path} --version\` failed (${r.error?.message ?? (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n')[0]}). ${CODEX_INSTALL_HINT}` };
  else if (compareVersions(version, MIN_CODEX_VERSION) < 0) status = { path, version, ok: false, problem: `codex ${version} is too old for the app-server runtime (needs ${MIN_CODEX_VERSION} or newer). ${CODEX_INSTALL_HINT}` };
  else status = { path, version, ok: true };
  cache.set(path, status);
  return status;
}

/** CODEX_HOME as codex resolves it: `codex.home` in config.yaml, else $CODEX_HOME, else ~/.codex. */
export function codexHome(configured: string | undefined, env: NodeJS.ProcessEnv): string {
  const c = configured?.trim() || env.CODEX_HOME?.trim();
  if (c) return resolve(expandHome(c));
  return join(env.HOME || expandHome('~'), '.codex');
}

/** The temporary directory codex itself sees (Rust's `std::env::temp_dir()`: $TMPDIR, else /tmp). */
export function codexTmpdir(env: NodeJS.ProcessEnv): string {
  return env.TMPDIR?.trim() || '/tmp';
}

/**
 * Codex refuses to create its sandbox helper (`codex-linux-sandbox`) under its own temporary
 * directory — $TMPDIR, else /tmp; nothing else (a home under /var/tmp is fine unless TMPDIR is
 * there) — and every command then fails with `bwrap: execvp codex-linux-sandbox`. `tmp` is
 * codexTmpdir(env of the codex process). Returns the warning, or null when CODEX_HOME is fine.
 */
export function codexHomeProblem(home: string, tmp: string): string | null {
  const norm = (p: string) => resolve(p).replace(/\/+$/, '') || '/';
  const h = norm(home);
  const t = norm(tmp);
  if (h !== t && !h.startsWith(`${t}/`)) return null;
  return `CODEX_HOME (${home}) is under codex's temporary directory ${t}${t === '/tmp' ? '' : ' ($TMPDIR)'}: codex will not create its Linux sandbox helper there and every command fails with "bwrap: execvp codex-linux-sandbox". Use a directory outside ${t} (the default is ~/.codex).`;
}
