// iMessage through a BlueBubbles server (the macOS app's REST API): BLUEBUBBLES_SERVER_URL +
// BLUEBUBBLES_PASSWORD. On connect we ping the server, read whether its Private API helper is up,
// start our webhook server (BLUEBUBBLES_WEBHOOK_HOST 127.0.0.1, BLUEBUBBLES_WEBHOOK_PORT 8645,
// BLUEBUBBLES_WEBHOOK_PATH /bluebubbles-webhook) and register it with the server (reusing an
// existing registration; removed again on shutdown). BlueBubbles cannot send headers with its
// webhooks, so the registered URL carries the password as a query parameter and every inbound POST
// must present it. DMs are keyed by the person's address, groups by the chat GUID; in groups the bot
// answers only to wake words when BLUEBUBBLES_REQUIRE_MENTION=true (BLUEBUBBLES_MENTION_PATTERNS,
// default "hermes"). iMessage cannot be edited by the bot: replies are plain text sent whole (split
// at 4000). Pictures and files are downloaded from the server; `MEDIA:` files go out as attachments.
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { platformSettings, truthy } from '../config.ts';
import { attachmentCapBytes, downloadAttachment } from '../media.ts';
import type { ChatInfo, InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { type InboundServer, listenInbound } from './inbound-http.ts';
import { bluebubbles as bluebubblesEntry, blueBubblesCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { maskPhone } from './signal.ts';
import { toPlainText } from '../markdown/serializers.ts';

export const BLUEBUBBLES_LIMIT = 4000;
const DEFAULT_MENTIONS = ['(?<![\\w@])@?hermes\\s+agent\\b[,:\\-]?', '(?<![\\w@])@?hermes\\b[,:\\-]?'];

export interface BlueBubblesSettings {
  url: string;
  password: string;
  host: string;
  port: number;
  path: string;
  events: string[];
  requireMention: boolean;
  mentions: RegExp[];
}

function patterns(raw: unknown): RegExp[] {
  let list: unknown[];
  if (raw === undefined || raw === null) list = DEFAULT_MENTIONS;
  else if (Array.isArray(raw)) list = raw;
  else {
    const text = String(raw).trim();
    try {
      const j = text ? JSON.parse(text) : [];
      list = Array.isArray(j) ? j : [text];
    } catch {
      list = text.split(/[\n,]/);
    }
  }
  const out: RegExp[] = [];
  for (const p of list.map((x) => String(x).trim()).filter(Boolean)) {
    try {
      out.push(new RegExp(p, 'i'));
    } catch {
      /* an invalid pattern is skipped */
    }
  }
  return out;
}

export function blueBubblesSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): BlueBubblesSettings | null {
  const c = blueBubblesCredentials(env, config);
  if (!c) return null;
  const s = platformSettings(config, 'bluebubbles');
  let url = c.url;
  const password = c.password;
  if (!/^https?:\/\//i.test(url)) url = `http://${url}`;
  let path = String(s.webhook_path || env.BLUEBUBBLES_WEBHOOK_PATH || '/bluebubbles-webhook');
  if (!path.startsWith('/')) path = `/${path}`;
  const ev = s.webhook_events ?? env.BLUEBUBBLES_WEBHOOK_EVENTS;
  const events = (Array.isArray(ev) ? ev.map(String) : String(ev ?? 'new-message').split(',')).map((e) => e.trim()).filter(Boolean);
  const rm = s.require_mention ?? env.BLUEBUBBLES_REQUIRE_MENTION;
  return {
    url: url.replace(/\/+$/, ''),
    password,
    host: String(s.webhook_host || env.BLUEBUBBLES_WEBHOOK_HOST || '127.0.0.1'),
    port: Number(s.webhook_port ?? env.BLUEBUBBLES_WEBHOOK_PORT ?? 8645),
    path,
    events: events.length ? events : ['new-message'],
    requireMention: truthy(rm),
    mentions: patterns('mention_patterns' in s ? s.mention_patterns : env.BLUEBUBBLES_MENTION_PATTERNS),
  };
}

interface BbChat {
  guid?: string;
  chatIdentifier?: string;
  displayName?: string;
  participants?: { address?: string }[];
}

interface BbMessage {
  guid?: string;
  text?: string | null;
  isFromMe?: boolean;
  handle?: { address?: string } | null;
  chats?: BbChat[];
  attachments?: { guid?: string; mimeType?: string; transferName?: string; totalBytes?: number }[];
  threadOriginatorGuid?: string | null;
  associatedMessageType?: unknown;
}

/** Phone numbers and addresses masked for logs. */
const redact = (s: string) => maskPhone(s).replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, '[address]');

export class BlueBubblesAdapter implements PlatformAdapter {
  readonly name = 'bluebubbles';
  readonly maxMessageLength = BLUEBUBBLES_LIMIT;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const };
  readonly s: BlueBubblesSettings;
  private readonly home: string;
  private readonly config: Record<string, unknown>;
  private readonly log: (line: string) => void;
  private server: InboundServer | null = null;
  port = 0;
  private privateApi = false;
  private helper = false;
  private readonly guids = new Map<string, string>();
  private readonly seen = new Set<string>();

  constructor(o: { settings: BlueBubblesSettings; home: string; config: Record<string, unknown>; log: (line: string) => void }) {
    this.s = o.settings;
    this.home = o.home;
    this.config = o.config;
    this.log = o.log;
  }

  private apiUrl(path: string): string {
    return `${this.s.url}${path}${path.includes('?') ? '&' : '?'}password=${encodeURIComponent(this.s.password)}`;
  }

  private async api<T = { status?: number; data?: unknown; message?: string }>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(this.apiUrl(path), { method, headers: body !== undefined ? { 'content-type': 'application/json' } : {}, body: body !== undefined ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(30_000) });
    const data = (await r.json().catch(() => ({}))) as T & { message?: string; error?: { message?: string } };
    if (!r.ok) throw new Error(`BlueBubbles ${method} ${path.split('?')[0]}: HTTP ${r.status}${data.message ? ` (${data.message})` : ''}`);
    return data;
  }

  /** The URL BlueBubbles posts to (local: the server runs on the same Mac or reaches us directly). */
  webhookUrl(): string {
    const host = ['0.0.0.0', '127.0.0.1', 'localhost', '::'].includes(this.s.host) ? 'localhost' : this.s.host;
    return `http://${host}:${this.port || this.s.port}${this.s.path}?password=${encodeURIComponent(this.s.password)}`;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    await this.api('GET', '/api/v1/ping');
    const info = await this.api<{ data?: { private_api?: boolean; helper_connected?: boolean } }>('GET', '/api/v1/server/info');
    this.privateApi = !!info.data?.private_api;
    this.helper = !!info.data?.helper_connected;
    this.server = await listenInbound(
      this.s.host,
      this.s.port,
      (req, url, raw) => {
        if (req.method === 'GET' && url.pathname === '/health') return { status: 200, body: 'ok', type: 'text/plain' };
        if (req.method !== 'POST' || url.pathname !== this.s.path) return { status: 404 };
        const got = Buffer.from(url.searchParams.get('password') ?? url.searchParams.get('guid') ?? String(req.headers['x-password'] ?? ''));
        const want = Buffer.from(this.s.password);
        if (got.length !== want.length || !timingSafeEqual(got, want)) return { status: 401, body: '{"error":"unauthorized"}' };
        let ev: { type?: string; data?: BbMessage };
        try {
          ev = JSON.parse(raw.toString('utf8'));
        } catch {
          return { status: 400, body: '{"error":"bad json"}' };
        }
        if (ev.type === 'new-message' || ev.type === 'message') void this.onMessage(ev.data ?? {}, handlers).catch((e) => this.log(`bluebubbles: could not read a message: ${redact((e as Error).message)}`));
        return { status: 200, body: '{"ok":true}' };
      },
      { log: (l) => this.log(`bluebubbles: ${l}`) },
    );
    this.port = this.server.port;
    await this.register();
    this.log(`bluebubbles: connected to ${this.s.url} (private API ${this.privateApi ? 'on' : 'off'}); webhook on ${this.s.host}:${this.port}${this.s.path}`);
  }

  private async registered(): Promise<{ id?: number | string; url?: string; events?: string[] }[]> {
    const r = await this.api<{ data?: { id?: number | string; url?: string; events?: string[] }[] }>('GET', '/api/v1/webhook').catch(() => ({ data: [] }));
    return (r.data ?? []).filter((w) => w.url === this.webhookUrl());
  }

  private async register(): Promise<void> {
    const want = [...this.s.events].sort().join(',');
    let reuse = false;
    for (const w of await this.registered()) {
      if ([...(w.events ?? [])].sort().join(',') === want && !reuse) reuse = true;
      else if (w.id !== undefined) await this.api('DELETE', `/api/v1/webhook/${w.id}`).catch(() => undefined);
    }
    if (!reuse) await this.api('POST', '/api/v1/webhook', { url: this.webhookUrl(), events: this.s.events });
  }

  private async onMessage(m: BbMessage, handlers: InboundHandlers): Promise<void> {
    if (!m.guid || m.isFromMe || this.seen.has(m.guid)) return;
    if (m.associatedMessageType) return; // tapbacks
    this.seen.add(m.guid);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const chat = m.chats?.[0] ?? {};
    const sender = m.handle?.address ?? '';
    const isGroup = !!chat.guid?.includes(';+;');
    let text = (m.text ?? '').replace(/\uFFFC/g, '').trim();
    if (isGroup && this.s.requireMention) {
      if (!this.s.mentions.some((p) => p.test(text))) return;
      for (const p of this.s.mentions) {
        const mm = p.exec(text);
        if (mm && mm.index === 0) {
          text = text.slice(mm[0].length).replace(/^[\s,:-]+/, '') || text;
          break;
        }
      }
    }
    let chatId: string;
    if (isGroup) chatId = chat.guid || chat.chatIdentifier || sender;
    else chatId = [chat.chatIdentifier, sender].find((c) => c && !c.includes(';')) || chat.guid?.split(';-;').pop() || sender;
    if (!chatId || !sender) return;
    if (chat.guid) this.guids.set(chatId, chat.guid);
    const attachments: InboundAttachment[] = [];
    for (const a of m.attachments ?? []) {
      if (!a.guid) continue;
      if ((a.totalBytes ?? 0) > attachmentCapBytes(this.config)) {
        attachments.push({ kind: 'document', fileName: a.transferName, mimeType: a.mimeType, tooLarge: a.totalBytes });
        continue;
      }
      try {
        attachments.push(await downloadAttachment(this.home, this.config, { url: this.apiUrl(`/api/v1/attachment/${encodeURIComponent(a.guid)}/download`), mimeType: a.mimeType, fileName: a.transferName, id: a.guid }));
      } catch (e) {
        this.log(`bluebubbles: attachment: ${redact((e as Error).message.replaceAll(this.s.password, '***'))}`);
      }
    }
    if (!text && !attachments.length) return;
    handlers.message({
      source: { platform: 'bluebubbles', chatId, chatType: isGroup ? 'group' : 'dm', chatName: isGroup ? chat.displayName || undefined : undefined, userId: sender, userName: sender },
      messageId: m.guid,
      text,
      attachments: attachments.length ? attachments : undefined,
      replyTo: m.threadOriginatorGuid || undefined,
      receivedAt: Date.now(),
    });
  }

  /** An address or chat GUID → the chat GUID (GUIDs contain `;`). */
  async chatGuid(target: string): Promise<string | null> {
    if (target.includes(';')) return target;
    const known = this.guids.get(target);
    if (known) return known;
    const r = await this.api<{ data?: BbChat[] }>('POST', '/api/v1/chat/query', { limit: 100, offset: 0, with: ['participants'] });
    for (const c of r.data ?? []) {
      if (!c.guid) continue;
      if (c.chatIdentifier === target || (!c.guid.includes(';+;') && (c.participants ?? []).some((p) => p.address?.trim() === target))) {
        this.guids.set(target, c.guid);
        return c.guid;
      }
    }
    return null;
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    await s?.close();
  }

  async disconnect(): Promise<void> {
    if (this.server) {
      for (const w of await this.registered()) if (w.id !== undefined) await this.api('DELETE', `/api/v1/webhook/${w.id}`).catch(() => undefined);
    }
    await this.stopIntake();
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const message = toPlainText(text).trim();
    if (!message) return { ok: true };
    try {
      const guid = await this.chatGuid(chatId);
      const temp = `temp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
      if (!guid) {
        if (this.privateApi && (/@/.test(chatId) || /^\+\d+$/.test(chatId))) {
          const r = await this.api<{ data?: { guid?: string } }>('POST', '/api/v1/chat/new', { addresses: [chatId], message, tempGuid: temp });
          return { ok: true, messageId: r.data?.guid };
        }
        return { ok: false, error: redact(`no iMessage chat with ${chatId} yet (without the Private API a chat must exist first)`) };
      }
      const body: Record<string, unknown> = { chatGuid: guid, tempGuid: temp, message };
      if (opts?.replyTo && this.privateApi && this.helper) Object.assign(body, { method: 'private-api', selectedMessageGuid: opts.replyTo, partIndex: 0 });
      const r = await this.api<{ data?: { guid?: string } }>('POST', '/api/v1/message/text', body);
      return { ok: true, messageId: r.data?.guid };
    } catch (e) {
      return { ok: false, error: redact((e as Error).message) };
    }
  }

  async sendTyping(chatId: string): Promise<void> {
    if (!this.privateApi || !this.helper) return;
    const guid = await this.chatGuid(chatId).catch(() => null);
    if (guid) await this.api('POST', `/api/v1/chat/${encodeURIComponent(guid)}/typing`).catch(() => undefined);
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string; voice?: boolean }): Promise<SendResult> {
    try {
      const guid = await this.chatGuid(chatId);
      if (!guid) return { ok: false, error: redact(`no iMessage chat with ${chatId}`) };
      const form = new FormData();
      form.append('chatGuid', guid);
      form.append('name', basename(path));
      form.append('tempGuid', `temp-${Date.now()}`);
      if (opts?.voice) form.append('isAudioMessage', 'true');
      form.append('attachment', new Blob([readFileSync(path)]), basename(path));
      const r = await fetch(this.apiUrl('/api/v1/message/attachment'), { method: 'POST', body: form, signal: AbortSignal.timeout(120_000) });
      const body = (await r.json().catch(() => ({}))) as { data?: { guid?: string }; message?: string };
      if (!r.ok) return { ok: false, error: `attachment upload failed: HTTP ${r.status}${body.message ? ` (${body.message})` : ''}` };
      if (opts?.caption) await this.send(chatId, opts.caption);
      return { ok: true, messageId: body.data?.guid };
    } catch (e) {
      return { ok: false, error: redact((e as Error).message) };
    }
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    const isGroup = chatId.includes(';+;');
    try {
      const guid = await this.chatGuid(chatId);
      if (!guid) return { name: chatId, type: isGroup ? 'group' : 'dm' };
      const r = await this.api<{ data?: BbChat }>('GET', `/api/v1/chat/${encodeURIComponent(guid)}?with=participants`);
      return { name: r.data?.displayName || r.data?.chatIdentifier || chatId, type: isGroup ? 'group' : 'dm' };
    } catch {
      return null;
    }
  }
}

export const definition: PlatformDefinition = {
  ...bluebubblesEntry,
  maxMessageLength: BLUEBUBBLES_LIMIT,
  piiSafe: true,
  parseTarget: (rest) => (rest.trim() ? { chatId: rest.trim() } : null),
  targetHint: 'a phone number (+15551234567), an Apple ID e-mail, or a chat GUID (iMessage;+;chat…)',
  create: async (ctx) => {
    const settings = blueBubblesSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('BlueBubbles needs BLUEBUBBLES_SERVER_URL and BLUEBUBBLES_PASSWORD');
    return new BlueBubblesAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = blueBubblesSettings(ctx.env, ctx.config);
    return settings ? new BlueBubblesAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Install BlueBubbles Server on the Mac signed in to iMessage; its settings show the server URL and password. Hermes registers its webhook (port 8645) with the server itself.',
    fields: [
      { key: 'BLUEBUBBLES_SERVER_URL', prompt: 'BlueBubbles server URL', placeholder: 'http://192.168.1.10:1234', validate: (v) => (/^https?:\/\/\S+$/.test(v) ? undefined : 'Start the URL with http:// or https://') },
      { key: 'BLUEBUBBLES_PASSWORD', prompt: 'Server password', secret: true },
    ],
    allowlistHint: 'phone numbers (+15551234567) or Apple ID e-mail addresses',
  },
  probe: async (env, config) => {
    const s = blueBubblesSettings(env, config);
    if (!s) throw new Error('BLUEBUBBLES_SERVER_URL and BLUEBUBBLES_PASSWORD are needed');
    const r = await fetch(`${s.url}/api/v1/server/info?password=${encodeURIComponent(s.password)}`);
    const body = (await r.json().catch(() => ({}))) as { data?: { os_version?: string; server_version?: string; private_api?: boolean }; message?: string };
    if (!r.ok) throw new Error(`BlueBubbles refused: ${body.message ?? `HTTP ${r.status}`}`);
    return `BlueBubbles ${body.data?.server_version ?? '?'}${body.data?.private_api ? ' (Private API)' : ''}`;
  },
  promptHint: 'This is iMessage: plain text only, no Markdown; keep replies conversational.',
};
