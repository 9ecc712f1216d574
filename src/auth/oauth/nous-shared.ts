// The Nous sign-in shared by every profile, as Hermes keeps it: `<root>/shared/nous_auth.json`
// (HERMES_SHARED_AUTH_DIR moves the folder; `<root>` is the default home even under a profile).
// Nous refresh tokens are single-use, so a profile that refreshes writes the rotated pair here, and a
// profile about to refresh first takes the newer pair from here (otherwise it would redeem a spent
// token and lose the session). `hermes auth add nous` offers to import it instead of a new sign-in.
// The file holds the OAuth core only (no minted keys), sorted keys, mode 0600, written under
// `shared/nous_auth.lock`. The profile's own auth.json stays the source of truth; failures here are
// never fatal.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../state/fsutil.ts';
import { defaultHermesRoot, expandHome } from '../../state/paths.ts';
import { acquireLock, pythonUtcNow, type JsonObject } from '../store.ts';
import { s } from './common.ts';
import { DEFAULT_NOUS_CLIENT_ID, DEFAULT_NOUS_INFERENCE_URL, DEFAULT_NOUS_PORTAL_URL, DEFAULT_NOUS_SCOPE } from './nous.ts';

const SHARED_KEYS = ['access_token', 'refresh_token', 'token_type', 'scope', 'client_id', 'portal_base_url', 'inference_base_url', 'obtained_at', 'expires_at'] as const;

export function sharedNousPath(env: NodeJS.ProcessEnv): string {
  const dir = s(env.HERMES_SHARED_AUTH_DIR);
  return join(dir ? expandHome(dir) : join(defaultHermesRoot(env), 'shared'), 'nous_auth.json');
}

/** The shared sign-in when it holds a token pair, else null (missing, unreadable, malformed). */
export function readSharedNous(env: NodeJS.ProcessEnv): JsonObject | null {
  const file = sharedNousPath(env);
  if (!existsSync(file)) return null;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const o = v as JsonObject;
    return s(o.access_token) && s(o.refresh_token) ? o : null;
  } catch {
    return null;
  }
}

/** The OAuth core of a state, with Hermes's defaults (what the shared file holds). */
export function sharedShape(src: JsonObject): JsonObject {
  return {
    access_token: src.access_token ?? null,
    refresh_token: src.refresh_token ?? null,
    token_type: s(src.token_type) || 'Bearer',
    scope: s(src.scope) || DEFAULT_NOUS_SCOPE,
    client_id: s(src.client_id) || DEFAULT_NOUS_CLIENT_ID,
    portal_base_url: s(src.portal_base_url) || DEFAULT_NOUS_PORTAL_URL,
    inference_base_url: s(src.inference_base_url) || DEFAULT_NOUS_INFERENCE_URL,
    obtained_at: src.obtained_at ?? null,
    expires_at: src.expires_at ?? null,
  };
}

async function locked<T>(env: NodeJS.ProcessEnv, fn: (file: string) => T): Promise<T | undefined> {
  const file = sharedNousPath(env);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const release = await acquireLock(file.replace(/\.json$/, '.lock'));
    try {
      return fn(file);
    } finally {
      await release();
    }
  } catch {
    return undefined;
  }
}

/** Writes a state's token pair to the shared file (best effort; nothing without a refresh token). */
export async function writeSharedNous(state: JsonObject, env: NodeJS.ProcessEnv): Promise<void> {
  if (!s(state.refresh_token) || !s(state.access_token)) return;
  const body: JsonObject = { _schema: 1, ...sharedShape(state), updated_at: pythonUtcNow() };
  const sorted = Object.fromEntries(Object.keys(body).sort().map((k) => [k, body[k]]));
  await locked(env, (file) => writeFileAtomic(file, `${JSON.stringify(sorted, null, 2)}\n`, 0o600));
}

/**
 * Copies a newer shared pair into a profile's state (another profile refreshed since): when the
 * refresh token differs or the shared access token lives longer. Returns whether it changed anything.
 */
export function mergeSharedNous(state: JsonObject, env: NodeJS.ProcessEnv): boolean {
  const shared = readSharedNous(env);
  if (!shared) return false;
  const sharedExp = Date.parse(s(shared.expires_at)) || 0;
  const localExp = Date.parse(s(state.expires_at)) || 0;
  if (s(shared.refresh_token) === s(state.refresh_token) && !(sharedExp > localExp)) return false;
  for (const k of SHARED_KEYS) if (shared[k] !== null && shared[k] !== undefined && shared[k] !== '') state[k] = shared[k];
  return true;
}

/** Forgets the shared pair after the Portal revoked it (only when it is the pair that failed). */
export async function clearSharedNous(env: NodeJS.ProcessEnv, deadRefresh: string): Promise<void> {
  await locked(env, (file) => {
    const cur = readSharedNous(env);
    if (cur && s(cur.refresh_token) === deadRefresh) rmSync(file, { force: true });
  });
}
