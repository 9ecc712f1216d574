// SMS through Twilio: texts arrive as Twilio webhooks on our own HTTP server (SMS_WEBHOOK_HOST /
// SMS_WEBHOOK_PORT, default 0.0.0.0:8080; every request must carry a valid X-Twilio-Signature for
// SMS_WEBHOOK_URL, the public URL configured in Twilio, unless SMS_INSECURE_NO_SIGNATURE=true for
// local development), replies go out through Twilio's Messages API (TWILIO_ACCOUNT_SID,
// TWILIO_AUTH_TOKEN, from TWILIO_PHONE_NUMBER). Texts cannot be edited, so replies are sent whole,
// split at 1600 characters (Twilio's concatenated-SMS limit). MMS pictures are downloaded (with the
// account's credentials) and reach the model. TWILIO_API_BASE points at another host (tests).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import { truthy } from '../config.ts';
import { downloadAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { sms as smsEntry, twilioCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { maskPhone } from './signal.ts';
import { toPlainText } from '../markdown/serializers.ts';

export const SMS_LIMIT = 1600;

export interface SmsSettings {
  sid: string;
  token: string;
  from: string;
  webhookUrl: string;
  host: string;
  port: number;
  insecure: boolean;
  api: string;
}

export function smsSettings(env: NodeJS.ProcessEnv): SmsSettings | null {
  const c = twilioCredentials(env);
  if (!c) return null;
  return {
    ...c,
    webhookUrl: env.SMS_WEBHOOK_URL ?? '',
    host: env.SMS_WEBHOOK_HOST || '0.0.0.0',
    port: Number(env.SMS_WEBHOOK_PORT || 8080),
    insecure: truthy(env.SMS_INSECURE_NO_SIGNATURE),
    api: (env.TWILIO_API_BASE || 'https://api.twilio.com').replace(/\/+$/, ''),
  };
}

/** Twilio's request signature: base64 HMAC-SHA1 of the URL followed by each POST param (sorted) as name+value. */
export function twilioSignature(token: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', token).update(data).digest('base64');
}

export class SmsAdapter implements PlatformAdapter {
  readonly name = 'sms';
  readonly maxMessageLength = SMS_LIMIT;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const };
  readonly s: SmsSettings;
  private readonly home: string;
  private readonly config: Record<string, unknown>;
  private readonly log: (line: string) => void;
  private server: Server | null = null;
  /** The port actually bound (0 in tests). */
  port = 0;
  private readonly seen = new Set<string>();

  constructor(o: { settings: SmsSettings; home: string; config: Record<string, unknown>; log: (line: string) => void }) {
    this.s = o.settings;
    this.home = o.home;
    this.config = o.config;
    this.log = o.log;
  }

  private get auth(): string {
    return `Basic ${Buffer.from(`${this.s.sid}:${this.s.token}`).toString('base64')}`;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    if (!this.s.webhookUrl && !this.s.insecure) throw new Error('SMS_WEBHOOK_URL is required: the public URL Twilio posts to (it is part of the signature). For local testing only, SMS_INSECURE_NO_SIGNATURE=true.');
    if (this.s.insecure) this.log('sms: SMS_INSECURE_NO_SIGNATURE is set: webhook signatures are NOT checked (local development only)');
    const http = await import('node:http');
    this.server = http.createServer((req, res) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const parts: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 256 * 1024) req.destroy();
        else parts.push(c);
      });
      req.on('end', () => {
        const params = Object.fromEntries(new URLSearchParams(Buffer.concat(parts).toString('utf8')));
        if (!this.s.insecure) {
          const want = Buffer.from(twilioSignature(this.s.token, this.s.webhookUrl, params));
          const got = Buffer.from(String(req.headers['x-twilio-signature'] ?? ''));
          if (got.length !== want.length || !timingSafeEqual(got, want)) return res.writeHead(403, { 'content-type': 'text/plain' }).end('bad signature');
        }
        res.writeHead(200, { 'content-type': 'text/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
        void this.onMessage(params, handlers).catch((e) => this.log(`sms: could not read a message: ${maskPhone((e as Error).message)}`));
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.s.port, this.s.host, () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    this.log(`sms: webhook listening on ${this.s.host}:${this.port}`);
  }

  private async onMessage(p: Record<string, string>, handlers: InboundHandlers): Promise<void> {
    const from = p.From;
    const sid = p.MessageSid ?? p.SmsSid;
    if (!from || !sid || this.seen.has(sid)) return;
    this.seen.add(sid);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const attachments: InboundAttachment[] = [];
    for (let i = 0; i < Number(p.NumMedia ?? 0); i++) {
      const url = p[`MediaUrl${i}`];
      if (!url) continue;
      try {
        attachments.push(await downloadAttachment(this.home, this.config, { url, mimeType: p[`MediaContentType${i}`], id: `${sid}-${i}`, headers: { authorization: this.auth } }));
      } catch (e) {
        this.log(`sms: media ${i} of ${sid}: ${(e as Error).message}`);
      }
    }
    const text = (p.Body ?? '').trim();
    if (!text && !attachments.length) return;
    handlers.message({ source: { platform: 'sms', chatId: from, chatType: 'dm', userId: from, userName: from }, messageId: sid, text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    try {
      const r = await fetch(`${this.s.api}/2010-04-01/Accounts/${encodeURIComponent(this.s.sid)}/Messages.json`, {
        method: 'POST',
        headers: { authorization: this.auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ To: chatId, From: this.s.from, Body: toPlainText(text) }).toString(),
      });
      const body = (await r.json().catch(() => ({}))) as { sid?: string; message?: string; code?: number };
      if (!r.ok) return { ok: false, error: maskPhone(`Twilio refused the message: ${body.message ?? `HTTP ${r.status}`}${body.code ? ` (code ${body.code})` : ''}`) };
      return { ok: true, messageId: body.sid };
    } catch (e) {
      return { ok: false, error: maskPhone((e as Error).message) };
    }
  }
}

export const definition: PlatformDefinition = {
  ...smsEntry,
  maxMessageLength: SMS_LIMIT,
  piiSafe: true,
  parseTarget: (rest) => (/^\+\d{6,15}$/.test(rest.replace(/[\s()-]/g, '')) ? { chatId: rest.replace(/[\s()-]/g, '') } : null),
  targetHint: 'a phone number in E.164 (+15551234567)',
  create: async (ctx) => {
    const settings = smsSettings(ctx.env);
    if (!settings) throw new Error('SMS needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PHONE_NUMBER');
    return new SmsAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = smsSettings(ctx.env);
    return settings ? new SmsAdapter({ settings, home: ctx.home, config: ctx.config, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Twilio Console: the Account SID and Auth Token, a phone number, and its "A message comes in" webhook pointing at your public URL (port 8080).',
    fields: [
      { key: 'TWILIO_ACCOUNT_SID', prompt: 'Account SID (AC…)', validate: (v) => (/^AC[0-9a-f]{32}$/i.test(v) ? undefined : 'An Account SID is AC and 32 hex characters') },
      { key: 'TWILIO_AUTH_TOKEN', prompt: 'Auth Token', secret: true },
      { key: 'TWILIO_PHONE_NUMBER', prompt: 'The Twilio number (+E.164)', validate: (v) => (/^\+\d{6,15}$/.test(v) ? undefined : 'Use E.164: + and the digits') },
      { key: 'SMS_WEBHOOK_URL', prompt: 'The public webhook URL Twilio posts to', validate: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start the URL with https://') },
    ],
    allowlistHint: 'phone numbers in E.164 (+15551234567)',
  },
  probe: async (env) => {
    const s = smsSettings(env);
    if (!s) throw new Error('the SID, token and number are needed');
    const r = await fetch(`${s.api}/2010-04-01/Accounts/${encodeURIComponent(s.sid)}.json`, { headers: { authorization: `Basic ${Buffer.from(`${s.sid}:${s.token}`).toString('base64')}` } });
    const body = (await r.json().catch(() => ({}))) as { friendly_name?: string; message?: string };
    if (!r.ok) throw new Error(`Twilio refused: ${body.message ?? `HTTP ${r.status}`}`);
    return body.friendly_name ?? s.sid;
  },
  promptHint: 'This is SMS: plain text only, no Markdown; keep replies short.',
};
