// HERMES_HOME/auth.json, in Python Hermes's format (version 1): `providers` (OAuth sign-in state per
// provider), `credential_pool` (entries per provider), `suppressed_sources`, `active_provider`,
// `updated_at`. Read-modify-write happens under HERMES_HOME/auth.lock, the same lock Hermes takes
// (flock(2), via util-linux `flock`, so a Python Hermes running at the same time is excluded too),
// and the file is replaced atomically with mode 0600. Keys we do not know are kept as they are.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/fsutil.ts';
import { track } from '../state/pending.ts';

export const AUTH_STORE_VERSION = 1;
const LOCK_TIMEOUT_S = 15;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface AuthData extends JsonObject {}

export class AuthStoreError extends Error {}

/** Python's `datetime.now(timezone.utc).isoformat()`: microseconds and `+00:00`. */
export function pythonUtcNow(ms = Date.now()): string {
  // isoformat() leaves the fraction out when it is zero.
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_m, f: string) => (f === '000' ? '+00:00' : `.${f}000+00:00`));
}

/** Codex's `last_refresh` style: `…Z` with microseconds. */
export function pythonUtcNowZ(ms = Date.now()): string {
  return pythonUtcNow(ms).replace('+00:00', 'Z');
}

export const isObject = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

let flockMissing = false;

/** Takes a lock file (HERMES_HOME/auth.lock, shared/nous_auth.lock) with flock(2); resolves to the release function. */
export function acquireLock(lockPath: string): Promise<() => Promise<void>> {
  if (!existsSync(lockPath)) closeSync(openSync(lockPath, 'a', 0o600));
  if (flockMissing) return Promise.resolve(async () => undefined);
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['-x', '-w', String(LOCK_TIMEOUT_S), lockPath, 'sh', '-c', 'echo locked; exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let settled = false;
    const exited = new Promise<void>((r) => child.once('close', () => r()));
    child.once('error', (e) => {
      if (settled) return;
      settled = true;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        // No util-linux: writes stay atomic, only the exclusion against other processes is lost.
        flockMissing = true;
        resolve(async () => undefined);
      } else reject(e);
    });
    child.stdout.once('data', () => {
      if (settled) return;
      settled = true;
      resolve(async () => {
        child.stdin.end();
        await exited;
      });
    });
    child.once('close', (code) => {
      if (settled) return;
      settled = true;
      reject(new AuthStoreError(`Timed out after ${LOCK_TIMEOUT_S} s waiting for ${lockPath} (another Hermes process holds it; exit code ${code}).`));
    });
  });
}

export class AuthStore {
  readonly home: string;
  readonly path: string;
  readonly lockPath: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(home: string) {
    this.home = home;
    this.path = join(home, 'auth.json');
    this.lockPath = join(home, 'auth.lock');
  }

  /** The store as it is on disk now (an empty version-1 store when there is no file). */
  read(): AuthData {
    if (!existsSync(this.path)) return { version: AUTH_STORE_VERSION, providers: {} };
    const text = readFileSync(this.path, 'utf8');
    if (!text.trim()) return { version: AUTH_STORE_VERSION, providers: {} };
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new AuthStoreError(`${this.path} is not valid JSON (${(e as Error).message}). Fix it or move it aside; nothing was changed.`);
    }
    if (!isObject(data)) throw new AuthStoreError(`${this.path} does not hold a JSON object. Fix it or move it aside; nothing was changed.`);
    return data as AuthData;
  }

  /**
   * Runs `fn` on the current store under the lock and writes the result back (only when `fn`
   * changed something). Calls in one process run one after another.
   */
  update<T>(fn: (data: AuthData) => T): Promise<T> {
    const run = async (): Promise<T> => {
      const release = await acquireLock(this.lockPath);
      try {
        const data = this.read();
        const before = JSON.stringify(data);
        const result = fn(data);
        if (JSON.stringify(data) !== before) this.write(data);
        return result;
      } finally {
        await release();
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return track(p);
  }

  private write(data: AuthData): void {
    data.version = AUTH_STORE_VERSION;
    if (!isObject(data.providers)) data.providers = {};
    data.updated_at = pythonUtcNow();
    writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, 0o600);
  }
}

/** `providers.<id>` as an object (created when `create`). */
export function providerState(data: AuthData, id: string, create = false): JsonObject | undefined {
  if (!isObject(data.providers)) {
    if (!create) return undefined;
    data.providers = {};
  }
  const providers = data.providers as JsonObject;
  if (!isObject(providers[id])) {
    if (!create) return undefined;
    providers[id] = {};
  }
  return providers[id] as JsonObject;
}
