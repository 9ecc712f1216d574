// The website blocklist (Hermes's `security.website_blocklist`): hosts the web tools refuse. Rules
// are hosts (`admin.example.com` also blocks its subdomains), `*.example.com` globs, or URLs and
// `host/path` spellings reduced to their host. Pure: the caller loads the rules. The SSRF rules
// (ssrf.ts) apply regardless.
import { globToRegExp } from './danger/glob.ts';

export interface WebsiteRule {
  pattern: string;
  /** Where the rule came from: "config" or a shared file's path. */
  source: string;
}

export interface WebsitePolicy {
  enabled: boolean;
  rules: WebsiteRule[];
}

export interface WebsiteBlock {
  url: string;
  host: string;
  rule: string;
  source: string;
  message: string;
}

function hostOf(s: string): string {
  try {
    return new URL(s).hostname;
  } catch {
    return '';
  }
}

/** Lower case, no brackets (IPv6), no trailing dot. */
export function normalizeHost(h: string): string {
  return h.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** A rule as written → the host it blocks, or null for blanks and `#` comments. */
export function normalizeRule(rule: unknown): string | null {
  if (typeof rule !== 'string') return null;
  let v = rule.trim().toLowerCase();
  if (!v || v.startsWith('#')) return null;
  if (v.includes('://')) v = hostOf(v) || v.split('://')[1];
  else if (v.includes('@') || (v.includes(':') && !/^[0-9a-f:]+$/.test(v))) v = hostOf(`http://${v}`) || v;
  const host = normalizeHost(v.split('/')[0]).replace(/^www\./, '');
  if (!host || host.includes('@')) return null;
  return host;
}

/** The host of a URL (or of a schemeless `example.com/x`). */
export function urlHost(url: string): string {
  return normalizeHost(hostOf(url) || (url.includes('://') ? '' : hostOf(`http://${url}`)));
}

/** `*.example.com` globs; a bare host matches itself and its subdomains. */
export function hostMatches(host: string, pattern: string): boolean {
  if (!host || !pattern) return false;
  if (pattern.startsWith('*.')) return globToRegExp(pattern).test(host);
  return host === pattern || host.endsWith(`.${pattern}`);
}

/** Why `url` is blocked by the policy, or null. */
export function checkWebsite(url: string, policy: WebsitePolicy): WebsiteBlock | null {
  if (!policy.enabled || !policy.rules.length) return null;
  const host = urlHost(url);
  if (!host) return null;
  for (const r of policy.rules) {
    if (hostMatches(host, r.pattern))
      return { url, host, rule: r.pattern, source: r.source, message: `Blocked by website policy: '${host}' matched rule '${r.pattern}' from ${r.source}` };
  }
  return null;
}
