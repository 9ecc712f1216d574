// Feishu / Lark through the official @larksuiteoapi/node-sdk, as Hermes does it: FEISHU_APP_ID +
// FEISHU_APP_SECRET (or `platforms.feishu.extra.app_id/app_secret`), FEISHU_DOMAIN `feishu` (default)
// or `lark` (or a base URL). Events arrive over the SDK's WebSocket long connection
// (FEISHU_CONNECTION_MODE=websocket, the default: no public URL) or as event callbacks on our own
// server (`webhook`: FEISHU_WEBHOOK_HOST/PORT/PATH, default 127.0.0.1:8765/feishu/webhook, verified
// with FEISHU_VERIFICATION_TOKEN and decrypted with FEISHU_ENCRYPT_KEY by the SDK's dispatcher).
// Replies go out through the IM API as rich-text posts (Markdown), stream by editing the message,
// split at 8000 characters, thread replies stay in their topic. Groups: FEISHU_REQUIRE_MENTION
// (default true; the bot's open_id from /bot/v3/info decides), free_response_chats, allowed_channels;
// FEISHU_ALLOW_BOTS lets other bots' messages in. Images, files and audio are downloaded.
import type { Server } from 'node:http';
import type * as Lark from '@larksuiteoapi/node-sdk';
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, kindOf, saveAttachment } from '../media.ts';
import type { ChatInfo, InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules, flag } from './gating.ts';
import { feishu as feishuEntry, feishuCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const FEISHU_LIMIT = 8000;

export interface FeishuSettings {
  appId: string;
  appSecret: string;
  /** The API base (https://open.feishu.cn, https://open.larksuite.com, or another host in tests). */
  domain: string;
  mode: 'websocket' | 'webhook';
  encryptKey: string;
  verificationToken: string;
  webhookHost: string;
  webhookPort: number;
  webhookPath: string;
}

export function feishuSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): FeishuSettings | null {
  const c = feishuCredentials(env, config);
  if (!c) return null;
  const { appId, appSecret } = c;
  const s = platformSettings(config, 'feishu');
  const pick = (key: string, name: string, dflt = '') => String(s[key] || env[name] || dflt).trim();
  const d = pick('domain', 'FEISHU_DOMAIN', 'feishu').toLowerCase();
  const domain = d === 'lark' ? 'https://open.larksuite.com' : d === 'feishu' ? 'https://open.feishu.cn' : d.replace(/\/+$/, '');
  return {
    appId,
    appSecret,
    domain,
    mode: pick('connection_mode', 'FEISHU_CONNECTION_MODE', 'websocket').toLowerCase() === 'webhook' ? 'webhook' : 'websocket',
    encryptKey: pick('encrypt_key', 'FEISHU_ENCRYPT_KEY'),
    verificationToken: pick('verification_token', 'FEISHU_VERIFICATION_TOKEN'),
    webhookHost: pick('webhook_host', 'FEISHU_WEBHOOK_HOST', '127.0.0.1'),
    webhookPort: Number(pick('webhook_port', 'FEISHU_WEBHOOK_PORT', '8765')),
    webhookPath: pick('webhook_path', 'FEISHU_WEBHOOK_PATH', '/feishu/webhook') || '/feishu/webhook',
  };
}

interface FeishuMessageEvent {
  sender?: { sender_id?: { open_id?: string; union_id?: string; user_id?: string }; sender_type?: string };
  message?: { message_id: string; root_id?: string; parent_id?: string; thread_id?: string; chat_id: string; chat_type?: string; message_type?: string; content?: string; mentions?: { key: string; id?: { open_id?: string }; name?: string }[] };
}

type PostNode = { tag?: string; text?: string; image_key?: string; file_key?: string; file_name?: string; href?: string; user_name?: string };

/** Text and media keys of a post (rich text), whichever locale it came in. */
export function parsePost(content: Record<string, unknown>): { text: string; images: string[] } {
  const body = (Array.isArray(content.content) ? content : (Object.values(content).find((v) => v && typeof v === 'object' && Array.isArray((v as { content?: unknown }).content)) ?? {})) as { title?: string; content?: PostNode[][] };
  const images: string[] = [];
  const lines = (body.content ?? []).map((para) =>
    para
      .map((n) => {
        if (n.tag === 'img' && n.image_key) images.push(n.image_key);
        if (n.tag === 'a') return n.text && n.href ? `[${n.text}](${n.href})` : (n.text ?? n.href ?? '');
        if (n.tag === 'at') return n.user_name ? `@${n.user_name}` : '';
        return n.text ?? '';
      })
      .join(''),
  );
  return { text: [body.title, ...lines].filter(Boolean).join('\n').trim(), images };
}

/** Rich-text post content with one Markdown node (Feishu renders headings, code blocks, lists, links). */
export const postContent = (markdown: string) => JSON.stringify({ zh_cn: { content: [[{ tag: 'md', text: markdown }]] } });

export class FeishuAdapter implements PlatformAdapter {
  readonly name = 'feishu';
  readonly maxMessageLength = FEISHU_LIMIT;
  readonly supportsButtons = false;
  /** Feishu allows about five message edits a second per app; one a second leaves room for others. */
  readonly editIntervalMs = 1000;
  readonly s: FeishuSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private lark: typeof Lark | null = null;
  private client: Lark.Client | null = null;
  private ws: Lark.WSClient | null = null;
  private server: Server | null = null;
  /** The port the callback server bound (webhook mode; 0 in tests picks one). */
  port = 0;
  private botOpenId = '';
  private readonly seen = new Set<string>();

  constructor(o: { settings: FeishuSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
  }

  private sdkLogger(): Lark.Logger {
    const line = (...m: unknown[]) => this.log(`feishu: ${m.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')}`);
    return { error: line, warn: line, info: () => undefined, debug: () => undefined, trace: () => undefined };
  }

  /** The IM client (tenant token handled by the SDK); loads the SDK on first use. */
  async api(): Promise<Lark.Client> {
    if (this.client) return this.client;
    this.lark = await import('@larksuiteoapi/node-sdk');
    this.client = new this.lark.Client({ appId: this.s.appId, appSecret: this.s.appSecret, domain: this.s.domain as unknown as Lark.Domain, logger: this.sdkLogger(), loggerLevel: this.lark.LoggerLevel.warn });
    return this.client;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const client = await this.api();
    const lark = this.lark!;
    const info = (await client.request({ method: 'GET', url: '/open-apis/bot/v3/info' })) as { code?: number; msg?: string; bot?: { open_id?: string; app_name?: string } };
    if (info.code !== 0) throw new Error(`Feishu refused the app credentials: ${info.msg ?? `code ${info.code}`}`);
    this.botOpenId = String(platformSettings(this.config, 'feishu').bot_open_id || this.env.FEISHU_BOT_OPEN_ID || info.bot?.open_id || '');
    const dispatcher = new lark.EventDispatcher({ encryptKey: this.s.encryptKey || undefined, verificationToken: this.s.verificationToken || undefined, logger: this.sdkLogger(), loggerLevel: lark.LoggerLevel.warn }).register({
      'im.message.receive_v1': async (data: FeishuMessageEvent) => {
        await this.onMessage(data, handlers).catch((e) => this.log(`feishu: could not read a message: ${(e as Error).message}`));
      },
    });
    if (this.s.mode === 'webhook') {
      if (!this.s.verificationToken && !this.s.encryptKey) throw new Error('Feishu webhook mode needs FEISHU_VERIFICATION_TOKEN (and FEISHU_ENCRYPT_KEY if encryption is on): without them anyone could post events.');
      const handle = lark.adaptDefault(this.s.webhookPath, dispatcher, { autoChallenge: true });
      const http = await import('node:http');
      this.server = http.createServer((req, res) => {
        if (req.method !== 'POST' || !req.url?.startsWith(this.s.webhookPath)) return res.writeHead(404).end();
        void handle(req, res).catch(() => res.writeHead(500).end());
      });
      await new Promise<void>((resolve, reject) => {
        this.server!.once('error', reject);
        this.server!.listen(this.s.webhookPort, this.s.webhookHost, () => resolve());
      });
      this.port = (this.server.address() as { port: number }).port;
      this.log(`feishu: event callbacks on ${this.s.webhookHost}:${this.port}${this.s.webhookPath}`);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      const ws = new lark.WSClient({
        appId: this.s.appId,
        appSecret: this.s.appSecret,
        domain: this.s.domain as unknown as Lark.Domain,
        logger: this.sdkLogger(),
        loggerLevel: lark.LoggerLevel.warn,
        autoReconnect: true,
        onReady: () => {
          ready = true;
          resolve();
        },
        // The SDK reconnects by itself; once it gives up, the gateway's supervisor takes over.
        onError: (e: Error) => (ready ? handlers.disconnected?.(e) : reject(e)),
      } as ConstructorParameters<typeof lark.WSClient>[0]);
      this.ws = ws;
      // The SDK retries a failing first connection by itself; the gateway's supervisor should see it.
      const timer = setTimeout(() => {
        if (ready) return;
        ws.close({ force: true });
        reject(new Error('Feishu long connection not ready after 30 s (network, or the app is not set to "persistent connection" event mode)'));
      }, 30_000);
      timer.unref();
      void ws.start({ eventDispatcher: dispatcher }).catch(reject);
    });
  }

  private async onMessage(ev: FeishuMessageEvent, handlers: InboundHandlers): Promise<void> {
    const m = ev.message;
    if (!m?.message_id || this.seen.has(m.message_id)) return;
    this.seen.add(m.message_id);
    if (this.seen.size > 2048) this.seen.delete(this.seen.values().next().value as string);
    const senderType = ev.sender?.sender_type ?? 'user';
    if (senderType !== 'user' && !flag('feishu', 'allow_bots', this.env, this.config, false)) return;
    const openId = ev.sender?.sender_id?.open_id ?? '';
    if (this.botOpenId && openId === this.botOpenId) return;
    const isDm = m.chat_type === 'p2p';
    const mentions = m.mentions ?? [];
    const mentioned = mentions.some((x) => x.id?.open_id && x.id.open_id === this.botOpenId);
    if (!isDm && !channelAdmits(channelRules('feishu', this.env, this.config), [m.chat_id, m.thread_id ?? ''].filter(Boolean), mentioned)) return;
    let content: Record<string, unknown> = {};
    try {
      content = JSON.parse(m.content ?? '{}') as Record<string, unknown>;
    } catch {
      // an unparsable body: nothing to read
    }
    let text = '';
    const media: { key: string; type: 'image' | 'file'; kind?: InboundAttachment['kind']; fileName?: string }[] = [];
    switch (m.message_type) {
      case 'text':
        text = String(content.text ?? '');
        break;
      case 'post': {
        const p = parsePost(content);
        text = p.text;
        for (const key of p.images) media.push({ key, type: 'image', kind: 'image' });
        break;
      }
      case 'image':
        if (content.image_key) media.push({ key: String(content.image_key), type: 'image', kind: 'image' });
        break;
      case 'file':
      case 'audio':
      case 'media':
        if (content.file_key) media.push({ key: String(content.file_key), type: 'file', kind: m.message_type === 'audio' ? 'audio' : m.message_type === 'media' ? 'video' : undefined, fileName: content.file_name ? String(content.file_name) : undefined });
        break;
      default:
        text = `[${m.message_type} message]`;
    }
    for (const x of mentions) text = text.replaceAll(x.key, x.id?.open_id === this.botOpenId ? '' : `@${x.name ?? ''}`);
    text = text.replace(/[ \t]{2,}/g, ' ').trim();
    const attachments: InboundAttachment[] = [];
    for (const f of media) {
      try {
        attachments.push(await this.download(m.message_id, f));
      } catch (e) {
        this.log(`feishu: attachment of ${m.message_id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    const threadId = m.thread_id ? m.root_id || m.message_id : undefined;
    const source: SessionSource = { platform: 'feishu', chatId: m.chat_id, chatType: isDm ? 'dm' : threadId ? 'thread' : 'group', userId: openId, threadId };
    handlers.message({ source, messageId: m.message_id, text, attachments: attachments.length ? attachments : undefined, replyTo: m.parent_id || undefined, receivedAt: Date.now() });
  }

  private async download(messageId: string, f: { key: string; type: 'image' | 'file'; kind?: InboundAttachment['kind']; fileName?: string }): Promise<InboundAttachment> {
    const client = await this.api();
    const res = await client.im.v1.messageResource.get({ path: { message_id: messageId, file_key: f.key }, params: { type: f.type } });
    const cap = attachmentCapBytes(this.config);
    const parts: Buffer[] = [];
    let size = 0;
    for await (const c of res.getReadableStream()) {
      size += (c as Buffer).length;
      if (size > cap) return { kind: f.kind ?? 'document', fileName: f.fileName, tooLarge: size };
      parts.push(c as Buffer);
    }
    const headers = (res.headers ?? {}) as Record<string, string>;
    const mimeType = String(headers['content-type'] ?? '').split(';')[0] || undefined;
    const kind = f.kind ?? kindOf(mimeType, f.fileName);
    return { kind, mimeType, fileName: f.fileName, voice: kind === 'audio', path: saveAttachment(this.home, { kind, bytes: Buffer.concat(parts), mimeType, fileName: f.fileName, id: f.key }) };
  }

  async stopIntake(): Promise<void> {
    const ws = this.ws;
    this.ws = null;
    ws?.close({ force: true });
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  /** Who a chat id is: oc_ chats, ou_ open ids, on_ union ids, emails. */
  private receiveIdType(chatId: string): 'chat_id' | 'open_id' | 'union_id' | 'email' | 'user_id' {
    if (chatId.startsWith('oc_')) return 'chat_id';
    if (chatId.startsWith('ou_')) return 'open_id';
    if (chatId.startsWith('on_')) return 'union_id';
    if (chatId.includes('@')) return 'email';
    return 'chat_id';
  }

  private async post(chatId: string, msgType: string, content: string, opts?: SendOptions): Promise<SendResult> {
    const client = await this.api();
    const replyTo = opts?.threadId ?? opts?.replyTo;
    const r = replyTo
      ? await client.im.v1.message.reply({ path: { message_id: replyTo }, data: { msg_type: msgType, content, reply_in_thread: !!opts?.threadId } })
      : await client.im.v1.message.create({ params: { receive_id_type: this.receiveIdType(chatId) }, data: { receive_id: chatId, msg_type: msgType, content } });
    if (r.code !== 0) return { ok: false, error: `Feishu refused the message: ${r.msg ?? `code ${r.code}`}` };
    return { ok: true, messageId: r.data?.message_id };
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const r = await this.post(chatId, 'post', postContent(text), opts);
      // Some tenants reject the `md` node: plain text still gets through.
      if (!r.ok && /content format|invalid/i.test(r.error ?? '')) return await this.post(chatId, 'text', JSON.stringify({ text }), opts);
      return r;
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  }

  async edit(_chatId: string, messageId: string, text: string): Promise<SendResult> {
    try {
      const client = await this.api();
      const r = await client.im.v1.message.update({ path: { message_id: messageId }, data: { msg_type: 'post', content: postContent(text) } });
      return r.code === 0 ? { ok: true, messageId } : { ok: false, error: `Feishu refused the edit: ${r.msg ?? `code ${r.code}`}` };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { kind?: 'image' | 'document' | 'audio' | 'video'; caption?: string }): Promise<SendResult> {
    try {
      const client = await this.api();
      const { createReadStream } = await import('node:fs');
      const { basename, extname } = await import('node:path');
      const kind = opts?.kind ?? kindOf(undefined, path);
      let r: SendResult;
      if (kind === 'image') {
        const up = await client.im.v1.image.create({ data: { image_type: 'message', image: createReadStream(path) } });
        if (!up?.image_key) return { ok: false, error: 'Feishu did not accept the image upload' };
        r = await this.post(chatId, 'image', JSON.stringify({ image_key: up.image_key }), opts);
      } else {
        const ext = extname(path).slice(1).toLowerCase();
        const fileType = (['pdf', 'doc', 'xls', 'ppt', 'mp4', 'opus'].includes(ext) ? ext : ext === 'docx' ? 'doc' : ext === 'xlsx' ? 'xls' : ext === 'pptx' ? 'ppt' : 'stream') as 'pdf' | 'stream';
        const up = await client.im.v1.file.create({ data: { file_type: fileType, file_name: basename(path), file: createReadStream(path) } });
        if (!up?.file_key) return { ok: false, error: 'Feishu did not accept the file upload' };
        r = await this.post(chatId, 'file', JSON.stringify({ file_key: up.file_key }), opts);
      }
      if (r.ok && opts?.caption) await this.send(chatId, opts.caption, opts);
      return r;
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    if (!chatId.startsWith('oc_')) return null;
    try {
      const client = await this.api();
      const r = await client.im.v1.chat.get({ path: { chat_id: chatId } });
      return r.code === 0 ? { name: r.data?.name || chatId, type: r.data?.chat_mode === 'p2p' ? 'dm' : 'group' } : null;
    } catch {
      return null;
    }
  }
}

/** SDK errors are axios errors carrying Feishu's `{code, msg}` body. */
function describe(e: unknown): string {
  const body = (e as { response?: { data?: { code?: number; msg?: string } } }).response?.data;
  return body?.msg ? `Feishu: ${body.msg} (code ${body.code})` : (e as Error).message;
}

export const definition: PlatformDefinition = {
  ...feishuEntry,
  maxMessageLength: FEISHU_LIMIT,
  targetHint: 'a chat id (oc_…), an open id (ou_…) or an email',
  create: async (ctx) => {
    const settings = feishuSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('Feishu needs FEISHU_APP_ID and FEISHU_APP_SECRET');
    return new FeishuAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = feishuSettings(ctx.env, ctx.config);
    return settings ? new FeishuAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Feishu/Lark developer console → your self-built app: enable the Bot, add the im:message scopes, subscribe to im.message.receive_v1 with "persistent connection" (long connection) mode; copy the App ID and App Secret.',
    fields: [
      { key: 'FEISHU_APP_ID', prompt: 'App ID (cli_…)', validate: (v) => (/^cli_[0-9a-zA-Z]+$/.test(v) ? undefined : 'An App ID starts with cli_') },
      { key: 'FEISHU_APP_SECRET', prompt: 'App Secret', secret: true },
      { key: 'FEISHU_DOMAIN', prompt: 'feishu (China) or lark (international)', optional: true, placeholder: 'feishu', validate: (v) => (['feishu', 'lark'].includes(v.toLowerCase()) ? undefined : 'Answer feishu or lark') },
    ],
    allowlistHint: 'open ids (ou_…)',
  },
  probe: async (env, config) => {
    const s = feishuSettings(env, config);
    if (!s) throw new Error('FEISHU_APP_ID and FEISHU_APP_SECRET are needed');
    const t = await fetch(`${s.domain}/open-apis/auth/v3/tenant_access_token/internal`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id: s.appId, app_secret: s.appSecret }) });
    const tb = (await t.json().catch(() => ({}))) as { code?: number; msg?: string; tenant_access_token?: string };
    if (tb.code !== 0 || !tb.tenant_access_token) throw new Error(`Feishu refused the app credentials: ${tb.msg ?? `HTTP ${t.status}`}`);
    const r = await fetch(`${s.domain}/open-apis/bot/v3/info`, { headers: { authorization: `Bearer ${tb.tenant_access_token}` } });
    const b = (await r.json().catch(() => ({}))) as { bot?: { app_name?: string } };
    return b.bot?.app_name ?? s.appId;
  },
  promptHint: 'Feishu renders Markdown in rich-text posts (headings, bold, lists, links, code blocks).',
};
