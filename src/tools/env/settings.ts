// Terminal settings as Hermes reads them: each `terminal.<key>` in config.yaml can be overridden by
// its TERMINAL_* environment variable (Hermes's TERMINAL_ENV_MAPPINGS), with Hermes's defaults.
import type { SandboxSettings } from '../../sandbox/index.ts';
import { defineSlot } from '../../state/slots.ts';
import type { ToolSession } from '../types.ts';

/** The session's /sandbox change to terminal.sandbox (src/commands/sandbox.ts). */
export const sandboxOverrideSlot = defineSlot<Partial<SandboxSettings>>('sandbox_override');
/** The names .env set (their values are secrets a child process does not get unless passed through). */
export const dotenvNamesSlot = defineSlot<string[]>('dotenv_names');

export const DEFAULT_IMAGE = 'nikolaik/python-nodejs:python3.11-nodejs20';

const ENV_NAMES: Record<string, string> = {
  backend: 'TERMINAL_ENV',
  cwd: 'TERMINAL_CWD',
  timeout: 'TERMINAL_TIMEOUT',
  lifetime_seconds: 'TERMINAL_LIFETIME_SECONDS',
  modal_mode: 'TERMINAL_MODAL_MODE',
  docker_image: 'TERMINAL_DOCKER_IMAGE',
  singularity_image: 'TERMINAL_SINGULARITY_IMAGE',
  modal_image: 'TERMINAL_MODAL_IMAGE',
  daytona_image: 'TERMINAL_DAYTONA_IMAGE',
  vercel_runtime: 'TERMINAL_VERCEL_RUNTIME',
  container_cpu: 'TERMINAL_CONTAINER_CPU',
  container_memory: 'TERMINAL_CONTAINER_MEMORY',
  container_disk: 'TERMINAL_CONTAINER_DISK',
  container_persistent: 'TERMINAL_CONTAINER_PERSISTENT',
  persistent_shell: 'TERMINAL_PERSISTENT_SHELL',
  sandbox_dir: 'TERMINAL_SANDBOX_DIR',
};

const DEFAULTS: Record<string, string | number | boolean> = {
  lifetime_seconds: 300,
  modal_mode: 'auto',
  singularity_image: `docker://${DEFAULT_IMAGE}`,
  modal_image: DEFAULT_IMAGE,
  daytona_image: DEFAULT_IMAGE,
  vercel_runtime: 'node24',
  container_cpu: 1,
  container_memory: 5120,
  container_disk: 51200,
  container_persistent: true,
  persistent_shell: true,
};

/** Reads terminal settings: the TERMINAL_* variable, else config.yaml, else Hermes's default. */
export class TerminalSettings {
  private readonly env: NodeJS.ProcessEnv;
  private readonly cfg: Record<string, unknown>;

  constructor(services: Pick<ToolSession, 'env' | 'config'>) {
    this.env = services.env;
    this.cfg = services.config.terminal ?? {};
  }

  raw(key: string): unknown {
    const name = ENV_NAMES[key];
    const fromEnv = name ? this.env[name]?.trim() : undefined;
    if (fromEnv) return fromEnv;
    const v = this.cfg[key];
    return v === undefined || v === null || v === '' ? DEFAULTS[key] : v;
  }

  str(key: string, fallback = ''): string {
    const v = this.raw(key);
    return v === undefined ? fallback : String(v).trim();
  }

  num(key: string, fallback: number): number {
    const n = Number(this.raw(key));
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  }

  bool(key: string, fallback: boolean): boolean {
    return parseBool(this.raw(key), fallback);
  }
}

export function parseBool(v: unknown, fallback: boolean): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v !== 'string' || !v.trim()) return fallback;
  const s = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on', 'y'].includes(s)) return true;
  if (['0', 'false', 'no', 'off', 'n'].includes(s)) return false;
  return fallback;
}

/**
 * Whether the backend keeps one shell between commands (cd and exports carry over). Local:
 * TERMINAL_LOCAL_PERSISTENT (default off). SSH: TERMINAL_SSH_PERSISTENT, else the general
 * TERMINAL_PERSISTENT_SHELL / terminal.persistent_shell (default on).
 */
export function persistentShell(services: Pick<ToolSession, 'env' | 'config'>, kind: string): boolean {
  const s = new TerminalSettings(services);
  if (kind === 'local') {
    const local = services.env.TERMINAL_LOCAL_PERSISTENT?.trim();
    if (local) return parseBool(local, false);
    return parseBool(services.config.terminal?.local_persistent, false);
  }
  if (kind === 'ssh') {
    const ssh = services.env.TERMINAL_SSH_PERSISTENT?.trim();
    if (ssh) return parseBool(ssh, true);
  }
  return s.bool('persistent_shell', true);
}
