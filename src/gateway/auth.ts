// Who may talk to the agent. Default deny; the order is Hermes's (_is_user_authorized):
// {PLATFORM}_ALLOW_ALL_USERS → paired users → {PLATFORM}_ALLOWED_USERS → GATEWAY_ALLOWED_USERS
// → GATEWAY_ALLOW_ALL_USERS → deny. Who a sender *is* is decided in identity.ts (stable ids only).
import type { PairingStore } from './pairing.ts';
import { identityMatches, identityRule, setPluginIdentityRules, unmatchableEntries } from './identity.ts';
import { getPlatform } from './platforms/registry.ts';
import type { SessionSource } from './types.ts';

setPluginIdentityRules((platform) => getPlatform(platform)?.identity);

/** The prefix of a platform's env variables (`TELEGRAM`); a definition may name its own (QQ bot: `QQ`). */
export const envPrefix = (platform: string) => getPlatform(platform)?.envPrefix ?? platform.toUpperCase().replace(/[^A-Z0-9]/g, '_');

const truthy = (v: string | undefined) => !!v && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());

export function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export type AuthVerdict = { ok: true; via: string } | { ok: false };

/**
 * Whether `source` may talk to the agent. Every comparison is `identityMatches` (identity.ts): the
 * platform's stable ids only, `@username` only where the platform guarantees it unique; never a
 * display name. Used for messages, button presses, platform events and Matrix invites.
 */
export function authorize(source: SessionSource, env: NodeJS.ProcessEnv, pairing: PairingStore | null): AuthVerdict {
  const P = envPrefix(source.platform);
  if (getPlatform(source.platform)?.trustedSource) return { ok: true, via: 'platform_source' };
  if (truthy(env[`${P}_ALLOW_ALL_USERS`])) return { ok: true, via: 'platform_allow_all' };
  if (source.userId && pairing && (pairing.isApproved(source.platform, source.userId) || identityMatches(pairing.approvedIds(source.platform), source, { handles: false }))) return { ok: true, via: 'pairing' };
  if (source.userId && identityMatches(splitList(env[`${P}_ALLOWED_USERS`]), source)) return { ok: true, via: 'platform_allowlist' };
  if (source.userId && identityMatches(splitList(env.GATEWAY_ALLOWED_USERS), source)) return { ok: true, via: 'gateway_allowlist' };
  if (truthy(env.GATEWAY_ALLOW_ALL_USERS)) return { ok: true, via: 'gateway_allow_all' };
  return { ok: false };
}

/**
 * The start-up warnings about allowlist entries that can never match (a display name, a bare
 * username): one line per variable, saying how to write them. GATEWAY_ALLOWED_USERS entries are
 * named only when they fit none of the started platforms.
 */
export function allowlistWarnings(platforms: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const p of platforms) {
    const key = `${envPrefix(p)}_ALLOWED_USERS`;
    const bad = unmatchableEntries(p, splitList(env[key]));
    if (bad.length) out.push(`auth: ${key}: ${bad.map((b) => JSON.stringify(b)).join(', ')} can never match (${p} compares stable ids, not names); write ${identityRule(p).advice}`);
  }
  const global = splitList(env.GATEWAY_ALLOWED_USERS);
  if (global.length && platforms.length) {
    const bad = global.filter((e) => platforms.every((p) => unmatchableEntries(p, [e]).length > 0));
    if (bad.length) out.push(`auth: GATEWAY_ALLOWED_USERS: ${bad.map((b) => JSON.stringify(b)).join(', ')} can never match (no started platform has such an id; names are not compared); write ${platforms.map((p) => `${p}: ${identityRule(p).advice}`).join('; ')}`);
  }
  return out;
}

/** Whether anything at all lets users in on `platform` (the start-up warning when nothing does). */
export function hasAnyAllowlist(platform: string, env: NodeJS.ProcessEnv): boolean {
  const P = envPrefix(platform);
  return !!(env[`${P}_ALLOWED_USERS`] || env.GATEWAY_ALLOWED_USERS || truthy(env[`${P}_ALLOW_ALL_USERS`]) || truthy(env.GATEWAY_ALLOW_ALL_USERS));
}

/** `pair` (send a pairing code) or `ignore` for strangers in DMs; email defaults to ignore. */
export function unauthorizedDmBehavior(platform: string, config: Record<string, unknown>): 'pair' | 'ignore' {
  const platforms = (config.platforms ?? {}) as Record<string, Record<string, unknown>>;
  const own = platforms[platform]?.unauthorized_dm_behavior ?? (config[platform] as Record<string, unknown> | undefined)?.unauthorized_dm_behavior;
  if (own === 'pair' || own === 'ignore') return own;
  if (platform === 'email') return 'ignore';
  return config.unauthorized_dm_behavior === 'ignore' ? 'ignore' : 'pair';
}
