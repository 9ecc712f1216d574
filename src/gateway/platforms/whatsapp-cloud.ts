// WhatsApp Business Cloud API (Meta's official API): messages arrive as signed webhooks on our own
// HTTP server (WHATSAPP_CLOUD_WEBHOOK_HOST/PORT/PATH, default :8090/whatsapp/webhook; Meta's GET
// handshake answered with WHATSAPP_CLOUD_VERIFY_TOKEN; every POST checked against
// X-Hub-Signature-256 with WHATSAPP_CLOUD_APP_SECRET, refused with 503 without one), replies go to
// the Graph API (/{phone_number_id}/messages) with WHATSAPP_CLOUD_ACCESS_TOKEN. Media in through the
// media endpoint, out through an upload. Cloud API messages cannot be edited, so replies are sent
// whole. WHATSAPP_CLOUD_GRAPH_URL points at another Graph host (a proxy, or tests).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, kindOf, mimeOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { whatsappCloud as whatsappCloudEntry, whatsappCloudCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toWhatsApp } from '../markdown/serializers.ts';
import { phoneOf } from './whatsapp-common.ts';

export interface WhatsAppCloudSettings {
  phoneNumberId: string;
  token: string;
  appSecret: string;
  verifyToken: string;
  wabaId?: string;
  host?: string;
  port: number;
  path: string;
  graph: string;
}

export function cloudSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): WhatsAppCloudSettings | null {
  const c = whatsappCloudCredentials(env, config);
  if (!c) return null;
  const { phoneNumberId, token } = c;
  const s = platformSettings(config, 'whatsapp_cloud');
  const version = String(env.WHATSAPP_CLOUD_API_VERSION || s.api_version || 'v20.0');
  return {
    phoneNumberId,
    token,
    appSecret: String(env.WHATSAPP_CLOUD_APP_SECRET || s.app_secret || ''),
    verifyToken: String(env.WHATSAPP_CLOUD_VERIFY_TOKEN || s.verify_token || ''),
    wabaId: String(env.WHATSAPP_CLOUD_WABA_ID || s.waba_id || '') || undefined,
    host: env.WHATSAPP_CLOUD_WEBHOOK_HOST || (s.webhook_host as string | undefined) || undefined,
    port: Number(env.WHATSAPP_CLOUD_WEBHOOK_PORT || s.webhook_port || 8090),
    path: String(env.WHATSAPP_CLOUD_WEBHOOK_PATH || s.webhook_path || '/whatsapp/webhook'),
    graph: `${String(env.WHATSAPP_CLOUD_GRAPH_URL || 'https://graph.facebook.com').replace(/\/+$/, '')}/${version}`,
  };
}

/** Meta signs the raw body: `X-Hub-Signature-256: sha256=<hex hmac>`. */
export function validSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header ?? '');
  if (!m) return false;
  const want = createHmac('sha256', secret).update(body).digest();
  const got = Buffer.from(m[1], 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

interface CloudMessage {
  from: string;
  id: string;
  type: string;
  text?: { body?: string };
  image?: { id: string; mime_type?: string; caption?: string };
  document?: { id: string; mime_type?: string; caption?: string; filename?: string };
  audio?: { id: string; mime_type?: string; voice?: boolean };
  video?: { id: string; mime_type?: string; caption?: string };
  context?: { id?: string };
}

export class WhatsAppCloudAdapter implements PlatformAdapter {
  readonly name = 'whatsapp_cloud';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = false;
  readonly prefers = { reactions: true };
  readonly s: WhatsAppCloudSettings;
  private readonly home: string;
  private readonly config: Record<string, unknown>;
  private readonly log: (line: string) => void;
  private server: Server | null = null;
  /** The port actually bound (0 in tests). */
  port = 0;
  private readonly seen = new Set<string>();

  constructor(o: { settings: WhatsAppCloudSettings; home: string; config: Record<string, unknown>; log: (line: string) => void }) {
    this.s = o.settings;
    this.home = o.home;
    this.config = o.config;
    this.log = o.log;
  }

  private async graph<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${this.s.graph}${path}`, { method, headers: { authorization: `Bearer ${this.s.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined });
    const data = (await r.json().catch(() => ({}))) as T & { error?: { message?: string; code?: number } };
    if (!r.ok || data.error) throw new Error(`WhatsApp Cloud API ${path}: ${data.error?.message ?? `HTTP ${r.status}`}`);
    return data;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    if (!this.s.verifyToken) this.log('whatsapp_cloud: WHATSAPP_CLOUD_VERIFY_TOKEN is not set: Meta cannot verify the webhook');
    if (!this.s.appSecret) this.log('whatsapp_cloud: WHATSAPP_CLOUD_APP_SECRET is not set: inbound webhooks are refused (503) until it is');
    const http = await import('node:http');
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/health') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, verify_token_configured: !!this.s.verifyToken, app_secret_configured: !!this.s.appSecret }));
      if (url.pathname !== this.s.path) return res.writeHead(404).end();
      if (req.method === 'GET') {
        const ok = url.searchParams.get('hub.mode') === 'subscribe' && !!this.s.verifyToken && url.searchParams.get('hub.verify_token') === this.s.verifyToken;
        return ok ? res.writeHead(200, { 'content-type': 'text/plain' }).end(url.searchParams.get('hub.challenge') ?? '') : res.writeHead(403).end('verification failed');
      }
      if (req.method !== 'POST') return res.writeHead(405).end();
      const parts: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 1024 * 1024) req.destroy();
        else parts.push(c);
      });
      req.on('end', () => {
        const body = Buffer.concat(parts);
        if (!this.s.appSecret) return res.writeHead(503).end('app secret not configured');
        if (!validSignature(this.s.appSecret, body, req.headers['x-hub-signature-256'] as string | undefined)) return res.writeHead(401).end('bad signature');
        res.writeHead(200).end('ok');
        try {
          this.onPayload(JSON.parse(body.toString('utf8')), handlers);
        } catch (e) {
          this.log(`whatsapp_cloud: bad webhook body: ${(e as Error).message}`);
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.s.port, this.s.host, () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    this.log(`whatsapp_cloud: webhook listening on ${this.s.host ?? '*'}:${this.port}${this.s.path}`);
  }

  private onPayload(p: { object?: string; entry?: { id?: string; changes?: { field?: string; value?: Record<string, any> }[] }[] }, handlers: InboundHandlers): void {
    if (p.object !== 'whatsapp_business_account') return;
    for (const entry of p.entry ?? []) {
      if (this.s.wabaId && entry.id !== this.s.wabaId) continue;
      for (const ch of entry.changes ?? []) {
        const v = ch.value ?? {};
        if (ch.field !== 'messages' || v.metadata?.phone_number_id !== this.s.phoneNumberId) continue;
        const names = new Map<string, string>((v.contacts ?? []).map((c: { wa_id: string; profile?: { name?: string } }) => [c.wa_id, c.profile?.name ?? '']));
        for (const m of (v.messages ?? []) as CloudMessage[]) {
          if (this.seen.has(m.id)) continue; // Meta redelivers
          this.seen.add(m.id);
          if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
          void this.onMessage(m, names.get(m.from), handlers).catch((e) => this.log(`whatsapp_cloud: could not read a message: ${(e as Error).message}`));
        }
      }
    }
  }

  private async onMessage(m: CloudMessage, name: string | undefined, handlers: InboundHandlers): Promise<void> {
    const source: SessionSource = { platform: 'whatsapp_cloud', chatId: m.from, chatType: 'dm', userId: m.from, userName: name || undefined };
    const media = m.image ?? m.document ?? m.audio ?? m.video;
    const attachments: InboundAttachment[] = [];
    if (media) {
      try {
        const info = await this.graph<{ url: string; mime_type?: string; file_size?: number }>('GET', `/${media.id}`);
        const fileName = m.document?.filename;
        const kind = m.image ? 'image' : m.audio ? 'audio' : m.video ? 'video' : kindOf(info.mime_type, fileName);
        if ((info.file_size ?? 0) > attachmentCapBytes(this.config)) attachments.push({ kind, mimeType: info.mime_type, fileName, tooLarge: info.file_size });
        else {
          const r = await fetch(info.url, { headers: { authorization: `Bearer ${this.s.token}` } });
          if (!r.ok) throw new Error(`media download HTTP ${r.status}`);
          const bytes = Buffer.from(await r.arrayBuffer());
          attachments.push({ kind, mimeType: info.mime_type ?? media.mime_type, fileName, voice: !!m.audio?.voice, path: saveAttachment(this.home, { kind, bytes, mimeType: info.mime_type ?? media.mime_type, fileName, id: media.id }) });
        }
      } catch (e) {
        this.log(`whatsapp_cloud: media ${media.id}: ${(e as Error).message}`);
      }
    }
    const text = (m.text?.body ?? m.image?.caption ?? m.document?.caption ?? m.video?.caption ?? '').trim();
    if (!text && !attachments.length) return;
    handlers.message({ source, messageId: m.id, text, attachments: attachments.length ? attachments : undefined, replyTo: m.context?.id, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  private async message(to: string, body: Record<string, unknown>): Promise<SendResult> {
    try {
      const r = await this.graph<{ messages?: { id: string }[] }>('POST', `/${this.s.phoneNumberId}/messages`, { messaging_product: 'whatsapp', recipient_type: 'individual', to: phoneOf(to), ...body });
      return { ok: true, messageId: r.messages?.[0]?.id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    return this.message(chatId, { type: 'text', text: { body: toWhatsApp(text), preview_url: false }, ...(opts?.replyTo ? { context: { message_id: opts.replyTo } } : {}) });
  }

  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    await this.message(chatId, { type: 'reaction', reaction: { message_id: messageId, emoji } });
  }

  async unreact(chatId: string, messageId: string): Promise<void> {
    await this.message(chatId, { type: 'reaction', reaction: { message_id: messageId, emoji: '' } });
  }

  /** Uploads then sends; an Ogg/Opus voice reply goes as a voice message (`audio.voice`). */
  async sendMedia(chatId: string, path: string, opts?: SendOptions & { kind?: string; caption?: string; voice?: boolean }): Promise<SendResult> {
    try {
      const mime = mimeOf(path);
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('type', mime);
      form.append('file', new Blob([readFileSync(path)], { type: mime }), basename(path));
      const r = await fetch(`${this.s.graph}/${this.s.phoneNumberId}/media`, { method: 'POST', headers: { authorization: `Bearer ${this.s.token}` }, body: form });
      const up = (await r.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
      if (!r.ok || !up.id) return { ok: false, error: `upload failed: ${up.error?.message ?? `HTTP ${r.status}`}` };
      const type = opts?.kind === 'image' ? 'image' : opts?.kind === 'audio' ? 'audio' : opts?.kind === 'video' ? 'video' : 'document';
      return this.message(chatId, { type, [type]: { id: up.id, ...(type === 'document' ? { filename: basename(path) } : {}), ...(opts?.caption && type !== 'audio' ? { caption: opts.caption } : {}), ...(type === 'audio' && opts?.voice && mime === 'audio/ogg' ? { voice: true } : {}) } });
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...whatsappCloudEntry,
  maxMessageLength: 4096,
  piiSafe: true,
  parseTarget: (rest) => (/^\+?\d{5,}$/.test(rest.replace(/[\s()-]/g, '')) ? { chatId: phoneOf(rest) } : null),
  targetHint: 'a phone number with country code (wa_id)',
  create: async (ctx) => {
    const settings = cloudSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('the WhatsApp Cloud API needs WHATSAPP_CLOUD_PHONE_NUMBER_ID and WHATSAPP_CLOUD_ACCESS_TOKEN');
    return new WhatsAppCloudAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = cloudSettings(ctx.env, ctx.config);
    return settings ? new WhatsAppCloudAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Meta App Dashboard → WhatsApp → API Setup (phone number id, access token); Settings → Basic (app secret). The webhook needs a public HTTPS URL pointing at port 8090.',
    fields: [
      { key: 'WHATSAPP_CLOUD_PHONE_NUMBER_ID', prompt: 'Phone Number ID (15-17 digits; not the phone number)', validate: (v) => (/^\d{10,20}$/.test(v) ? undefined : 'The Phone Number ID is a long number from API Setup') },
      { key: 'WHATSAPP_CLOUD_ACCESS_TOKEN', prompt: 'Access token (EAA…)', secret: true },
      { key: 'WHATSAPP_CLOUD_APP_SECRET', prompt: 'App secret (32 hex characters)', secret: true, validate: (v) => (/^[0-9a-f]{32}$/i.test(v) ? undefined : 'The app secret is 32 hex characters') },
      { key: 'WHATSAPP_CLOUD_VERIFY_TOKEN', prompt: 'Webhook verify token (any long random string; paste the same in Meta’s dashboard)', secret: true },
    ],
    allowlistHint: 'phone numbers with country code, no +',
  },
  probe: async (env, config) => {
    const s = cloudSettings(env, config);
    if (!s) throw new Error('the phone number id and the token are needed');
    const r = await fetch(`${s.graph}/${s.phoneNumberId}?fields=display_phone_number,verified_name`, { headers: { authorization: `Bearer ${s.token}` } });
    const body = (await r.json().catch(() => ({}))) as { display_phone_number?: string; verified_name?: string; error?: { message?: string } };
    if (!r.ok) throw new Error(`Meta refused: ${body.error?.message ?? `HTTP ${r.status}`}`);
    return `${body.verified_name ?? ''} ${body.display_phone_number ?? ''}`.trim();
  },
  promptHint: 'WhatsApp formatting: *bold*, _italic_, ~strike~, ``` for code; no tables or headings.',
};
