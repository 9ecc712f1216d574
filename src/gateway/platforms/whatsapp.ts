// WhatsApp through Baileys (a linked device, multi-device protocol): WHATSAPP_ENABLED=true, paired
// once with `hermes whatsapp` (QR code), credentials in HERMES_HOME/whatsapp/session. Modes
// (WHATSAPP_MODE): `bot` — a dedicated number; our own messages are echoes and ignored — and
// `self-chat` — your own number; you talk to the agent in "Message yourself" and only there.
// Groups need a mention (whatsapp.require_mention, default true). Replies use WhatsApp's
// formatting and stream by message edits; 👀/✅ reactions; media both ways; voice notes in.
// The socket is built through `deps.makeSocket` so tests run against a fake socket (WhatsApp's
// own wire protocol cannot be served locally).
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { platformSettings, truthy } from '../config.ts';
import { attachmentCapBytes, kindOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules } from './gating.ts';
import { whatsapp as whatsappEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toWhatsApp } from '../markdown/serializers.ts';
import { isGroupJid, phoneOf, toJid } from './whatsapp-common.ts';

/** The part of a Baileys socket this adapter uses. */
export interface WaSocketLike {
  user?: { id: string; name?: string } | null;
  ev: { on(event: string, fn: (arg: any) => void): void; removeAllListeners?(event?: string): void };
  sendMessage(jid: string, content: Record<string, unknown>, opts?: Record<string, unknown>): Promise<{ key: WaKey } | undefined>;
  sendPresenceUpdate(type: string, jid?: string): Promise<void>;
  end(error?: Error): void;
}

export interface WaKey {
  remoteJid?: string | null;
  fromMe?: boolean | null;
  id?: string | null;
  participant?: string | null;
}

export interface WaMessage {
  key: WaKey;
  message?: Record<string, any> | null;
  pushName?: string | null;
  messageTimestamp?: number;
}

export interface WhatsAppDeps {
  /** Builds the socket from the session folder (default: Baileys with multi-file auth state). */
  makeSocket?: (sessionDir: string) => Promise<WaSocketLike>;
  /** Downloads a media message (default: Baileys' downloadMediaMessage). */
  download?: (m: WaMessage, sock: WaSocketLike) => Promise<Buffer>;
}

export const sessionDir = (home: string) => join(home, 'whatsapp', 'session');

/** A quiet logger with pino's shape (Baileys logs through it); warnings and errors reach ours. */
export function baileysLogger(log: (line: string) => void, debug = false): Record<string, unknown> {
  const emit = (lvl: string) => (obj: unknown, msg?: string) => {
    if (!debug && lvl !== 'error' && lvl !== 'fatal') return;
    log(`whatsapp: ${lvl}: ${msg ?? (typeof obj === 'string' ? obj : JSON.stringify(obj)).slice(0, 300)}`);
  };
  const l: Record<string, unknown> = { level: debug ? 'debug' : 'error', trace: emit('trace'), debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), fatal: emit('fatal') };
  l.child = () => l;
  return l;
}

export async function defaultSocket(dir: string, log: (line: string) => void, debug = false): Promise<WaSocketLike> {
  const b = await import('baileys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { state, saveCreds } = await b.useMultiFileAuthState(dir);
  const sock = b.makeWASocket({ auth: state, logger: baileysLogger(log, debug) as never, browser: ['Hermes Agent', 'Chrome', '1.0'], markOnlineOnConnect: false, syncFullHistory: false });
  sock.ev.on('creds.update', saveCreds);
  return sock as unknown as WaSocketLike;
}

async function defaultDownload(m: WaMessage, sock: WaSocketLike): Promise<Buffer> {
  const b = await import('baileys');
  return (await b.downloadMediaMessage(m as never, 'buffer', {}, { logger: baileysLogger(() => undefined) as never, reuploadRequest: (sock as unknown as { updateMediaMessage: never }).updateMediaMessage })) as Buffer;
}

/** The text and media of a Baileys message (unwrapping ephemeral/view-once envelopes). */
function unwrap(msg: Record<string, any> | null | undefined): Record<string, any> {
  let m = msg ?? {};
  for (let i = 0; i < 3; i++) {
    const inner = m.ephemeralMessage?.message ?? m.viewOnceMessage?.message ?? m.viewOnceMessageV2?.message ?? m.documentWithCaptionMessage?.message;
    if (!inner) break;
    m = inner;
  }
  return m;
}

export class WhatsAppAdapter implements PlatformAdapter {
  readonly name = 'whatsapp';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = false;
  readonly editIntervalMs = 1500;
  readonly prefers = { reactions: true };
  private sock: WaSocketLike | null = null;
  private readonly home: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly log: (line: string) => void;
  private readonly deps?: WhatsAppDeps;
  private closing = false;
  /** Ids of messages we sent (self-chat echo protection). */
  private readonly mine = new Set<string>();
  private readonly keys = new Map<string, WaKey>();

  constructor(o: { home: string; env: NodeJS.ProcessEnv; config: Record<string, unknown>; log: (line: string) => void; deps?: WhatsAppDeps }) {
    this.home = o.home;
    this.env = o.env;
    this.config = o.config;
    this.log = o.log;
    this.deps = o.deps;
  }

  private get mode(): 'bot' | 'self-chat' {
    const m = String(this.env.WHATSAPP_MODE ?? platformSettings(this.config, 'whatsapp').mode ?? 'bot').toLowerCase();
    return m === 'self-chat' || m === 'self' ? 'self-chat' : 'bot';
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const sock = this.deps?.makeSocket ? await this.deps.makeSocket(sessionDir(this.home)) : await defaultSocket(sessionDir(this.home), this.log, truthy(this.env.WHATSAPP_DEBUG));
    this.sock = sock;
    await new Promise<void>((resolve, reject) => {
      let open = false;
      sock.ev.on('connection.update', (u: { connection?: string; qr?: string; lastDisconnect?: { error?: { output?: { statusCode?: number }; message?: string } } }) => {
        if (u.qr && !open) {
          reject(new Error('WhatsApp is not paired: run `hermes whatsapp` and scan the QR code with the phone (Linked devices)'));
          sock.end();
          return;
        }
        if (u.connection === 'open' && !open) {
          open = true;
          resolve();
        } else if (u.connection === 'close') {
          const code = u.lastDisconnect?.error?.output?.statusCode;
          const why = code === 401 ? 'WhatsApp logged this device out: run `hermes whatsapp` to pair again' : `connection closed${code ? ` (${code})` : ''}: ${u.lastDisconnect?.error?.message ?? ''}`.trim();
          if (!open) reject(new Error(why));
          else if (!this.closing && this.sock === sock) handlers.disconnected?.(new Error(why));
        }
      });
      sock.ev.on('messages.upsert', (u: { messages: WaMessage[]; type: string }) => {
        if (u.type !== 'notify') return;
        for (const m of u.messages) void this.onMessage(m, handlers).catch((e) => this.log(`whatsapp: could not read a message: ${(e as Error).message}`));
      });
    });
  }

  private async onMessage(m: WaMessage, handlers: InboundHandlers): Promise<void> {
    const jid = m.key.remoteJid;
    if (!jid || jid === 'status@broadcast' || !m.message || !this.sock) return;
    const myPhone = phoneOf(this.sock.user?.id ?? '');
    const selfChat = phoneOf(jid) === myPhone && !isGroupJid(jid);
    if (m.key.fromMe) {
      // bot mode: our own messages are echoes. self-chat: only what you type in "Message yourself".
      if (this.mode !== 'self-chat' || !selfChat || this.mine.has(m.key.id ?? '')) return;
    } else if (this.mode === 'self-chat') return;
    const c = unwrap(m.message);
    const group = isGroupJid(jid);
    const sender = group ? (m.key.participant ?? '') : m.key.fromMe ? (this.sock.user?.id ?? jid) : jid;
    let text: string = c.conversation ?? c.extendedTextMessage?.text ?? c.imageMessage?.caption ?? c.videoMessage?.caption ?? c.documentMessage?.caption ?? '';
    const ctx = c.extendedTextMessage?.contextInfo ?? c.imageMessage?.contextInfo ?? {};
    if (group) {
      const mentioned = (ctx.mentionedJid ?? []).some((j: string) => phoneOf(j) === myPhone) || text.includes(`@${myPhone}`);
      if (!channelAdmits(channelRules('whatsapp', this.env, this.config), [jid], mentioned)) return;
      text = text.replace(new RegExp(`@${myPhone}\\b`, 'g'), '').trim();
    }
    const media = c.imageMessage ?? c.documentMessage ?? c.audioMessage ?? c.videoMessage;
    const attachments: InboundAttachment[] = [];
    if (media) {
      const mimeType = String(media.mimetype ?? '').split(';')[0] || undefined;
      const fileName = media.fileName ?? undefined;
      const kind = c.imageMessage ? 'image' : c.audioMessage ? 'audio' : c.videoMessage ? 'video' : kindOf(mimeType, fileName);
      const size = Number(media.fileLength ?? 0);
      if (size > attachmentCapBytes(this.config)) attachments.push({ kind, mimeType, fileName, tooLarge: size });
      else {
        try {
          const bytes = await (this.deps?.download ?? defaultDownload)(m, this.sock);
          attachments.push({ kind, mimeType, fileName, voice: !!c.audioMessage?.ptt, path: saveAttachment(this.home, { kind, bytes, mimeType, fileName, id: m.key.id ?? undefined }) });
        } catch (e) {
          this.log(`whatsapp: media download failed: ${(e as Error).message}`);
        }
      }
    }
    if (!text.trim() && !attachments.length) return;
    if (m.key.id) this.keys.set(m.key.id, m.key);
    const source: SessionSource = {
      platform: 'whatsapp',
      chatId: jid,
      chatType: group ? 'group' : 'dm',
      userId: phoneOf(sender),
      userName: m.pushName ?? undefined,
    };
    handlers.message({ source, messageId: m.key.id ?? `${Date.now()}`, text: text.trim(), attachments: attachments.length ? attachments : undefined, replyTo: ctx.stanzaId ?? undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
  }

  async disconnect(): Promise<void> {
    this.closing = true;
    const s = this.sock;
    this.sock = null;
    s?.ev.removeAllListeners?.();
    s?.end(undefined);
  }

  private async out(jid: string, content: Record<string, unknown>, opts?: Record<string, unknown>): Promise<SendResult> {
    if (!this.sock) return { ok: false, error: 'WhatsApp is not connected' };
    try {
      const r = await this.sock.sendMessage(toJid(jid), content, opts);
      const id = r?.key.id ?? undefined;
      if (id && r) {
        this.mine.add(id);
        this.keys.set(id, r.key);
        if (this.mine.size > 1000) this.mine.delete(this.mine.values().next().value as string);
      }
      return { ok: true, messageId: id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const quoted = opts?.replyTo ? this.keys.get(opts.replyTo) : undefined;
    return this.out(chatId, { text: toWhatsApp(text) }, quoted ? { quoted: { key: quoted, message: { conversation: '' } } } : undefined);
  }

  async edit(chatId: string, messageId: string, text: string): Promise<SendResult> {
    const key = this.keys.get(messageId);
    if (!key) return { ok: false, error: 'unknown message' };
    const r = await this.out(chatId, { text: toWhatsApp(text), edit: key });
    return r.ok ? { ok: true, messageId } : r;
  }

  async sendTyping(chatId: string): Promise<void> {
    await this.sock?.sendPresenceUpdate('composing', toJid(chatId)).catch(() => undefined);
  }

  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    const key = this.keys.get(messageId);
    if (key) await this.out(chatId, { react: { text: emoji, key } });
  }

  async unreact(chatId: string, messageId: string): Promise<void> {
    const key = this.keys.get(messageId);
    if (key) await this.out(chatId, { react: { text: '', key } });
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { kind?: string; caption?: string; voice?: boolean }): Promise<SendResult> {
    const file = { url: path };
    const content =
      opts?.kind === 'image'
        ? { image: file, caption: opts.caption }
        : opts?.kind === 'video'
          ? { video: file, caption: opts.caption }
          : opts?.kind === 'audio'
            ? { audio: file, ptt: !!opts.voice, mimetype: opts.voice ? 'audio/ogg; codecs=opus' : undefined }
            : { document: file, fileName: basename(path), caption: opts?.caption };
    return this.out(chatId, content);
  }
}

export const definition: PlatformDefinition = {
  ...whatsappEntry,
  maxMessageLength: 4096,
  piiSafe: true,
  parseTarget: (rest) => (/^\+?[\d\s()-]{5,}$/.test(rest) || /@(s\.whatsapp\.net|g\.us|lid)$/.test(rest) ? { chatId: toJid(rest) } : null),
  targetHint: 'a phone number with country code or a WhatsApp JID',
  create: async (ctx) => new WhatsAppAdapter({ home: ctx.home, env: ctx.env, config: ctx.config, log: ctx.log, deps: ctx.deps as WhatsAppDeps | undefined }),
  setup: {
    intro: 'WhatsApp links as a device of a phone: after saving, run `hermes whatsapp` to scan the QR code.',
    fields: [{ key: 'WHATSAPP_ENABLED', prompt: 'Enable the WhatsApp bridge? (true)', placeholder: 'true', validate: (v) => (/^(true|1|yes)$/i.test(v) ? undefined : 'Type true') }, { key: 'WHATSAPP_MODE', prompt: 'Mode: bot (a separate number) or self-chat (message yourself)', placeholder: 'bot', optional: true, validate: (v) => (['bot', 'self-chat'].includes(v) ? undefined : 'bot or self-chat') }],
    allowlistHint: 'phone numbers with country code, no +',
  },
  promptHint: 'WhatsApp formatting: *bold*, _italic_, ~strike~, ``` for code; no tables or headings.',
};
