// LINE through the Messaging API (@line/bot-sdk): LINE_CHANNEL_ACCESS_TOKEN + LINE_CHANNEL_SECRET.
// Webhooks arrive on our server (LINE_HOST, LINE_PORT 8646, path /line/webhook; your public HTTPS
// URL + that path is the channel's webhook URL) and must carry a valid X-Line-Signature (HMAC-SHA256
// of the raw body with the channel secret). Replies use the free reply token while it is fresh
// (single use, ~50 s) and fall back to the metered Push API. 1:1 chats always; groups and rooms only
// when listed in LINE_ALLOWED_GROUPS / LINE_ALLOWED_ROOMS (when set), and only when the bot is
// mentioned if LINE_REQUIRE_MENTION_IN_GROUPS=true. LINE shows plain text, cannot edit, and takes
// 5000 characters per bubble (we split at 4500). Images, audio, video and files in are downloaded
// from LINE's content API; images out need LINE_PUBLIC_URL (LINE fetches media from HTTPS URLs
// only), served from /line/media/<token>/<name> for 30 minutes.
import { randomBytes, timingSafeEqual, createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { platformSettings, truthy } from '../config.ts';
import { attachmentCapBytes, saveAttachment, kindOf } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { splitList } from '../auth.ts';
import { type InboundServer, listenInbound } from './inbound-http.ts';
import { line as lineEntry, lineCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toPlainText } from '../markdown/serializers.ts';

export const LINE_LIMIT = 4500;
const REPLY_TTL_MS = 50_000;
const MEDIA_TTL_MS = 30 * 60_000;

export interface LineSettings {
  token: string;
  secret: string;
  host: string;
  port: number;
  publicUrl: string;
  groups: string[];
  rooms: string[];
  requireMention: boolean;
  api: string;
  dataApi: string;
}

export function lineSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): LineSettings | null {
  const c = lineCredentials(env, config);
  if (!c) return null;
  const { token, secret } = c;
  const s = platformSettings(config, 'line');
  const list = (e: string | undefined, c: unknown) => (e ? splitList(e) : Array.isArray(c) ? c.map(String) : splitList(typeof c === 'string' ? c : undefined));
  return {
    token,
    secret,
    host: String(env.LINE_HOST || s.host || '0.0.0.0'),
    port: Number(env.LINE_PORT ?? s.port ?? 8646),
    publicUrl: String(env.LINE_PUBLIC_URL || s.public_url || '').replace(/\/+$/, ''),
    groups: list(env.LINE_ALLOWED_GROUPS, s.allowed_groups),
    rooms: list(env.LINE_ALLOWED_ROOMS, s.allowed_rooms),
    requireMention: truthy(env.LINE_REQUIRE_MENTION_IN_GROUPS ?? s.require_mention_in_groups),
    // Overridable for tests against a fake LINE.
    api: String(env.LINE_API_BASE || 'https://api.line.me'),
    dataApi: String(env.LINE_DATA_API_BASE || 'https://api-data.line.me'),
  };
}

export function lineSignature(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

interface LineEvent {
  type?: string;
  webhookEventId?: string;
  replyToken?: string;
  mode?: string;
  source?: { type?: string; userId?: string; groupId?: string; roomId?: string };
  message?: { id?: string; type?: string; text?: string; fileName?: string; mention?: { mentionees?: { isSelf?: boolean; index?: number; length?: number }[] } };
}

type Sdk = typeof import('@line/bot-sdk');

export class LineAdapter implements PlatformAdapter {
  readonly name = 'line';
  readonly maxMessageLength = LINE_LIMIT;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const };
  readonly s: LineSettings;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private server: InboundServer | null = null;
  private sdk: Sdk | null = null;
  private client: InstanceType<Sdk['messagingApi']['MessagingApiClient']> | null = null;
  private readonly replyTokens = new Map<string, { token: string; until: number }>();
  private readonly media = new Map<string, { path: string; until: number }>();
  private readonly seen = new Set<string>();

  constructor(o: { settings: LineSettings; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  private async api(): Promise<InstanceType<Sdk['messagingApi']['MessagingApiClient']>> {
    if (this.client) return this.client;
    this.sdk ??= await import('@line/bot-sdk');
    this.client = new this.sdk.messagingApi.MessagingApiClient({ channelAccessToken: this.s.token, baseURL: this.s.api });
    return this.client;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const api = await this.api();
    const bot = await api.getBotInfo().catch((e: Error & { status?: number }) => {
      throw new Error(`LINE refused the channel access token: ${e.status ? `HTTP ${e.status}` : e.message}`);
    });
    this.server = await listenInbound(
      this.s.host,
      this.s.port,
      (req, url, raw) => {
        if (req.method === 'GET' && url.pathname.startsWith('/line/media/')) return this.serveMedia(url.pathname);
        if (req.method !== 'POST' || url.pathname !== '/line/webhook') return { status: 404 };
        const got = Buffer.from(String(req.headers['x-line-signature'] ?? ''));
        const want = Buffer.from(lineSignature(this.s.secret, raw));
        if (got.length !== want.length || !timingSafeEqual(got, want)) return { status: 401, body: '{"error":"bad signature"}' };
        let body: { events?: LineEvent[] };
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return { status: 400, body: '{"error":"bad json"}' };
        }
        for (const ev of body.events ?? []) void this.onEvent(ev, handlers).catch((e) => this.log(`line: could not read an event: ${(e as Error).message}`));
        return { status: 200, body: '{}' };
      },
      { log: (l) => this.log(`line: ${l}`) },
    );
    this.log(`line: ${bot.displayName ?? 'bot'} listening on ${this.s.host}:${this.server.port}/line/webhook`);
  }

  private serveMedia(path: string): { status: number; body?: Buffer; type?: string } {
    // Only files we registered, by unguessable token, while fresh.
    const [, , , token] = path.split('/');
    const m = token ? this.media.get(token) : undefined;
    if (!m || m.until < Date.now()) return { status: 404 };
    const bytes = readFileSync(m.path);
    return { status: 200, body: bytes, type: kindOf(undefined, m.path) === 'image' ? `image/${m.path.split('.').pop()?.replace('jpg', 'jpeg')}` : 'application/octet-stream' };
  }

  private async onEvent(ev: LineEvent, handlers: InboundHandlers): Promise<void> {
    if (ev.type !== 'message' || ev.mode === 'standby' || !ev.message?.id) return;
    const id = ev.webhookEventId ?? ev.message.id;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const src = ev.source ?? {};
    const chatId = src.type === 'group' ? src.groupId : src.type === 'room' ? src.roomId : src.userId;
    if (!chatId || !src.userId) return;
    const isDm = src.type === 'user';
    const msg = ev.message;
    const msgId = msg.id as string;
    let text = msg.type === 'text' ? (msg.text ?? '') : '';
    if (!isDm) {
      const list = src.type === 'group' ? this.s.groups : this.s.rooms;
      if (list.length && !list.includes(chatId)) return;
      const self = msg.mention?.mentionees?.find((m) => m.isSelf);
      if (this.s.requireMention && !self) return;
      if (self && typeof self.index === 'number' && typeof self.length === 'number') text = (text.slice(0, self.index) + text.slice(self.index + self.length)).trim();
    }
    if (ev.replyToken) this.replyTokens.set(chatId, { token: ev.replyToken, until: Date.now() + REPLY_TTL_MS });
    const attachments: InboundAttachment[] = [];
    if (['image', 'video', 'audio', 'file'].includes(msg.type ?? '')) {
      try {
        this.sdk ??= await import('@line/bot-sdk');
        const blob = new this.sdk.messagingApi.MessagingApiBlobClient({ channelAccessToken: this.s.token, baseURL: this.s.dataApi });
        const stream = await blob.getMessageContent(msgId);
        const parts: Buffer[] = [];
        let size = 0;
        const cap = attachmentCapBytes(this.config);
        for await (const c of stream) {
          size += (c as Buffer).length;
          if (size > cap) break;
          parts.push(c as Buffer);
        }
        const kind = msg.type === 'file' ? 'document' : (msg.type as 'image' | 'video' | 'audio');
        if (size > cap) attachments.push({ kind, fileName: msg.fileName, tooLarge: size });
        else {
          const bytes = Buffer.concat(parts);
          const mimeType = kind === 'image' ? sniffImage(bytes) : kind === 'audio' ? 'audio/m4a' : kind === 'video' ? 'video/mp4' : undefined;
          attachments.push({ kind, mimeType, fileName: msg.fileName, voice: kind === 'audio', path: saveAttachment(this.home, { kind, bytes, mimeType, fileName: msg.fileName, id: msg.id }) });
        }
      } catch (e) {
        this.log(`line: content of ${msg.id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    const source: SessionSource = { platform: 'line', chatId, chatType: isDm ? 'dm' : 'group', userId: src.userId, userName: src.userId };
    handlers.message({ source, messageId: msgId, text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    await s?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  /** Reply with the chat's fresh reply token (free), else push (metered). */
  private async deliver(chatId: string, messages: Parameters<InstanceType<Sdk['messagingApi']['MessagingApiClient']>['pushMessage']>[0]['messages']): Promise<SendResult> {
    const api = await this.api();
    const r = this.replyTokens.get(chatId);
    this.replyTokens.delete(chatId);
    if (r && r.until > Date.now()) {
      try {
        const res = await api.replyMessage({ replyToken: r.token, messages });
        return { ok: true, messageId: res.sentMessages?.[0]?.id };
      } catch (e) {
        this.log(`line: reply token refused (${(e as { status?: number }).status ?? (e as Error).message}); pushing instead`);
      }
    }
    try {
      const res = await api.pushMessage({ to: chatId, messages });
      return { ok: true, messageId: res.sentMessages?.[0]?.id };
    } catch (e) {
      const err = e as Error & { status?: number; body?: string };
      let detail = '';
      try {
        detail = (JSON.parse(err.body ?? '{}') as { message?: string }).message ?? '';
      } catch {
        /* not JSON */
      }
      return { ok: false, error: `LINE push failed: ${err.status ? `HTTP ${err.status}` : err.message}${detail ? ` (${detail})` : ''}` };
    }
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    if (!/^[UCR][0-9a-f]{32}$/i.test(chatId)) return { ok: false, error: `not a LINE user, group or room id: "${chatId}" (U…, C… or R… and 32 hex digits)` };
    const t = toPlainText(text).trim();
    if (!t) return { ok: true };
    return this.deliver(chatId, [{ type: 'text', text: t.slice(0, 5000) }]);
  }

  async sendTyping(chatId: string): Promise<void> {
    if (!chatId.startsWith('U')) return;
    const api = await this.api();
    await api.showLoadingAnimation({ chatId, loadingSeconds: 20 }).catch(() => undefined);
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    if (!this.s.publicUrl) return { ok: false, error: 'LINE fetches media from public HTTPS URLs: set LINE_PUBLIC_URL to send files' };
    if (kindOf(undefined, path) !== 'image') return { ok: false, error: `only images can be sent to LINE here (${basename(path)})` };
    if (statSync(path).size > 10 * 1024 * 1024) return { ok: false, error: 'LINE images are limited to 10 MB' };
    const token = randomBytes(18).toString('base64url');
    this.media.set(token, { path, until: Date.now() + MEDIA_TTL_MS });
    for (const [k, v] of this.media) if (v.until < Date.now()) this.media.delete(k);
    const url = `${this.s.publicUrl}/line/media/${token}/${encodeURIComponent(basename(path))}`;
    const messages: { type: 'image'; originalContentUrl: string; previewImageUrl: string }[] = [{ type: 'image', originalContentUrl: url, previewImageUrl: url }];
    const r = await this.deliver(chatId, messages);
    if (r.ok && opts?.caption) await this.send(chatId, opts.caption);
    return r;
  }
}

function sniffImage(b: Buffer): string {
  if (b[0] === 0x89 && b[1] === 0x50) return 'image/png';
  if (b[0] === 0x47 && b[1] === 0x49) return 'image/gif';
  if (b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return 'image/jpeg';
}

export const definition: PlatformDefinition = {
  ...lineEntry,
  maxMessageLength: LINE_LIMIT,
  parseTarget: (rest) => (/^[UCR][0-9a-f]{32}$/i.test(rest.trim()) ? { chatId: rest.trim() } : null),
  targetHint: 'a LINE user, group or room id (U…, C…, R… and 32 hex digits)',
  create: async (ctx) => {
    const settings = lineSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('LINE needs LINE_CHANNEL_ACCESS_TOKEN and LINE_CHANNEL_SECRET');
    return new LineAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = lineSettings(ctx.env, ctx.config);
    return settings ? new LineAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'LINE Developers console → your Messaging API channel: the channel secret (Basic settings) and a long-lived channel access token; set the webhook URL to https://<your host>/line/webhook (port 8646 here) and turn "Use webhook" on.',
    fields: [
      { key: 'LINE_CHANNEL_ACCESS_TOKEN', prompt: 'Channel access token', secret: true },
      { key: 'LINE_CHANNEL_SECRET', prompt: 'Channel secret', secret: true, validate: (v) => (/^[0-9a-f]{32}$/i.test(v) ? undefined : 'A channel secret is 32 hex characters') },
      { key: 'LINE_PUBLIC_URL', prompt: 'Public HTTPS base URL (for sending images; blank to skip)', optional: true, validate: (v) => (/^https:\/\//.test(v) ? undefined : 'Use an https:// URL') },
    ],
    allowlistHint: 'LINE user ids (U and 32 hex digits)',
  },
  probe: async (env, config) => {
    const s = lineSettings(env, config);
    if (!s) throw new Error('the access token and secret are needed');
    const { messagingApi } = await import('@line/bot-sdk');
    const info = await new messagingApi.MessagingApiClient({ channelAccessToken: s.token, baseURL: s.api }).getBotInfo();
    return `${info.displayName} (${info.basicId})`;
  },
  promptHint: 'This is LINE: plain text only, no Markdown; keep replies short.',
};
