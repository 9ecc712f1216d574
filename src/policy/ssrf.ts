// SSRF rules: which addresses a URL the model supplied may reach. Pure decisions; DNS resolution
// is injected so callers check every address a name resolves to (and, in the fetcher, the address
// actually connected to). `HERMES_ALLOW_PRIVATE_URLS` / `security.allow_private_urls` opt out.
import { isIP } from 'node:net';

export interface AddressVerdict {
  blocked: boolean;
  /** loopback | private | link-local | metadata | unspecified | multicast | reserved | cgnat | unique-local | documentation */
  kind: string;
}

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.com']);
const METADATA_IPS = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function classifyV4(ip: string): AddressVerdict {
  if (METADATA_IPS.has(ip)) return { blocked: true, kind: 'metadata' };
  const n = v4ToInt(ip);
  for (const [net, bits, kind] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === ((v4ToInt(net) & mask) >>> 0)) return { blocked: true, kind };
  }
  return { blocked: false, kind: 'public' };
}

/** Expands an IPv6 literal (with an optional embedded IPv4 tail) into 8 numbers. */
export function parseV6(ip: string): number[] | null {
  let s = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const o = tail[1].split('.').map(Number);
    s = s.slice(0, -tail[1].length) + `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 ? (halves[1] ? halves[1].split(':') : []) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  if (fill < 0) return null;
  const parts = [...head, ...Array(fill).fill('0'), ...rest];
  if (parts.length !== 8 || parts.some((p) => !/^[0-9a-f]{1,4}$/i.test(p))) return null;
  return parts.map((p) => parseInt(p, 16));
}

function classifyV6(ip: string): AddressVerdict {
  const h = parseV6(ip);
  if (!h) return { blocked: true, kind: 'reserved' };
  const embedded = (a: number, b: number) => `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  if (h.every((x) => x === 0)) return { blocked: true, kind: 'unspecified' };
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return { blocked: true, kind: 'loopback' };
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d
  if (h.slice(0, 5).every((x) => x === 0) && (h[5] === 0xffff || h[5] === 0)) return classifyV4(embedded(h[6], h[7]));
  if (h[0] === 0x64 && h[1] === 0xff9b) return classifyV4(embedded(h[6], h[7]));
  // 6to4 2002:AABB:CCDD::
  if (h[0] === 0x2002) return classifyV4(embedded(h[1], h[2]));
  if (h[0] === 0xfd00 && h[1] === 0x0ec2) return { blocked: true, kind: 'metadata' };
  if ((h[0] & 0xffc0) === 0xfe80) return { blocked: true, kind: 'link-local' };
  if ((h[0] & 0xffc0) === 0xfec0) return { blocked: true, kind: 'private' };
  if ((h[0] & 0xfe00) === 0xfc00) return { blocked: true, kind: 'unique-local' };
  if ((h[0] & 0xff00) === 0xff00) return { blocked: true, kind: 'multicast' };
  if (h[0] === 0x2001 && h[1] === 0x0db8) return { blocked: true, kind: 'documentation' };
  if (h[0] === 0x0100 && h[1] === 0 && h[2] === 0 && h[3] === 0) return { blocked: true, kind: 'reserved' };
  return { blocked: false, kind: 'public' };
}

/** Classifies an IP address (v4 or v6 literal). Non-IPs are blocked as reserved. */
export function classifyAddress(ip: string): AddressVerdict {
  const bare = ip.replace(/^\[|\]$/g, '');
  const v = isIP(bare);
  if (v === 4) return classifyV4(bare);
  if (v === 6 || bare.includes(':')) return classifyV6(bare);
  return { blocked: true, kind: 'reserved' };
}

/**
 * IPv4 in the shorthand forms some resolvers accept (`2130706433`, `0x7f000001`, `0177.0.0.1`,
 * `127.1`) → dotted quad. WHATWG URL parsing already does this for http(s) URLs; this covers hosts
 * that reach us another way.
 */
export function normalizeIPv4(host: string): string | null {
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p, 8);
    else if (/^(0|[1-9]\d*)$/.test(p)) n = Number(p);
    else return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  let v = last;
  nums.forEach((n, i) => (v += n * 256 ** (3 - i)));
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

export type Lookup = (hostname: string) => Promise<string[]>;

export type UrlVerdict = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/**
 * Whether the model may fetch `raw`: http(s) only, no credentials in the URL, and the host (and
 * every address it resolves to) not private, loopback, link-local, metadata or otherwise internal.
 */
export async function checkUrl(
  raw: string,
  opts: {
    allowPrivate: boolean;
    lookup: Lookup;
    classify?: (ip: string) => AddressVerdict;
    /** A name that does not resolve here passes (the fetch happens elsewhere, e.g. a remote extract API). */
    allowUnresolved?: boolean;
  },
): Promise<UrlVerdict> {
  const classify = opts.classify ?? classifyAddress;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: `"${raw}" is not a valid URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `Only http and https URLs can be fetched (got ${url.protocol}).` };
  if (url.username || url.password) return { ok: false, reason: 'URLs with embedded credentials are not fetched.' };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const deny = (kind: string, what = host) => ({
    ok: false as const,
    reason: `Blocked: ${what} is a ${kind} address. Fetching internal addresses is not allowed (set HERMES_ALLOW_PRIVATE_URLS=1 to permit it).`,
  });
  if (opts.allowPrivate) {
    // The cloud-metadata floor holds even when private addresses are allowed (as in Hermes).
    const literal = isIP(host) ? host : normalizeIPv4(host);
    if (alwaysBlockedHost(host) || (literal && alwaysBlockedAddress(literal)))
      return { ok: false, reason: `Blocked: ${literal ?? host} is a cloud metadata address; it is never fetched, whatever allow_private_urls says.` };
    return { ok: true, url, addresses: [] };
  }
  if (METADATA_HOSTS.has(host)) return deny('metadata', host);
  if (host === 'localhost' || host.endsWith('.localhost')) return deny('loopback', host);
  const literal = isIP(host) ? host : normalizeIPv4(host);
  if (literal) {
    const v = classify(literal);
    return v.blocked ? deny(v.kind, literal) : { ok: true, url, addresses: [literal] };
  }
  let addresses: string[];
  try {
    addresses = await opts.lookup(host);
  } catch (e) {
    if (opts.allowUnresolved) return { ok: true, url, addresses: [] };
    return { ok: false, reason: `Could not resolve ${host}: ${(e as Error).message}` };
  }
  if (!addresses.length) return opts.allowUnresolved ? { ok: true, url, addresses: [] } : { ok: false, reason: `Could not resolve ${host}.` };
  for (const a of addresses) {
    const v = classify(a);
    if (v.blocked) return deny(v.kind, `${host} (${a})`);
  }
  return { ok: true, url, addresses };
}

/**
 * The floor no setting lifts (Hermes's always-blocked set): cloud metadata names and addresses and
 * the whole IPv4 link-local range, also in IPv4-mapped IPv6 form.
 */
export function alwaysBlockedAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (METADATA_IPS.has(bare)) return true;
  let v4: string | null = isIP(bare) === 4 ? bare : null;
  if (!v4 && isIP(bare) === 6) {
    const h = parseV6(bare);
    if (!h) return false;
    if (h[0] === 0xfd00 && h[1] === 0x0ec2 && h.slice(2, 7).every((x) => x === 0) && h[7] === 0x254) return true;
    if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) v4 = `${h[6] >> 8}.${h[6] & 255}.${h[7] >> 8}.${h[7] & 255}`;
  }
  if (!v4) return false;
  return METADATA_IPS.has(v4) || v4.startsWith('169.254.');
}

export function alwaysBlockedHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return METADATA_HOSTS.has(h);
}

/** HERMES_ALLOW_PRIVATE_URLS (truthy), `security.allow_private_urls: true` or Hermes's legacy `browser.allow_private_urls`. */
export function privateUrlsAllowed(env: NodeJS.ProcessEnv, config?: { security?: { allow_private_urls?: boolean }; browser?: unknown }): boolean {
  const v = env.HERMES_ALLOW_PRIVATE_URLS?.trim().toLowerCase();
  if (v) return ['1', 'true', 'yes', 'on'].includes(v);
  return config?.security?.allow_private_urls === true || (config?.browser as { allow_private_urls?: unknown } | undefined)?.allow_private_urls === true;
}
