// What the OAuth sign-ins share: form/JSON POSTs with a timeout, RFC 8628 device-code polling, JWT
// claims, the instructions printed for a device code, and opening the browser when there is one.
// Secrets never reach the printer: only verification URLs and user codes are printed.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';

export interface LoginIo {
  /** Prints one line for the person signing in (stderr in the CLI). */
  print(line: string): void;
  /** Try to open the verification page in a browser (off for --no-browser and headless machines). */
  openBrowser: boolean;
  /** Stop waiting after this long (default: what the server allows). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  env: NodeJS.ProcessEnv;
  /** Asks the person for one line (a pasted authorization code); absent where nobody can answer. */
  readLine?: (prompt: string, signal?: AbortSignal) => Promise<string>;
}

export class OAuthError extends Error {
  readonly code: string;
  /** Signing in again is the fix (the grant is gone), not a retry. */
  readonly relogin: boolean;
  constructor(message: string, code: string, relogin = false) {
    super(message);
    this.name = 'OAuthError';
    this.code = code;
    this.relogin = relogin;
  }
}

export const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface HttpReply {
  status: number;
  json: Record<string, unknown> | null;
  text: string;
  headers: Headers;
}

/** POST (form or JSON body) and read the reply; network failures become OAuthError. */
export async function post(url: string, body: Record<string, string>, opts: { json?: boolean; headers?: Record<string, string>; timeoutMs?: number; what: string }): Promise<HttpReply> {
  return request(url, {
    method: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': opts.json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...opts.headers,
    },
    body: opts.json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  }, opts);
}

export async function request(url: string, init: RequestInit, opts: { timeoutMs?: number; what: string }): Promise<HttpReply> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    throw new OAuthError(`${opts.what} failed: could not reach ${new URL(url).host} (${cause}). Check the network and try again.`, 'network');
  }
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) json = v as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, headers: res.headers };
}

export const s = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** The claims of a JWT (unverified; only used for expiry, scope and labels), or {}. */
export function jwtClaims(token: unknown): Record<string, unknown> {
  if (typeof token !== 'string' || token.split('.').length !== 3) return {};
  try {
    const v = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** ms epoch of a JWT's `exp`, if it has one. */
export function jwtExpiryMs(token: unknown): number | undefined {
  const exp = jwtClaims(token).exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

/** A label from a token's email-ish claims (Hermes's `label_from_token`), else `fallback`. */
export function labelFromToken(token: unknown, fallback: string): string {
  const c = jwtClaims(token);
  for (const k of ['email', 'preferred_username', 'upn']) if (typeof c[k] === 'string' && (c[k] as string).trim()) return (c[k] as string).trim();
  return fallback;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Opens `url` in a graphical browser when there is one (never a console browser, never over SSH). */
export function maybeOpenBrowser(url: string, io: LoginIo): boolean {
  if (!io.openBrowser) return false;
  const env = io.env;
  if (env.SSH_CLIENT || env.SSH_TTY) return false;
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : null;
  if (!cmd) return false;
  try {
    const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Hermes's "To continue" block for a device code. */
export function printDeviceInstructions(io: LoginIo, verificationUrl: string, userCode: string): void {
  io.print('');
  io.print('To continue:');
  io.print(`  1. Open: ${verificationUrl}`);
  io.print(`  2. If prompted, enter code: ${userCode}`);
  if (maybeOpenBrowser(verificationUrl, io)) io.print('  (Opened browser for verification)');
}

/**
 * RFC 8628 polling: `authorization_pending` waits and asks again, `slow_down` adds 5 s, anything else
 * (`access_denied`, `expired_token`, …) ends the sign-in with a clear message.
 */
export async function pollDeviceToken(
  poll: () => Promise<HttpReply>,
  opts: { intervalS: number; expiresInS: number; io: LoginIo; provider: string },
): Promise<Record<string, unknown>> {
  const sleep = opts.io.sleep ?? defaultSleep;
  const deadline = performance.now() + Math.min(opts.io.timeoutMs ?? Number.POSITIVE_INFINITY, Math.max(1, opts.expiresInS) * 1000);
  let interval = Math.max(1, opts.intervalS);
  while (performance.now() < deadline) {
    await sleep(interval * 1000);
    const r = await poll();
    if (r.status === 200 && r.json && s(r.json.access_token)) return r.json;
    const err = s(r.json?.error);
    if (err === 'authorization_pending') continue;
    if (err === 'slow_down') {
      interval += 5;
      continue;
    }
    if (!err && (r.status === 429 || r.status >= 500)) continue;
    if (err === 'access_denied') throw new OAuthError(`Sign-in to ${opts.provider} was denied in the browser. Run the command again to retry.`, err);
    if (err === 'expired_token') throw new OAuthError(`The ${opts.provider} device code expired before it was approved. Run the command again for a new code.`, err);
    const detail = s(r.json?.error_description) || err || `HTTP ${r.status}`;
    throw new OAuthError(`Sign-in to ${opts.provider} failed: ${detail}.`, err || 'device_poll_failed');
  }
  throw new OAuthError(`Timed out waiting for the ${opts.provider} sign-in to be approved. Run the command again for a new code.`, 'device_code_timeout');
}

/** A base URL override from the environment (trailing slashes dropped), or ''. */
export function envUrl(env: NodeJS.ProcessEnv, ...names: string[]): string {
  for (const n of names) {
    const v = s(env[n]);
    if (/^https?:\/\//i.test(v)) return v.replace(/\/+$/, '');
  }
  return '';
}
