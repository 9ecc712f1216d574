// Fetching URLs the model supplied, safely: http(s) only, every hop of a redirect re-checked, and
// the address actually connected to checked at connect time (so DNS rebinding cannot slip a
// private address past the first check). HERMES_ALLOW_PRIVATE_URLS turns the address rules off.
import { lookup as dnsLookup } from 'node:dns';
import type http from 'node:http';
import type { LookupFunction } from 'node:net';
import { checkUrl, classifyAddress, type AddressVerdict } from '../../policy/ssrf.ts';

export interface FetchOptions {
  allowPrivate: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  headers?: Record<string, string>;
  /** The website blocklist: why a URL (each redirect hop too) is refused, or null. */
  blocked?: (url: string) => { message: string } | null;
  /** Test seams: name resolution and address rules. */
  resolve?: (host: string) => Promise<string[]>;
  classify?: (ip: string) => AddressVerdict;
}

export interface FetchResult {
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  contentType: string;
  truncated: boolean;
}

export class FetchBlockedError extends Error {}

/** Refused by the website blocklist (not by the address rules). */
export class WebsitePolicyError extends FetchBlockedError {
  readonly block: { host: string; rule: string; source: string };
  constructor(b: { message: string; host: string; rule: string; source: string }) {
    super(b.message);
    this.block = { host: b.host, rule: b.rule, source: b.source };
  }
}

export const USER_AGENT = 'Mozilla/5.0 (compatible; HermesAgent/0.1; +https://github.com/NousResearch/hermes-agent)';

function systemResolve(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs.map((a) => a.address)))));
}

function guardedLookup(o: FetchOptions): LookupFunction {
  const classify = o.classify ?? classifyAddress;
  return ((hostname: string, options: { all?: boolean; family?: number }, cb: (...a: unknown[]) => void) => {
    const done = (addrs: { address: string; family: number }[]) => {
      for (const a of addrs) {
        const v = classify(a.address);
        if (v.blocked) return cb(new FetchBlockedError(`Blocked: ${hostname} resolved to ${a.address}, a ${v.kind} address.`));
      }
      if (!addrs.length) return cb(new Error(`Could not resolve ${hostname}`));
      if (options?.all) cb(null, addrs);
      else cb(null, addrs[0].address, addrs[0].family);
    };
    if (o.resolve) o.resolve(hostname).then((xs) => done(xs.map((x) => ({ address: x, family: x.includes(':') ? 6 : 4 }))), (e) => cb(e));
    else dnsLookup(hostname, { all: true }, (err, addrs) => (err ? cb(err) : done(addrs)));
  }) as unknown as LookupFunction;
}

async function once(url: URL, o: FetchOptions): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; truncated: boolean }> {
  // Loaded on first use: TLS and zlib are not free at start-up.
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const zlib = await import('node:zlib');
  const maxBytes = o.maxBytes ?? 10 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'GET',
        headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.8', 'accept-encoding': 'gzip, deflate, br', ...o.headers },
        lookup: o.allowPrivate ? undefined : guardedLookup(o),
        signal: o.signal,
        timeout: o.timeoutMs ?? 20_000,
      },
      (res) => {
        const enc = String(res.headers['content-encoding'] ?? '').toLowerCase();
        const stream = enc === 'gzip' ? res.pipe(zlib.createGunzip()) : enc === 'deflate' ? res.pipe(zlib.createInflate()) : enc === 'br' ? res.pipe(zlib.createBrotliDecompress()) : res;
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        stream.on('data', (c: Buffer) => {
          if (truncated) return;
          size += c.length;
          if (size > maxBytes) {
            truncated = true;
            chunks.push(c.subarray(0, c.length - (size - maxBytes)));
            res.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated });
            return;
          }
          chunks.push(c);
        });
        stream.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated }));
        stream.on('error', (e) => (truncated ? undefined : reject(e)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${Math.round((o.timeoutMs ?? 20_000) / 1000)}s`)));
    req.on('error', reject);
    req.end();
  });
}

/** GET with SSRF checks on every hop. Throws FetchBlockedError when an address is not allowed. */
export async function safeFetch(raw: string, o: FetchOptions): Promise<FetchResult> {
  let current = raw;
  const resolve = o.resolve ?? systemResolve;
  const classify = o.classify ?? classifyAddress;
  for (let hop = 0; hop <= (o.maxRedirects ?? 5); hop++) {
    const b = o.blocked?.(current);
    if (b) throw 'host' in b ? new WebsitePolicyError(b as { message: string; host: string; rule: string; source: string }) : new FetchBlockedError(b.message);
    const v = await checkUrl(current, { allowPrivate: o.allowPrivate, lookup: resolve, classify });
    if (!v.ok) throw new FetchBlockedError(v.reason);
    const r = await once(v.url, o);
    if ([301, 302, 303, 307, 308].includes(r.status) && r.headers.location) {
      current = new URL(String(r.headers.location), v.url).toString();
      continue;
    }
    return { url: v.url.toString(), status: r.status, headers: r.headers, body: r.body, contentType: String(r.headers['content-type'] ?? ''), truncated: r.truncated };
  }
  throw new Error(`Too many redirects (more than ${o.maxRedirects ?? 5}).`);
}
