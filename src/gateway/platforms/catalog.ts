// The built-in platforms' definitions without their adapters: name, label, kind and what makes each
// one configured (credentials in .env or config.yaml). Tiny and synchronous, importing no adapter
// and no SDK, so send_message can tell which platforms are set up in a one-shot run. Each adapter's
// `definition` (platforms/<name>.ts) spreads its entry here and builds its settings on the
// credential readers below: this file is the one place that decides "configured".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermesHome } from '../../state/paths.ts';
import { platformSettings, truthy } from '../platform-settings.ts';
import { definitionEnabled, listPlatforms, type PlatformDefinition } from './registry.ts';

type Obj = Record<string, unknown>;
type Env = NodeJS.ProcessEnv;

export type PlatformBasics = Pick<PlatformDefinition, 'name' | 'label' | 'kind' | 'configured'>;

// ---------------------------------------------------------------------------------------------
// Credential readers: null when the platform is not configured.

/**
 * Required values, each `[config.yaml key, .env name]`: config.yaml first (`envFirst`: the
 * environment first), optionally trimmed; null when one of them is missing.
 */
function required<K extends string>(env: Env, s: Obj, fields: Record<K, [string, string]>, o: { envFirst?: boolean; trim?: boolean } = {}): Record<K, string> | null {
  const out = {} as Record<K, string>;
  for (const [k, [key, name]] of Object.entries(fields) as [K, [string, string]][]) {
    const raw = String((o.envFirst ? env[name] || s[key] : s[key] || env[name]) || '');
    const v = o.trim ? raw.trim() : raw;
    if (!v) return null;
    out[k] = v;
  }
  return out;
}

export function blueBubblesCredentials(env: Env, config: Obj): { url: string; password: string } | null {
  const s = platformSettings(config, 'bluebubbles');
  const url = String(s.server_url || env.BLUEBUBBLES_SERVER_URL || '').trim();
  const password = String(s.password || env.BLUEBUBBLES_PASSWORD || '');
  return url && password ? { url, password } : null;
}

export function dingtalkCredentials(env: Env, config: Obj): { clientId: string; clientSecret: string } | null {
  return required(env, platformSettings(config, 'dingtalk'), { clientId: ['client_id', 'DINGTALK_CLIENT_ID'], clientSecret: ['client_secret', 'DINGTALK_CLIENT_SECRET'] });
}

export function feishuCredentials(env: Env, config: Obj): { appId: string; appSecret: string } | null {
  return required(env, platformSettings(config, 'feishu'), { appId: ['app_id', 'FEISHU_APP_ID'], appSecret: ['app_secret', 'FEISHU_APP_SECRET'] }, { trim: true });
}

/** A service account key (a path or inline JSON) or the events URL. */
export function googleChatCredentials(env: Env, config: Obj): { keyRaw: string; eventsUrl: string } | null {
  const s = platformSettings(config, 'google_chat');
  const keyRaw = String(env.GOOGLE_CHAT_SERVICE_ACCOUNT_JSON || s.service_account_json || env.GOOGLE_APPLICATION_CREDENTIALS || '');
  const eventsUrl = String(s.http_events_url || env.GOOGLE_CHAT_HTTP_EVENTS_URL || '');
  if (!keyRaw && !eventsUrl) return null;
  if (keyRaw && !keyRaw.trim().startsWith('{') && !existsSync(keyRaw) && !eventsUrl) return null;
  return { keyRaw, eventsUrl };
}

export function hassSettings(env: Env, config: Obj): { url: string; token: string } | null {
  const s = platformSettings(config, 'homeassistant');
  const token = String(env.HASS_TOKEN || s.token || '');
  const url = String(env.HASS_URL || s.url || 'http://homeassistant.local:8123').replace(/\/+$/, '');
  return token ? { url, token } : null;
}

export function ircCredentials(env: Env, config: Obj): { server: string; nick: string } | null {
  const s = platformSettings(config, 'irc');
  const server = String(env.IRC_SERVER ?? s.server ?? '');
  const nick = String(env.IRC_NICK ?? s.nick ?? '');
  return server && nick ? { server, nick } : null;
}

export function lineCredentials(env: Env, config: Obj): { token: string; secret: string } | null {
  return required(env, platformSettings(config, 'line'), { token: ['channel_access_token', 'LINE_CHANNEL_ACCESS_TOKEN'], secret: ['channel_secret', 'LINE_CHANNEL_SECRET'] }, { envFirst: true });
}

export function matrixSettings(env: Env, config: Obj) {
  const s = platformSettings(config, 'matrix');
  const homeserver = String(env.MATRIX_HOMESERVER || s.homeserver || '').replace(/\/+$/, '');
  const accessToken = String(env.MATRIX_ACCESS_TOKEN || s.access_token || '') || undefined;
  const userId = String(env.MATRIX_USER_ID || s.user_id || '') || undefined;
  const password = String(env.MATRIX_PASSWORD || s.password || '') || undefined;
  const deviceId = String(env.MATRIX_DEVICE_ID || s.device_id || '') || undefined;
  if (!homeserver || !(accessToken || (userId && password))) return null;
  return { homeserver, accessToken, userId, password, deviceId };
}

export function mattermostSettings(env: Env, config: Obj): { url: string; token: string } | null {
  const s = platformSettings(config, 'mattermost');
  const url = String(env.MATTERMOST_URL || s.url || '').replace(/\/+$/, '');
  const token = String(env.MATTERMOST_TOKEN || s.token || '');
  return url && token ? { url, token } : null;
}

/** Hermes's QQ bot reads `platforms.qq` and `platforms.qqbot` (the latter wins). */
export function qqCredentials(env: Env, config: Obj): { appId: string; secret: string; s: Obj } | null {
  const s = { ...platformSettings(config, 'qq'), ...platformSettings(config, 'qqbot') };
  const c = required(env, s, { appId: ['app_id', 'QQ_APP_ID'], secret: ['client_secret', 'QQ_CLIENT_SECRET'] }, { trim: true });
  return c ? { ...c, s } : null;
}

export function signalSettings(env: Env, config: Obj): { url: string; account: string } | null {
  const s = platformSettings(config, 'signal');
  const url = String(env.SIGNAL_HTTP_URL || s.http_url || '').replace(/\/+$/, '');
  const account = String(env.SIGNAL_ACCOUNT || s.account || '');
  return url && account ? { url, account } : null;
}

export function twilioCredentials(env: Env): { sid: string; token: string; from: string } | null {
  if (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN || !env.TWILIO_PHONE_NUMBER) return null;
  return { sid: env.TWILIO_ACCOUNT_SID, token: env.TWILIO_AUTH_TOKEN, from: env.TWILIO_PHONE_NUMBER };
}

export function teamsCredentials(env: Env, config: Obj): { clientId: string; clientSecret: string; tenantId: string } | null {
  const fields = { clientId: ['client_id', 'TEAMS_CLIENT_ID'], clientSecret: ['client_secret', 'TEAMS_CLIENT_SECRET'], tenantId: ['tenant_id', 'TEAMS_TENANT_ID'] } satisfies Record<string, [string, string]>;
  return required(env, platformSettings(config, 'teams'), fields, { envFirst: true });
}

export function wecomCredentials(env: Env, config: Obj): { botId: string; secret: string } | null {
  return required(env, platformSettings(config, 'wecom'), { botId: ['bot_id', 'WECOM_BOT_ID'], secret: ['secret', 'WECOM_SECRET'] }, { trim: true });
}

/** A JSON object from a file, or null (missing or unreadable). */
export function readJsonObject(path: string): Obj | null {
  try {
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as Obj) : null;
  } catch {
    return null;
  }
}

export const weixinAccountsDir = (home: string) => join(home, 'weixin', 'accounts');

/** The account id and its token: WEIXIN_TOKEN / config, else the one `hermes gateway setup` saved (with its base URL). */
export function weixinCredentials(env: Env, config: Obj, home: string): { accountId: string; token: string; savedBaseUrl?: string } | null {
  const s = platformSettings(config, 'weixin');
  const accountId = String(s.account_id ?? env.WEIXIN_ACCOUNT_ID ?? '').trim();
  if (!accountId) return null;
  const token = String(s.token || env.WEIXIN_TOKEN || '').trim();
  if (token) return { accountId, token };
  const saved = readJsonObject(join(weixinAccountsDir(home), `${accountId}.json`));
  const savedToken = String(saved?.token ?? '').trim();
  if (!savedToken) return null;
  return { accountId, token: savedToken, savedBaseUrl: saved?.base_url ? String(saved.base_url) : undefined };
}

export function whatsappCloudCredentials(env: Env, config: Obj): { phoneNumberId: string; token: string } | null {
  const fields = { phoneNumberId: ['phone_number_id', 'WHATSAPP_CLOUD_PHONE_NUMBER_ID'], token: ['access_token', 'WHATSAPP_CLOUD_ACCESS_TOKEN'] } satisfies Record<string, [string, string]>;
  return required(env, platformSettings(config, 'whatsapp_cloud'), fields, { envFirst: true });
}

export function yuanbaoCredentials(env: Env, config: Obj): { appId: string; appSecret: string } | null {
  return required(env, platformSettings(config, 'yuanbao'), { appId: ['app_id', 'YUANBAO_APP_ID'], appSecret: ['app_secret', 'YUANBAO_APP_SECRET'] }, { trim: true });
}

// ---------------------------------------------------------------------------------------------
// The definitions.

const chat = (name: string, label: string, configured: PlatformBasics['configured']): PlatformBasics => ({ name, label, kind: 'chat', configured });
const enabledFlag = (name: string, envName: string): PlatformBasics['configured'] => (env, config) => truthy(env[envName]) || platformSettings(config, name).enabled === true;

export const telegram = chat('telegram', 'Telegram', (env, config) => !!(env.TELEGRAM_BOT_TOKEN || platformSettings(config, 'telegram').token));
export const discord = chat('discord', 'Discord', (env, config) => !!(env.DISCORD_BOT_TOKEN || platformSettings(config, 'discord').token));
export const slack = chat('slack', 'Slack', (env, config) => {
  const s = platformSettings(config, 'slack');
  return !!((env.SLACK_BOT_TOKEN || s.bot_token) && (env.SLACK_APP_TOKEN || s.app_token));
});
export const whatsapp = chat('whatsapp', 'WhatsApp', enabledFlag('whatsapp', 'WHATSAPP_ENABLED'));
export const whatsappCloud = chat('whatsapp_cloud', 'WhatsApp Business (Cloud API)', (env, config) => !!whatsappCloudCredentials(env, config));
export const matrix = chat('matrix', 'Matrix', (env, config) => !!matrixSettings(env, config));
export const mattermost = chat('mattermost', 'Mattermost', (env, config) => !!mattermostSettings(env, config));
export const signal = chat('signal', 'Signal', (env, config) => !!signalSettings(env, config));
export const homeassistant = chat('homeassistant', 'Home Assistant', (env, config) => !!hassSettings(env, config));
export const sms = chat('sms', 'SMS (Twilio)', (env) => !!twilioCredentials(env));
export const bluebubbles = chat('bluebubbles', 'BlueBubbles (iMessage)', (env, config) => !!blueBubblesCredentials(env, config));
export const irc = chat('irc', 'IRC', (env, config) => !!ircCredentials(env, config));
export const teams = chat('teams', 'Microsoft Teams', (env, config) => !!teamsCredentials(env, config));
export const googleChat = chat('google_chat', 'Google Chat', (env, config) => !!googleChatCredentials(env, config));
export const line = chat('line', 'LINE', (env, config) => !!lineCredentials(env, config));
export const dingtalk = chat('dingtalk', 'DingTalk', (env, config) => !!dingtalkCredentials(env, config));
export const feishu = chat('feishu', 'Feishu / Lark', (env, config) => !!feishuCredentials(env, config));
export const wecom = chat('wecom', 'WeCom (AI Bot)', (env, config) => !!wecomCredentials(env, config));
export const weixin = chat('weixin', 'Weixin (WeChat)', (env, config) => !!weixinCredentials(env, config, hermesHome(env)));
export const qqbot = chat('qqbot', 'QQ Bot', (env, config) => !!qqCredentials(env, config));
export const yuanbao = chat('yuanbao', 'Yuanbao (Tencent 元宝)', (env, config) => !!yuanbaoCredentials(env, config));
export const email = chat('email', 'Email', (env) => !!(env.EMAIL_ADDRESS && env.EMAIL_PASSWORD && env.EMAIL_IMAP_HOST && env.EMAIL_SMTP_HOST));
export const apiServer: PlatformBasics = { name: 'api_server', label: 'API server', kind: 'service', configured: enabledFlag('api_server', 'API_SERVER_ENABLED') };
export const webhook: PlatformBasics = { name: 'webhook', label: 'Webhooks', kind: 'service', configured: enabledFlag('webhook', 'WEBHOOK_ENABLED') };

/** Every built-in platform, in the order `hermes gateway setup` lists them. */
export const BUILTIN_PLATFORMS: readonly PlatformBasics[] = [telegram, discord, slack, whatsapp, whatsappCloud, matrix, mattermost, signal, homeassistant, sms, bluebubbles, irc, teams, googleChat, line, dingtalk, feishu, wecom, weixin, qqbot, yuanbao, email, apiServer, webhook];

/**
 * The chat platforms configured here (credentials present, not `enabled: false`): the built-ins
 * from this catalog plus any a plugin registered. Loads no adapter.
 */
export function configuredChatPlatforms(env: Env, config: Obj): string[] {
  const defs = new Map<string, PlatformBasics>(BUILTIN_PLATFORMS.map((d) => [d.name, d]));
  // Already registered ones only (plugins; the built-ins once the gateway loaded them): never loads them.
  for (const d of listPlatforms()) defs.set(d.name, d);
  return [...defs.values()].filter((d) => d.kind === 'chat' && definitionEnabled(d, config, env)).map((d) => d.name);
}
