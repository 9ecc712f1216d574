// Who may use the dashboard. Every /api route and WebSocket needs the per-run session token: from
// the HttpOnly cookie the printed URL sets, or an `Authorization: Bearer` / `X-Hermes-Session-Token`
// header (scripts). On a non-loopback bind a password login (`dashboard.basic_auth`) hands out the
// cookie instead, and the server refuses to start without one. Requests that change something and
// ride on the cookie must come from the page itself (Origin / Sec-Fetch-Site), so another site the
// browser has open cannot drive the dashboard (CSRF); the Host header must name this server (DNS
// rebinding).
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const COOKIE = 'hermes_dashboard';
export const TOKEN_HEADER = 'x-hermes-session-token';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

export function sessionCookie(token: string, maxAgeS?: number): string {
  return `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/${maxAgeS !== undefined ? `; Max-Age=${maxAgeS}` : ''}`;
}

/** The password login of a non-loopback dashboard (config `dashboard.basic_auth`, env overrides). */
export interface PasswordLogin {
  username: string;
  check(password: string): boolean;
}

/**
 * `dashboard.basic_auth.{username, password_hash | password}` with HERMES_DASHBOARD_BASIC_AUTH_*
 * overriding. `password_hash` is `scrypt$N$r$p$<salt b64>$<hash b64>` (`hermes dashboard
 * hash-password` prints one). Null when no complete login is configured.
 */
export function passwordLogin(config: Record<string, unknown>, env: NodeJS.ProcessEnv): PasswordLogin | null {
  const ba = ((config.dashboard as Record<string, unknown> | undefined)?.basic_auth ?? {}) as Record<string, unknown>;
  const pick = (envName: string, key: string) => (env[envName] ? String(env[envName]) : typeof ba[key] === 'string' ? String(ba[key]) : '');
  const username = pick('HERMES_DASHBOARD_BASIC_AUTH_USERNAME', 'username');
  const plain = pick('HERMES_DASHBOARD_BASIC_AUTH_PASSWORD', 'password');
  const hash = env.HERMES_DASHBOARD_BASIC_AUTH_PASSWORD ? '' : pick('HERMES_DASHBOARD_BASIC_AUTH_PASSWORD_HASH', 'password_hash');
  if (!username || (!plain && !hash)) return null;
  if (hash) {
    const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=_-]+)\$([A-Za-z0-9+/=_-]+)$/.exec(hash);
    if (!m) throw new Error('dashboard.basic_auth.password_hash is not an scrypt hash (scrypt$N$r$p$salt$hash). Make one with `hermes dashboard hash-password`.');
    const [, N, r, p, salt, want] = m;
    const expected = Buffer.from(want, 'base64');
    return {
      username,
      check: (pw) => {
        const got = scryptSync(pw, Buffer.from(salt, 'base64'), expected.length, { N: Number(N), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 });
        return got.length === expected.length && timingSafeEqual(got, expected);
      },
    };
  }
  return { username, check: (pw) => sameSecret(pw, plain) };
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const N = 16384;
  const hash = scryptSync(password, salt, 32, { N, r: 8, p: 1 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A few failed logins per address and minute, then 429. */
export class LoginLimiter {
  private readonly hits = new Map<string, number[]>();
  private readonly perMinute: number;
  constructor(perMinute = 10) {
    this.perMinute = perMinute;
  }
  allow(addr: string, now = Date.now()): boolean {
    const list = (this.hits.get(addr) ?? []).filter((t) => now - t < 60_000);
    this.hits.set(addr, list);
    return list.length < this.perMinute;
  }
  fail(addr: string, now = Date.now()): void {
    this.hits.set(addr, [...(this.hits.get(addr) ?? []), now]);
  }
}

export interface Gate {
  token: string;
  /** The bound host and port. */
  host: string;
  port: number;
}

type Headers = Record<string, string | string[] | undefined>;
const header = (h: Headers, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The token a request carries (cookie, bearer or session header), or ''. */
export function requestToken(h: Headers): string {
  const auth = header(h, 'authorization');
  const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  if (m) return m[1];
  const x = header(h, TOKEN_HEADER);
  if (x) return x;
  return parseCookies(header(h, 'cookie'))[COOKIE] ?? '';
}

export function viaCookie(h: Headers): boolean {
  return !header(h, 'authorization') && !header(h, TOKEN_HEADER);
}

/** The Host header names this server (loopback aliases of a loopback bind, any name on a wildcard bind). */
export function hostAllowed(g: Gate, h: Headers): boolean {
  const host = header(h, 'host');
  if (!host) return false;
  if (g.host === '0.0.0.0' || g.host === '::') return true;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!m) return false;
  const port = Number(m[2] ?? 80);
  if (port !== g.port) return false;
  const name = m[1].replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackHost(g.host)) return isLoopbackHost(name);
  return name === g.host.toLowerCase();
}

/** The request comes from the dashboard's own page (or carries no browser origin at all). */
export function sameOrigin(h: Headers): boolean {
  const origin = header(h, 'origin');
  const site = header(h, 'sec-fetch-site');
  if (origin) {
    const host = header(h, 'host');
    return origin === `http://${host}` || origin === `https://${host}`;
  }
  if (site) return site === 'same-origin' || site === 'none';
  return true;
}

/** Whether a state-changing request may proceed: same origin whenever the browser's cookie is what authorizes it. */
export function csrfSafe(method: string, h: Headers): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true;
  if (!viaCookie(h)) return true;
  const origin = header(h, 'origin');
  const site = header(h, 'sec-fetch-site');
  // A cookie-borne write must prove it came from our page.
  if (!origin && !site) return false;
  return sameOrigin(h);
}

export function authorized(g: Gate, h: Headers): boolean {
  const t = requestToken(h);
  return !!t && sameSecret(t, g.token);
}

export function remoteAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? '?';
}
