// Shared group rules for chat platforms: in channels the bot answers only when mentioned
// (`{PLATFORM}_REQUIRE_MENTION` / `<p>.require_mention`, default true), except in free-response
// channels; `allowed_channels` restricts it to a list, `ignored_channels` silences some. DMs are
// never gated here (authorization decides who may DM). Env wins over config.yaml, as in Hermes.
import { splitList } from '../auth.ts';
import { platformSettings, truthy } from '../config.ts';

export interface ChannelRules {
  requireMention: boolean;
  free: string[];
  allowed: string[];
  ignored: string[];
}

function list(env: string | undefined, cfg: unknown): string[] {
  if (env !== undefined && env !== '') return splitList(env);
  if (Array.isArray(cfg)) return cfg.map(String);
  return splitList(typeof cfg === 'string' ? cfg : undefined);
}

export function channelRules(platform: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>, names: { freeKey?: string } = {}): ChannelRules {
  const P = platform.toUpperCase();
  const s = platformSettings(config, platform);
  const rm = env[`${P}_REQUIRE_MENTION`] ?? s.require_mention;
  const freeKey = names.freeKey ?? 'free_response_channels';
  return {
    requireMention: rm === undefined || rm === '' ? true : truthy(rm),
    free: list(env[`${P}_${freeKey.toUpperCase()}`], s[freeKey]),
    allowed: list(env[`${P}_ALLOWED_CHANNELS`], s.allowed_channels),
    ignored: list(env[`${P}_IGNORED_CHANNELS`], s.ignored_channels),
  };
}

/** Whether a channel message is for the bot. `ids` are the channel (and thread) ids the message is in. */
export function channelAdmits(r: ChannelRules, ids: string[], mentioned: boolean): boolean {
  if (ids.some((id) => r.ignored.includes(id))) return false;
  if (r.allowed.length && !ids.some((id) => r.allowed.includes(id))) return false;
  if (!r.requireMention || mentioned) return true;
  return ids.some((id) => r.free.includes(id));
}

/** A boolean setting: env (`{P}_{NAME}`) over config (`<p>.<name>`) over the default. */
export function flag(platform: string, name: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>, fallback: boolean): boolean {
  const raw = env[`${platform.toUpperCase()}_${name.toUpperCase()}`] ?? platformSettings(config, platform)[name];
  return raw === undefined || raw === '' ? fallback : truthy(raw);
}
