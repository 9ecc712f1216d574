// What the browser may load: the SSRF rules (src/policy/ssrf.ts) with Hermes's cloud-metadata floor,
// the website blocklist, and no API keys in URLs. Used before every navigation, for every request
// the browser makes (route interception and the local browser's guard proxy) and on redirect hops.
import { lookup as dnsLookup } from 'node:dns';
import { hasKnownToken } from '../../policy/redact.ts';
import { alwaysBlockedAddress, checkUrl, classifyAddress, privateUrlsAllowed, type AddressVerdict } from '../../policy/ssrf.ts';
import type { ToolSession } from '../types.ts';
import { websiteBlocked } from '../web/website-policy.ts';

export interface UrlBlock {
  url: string;
  /** ssrf | metadata | website | secret | scheme */
  kind: string;
  message: string;
  /** Hermes's `blocked_by_policy` (website blocklist hits). */
  policy?: { host: string; rule: string; source: string };
}

export interface UrlGuard {
  allowPrivate: boolean;
  /**
   * Why `url` must not be loaded, or null. `navigation`: also refuse API keys in the URL. `dns`
   * (default true): resolve the host and check its addresses (the guard proxy resolves itself).
   */
  check(url: string, o?: { navigation?: boolean; dns?: boolean }): Promise<UrlBlock | null>;
  /** The same rules for an address the browser is about to connect to. */
  checkAddress(host: string, ip: string): UrlBlock | null;
  /** Test seams. */
  resolve: (host: string) => Promise<string[]>;
  classify: (ip: string) => AddressVerdict;
}

export function systemResolve(host: string): Promise<string[]> {
  return new Promise((res, rej) => dnsLookup(host, { all: true }, (err, addrs) => (err ? rej(err) : res(addrs.map((a) => a.address)))));
}

export function urlGuard(s: ToolSession, seams: { resolve?: (h: string) => Promise<string[]>; classify?: (ip: string) => AddressVerdict } = {}): UrlGuard {
  const allowPrivate = privateUrlsAllowed(s.env, s.config as never);
  const resolve = seams.resolve ?? systemResolve;
  const classify = seams.classify ?? classifyAddress;
  return {
    allowPrivate,
    resolve,
    classify,
    async check(url, o = {}) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return { url, kind: 'scheme', message: `"${url}" is not a valid URL.` };
      }
      if (u.protocol === 'about:' && (u.href === 'about:blank' || u.href === 'about:srcdoc')) return null;
      if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol))
        return { url, kind: 'scheme', message: `Blocked: the browser only opens http and https URLs (got ${u.protocol}).` };
      let decoded = url;
      try {
        decoded = decodeURIComponent(url);
      } catch {
        /* keep the raw text */
      }
      if (o.navigation && (hasKnownToken(url) || hasKnownToken(decoded)))
        return { url, kind: 'secret', message: 'Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs.' };
      const web = websiteBlocked(s, url);
      if (web) return { url, kind: 'website', message: web.message, policy: { host: web.host, rule: web.rule, source: web.source } };
      const http = u.protocol === 'ws:' ? `http:${url.slice(3)}` : u.protocol === 'wss:' ? `https:${url.slice(4)}` : url;
      const dns = o.dns !== false;
      const v = await checkUrl(http, { allowPrivate, lookup: dns ? resolve : async () => [], allowUnresolved: !dns, classify });
      if (!v.ok) return { url, kind: /metadata/.test(v.reason) ? 'metadata' : 'ssrf', message: v.reason };
      return null;
    },
    checkAddress(host, ip) {
      if (alwaysBlockedAddress(ip)) return { url: host, kind: 'metadata', message: `Blocked: ${host} resolved to ${ip}, a cloud metadata address.` };
      if (allowPrivate) return null;
      const v = classify(ip);
      return v.blocked
        ? { url: host, kind: 'ssrf', message: `Blocked: ${host} resolved to ${ip}, a ${v.kind} address. Browsing internal addresses is not allowed (set HERMES_ALLOW_PRIVATE_URLS=1 or security.allow_private_urls to permit it).` }
        : null;
    },
  };
}
