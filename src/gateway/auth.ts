// Who may talk to the agent. Default deny; the order is Hermes's (_is_user_authorized):
// {PLATFORM}_ALLOW_ALL_USERS → paired users → {PLATFORM}_ALLOWED_USERS → GATEWAY_ALLOWED_USERS
// → GATEWAY_ALLOW_ALL_USERS → deny.
import type { PairingStore } from './pairing.ts';
import { getPlatform } from './platforms/registry.ts';
import type { SessionSource } from './types.ts';

export const envPrefix = (platform: string) => platform.toUpperCase().replace(/[^A-Z0-9]/g, '_');

const truthy = (v: string | undefined) => !!v && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());

export function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function listMatches(list: string[], source: SessionSource): boolean {
  if (list.includes('*')) return true;
  const ids = new Set<string>();
  if (source.userId) ids.add(source.userId.toLowerCase());
  if (source.userName) {
    ids.add(source.userName.toLowerCase());
    ids.add('@' + source.userName.replace(/^@/, '').toLowerCase());
  }
  return list.some((x) => ids.has(x.toLowerCase()));
}

export type AuthVerdict = { ok: true; via: string } | { ok: false };

export function authorize(source: SessionSource, env: NodeJS.ProcessEnv, pairing: PairingStore | null): AuthVerdict {
  const P = envPrefix(source.platform);
  if (getPlatform(source.platform)?.trustedSource) return { ok: true, via: 'platform_source' };
  if (truthy(env[`${P}_ALLOW_ALL_USERS`])) return { ok: true, via: 'platform_allow_all' };
  if (source.userId && pairing?.isApproved(source.platform, source.userId)) return { ok: true, via: 'pairing' };
  if (listMatches(splitList(env[`${P}_ALLOWED_USERS`]), source)) return { ok: true, via: 'platform_allowlist' };
  if (listMatches(splitList(env.GATEWAY_ALLOWED_USERS), source)) return { ok: true, via: 'gateway_allowlist' };
  if (truthy(env.GATEWAY_ALLOW_ALL_USERS)) return { ok: true, via: 'gateway_allow_all' };
  return { ok: false };
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
