// Gateway settings read from config.yaml and the environment: which platforms are on, each
// platform's block (`platforms.<name>` with its `extra`, or a top-level `<name>:` block), home
// channels, MESSAGING_CWD.
import { homedir } from 'node:os';
import { expandHome } from '../state/paths.ts';
import { envPrefix } from './auth.ts';

export const CHAT_PLATFORMS = ['telegram', 'discord', 'slack', 'email'] as const;
export const SERVICE_PLATFORMS = ['api_server', 'webhook'] as const;
export const ALL_PLATFORMS = [...CHAT_PLATFORMS, ...SERVICE_PLATFORMS] as const;
export type PlatformName = (typeof ALL_PLATFORMS)[number];

export const PLATFORM_LABELS: Record<PlatformName, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
  slack: 'Slack',
  email: 'Email',
  api_server: 'API server',
  webhook: 'Webhooks',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()));

/** A platform's settings: `platforms.<p>` merged with `platforms.<p>.extra` (extra wins) and a top-level `<p>:` block. */
export function platformSettings(config: Obj, platform: string): Obj {
  const top = isObj(config[platform]) ? (config[platform] as Obj) : {};
  const platforms = isObj(config.platforms) ? (config.platforms as Obj) : {};
  const block = isObj(platforms[platform]) ? (platforms[platform] as Obj) : {};
  const extra = isObj(block.extra) ? (block.extra as Obj) : {};
  return { ...top, ...block, ...extra };
}

/** Why a platform is on, or null when it is not configured (or switched off with `enabled: false`). */
export function platformEnabled(platform: PlatformName, config: Obj, env: NodeJS.ProcessEnv): boolean {
  const s = platformSettings(config, platform);
  if (s.enabled === false || (typeof s.enabled === 'string' && !truthy(s.enabled))) return false;
  switch (platform) {
    case 'telegram':
      return !!(env.TELEGRAM_BOT_TOKEN || s.token);
    case 'discord':
      return !!(env.DISCORD_BOT_TOKEN || s.token);
    case 'slack':
      return !!((env.SLACK_BOT_TOKEN || s.bot_token) && (env.SLACK_APP_TOKEN || s.app_token));
    case 'email':
      return !!(env.EMAIL_ADDRESS && env.EMAIL_PASSWORD && env.EMAIL_IMAP_HOST && env.EMAIL_SMTP_HOST);
    case 'api_server':
      return truthy(env.API_SERVER_ENABLED) || s.enabled === true;
    case 'webhook':
      return truthy(env.WEBHOOK_ENABLED) || s.enabled === true;
  }
}

export function enabledPlatforms(config: Obj, env: NodeJS.ProcessEnv): PlatformName[] {
  return ALL_PLATFORMS.filter((p) => platformEnabled(p, config, env));
}

/** `{PLATFORM}_HOME_CHANNEL` (`chat` or `chat:thread`; email: EMAIL_HOME_ADDRESS), else `platforms.<p>.home_channel`. */
export function homeChannel(platform: string, env: NodeJS.ProcessEnv, config: Obj): { chatId: string; threadId?: string } | null {
  const s = platformSettings(config, platform);
  const raw = (platform === 'email' ? env.EMAIL_HOME_ADDRESS || env.EMAIL_HOME_CHANNEL : env[`${envPrefix(platform)}_HOME_CHANNEL`]) || (typeof s.home_channel === 'string' ? s.home_channel : isObj(s.home_channel) ? String((s.home_channel as Obj).chat_id ?? '') : '');
  if (!raw) return null;
  if (platform === 'email') return { chatId: raw.trim() };
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
