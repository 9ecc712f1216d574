// DingTalk in Stream Mode, as Hermes does it: the dingtalk-stream SDK opens the WebSocket (no public
// URL needed), robot messages arrive as CALLBACK frames on `/v1.0/im/bot/messages/get` and are
// acknowledged at once. Credentials: DINGTALK_CLIENT_ID / DINGTALK_CLIENT_SECRET (or
// `platforms.dingtalk.extra.client_id/client_secret`); DINGTALK_ROBOT_CODE / `robot_code` defaults
// to the client id. Replies go to the message's session webhook (markdown) while it is fresh, else
// through the robot OpenAPI (`oToMessages/batchSend` for a person, `groupMessages/send` for a group),
// so cron and `hermes send` reach a chat without a recent message too. Groups: DINGTALK_REQUIRE_MENTION
// (default false, as Hermes), free_response_chats, allowed_chats, mention_patterns (regex wake words).
// Pictures (and rich-text pictures) are fetched through `messageFiles/download`. Messages cannot be
// edited (Hermes's AI-card streaming is not built), so replies are sent whole, split at 20000.
// DINGTALK_API_BASE / DINGTALK_OAPI_BASE point at other hosts (tests).
import type { DWClient } from 'dingtalk-stream';
import { platformSettings } from '../config.ts';
import { downloadAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { channelAdmits, type ChannelRules, flag } from './gating.ts';
import { listSetting, TokenCache } from './chat-common.ts';
import { dingtalk as dingtalkEntry, dingtalkCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const DINGTALK_LIMIT = 20_000;
const TOPIC_ROBOT = '/v1.0/im/bot/messages/get';

export interface DingTalkSettings {
  clientId: string;
  clientSecret: string;
  robotCode: string;
  api: string;
  oapi: string;
}

export function dingtalkSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): DingTalkSettings | null {
  const c = dingtalkCredentials(env, config);
  if (!c) return null;
  const s = platformSettings(config, 'dingtalk');
  const clientId = c.clientId;
  return {
    clientId,
    clientSecret: c.clientSecret,
    robotCode: String(s.robot_code || env.DINGTALK_ROBOT_CODE || clientId),
    api: (env.DINGTALK_API_BASE || 'https://api.dingtalk.com').replace(/\/+$/, ''),
    oapi: (env.DINGTALK_OAPI_BASE || env.DINGTALK_API_BASE || 'https://oapi.dingtalk.com').replace(/\/+$/, ''),
  };
}

/** A robot message as the stream delivers it (the CALLBACK frame's `data`). */
interface RobotMessage {
  msgId?: string;
  msgtype?: string;
  conversationId?: string;
  conversationType?: string;
  conversationTitle?: string;
  senderId?: string;
  senderNick?: string;
  senderStaffId?: string;
  sessionWebhook?: string;
  sessionWebhookExpiredTime?: number;
  isInAtList?: boolean;
  robotCode?: string;
  text?: { content?: string };
  content?: { downloadCode?: string; pictureDownloadCode?: string; fileName?: string; richText?: { text?: string; downloadCode?: string; pictureDownloadCode?: string; type?: string }[] };
}

const socketOf = (c: DWClient) => (c as unknown as { socket?: { on(ev: 'close', fn: (code: number) => void): void } }).socket;

/** Markdown title: DingTalk shows it in notifications; the first words of the text. */
const titleOf = (text: string) => text.replace(/[#*`>_[\]()]/g, '').trim().split('\n')[0].slice(0, 20) || 'Hermes';

export class DingTalkAdapter implements PlatformAdapter {
  readonly name = 'dingtalk';
  readonly maxMessageLength = DINGTALK_LIMIT;
  readonly supportsButtons = false;
  readonly s: DingTalkSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private client: DWClient | null = null;
  private closing = false;
  private readonly seen = new Set<string>();
  /** chat id → session webhook and its expiry (ms). */
  private readonly webhooks = new Map<string, { url: string; expires: number }>();
  /** DM conversation id → the person's staff id (for OpenAPI sends once the webhook has expired). */
  private readonly dmStaff = new Map<string, string>();
  private readonly token: TokenCache;

  constructor(o: { settings: DingTalkSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    this.token = new TokenCache(async () => {
      const r = await fetch(`${this.s.api}/v1.0/oauth2/accessToken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: this.s.clientId, appSecret: this.s.clientSecret }) });
      const b = (await r.json().catch(() => ({}))) as { accessToken?: string; expireIn?: number; message?: string };
      if (!r.ok || !b.accessToken) throw new Error(`DingTalk refused the app credentials: ${b.message ?? `HTTP ${r.status}`}`);
      return { token: b.accessToken, ttlMs: (b.expireIn ?? 7200) * 1000 };
    });
  }

  /** Session webhooks must be DingTalk's own hosts (no SSRF through a forged callback). */
  private webhookAllowed(url: string): boolean {
    return [this.s.api, this.s.oapi, 'https://api.dingtalk.com', 'https://oapi.dingtalk.com'].some((b) => url.startsWith(`${b}/`));
  }

  private rules(): ChannelRules & { patterns: RegExp[] } {
    const st = platformSettings(this.config, 'dingtalk');
    const patterns: RegExp[] = [];
    for (const p of listSetting(this.env.DINGTALK_MENTION_PATTERNS, st.mention_patterns, true)) {
      try {
        patterns.push(new RegExp(p, 'i'));
      } catch {
        this.log(`dingtalk: ignoring the invalid mention pattern ${JSON.stringify(p)}`);
      }
    }
    return {
      requireMention: flag('dingtalk', 'require_mention', this.env, this.config, false),
      free: listSetting(this.env.DINGTALK_FREE_RESPONSE_CHATS, st.free_response_chats),
      allowed: listSetting(this.env.DINGTALK_ALLOWED_CHATS, st.allowed_chats),
      ignored: [],
      patterns,
    };
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const { DWClient } = await import('dingtalk-stream');
    const api = this.s.api;
    // The SDK's gateway URL is a constant; the subclass asks the same endpoint on our configured host.
    class Client extends DWClient {
      override async getEndpoint(): Promise<this> {
        const cfg = this.getConfig();
        const r = await fetch(`${api}/v1.0/gateway/connections/open`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ clientId: cfg.clientId, clientSecret: cfg.clientSecret, ua: 'hermes-agent', subscriptions: cfg.subscriptions }) });
        const b = (await r.json().catch(() => ({}))) as { endpoint?: string; ticket?: string; message?: string };
        if (!r.ok || !b.endpoint || !b.ticket) throw new Error(`DingTalk refused the stream connection: ${b.message ?? `HTTP ${r.status}`}`);
        (this as unknown as { dw_url: string }).dw_url = `${b.endpoint}?ticket=${encodeURIComponent(b.ticket)}`;
        return this;
      }
    }
    // The gateway's supervisor reconnects (with backoff and status); the SDK's own loop stays off.
    const opts = { clientId: this.s.clientId, clientSecret: this.s.clientSecret, autoReconnect: false, keepAlive: true, debug: false };
    const client = new Client(opts);
    client.registerCallbackListener(TOPIC_ROBOT, (frame) => {
      client.socketCallBackResponse(frame.headers.messageId, { status: 'SUCCESS' });
      let msg: RobotMessage;
      try {
        msg = JSON.parse(frame.data) as RobotMessage;
      } catch {
        return;
      }
      void this.onMessage(msg, handlers).catch((e) => this.log(`dingtalk: could not read a message: ${(e as Error).message}`));
    });
    this.client = client;
    await client.getEndpoint();
    await client._connect();
    socketOf(client)?.on('close', (code: number) => {
      if (!this.closing && this.client === client) handlers.disconnected?.(new Error(`stream closed (${code})`));
    });
  }

  private async onMessage(m: RobotMessage, handlers: InboundHandlers): Promise<void> {
    const id = m.msgId;
    if (!id || this.seen.has(id)) return;
    this.seen.add(id);
    if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value as string);
    const isGroup = String(m.conversationType) === '2';
    const chatId = m.conversationId || m.senderId || '';
    if (!chatId) return;
    let text = (m.text?.content ?? '').trim();
    const rich = m.content?.richText ?? [];
    if (!text && rich.length) text = rich.map((r) => r.text ?? '').filter(Boolean).join(' ').trim();
    if (isGroup) {
      const r = this.rules();
      if (!channelAdmits(r, [chatId], !!m.isInAtList || r.patterns.some((p) => p.test(text)))) return;
    }
    if (m.sessionWebhook && this.webhookAllowed(m.sessionWebhook)) {
      if (this.webhooks.size > 500) this.webhooks.delete(this.webhooks.keys().next().value as string);
      this.webhooks.set(chatId, { url: m.sessionWebhook, expires: Number(m.sessionWebhookExpiredTime ?? 0) });
    }
    if (!isGroup && m.senderStaffId) this.dmStaff.set(chatId, m.senderStaffId);
    const codes: { code: string; kind?: InboundAttachment['kind']; fileName?: string }[] = [];
    const c = m.content ?? {};
    if (m.msgtype === 'picture' && (c.downloadCode || c.pictureDownloadCode)) codes.push({ code: (c.downloadCode || c.pictureDownloadCode)!, kind: 'image' });
    else if (m.msgtype === 'file' && c.downloadCode) codes.push({ code: c.downloadCode, kind: 'document', fileName: c.fileName });
    else if ((m.msgtype === 'audio' || m.msgtype === 'video') && c.downloadCode) codes.push({ code: c.downloadCode, kind: m.msgtype });
    for (const r of rich) if (r.downloadCode || r.pictureDownloadCode) codes.push({ code: (r.downloadCode || r.pictureDownloadCode)!, kind: 'image' });
    const attachments: InboundAttachment[] = [];
    for (const [i, f] of codes.entries()) {
      try {
        const { downloadUrl } = await this.openapi<{ downloadUrl?: string }>('/v1.0/robot/messageFiles/download', { downloadCode: f.code, robotCode: m.robotCode || this.s.robotCode });
        if (downloadUrl) attachments.push(await downloadAttachment(this.home, this.config, { url: downloadUrl, kind: f.kind, fileName: f.fileName, id: `${id}-${i}`, voice: f.kind === 'audio' }));
      } catch (e) {
        this.log(`dingtalk: attachment ${i} of ${id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    handlers.message({
      source: { platform: 'dingtalk', chatId, chatType: isGroup ? 'group' : 'dm', chatName: m.conversationTitle, userId: m.senderStaffId || m.senderId, userName: m.senderNick || undefined },
      messageId: id,
      text,
      attachments: attachments.length ? attachments : undefined,
      receivedAt: Date.now(),
    });
  }

  private async openapi<T>(path: string, body: unknown): Promise<T> {
    const token = await this.token.get();
    const r = await fetch(`${this.s.api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-acs-dingtalk-access-token': token }, body: JSON.stringify(body) });
    const b = (await r.json().catch(() => ({}))) as T & { message?: string; code?: string };
    if (!r.ok) throw new Error(`DingTalk ${path}: ${b.message ?? `HTTP ${r.status}`}${b.code ? ` (${b.code})` : ''}`);
    return b;
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    const c = this.client;
    this.client = null;
    c?.disconnect();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    const markdown = { title: titleOf(text), text };
    try {
      const hook = this.webhooks.get(chatId);
      // Five minutes of margin, as Hermes: a webhook about to expire is not trusted.
      if (hook && (!hook.expires || hook.expires > Date.now() + 5 * 60_000)) {
        const r = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ msgtype: 'markdown', markdown }) });
        const b = (await r.json().catch(() => ({}))) as { errcode?: number; errmsg?: string };
        if (r.ok && !b.errcode) return { ok: true };
        this.log(`dingtalk: session webhook refused (${b.errmsg ?? `HTTP ${r.status}`}); falling back to the OpenAPI`);
        this.webhooks.delete(chatId);
      }
      const msgParam = JSON.stringify(markdown);
      const staff = this.dmStaff.get(chatId) ?? (chatId.startsWith('cid') ? undefined : chatId);
      if (staff) {
        const b = await this.openapi<{ processQueryKey?: string }>('/v1.0/robot/oToMessages/batchSend', { robotCode: this.s.robotCode, userIds: [staff], msgKey: 'sampleMarkdown', msgParam });
        return { ok: true, messageId: b.processQueryKey };
      }
      const b = await this.openapi<{ processQueryKey?: string }>('/v1.0/robot/groupMessages/send', { robotCode: this.s.robotCode, openConversationId: chatId, msgKey: 'sampleMarkdown', msgParam });
      return { ok: true, messageId: b.processQueryKey };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...dingtalkEntry,
  maxMessageLength: DINGTALK_LIMIT,
  targetHint: 'a conversation id (cid…) or a person’s staff id',
  create: async (ctx) => {
    const settings = dingtalkSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('DingTalk needs DINGTALK_CLIENT_ID and DINGTALK_CLIENT_SECRET');
    return new DingTalkAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = dingtalkSettings(ctx.env, ctx.config);
    return settings ? new DingTalkAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'DingTalk developer console → your app → Robot: enable it with "Stream mode" as the message receiving mode; copy the Client ID (AppKey) and Client Secret.',
    fields: [
      { key: 'DINGTALK_CLIENT_ID', prompt: 'Client ID (AppKey)' },
      { key: 'DINGTALK_CLIENT_SECRET', prompt: 'Client Secret (AppSecret)', secret: true },
    ],
    allowlistHint: 'staff ids (or sender ids)',
  },
  probe: async (env, config) => {
    const s = dingtalkSettings(env, config);
    if (!s) throw new Error('DINGTALK_CLIENT_ID and DINGTALK_CLIENT_SECRET are needed');
    const r = await fetch(`${s.api}/v1.0/oauth2/accessToken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appKey: s.clientId, appSecret: s.clientSecret }) });
    const b = (await r.json().catch(() => ({}))) as { accessToken?: string; message?: string };
    if (!r.ok || !b.accessToken) throw new Error(`DingTalk refused the credentials: ${b.message ?? `HTTP ${r.status}`}`);
    return `app ${s.clientId}`;
  },
  promptHint: 'DingTalk renders a subset of Markdown (headings, bold, links, lists, images); tables and nested code render poorly.',
};
