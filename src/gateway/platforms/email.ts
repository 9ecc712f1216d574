// Email: IMAP polling with imapflow (UNSEEN mail in INBOX every EMAIL_POLL_INTERVAL seconds),
// replies over SMTP with nodemailer, threaded by Message-ID (In-Reply-To + References, `Re:`
// subject). Mail already in the inbox at start is marked seen, not answered. Automated senders
// (noreply@, mailer-daemon, Auto-Submitted, bulk/list mail) and the agent's own address are
// ignored. Unknown senders are ignored unless platforms.email.unauthorized_dm_behavior is `pair`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformSettings, truthy } from '../config.ts';
import type { InboundAttachment, InboundHandlers, InboundMessage, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { email as emailEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export interface EmailSettings {
  address: string;
  password: string;
  imapHost: string;
  imapPort: number;
  smtpHost: string;
  smtpPort: number;
  pollSeconds: number;
  /** Accept self-signed certificates (EMAIL_TLS_INSECURE; local servers only). */
  tlsInsecure: boolean;
  skipAttachments: boolean;
}

export function emailSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): EmailSettings | null {
  if (!env.EMAIL_ADDRESS || !env.EMAIL_PASSWORD || !env.EMAIL_IMAP_HOST || !env.EMAIL_SMTP_HOST) return null;
  const s = platformSettings(config, 'email');
  return {
    address: env.EMAIL_ADDRESS.trim(),
    password: env.EMAIL_PASSWORD,
    imapHost: env.EMAIL_IMAP_HOST,
    imapPort: Number(env.EMAIL_IMAP_PORT || 993),
    smtpHost: env.EMAIL_SMTP_HOST,
    smtpPort: Number(env.EMAIL_SMTP_PORT || 587),
    pollSeconds: Math.max(1, Number(env.EMAIL_POLL_INTERVAL || 15)),
    tlsInsecure: truthy(env.EMAIL_TLS_INSECURE),
    skipAttachments: truthy(s.skip_attachments),
  };
}

export interface EmailDeps {
  createImap?: (s: EmailSettings) => Promise<import('imapflow').ImapFlow>;
  createTransport?: (s: EmailSettings) => Promise<{ sendMail(m: Record<string, unknown>): Promise<{ messageId?: string }>; close?(): void }>;
}

export interface EmailOptions {
  settings: EmailSettings;
  home: string;
  log: (line: string) => void;
  deps?: EmailDeps;
}

async function defaultTransport(s: EmailSettings) {
  const nodemailer = (await import('nodemailer')).default;
  return nodemailer.createTransport({
    host: s.smtpHost,
    port: s.smtpPort,
    secure: s.smtpPort === 465,
    auth: { user: s.address, pass: s.password },
    tls: s.tlsInsecure ? { rejectUnauthorized: false } : undefined,
  });
}

async function defaultImap(s: EmailSettings) {
  const { ImapFlow } = await import('imapflow');
  return new ImapFlow({
    host: s.imapHost,
    port: s.imapPort,
    secure: s.imapPort === 993,
    auth: { user: s.address, pass: s.password },
    logger: false,
    disableAutoIdle: true,
    tls: s.tlsInsecure ? { rejectUnauthorized: false } : undefined,
  });
}

const AUTOMATED = /^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?)([+.-].*)?@/i;

function parseHeaders(raw: Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  const unfolded = raw.toString('utf8').replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

interface Part {
  part?: string;
  type: string;
  disposition?: string;
  dispositionParameters?: Record<string, string>;
  parameters?: Record<string, string>;
  childNodes?: Part[];
}

function walk(node: Part, out: Part[] = []): Part[] {
  if (node.childNodes?.length) for (const c of node.childNodes) walk(c, out);
  else out.push(node);
  return out;
}

function stripHtml(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|tr|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The new text of a reply, without the quoted message below it. */
export function stripQuoted(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^On .+wrote:\s*$/.test(l) || (/^On .+/.test(l) && /wrote:\s*$/.test(lines[i + 1] ?? '')) || /^-{2,}\s*Original Message\s*-{2,}/i.test(l)) break;
    if (/^>/.test(l)) continue;
    out.push(l);
  }
  return out.join('\n').trim();
}

async function streamToBuffer(s: NodeJS.ReadableStream, max = 25 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of s as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > max) throw new Error('attachment too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export class EmailAdapter implements PlatformAdapter {
  readonly name = 'email';
  readonly maxMessageLength = 100_000;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const, busyInputMode: 'queue' as const, busyAck: false };
  private imap: import('imapflow').ImapFlow | null = null;
  private transport: Awaited<ReturnType<NonNullable<EmailDeps['createTransport']>>> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;
  private readonly o: EmailOptions;
  private handlers: InboundHandlers | null = null;

  constructor(o: EmailOptions) {
    this.o = o;
  }

  private get s(): EmailSettings {
    return this.o.settings;
  }

  private async smtp() {
    if (!this.transport) this.transport = await (this.o.deps?.createTransport ?? defaultTransport)(this.s);
    return this.transport;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.handlers = handlers;
    this.stopped = false;
    const imap = await (this.o.deps?.createImap ?? defaultImap)(this.s);
    imap.on('error', (e: Error) => this.o.log(`email: IMAP error: ${e.message}`));
    imap.on('close', () => {
      if (this.stopped) return;
      this.stopTimer();
      this.imap = null;
      handlers.disconnected?.(new Error('IMAP connection closed'));
    });
    await imap.connect();
    await imap.mailboxOpen('INBOX');
    this.imap = imap;
    // Mail that was waiting before we started is not answered (Hermes's behaviour).
    const old = await imap.search({ seen: false }, { uid: true });
    if (old && old.length) await imap.messageFlagsAdd(old, ['\\Seen'], { uid: true });
    const t = await this.smtp();
    if ('verify' in t && typeof (t as { verify?: () => Promise<unknown> }).verify === 'function') await (t as { verify: () => Promise<unknown> }).verify();
    this.timer = setInterval(() => void this.poll(), this.s.pollSeconds * 1000);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One IMAP check for new mail (also used by tests to avoid waiting for the interval). */
  async poll(): Promise<number> {
    if (this.polling || !this.imap || !this.handlers) return 0;
    this.polling = true;
    let n = 0;
    try {
      const imap = this.imap;
      const uids = await imap.search({ seen: false }, { uid: true });
      if (!uids || !uids.length) return 0;
      await imap.messageFlagsAdd(uids, ['\\Seen'], { uid: true });
      for (const uid of uids) {
        try {
          const msg = await this.read(imap, uid);
          if (msg) {
            n++;
            this.handlers.message(msg);
          }
        } catch (e) {
          this.o.log(`email: could not read message ${uid}: ${(e as Error).message}`);
        }
      }
    } catch (e) {
      this.o.log(`email: poll failed: ${(e as Error).message}`);
    } finally {
      this.polling = false;
    }
    return n;
  }

  private async read(imap: import('imapflow').ImapFlow, uid: number): Promise<InboundMessage | null> {
    const m = await imap.fetchOne(String(uid), { envelope: true, bodyStructure: true, headers: ['references', 'auto-submitted', 'precedence', 'list-unsubscribe', 'message-id'] }, { uid: true });
    if (!m || !m.envelope) return null;
    const env = m.envelope;
    const from = env.from?.[0];
    const address = (from?.address ?? '').toLowerCase();
    if (!address || address === this.s.address.toLowerCase()) return null;
    const h = parseHeaders(m.headers as Buffer | undefined);
    const auto = h['auto-submitted'] && h['auto-submitted'].toLowerCase() !== 'no';
    if (AUTOMATED.test(address) || auto || /^(bulk|list|junk)$/i.test(h.precedence ?? '') || h['list-unsubscribe']) {
      this.o.log(`email: ignored automated mail from ${address}`);
      return null;
    }
    const leaves = walk((m.bodyStructure ?? { type: 'text/plain', part: '1' }) as Part);
    const textPart = leaves.find((p) => p.type === 'text/plain' && p.disposition !== 'attachment') ?? leaves.find((p) => p.type === 'text/html' && p.disposition !== 'attachment');
    let body = '';
    if (textPart) {
      const d = await imap.download(String(uid), textPart.part ?? '1', { uid: true });
      if ('content' in d && d.content) {
        const raw = (await streamToBuffer(d.content)).toString('utf8');
        body = textPart.type === 'text/html' ? stripHtml(raw) : raw;
      }
    }
    const attachments: InboundAttachment[] = [];
    if (!this.s.skipAttachments) {
      for (const p of leaves) {
        if (p === textPart || !p.part || (p.type.startsWith('text/') && p.disposition !== 'attachment')) continue;
        const d = await imap.download(String(uid), p.part, { uid: true });
        if (!('content' in d) || !d.content) continue;
        const buf = await streamToBuffer(d.content);
        const isImage = p.type.startsWith('image/');
        const dir = join(this.o.home, isImage ? 'image_cache' : join('cache', 'documents'));
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const name = `${uid}-${(p.dispositionParameters?.filename ?? p.parameters?.name ?? `part${p.part}`).replace(/[^\w.-]/g, '_')}`;
        const path = join(dir, name);
        writeFileSync(path, buf, { mode: 0o600 });
        attachments.push({ kind: isImage ? 'image' : 'document', path, mimeType: p.type, fileName: name });
      }
    }
    const subject = env.subject ?? '';
    const isReply = /^\s*re:/i.test(subject);
    const newText = stripQuoted(body);
    const text = isReply || !subject ? newText : `[Subject: ${subject}]\n\n${newText}`;
    const messageId = env.messageId ?? h['message-id'] ?? `<uid-${uid}@${this.s.imapHost}>`;
    return {
      source: { platform: 'email', chatId: address, chatType: 'dm', userId: address, userName: from?.name || address },
      messageId,
      text,
      attachments: attachments.length ? attachments : undefined,
      receivedAt: Date.now(),
      meta: { subject, messageId, references: h.references ?? '', inReplyTo: env.inReplyTo ?? '' },
    };
  }

  async stopIntake(): Promise<void> {
    this.stopTimer();
  }

  async disconnect(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    const imap = this.imap;
    this.imap = null;
    await imap?.logout().catch(() => undefined);
    this.transport?.close?.();
    this.transport = null;
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const meta = (opts?.meta ?? {}) as { subject?: string; messageId?: string; references?: string };
    const subject = meta.subject ? (/^\s*re:/i.test(meta.subject) ? meta.subject : `Re: ${meta.subject}`) : `Hermes: ${text.split('\n')[0].slice(0, 60)}`;
    const references = [meta.references, meta.messageId].filter(Boolean).join(' ').trim();
    try {
      const t = await this.smtp();
      const r = await t.sendMail({
        from: this.s.address,
        to: chatId,
        subject,
        text,
        inReplyTo: meta.messageId || undefined,
        references: references || undefined,
      });
      return { ok: true, messageId: r.messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    const meta = (opts?.meta ?? {}) as { subject?: string; messageId?: string };
    try {
      const t = await this.smtp();
      const r = await t.sendMail({ from: this.s.address, to: chatId, subject: meta.subject ? `Re: ${meta.subject.replace(/^\s*re:\s*/i, '')}` : 'Hermes: attachment', text: opts?.caption ?? '', attachments: [{ path }], inReplyTo: meta.messageId || undefined });
      return { ok: true, messageId: r.messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

/** Send-only email (SMTP) for deliveries without a running gateway. */
export function createEmailSender(env: NodeJS.ProcessEnv, config: Record<string, unknown>, deps?: EmailDeps): PlatformAdapter | null {
  const s = emailSettings(env, config);
  return s ? new EmailAdapter({ settings: s, home: env.HERMES_HOME ?? '', log: () => undefined, deps }) : null;
}

export const definition: PlatformDefinition = {
  ...emailEntry,
  maxMessageLength: 100_000,
  homeEnv: 'EMAIL_HOME_ADDRESS',
  targetHint: 'an email address',
  parseTarget: (rest) => (/^[^@\s]+@[^@\s]+$/.test(rest) ? { chatId: rest } : null),
  create: async (ctx) => {
    const settings = emailSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('email needs EMAIL_ADDRESS, EMAIL_PASSWORD, EMAIL_IMAP_HOST and EMAIL_SMTP_HOST');
    return new EmailAdapter({ settings, home: ctx.home, log: ctx.log, deps: ctx.deps as EmailDeps | undefined });
  },
  sender: async (ctx) => createEmailSender(ctx.env, ctx.config, ctx.deps as EmailDeps | undefined),
  setup: {
    fields: [
      { key: 'EMAIL_ADDRESS', prompt: "The agent's email address", validate: (v) => (/^[^@\s]+@[^@\s]+$/.test(v) ? undefined : 'Enter an email address') },
      { key: 'EMAIL_PASSWORD', prompt: 'Password (an app password with 2FA)', secret: true },
      { key: 'EMAIL_IMAP_HOST', prompt: 'IMAP host', placeholder: 'imap.gmail.com' },
      { key: 'EMAIL_SMTP_HOST', prompt: 'SMTP host', placeholder: 'smtp.gmail.com' },
    ],
    allowlistHint: 'sender addresses',
  },
};
