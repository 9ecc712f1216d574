// Gateway settings read from config.yaml and the environment: each platform's block (`platforms.<name>` with its `extra`, or a top-level `<name>:` block), home
// channels, MESSAGING_CWD.
import { homedir } from 'node:os';
import { expandHome } from '../state/paths.ts';
import { envPrefix } from './auth.ts';
import './platforms/builtin.ts';
import { getPlatform } from './platforms/registry.ts';

export { enabledPlatforms, platformEnabled } from './platforms/registry.ts';

import { isObj, platformSettings } from './platform-settings.ts';

export { platformSettings, truthy } from './platform-settings.ts';

type Obj = Record<string, unknown>;

/** `{PLATFORM}_HOME_CHANNEL` (`chat` or `chat:thread`; email: EMAIL_HOME_ADDRESS), else `platforms.<p>.home_channel`. */
export function homeChannel(platform: string, env: NodeJS.ProcessEnv, config: Obj): { chatId: string; threadId?: string } | null {
  const s = platformSettings(config, platform);
  const own = getPlatform(platform)?.homeEnv;
  const raw = (own ? env[own] : undefined) || env[`${envPrefix(platform)}_HOME_CHANNEL`] || (typeof s.home_channel === 'string' ? s.home_channel : isObj(s.home_channel) ? String((s.home_channel as Obj).chat_id ?? '') : '');
  if (!raw) return null;
  const parse = getPlatform(platform)?.parseTarget;
  if (parse) {
    const t = parse(raw.trim());
    return t?.chatId ? t : null;
  }
  const [chatId, threadId] = splitChatThread(raw.trim());
  return chatId ? { chatId, threadId } : null;
}

/** `chat[:thread]`; Slack thread timestamps contain a dot, never a colon. */
export function splitChatThread(raw: string): [string, string | undefined] {
  const i = raw.indexOf(':', raw.startsWith('-') ? 1 : 0);
  return i > 0 ? [raw.slice(0, i), raw.slice(i + 1) || undefined] : [raw, undefined];
}

/** Where gateway sessions work: MESSAGING_CWD (default the home directory), as Hermes. */
export function messagingCwd(env: NodeJS.ProcessEnv): string {
  const raw = env.MESSAGING_CWD?.trim();
  return raw ? expandHome(raw) : env.HOME || homedir();
}

/** Seconds from env or config, with a default. */
export function numberSetting(raw: unknown, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== null && raw !== '' && Number.isFinite(n) ? n : fallback;
}
