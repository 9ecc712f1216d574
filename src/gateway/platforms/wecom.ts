// WeCom (企业微信) AI Bot over its WebSocket gateway, as Hermes does it: WECOM_BOT_ID + WECOM_SECRET
// (or `platforms.wecom.extra.bot_id/secret`), WECOM_WEBSOCKET_URL (default wss://openws.work.weixin.qq.com).
// The socket authenticates with `aibot_subscribe`, messages arrive as `aibot_msg_callback` frames,
// replies go back as `aibot_respond_msg` bound to the person's last callback (groups need that: an AI
// bot cannot start a conversation in a group) or as proactive `aibot_send_msg` (markdown, 4000
// characters a message). App-level pings every 30 s; a dropped socket is reconnected by the gateway.
// Images and files arrive as URLs encrypted with a per-message AES key (AES-256-CBC, IV = the key's
// first 16 bytes, PKCS#7 padding to 32) and are decrypted here. Hermes's own intake policies are kept:
// dm_policy / group_policy (`open`, `allowlist`, `disabled`) with allow_from, group_allow_from and
// per-group `groups.<id>.allow_from`; they narrow further what the gateway's allowlist and pairing allow.
import { createDecipheriv, randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, fetchCapped, kindOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { listSetting } from './chat-common.ts';
import { wecom as wecomEntry, wecomCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const WECOM_LIMIT = 4000;
const PING_MS = 30_000;
const REQUEST_MS = 15_000;

export interface WeComSettings {
  botId: string;
  secret: string;
  wsUrl: string;
}

export function wecomSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): WeComSettings | null {
  const c = wecomCredentials(env, config);
  if (!c) return null;
  const s = platformSettings(config, 'wecom');
  return { ...c, wsUrl: String(s.websocket_url || s.websocketUrl || env.WECOM_WEBSOCKET_URL || 'wss://openws.work.weixin.qq.com').trim() };
}

interface Frame {
  cmd?: string;
  headers?: { req_id?: string };
  body?: Record<string, any>;
  errcode?: number;
  errmsg?: string;
}

/** Decrypts a WeCom media file: AES-256-CBC, key = base64 key (unpadded), IV = its first 16 bytes. */
export function decryptWeComMedia(data: Buffer, aesKey: string): Buffer {
  const key = Buffer.from(aesKey + '='.repeat((4 - (aesKey.length % 4)) % 4), 'base64');
  if (key.length !== 32) throw new Error(`the media key is ${key.length} bytes, not 32`);
  const d = createDecipheriv('aes-256-cbc', key, key.subarray(0, 16));
  d.setAutoPadding(false);
  const out = Buffer.concat([d.update(data), d.final()]);
  const pad = out[out.length - 1];
  if (pad < 1 || pad > 32 || pad > out.length || !out.subarray(out.length - pad).every((b) => b === pad)) throw new Error('bad padding in the decrypted media');
  return out.subarray(0, out.length - pad);
}

/** `wecom:user:foo` / `group:bar` / `*` entries, matched case-insensitively. */
const matches = (entries: string[], id: string) => entries.some((e) => {
  const v = e.trim().replace(/^wecom:/i, '').replace(/^(user|group):/i, '').toLowerCase();
  return v === '*' || v === id.toLowerCase();
});

export class WeComAdapter implements PlatformAdapter {
  readonly name = 'wecom';
  readonly maxMessageLength = WECOM_LIMIT;
  readonly supportsButtons = false;
  readonly s: WeComSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private ws: WebSocket | null = null;
  private closing = false;
  private ping: NodeJS.Timeout | null = null;
  private readonly deviceId = randomUUID().replace(/-/g, '');
  private readonly pending = new Map<string, { resolve: (f: Frame) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly seen = new Set<string>();
  /** chat id → the req_id of the last callback there (replies bind to it). */
  private readonly lastReq = new Map<string, string>();

  constructor(o: { settings: WeComSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
  }

  private request(cmd: string, body: Record<string, unknown>, reqId = `${cmd}-${randomUUID().replace(/-/g, '')}`): Promise<Frame> {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1) return Promise.reject(new Error('WeCom is not connected'));
    return new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(reqId);
        reject(new Error(`WeCom did not answer ${cmd} in ${REQUEST_MS / 1000}s`));
      }, REQUEST_MS);
      this.pending.set(reqId, { resolve, reject, timer });
      ws.send(JSON.stringify({ cmd, headers: { req_id: reqId }, body }));
    });
  }

  private failPending(e: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(e);
      this.pending.delete(id);
    }
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const { default: WS } = await import('ws');
    const ws = new WS(this.s.wsUrl);
    this.ws = ws;
    ws.on('message', (raw) => {
      let f: Frame;
      try {
        f = JSON.parse(String(raw)) as Frame;
      } catch {
        return;
      }
      const id = f.headers?.req_id ?? '';
      const cmd = f.cmd ?? '';
      if (id && this.pending.has(id) && cmd !== 'aibot_msg_callback' && cmd !== 'aibot_callback' && cmd !== 'aibot_event_callback') {
        const p = this.pending.get(id)!;
        this.pending.delete(id);
        clearTimeout(p.timer);
        p.resolve(f);
        return;
      }
      if (cmd === 'aibot_msg_callback' || cmd === 'aibot_callback') void this.onMessage(f, handlers).catch((e) => this.log(`wecom: could not read a message: ${(e as Error).message}`));
    });
    ws.on('error', (e) => this.log(`wecom: websocket: ${e.message}`));
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.failPending(new Error('WeCom connection closed'));
      if (this.ping) clearInterval(this.ping);
      if (!this.closing) handlers.disconnected?.(new Error(`websocket closed (${code})`));
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const auth = await this.request('aibot_subscribe', { bot_id: this.s.botId, secret: this.s.secret, device_id: this.deviceId });
    if (auth.errcode) {
      this.closing = true;
      ws.close();
      throw new Error(`WeCom refused the bot credentials: ${auth.errmsg ?? 'authentication failed'} (errcode ${auth.errcode})`);
    }
    this.ping = setInterval(() => void this.request('ping', {}).catch(() => ws.terminate()), PING_MS);
    this.ping.unref();
  }

  private policy(name: string): string {
    return String(platformSettings(this.config, 'wecom')[name] || this.env[`WECOM_${name.toUpperCase()}`] || 'open').toLowerCase();
  }

  private admits(isGroup: boolean, chatId: string, userId: string): boolean {
    const s = platformSettings(this.config, 'wecom');
    if (!isGroup) {
      const p = this.policy('dm_policy');
      if (p === 'disabled') return false;
      return p !== 'allowlist' || matches(listSetting(undefined, s.allow_from ?? s.allowFrom), userId);
    }
    const p = this.policy('group_policy');
    if (p === 'disabled') return false;
    if (p === 'allowlist' && !matches(listSetting(undefined, s.group_allow_from ?? s.groupAllowFrom), chatId)) return false;
    const groups = (s.groups && typeof s.groups === 'object' ? s.groups : {}) as Record<string, { allow_from?: unknown; allowFrom?: unknown }>;
    const g = groups[chatId] ?? Object.entries(groups).find(([k]) => k.toLowerCase() === chatId.toLowerCase())?.[1] ?? groups['*'];
    const allow = listSetting(undefined, g?.allow_from ?? g?.allowFrom);
    return !allow.length || matches(allow, userId);
  }

  private async onMessage(f: Frame, handlers: InboundHandlers): Promise<void> {
    const b = f.body ?? {};
    const reqId = f.headers?.req_id ?? '';
    const msgId = String(b.msgid || reqId || randomUUID());
    if (this.seen.has(msgId)) return;
    this.seen.add(msgId);
    if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value as string);
    const userId = String(b.from?.userid ?? '').trim();
    const chatId = String(b.chatid || userId).trim();
    if (!chatId) return;
    const isGroup = String(b.chattype ?? '').toLowerCase() === 'group';
    if (!this.admits(isGroup, chatId, userId)) return;
    if (reqId) {
      this.lastReq.delete(chatId);
      this.lastReq.set(chatId, reqId);
      if (this.lastReq.size > 1000) this.lastReq.delete(this.lastReq.keys().next().value as string);
    }
    const type = String(b.msgtype ?? '').toLowerCase();
    const parts: string[] = [];
    const media: { kind: 'image' | 'file'; ref: Record<string, any> }[] = [];
    if (type === 'mixed') {
      for (const item of (b.mixed?.msg_item ?? []) as Record<string, any>[]) {
        if (item.msgtype === 'text' && item.text?.content) parts.push(String(item.text.content));
        if (item.msgtype === 'image' && item.image) media.push({ kind: 'image', ref: item.image });
      }
    } else {
      if (b.text?.content) parts.push(String(b.text.content));
      if (type === 'voice' && b.voice?.content) parts.push(String(b.voice.content));
      if (type === 'appmsg' && b.appmsg?.title) parts.push(String(b.appmsg.title));
      if (b.image) media.push({ kind: 'image', ref: b.image });
      if (type === 'file' && b.file) media.push({ kind: 'file', ref: b.file });
      if (type === 'appmsg' && (b.appmsg?.file || b.appmsg?.image)) media.push({ kind: b.appmsg.file ? 'file' : 'image', ref: b.appmsg.file ?? b.appmsg.image });
    }
    let text = parts.join('\n').trim();
    // "@Bot /approve" in a group is the command "/approve".
    if (isGroup) text = text.replace(/^@\S+\s*/, '').trim();
    const quote = b.quote?.msgtype === 'text' ? String(b.quote.text?.content ?? '').trim() : '';
    if (quote && text) text = `> ${quote.replace(/\n/g, '\n> ')}\n\n${text}`;
    const attachments: InboundAttachment[] = [];
    for (const [i, m] of media.entries()) {
      try {
        const a = await this.fetchMedia(m.kind, m.ref, `${msgId}-${i}`);
        if (a) attachments.push(a);
      } catch (e) {
        this.log(`wecom: attachment ${i} of ${msgId}: ${(e as Error).message}`);
      }
    }
    if (!text && quote) text = quote;
    if (!text && !attachments.length) return;
    handlers.message({ source: { platform: 'wecom', chatId, chatType: isGroup ? 'group' : 'dm', userId: userId || undefined, userName: userId || undefined }, messageId: msgId, text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  private async fetchMedia(kind: 'image' | 'file', ref: Record<string, any>, id: string): Promise<InboundAttachment | null> {
    const fileName = ref.filename || ref.name ? String(ref.filename || ref.name) : undefined;
    let bytes: Buffer;
    let mimeType: string | undefined;
    if (ref.base64) bytes = Buffer.from(String(ref.base64).split(',').pop()!, 'base64');
    else if (ref.url) {
      const got = await fetchCapped(String(ref.url), attachmentCapBytes(this.config), {});
      if ('tooLarge' in got) return { kind: kind === 'image' ? 'image' : 'document', fileName, tooLarge: got.tooLarge };
      bytes = got.bytes;
      mimeType = got.mimeType && got.mimeType !== 'application/octet-stream' ? got.mimeType : undefined;
      if (ref.aeskey) bytes = decryptWeComMedia(bytes, String(ref.aeskey));
    } else return null;
    if (kind === 'image' && !mimeType) mimeType = bytes[0] === 0x89 ? 'image/png' : bytes[0] === 0x47 ? 'image/gif' : 'image/jpeg';
    const k = kind === 'image' ? 'image' : kindOf(mimeType, fileName);
    return { kind: k, mimeType, fileName, path: saveAttachment(this.home, { kind: k, bytes, mimeType, fileName, id }) };
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    if (this.ping) clearInterval(this.ping);
    const ws = this.ws;
    this.ws = null;
    this.failPending(new Error('WeCom adapter stopped'));
    ws?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    const markdown = { content: text.slice(0, WECOM_LIMIT) };
    try {
      const req = this.lastReq.get(chatId);
      const r = req ? await this.request('aibot_respond_msg', { msgtype: 'markdown', markdown }, req) : await this.request('aibot_send_msg', { chatid: chatId, msgtype: 'markdown', markdown });
      if (r.errcode) return { ok: false, error: `WeCom errcode ${r.errcode}: ${r.errmsg ?? 'unknown error'}` };
      return { ok: true, messageId: r.headers?.req_id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...wecomEntry,
  maxMessageLength: WECOM_LIMIT,
  targetHint: 'a WeCom user id or group chat id',
  create: async (ctx) => {
    const settings = wecomSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('WeCom needs WECOM_BOT_ID and WECOM_SECRET');
    return new WeComAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  // Sends ride the bot's socket: outside a running gateway there is none, so no send-only client.
  setup: {
    intro: 'WeCom admin console → Apps → AI Bot (智能机器人): create one in "API mode" with a long connection, then copy the Bot ID and Secret.',
    fields: [
      { key: 'WECOM_BOT_ID', prompt: 'Bot ID' },
      { key: 'WECOM_SECRET', prompt: 'Bot Secret', secret: true },
    ],
    allowlistHint: 'WeCom user ids',
  },
  probe: async (env, config) => {
    const s = wecomSettings(env, config);
    if (!s) throw new Error('WECOM_BOT_ID and WECOM_SECRET are needed');
    const a = new WeComAdapter({ settings: s, env, config, home: '', log: () => undefined });
    await a.connect({ message: () => undefined });
    await a.disconnect();
    return `bot ${s.botId}`;
  },
  promptHint: 'WeCom renders a subset of Markdown (headings, bold, links, quotes, inline code); keep tables out.',
};
