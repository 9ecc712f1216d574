// QQ Bot through the official QQ Bot Open Platform (API v2), as Hermes does it: QQ_APP_ID +
// QQ_CLIENT_SECRET (or `platforms.qqbot.extra.app_id/client_secret`) buy an access token
// (bots.qq.com/app/getAppAccessToken), `GET /gateway` names the WebSocket, which says Hello, takes
// Identify (or Resume after a drop) and pushes C2C_MESSAGE_CREATE (private chats),
// GROUP_AT_MESSAGE_CREATE (groups, only when the bot is @-mentioned: QQ's rule), AT_MESSAGE_CREATE
// and DIRECT_MESSAGE_CREATE (guild channels and DMs). Replies go through the REST API as passive
// replies to the person's message (msg_id + a rising msg_seq), as Markdown (msg_type 2) unless
// `markdown_support: false` / QQ_MARKDOWN_SUPPORT=false, split at 4000 characters; QQ cannot edit
// messages. Env variables keep Hermes's names: QQ_ALLOWED_USERS, QQ_ALLOW_ALL_USERS,
// QQBOT_HOME_CHANNEL (QQ_HOME_CHANNEL still read); dm_policy / group_policy (`pairing` default,
// `open`, `allowlist` with allow_from / group_allow_from or QQ_GROUP_ALLOWED_USERS, `disabled`)
// narrow intake further. Pictures, files and voice (with QQ's own transcript) come in.
// QQ_API_BASE / QQ_TOKEN_URL point at other hosts (tests).
import type WebSocket from 'ws';
import { truthy } from '../config.ts';
import { downloadAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { listSetting, TokenCache } from './chat-common.ts';
import { qqbot as qqbotEntry, qqCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const QQ_LIMIT = 4000;
const INTENTS = (1 << 25) | (1 << 30) | (1 << 12); // group & C2C, public guild messages, guild DMs
type ChatKind = 'c2c' | 'group' | 'channel' | 'dm';

export interface QQSettings {
  appId: string;
  secret: string;
  api: string;
  tokenUrl: string;
  markdown: boolean;
  dmPolicy: string;
  groupPolicy: string;
  allowFrom: string[];
  groupAllowFrom: string[];
}

export function qqSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): QQSettings | null {
  const c = qqCredentials(env, config);
  if (!c) return null;
  const { appId, secret, s } = c;
  const md = s.markdown_support ?? env.QQ_MARKDOWN_SUPPORT;
  return {
    appId,
    secret,
    api: (env.QQ_API_BASE || 'https://api.sgroup.qq.com').replace(/\/+$/, ''),
    tokenUrl: env.QQ_TOKEN_URL || 'https://bots.qq.com/app/getAppAccessToken',
    markdown: md === undefined || md === '' ? true : md === true || truthy(md),
    dmPolicy: String(s.dm_policy ?? 'pairing').toLowerCase(),
    groupPolicy: String(s.group_policy ?? 'pairing').toLowerCase(),
    allowFrom: listSetting(undefined, s.allow_from ?? s.allowFrom),
    groupAllowFrom: listSetting(env.QQ_GROUP_ALLOWED_USERS, s.group_allow_from ?? s.groupAllowFrom),
  };
}

interface GatewayFrame {
  op: number;
  d?: any;
  s?: number;
  t?: string;
}

/** A target's `group:` / `c2c:` / `channel:` / `dm:` prefix, else what inbound traffic taught us. */
function splitTarget(chatId: string): { kind?: ChatKind; id: string } {
  const m = /^(c2c|group|channel|dm):(.+)$/.exec(chatId);
  return m ? { kind: m[1] as ChatKind, id: m[2] } : { id: chatId };
}

export class QQBotAdapter implements PlatformAdapter {
  readonly name = 'qqbot';
  readonly maxMessageLength = QQ_LIMIT;
  readonly supportsButtons = false;
  readonly s: QQSettings;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private readonly token: TokenCache;
  private ws: WebSocket | null = null;
  private closing = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private session: { id: string; seq: number } | null = null;
  private seq = 0;
  private botId = '';
  private readonly kinds = new Map<string, ChatKind>();
  /** chat → the person's last message (passive replies bind to it) and the next msg_seq. */
  private readonly lastMsg = new Map<string, { id: string; at: number; seq: number }>();
  private readonly seen = new Set<string>();

  constructor(o: { settings: QQSettings; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    this.token = new TokenCache(async () => {
      const r = await fetch(this.s.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appId: this.s.appId, clientSecret: this.s.secret }) });
      const b = (await r.json().catch(() => ({}))) as { access_token?: string; expires_in?: string | number; message?: string; code?: number };
      if (!r.ok || !b.access_token) throw new Error(`QQ refused the app credentials: ${b.message ?? `HTTP ${r.status}`}${b.code ? ` (code ${b.code})` : ''}`);
      return { token: b.access_token, ttlMs: Number(b.expires_in ?? 7200) * 1000 };
    });
  }

  private async rest<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${this.s.api}${path}`, { method, headers: { authorization: `QQBot ${await this.token.get()}`, 'x-union-appid': this.s.appId, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await r.text();
    const b = (text ? JSON.parse(text) : {}) as T & { code?: number; message?: string };
    if (!r.ok || (b.code && b.code !== 0)) {
      if (r.status === 401) this.token.clear();
      throw new Error(`QQ ${method} ${path}: ${b.message ?? `HTTP ${r.status}`}${b.code ? ` (code ${b.code})` : ''}`);
    }
    return b;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const { url } = await this.rest<{ url: string }>('GET', '/gateway');
    const { default: WS } = await import('ws');
    const ws = new WS(url);
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        if (ready) return;
        reject(new Error('QQ gateway sent no READY within 20 s'));
        ws.terminate();
      }, 20_000);
      timer.unref();
      ws.on('message', (raw) => {
        let f: GatewayFrame;
        try {
          f = JSON.parse(String(raw)) as GatewayFrame;
        } catch {
          return;
        }
        if (typeof f.s === 'number') this.seq = f.s;
        if (f.op === 10) {
          const every = Number(f.d?.heartbeat_interval ?? 41_250);
          if (this.heartbeat) clearInterval(this.heartbeat);
          this.heartbeat = setInterval(() => ws.readyState === 1 && ws.send(JSON.stringify({ op: 1, d: this.seq || null })), every);
          this.heartbeat.unref();
          void this.token.get().then((t) =>
            ws.send(JSON.stringify(this.session ? { op: 6, d: { token: `QQBot ${t}`, session_id: this.session.id, seq: this.seq || this.session.seq } } : { op: 2, d: { token: `QQBot ${t}`, intents: INTENTS, shard: [0, 1], properties: { $os: process.platform, $browser: 'hermes-agent', $device: 'hermes-agent' } } })),
          );
          return;
        }
        if (f.op === 0 && (f.t === 'READY' || f.t === 'RESUMED')) {
          if (f.t === 'READY') {
            this.session = { id: String(f.d?.session_id ?? ''), seq: this.seq };
            this.botId = String(f.d?.user?.id ?? '');
          }
          ready = true;
          resolve();
          return;
        }
        if (f.op === 0 && f.t) {
          if (this.session) this.session.seq = this.seq;
          void this.onEvent(f.t, f.d ?? {}, handlers).catch((e) => this.log(`qqbot: could not read a message: ${(e as Error).message}`));
          return;
        }
        if (f.op === 9) {
          // Invalid session: forget it; the next connection identifies afresh.
          this.session = null;
          ws.close(4009);
        }
        if (f.op === 7) ws.close(4000, 'reconnect requested');
      });
      ws.on('error', (e) => (ready ? this.log(`qqbot: websocket: ${e.message}`) : reject(e)));
      ws.on('close', (code, reason) => {
        if (this.heartbeat) clearInterval(this.heartbeat);
        if ([4004].includes(code)) this.token.clear();
        if ([4006, 4007, 4009, 4900, 4901, 4902, 4903, 4904, 4905, 4906, 4907, 4908, 4909, 4910, 4911, 4912, 4913].includes(code)) this.session = null;
        if (!ready) reject(new Error(`QQ gateway closed before READY (${code}${reason.length ? ` ${reason}` : ''})`));
        else if (!this.closing && this.ws === ws) handlers.disconnected?.(new Error(`QQ gateway closed (${code})`));
      });
    });
  }

  private admits(kind: ChatKind, chatId: string, userId: string): boolean {
    const has = (list: string[], id: string) => list.includes('*') || list.some((x) => x.toLowerCase() === id.toLowerCase());
    const p = kind === 'group' || kind === 'channel' ? this.s.groupPolicy : this.s.dmPolicy;
    if (p === 'disabled') return false;
    if (p !== 'allowlist') return true;
    return kind === 'group' || kind === 'channel' ? has(this.s.groupAllowFrom, chatId) : has(this.s.allowFrom, userId);
  }

  private async onEvent(type: string, d: any, handlers: InboundHandlers): Promise<void> {
    let kind: ChatKind;
    let chatId: string;
    let userId: string;
    if (type === 'C2C_MESSAGE_CREATE') [kind, chatId, userId] = ['c2c', String(d.author?.user_openid ?? ''), String(d.author?.user_openid ?? '')];
    else if (type === 'GROUP_AT_MESSAGE_CREATE') [kind, chatId, userId] = ['group', String(d.group_openid ?? ''), String(d.author?.member_openid ?? '')];
    else if (type === 'AT_MESSAGE_CREATE') [kind, chatId, userId] = ['channel', String(d.channel_id ?? ''), String(d.author?.id ?? '')];
    else if (type === 'DIRECT_MESSAGE_CREATE') [kind, chatId, userId] = ['dm', String(d.guild_id ?? ''), String(d.author?.id ?? '')];
    else return;
    const id = String(d.id ?? '');
    if (!chatId || !id || this.seen.has(id)) return;
    this.seen.add(id);
    if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value as string);
    if (!this.admits(kind, chatId, userId)) return;
    this.kinds.set(chatId, kind);
    this.lastMsg.set(chatId, { id, at: Date.now(), seq: 1 });
    let text = String(d.content ?? '');
    if (this.botId) text = text.replaceAll(`<@!${this.botId}>`, '').replaceAll(`<@${this.botId}>`, '');
    text = text.trim();
    const attachments: InboundAttachment[] = [];
    for (const [i, a] of ((d.attachments ?? []) as { content_type?: string; filename?: string; url?: string; asr_refer_text?: string }[]).entries()) {
      if (a.asr_refer_text) text = [text, `[Voice, transcribed by QQ] ${a.asr_refer_text}`].filter(Boolean).join('\n');
      if (!a.url) continue;
      const url = a.url.startsWith('//') ? `https:${a.url}` : /^https?:\/\//.test(a.url) ? a.url : `https://${a.url}`;
      const voice = a.content_type === 'voice' || /^audio\//.test(a.content_type ?? '');
      try {
        attachments.push(await downloadAttachment(this.home, this.config, { url, mimeType: a.content_type?.includes('/') ? a.content_type : undefined, fileName: a.filename, id: `${id}-${i}`, voice, kind: voice ? 'audio' : undefined }));
      } catch (e) {
        this.log(`qqbot: attachment ${i} of ${id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    const source: SessionSource = { platform: 'qqbot', chatId, chatType: kind === 'c2c' || kind === 'dm' ? 'dm' : 'group', userId, userName: String(d.author?.username ?? '') || undefined, scopeId: kind === 'channel' ? String(d.guild_id ?? '') || undefined : undefined };
    handlers.message({ source, messageId: id, text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    const t = splitTarget(chatId);
    const kind = t.kind ?? this.kinds.get(t.id) ?? 'c2c';
    const path = kind === 'c2c' ? `/v2/users/${t.id}/messages` : kind === 'group' ? `/v2/groups/${t.id}/messages` : kind === 'channel' ? `/channels/${t.id}/messages` : `/dms/${t.id}/messages`;
    const body: Record<string, unknown> = this.s.markdown && (kind === 'c2c' || kind === 'group') ? { msg_type: 2, markdown: { content: text } } : { msg_type: 0, content: text };
    // Passive replies (QQ limits proactive messages hard): C2C answers an hour on, groups five minutes.
    const last = this.lastMsg.get(t.id);
    if (last && Date.now() - last.at < (kind === 'group' ? 5 : 60) * 60_000) {
      body.msg_id = last.id;
      body.msg_seq = last.seq++;
    }
    try {
      const r = await this.rest<{ id?: string }>('POST', path, body);
      return { ok: true, messageId: r.id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...qqbotEntry,
  envPrefix: 'QQ',
  homeEnv: 'QQBOT_HOME_CHANNEL',
  maxMessageLength: QQ_LIMIT,
  targetHint: 'a user openid, or group:<group_openid> / channel:<channel_id>',
  parseTarget: (rest) => (rest.trim() ? { chatId: rest.trim() } : null),
  create: async (ctx) => {
    const settings = qqSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('QQ Bot needs QQ_APP_ID and QQ_CLIENT_SECRET');
    return new QQBotAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = qqSettings(ctx.env, ctx.config);
    return settings ? new QQBotAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'QQ Open Platform (q.qq.com) → your bot → Development settings: copy the AppID and AppSecret (client secret); add this machine’s IP to the IP allowlist.',
    fields: [
      { key: 'QQ_APP_ID', prompt: 'AppID', validate: (v) => (/^\d+$/.test(v) ? undefined : 'An AppID is digits') },
      { key: 'QQ_CLIENT_SECRET', prompt: 'AppSecret (client secret)', secret: true },
    ],
    allowlistHint: 'user openids',
  },
  probe: async (env, config) => {
    const s = qqSettings(env, config);
    if (!s) throw new Error('QQ_APP_ID and QQ_CLIENT_SECRET are needed');
    const a = new QQBotAdapter({ settings: s, config, home: '', log: () => undefined });
    const me = await (a as unknown as { rest<T>(m: string, p: string): Promise<T> }).rest<{ username?: string }>('GET', '/users/@me');
    return me.username ?? `app ${s.appId}`;
  },
  promptHint: 'QQ renders basic Markdown (bold, lists, links, code); keep replies compact.',
};
