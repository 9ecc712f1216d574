// Telegram through grammy: long polling by default, or a webhook (TELEGRAM_WEBHOOK_URL) that
// refuses to start without TELEGRAM_WEBHOOK_SECRET. The Bot API root is configurable
// (TELEGRAM_API_ROOT / telegram.api_root) for a self-hosted Bot API server. Replies go out as
// HTML (converted from the model's Markdown) with a plain-text retry when Telegram rejects the
// markup; approval and clarify choices are inline keyboard buttons.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bot, Context } from 'grammy';
import type { ChatInfo, InboundAttachment, InboundHandlers, InboundMessage, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { PlatformSetupError } from '../types.ts';
import { platformSettings, truthy } from '../config.ts';
import { nodeFetch } from '../../llm/http.ts';
import { wireHook } from '../../llm/wire-hook.ts';
import { telegram as telegramEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toTelegramHtml } from '../markdown/serializers.ts';

export interface TelegramDeps {
  /** Builds the grammy Bot (tests pass an apiRoot on loopback). */
  createBot?: (token: string, apiRoot: string | undefined) => Promise<Bot>;
  /** Downloads a Bot API file (default: fetch). */
  download?: (url: string) => Promise<Buffer>;
}

export interface TelegramOptions {
  token: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  home: string;
  log: (line: string) => void;
  deps?: TelegramDeps;
}

const MAX_DOWNLOAD = 20 * 1024 * 1024;

export function telegramApiRoot(env: NodeJS.ProcessEnv, config: Record<string, unknown>): string | undefined {
  const s = platformSettings(config, 'telegram');
  const raw = env.TELEGRAM_API_ROOT || (typeof s.api_root === 'string' ? s.api_root : '');
  return raw ? raw.replace(/\/+$/, '') : undefined;
}

type GrammySignal = { aborted: boolean; addEventListener(t: 'abort', f: () => void, o?: unknown): void; removeEventListener(t: 'abort', f: () => void): void };

/**
 * grammy's calls (JSON bodies: getUpdates, sendMessage…) go through the keep-alive node:http fetch
 * the LLM clients use (src/llm/http.ts), far less work and garbage per call than undici's fetch;
 * uploads (a multipart stream) through Node's fetch. grammy hands over its polyfilled AbortSignal
 * and node-fetch options, so they are adapted.
 */
const grammyFetch = ((url: string, init: Record<string, unknown> & { signal?: GrammySignal }) => {
  // A send the delivery ledger watches (wire-hook.ts) goes through nodeFetch also when it uploads a
  // file (the body is read into memory first: Telegram takes at most 50 MB from a bot).
  if (typeof init.body === 'string' || init.body === undefined || wireHook())
    return nodeFetch(url, { method: init.method as string | undefined, headers: init.headers as Record<string, string>, body: init.body as BodyInit | undefined, signal: init.signal as unknown as AbortSignal | undefined });
  return undiciFetch(url, init);
}) as unknown as typeof fetch;

const undiciFetch = (url: string, init: Record<string, unknown> & { signal?: GrammySignal }) => {
  const { agent: _agent, compress: _compress, signal, ...rest } = init;
  let native: AbortSignal | undefined;
  if (signal) {
    const ac = new AbortController();
    if (signal.aborted) ac.abort();
    else signal.addEventListener('abort', () => ac.abort(), { once: true });
    native = ac.signal;
  }
  return fetch(url, { ...(rest as RequestInit), signal: native });
};

async function defaultCreateBot(token: string, apiRoot: string | undefined): Promise<Bot> {
  const { Bot } = await import('grammy');
  return new Bot(token, { client: { apiRoot, fetch: grammyFetch } });
}

export class TelegramAdapter implements PlatformAdapter {
  readonly name = 'telegram';
  readonly maxMessageLength = 4096;
  readonly supportsButtons = true;
  readonly editIntervalMs = 1000;
  /** Sends (text, files, edits) go through nodeFetch (grammyFetch) unless a test builds its own Bot. */
  readonly wireReceipts: boolean;
  private bot: Bot | null = null;
  private readonly o: TelegramOptions;
  private webhookServer: import('node:http').Server | null = null;
  private botUsername = '';
  /** `/cmd@thisbot` (built once per connection, not per message). */
  private commandAt: RegExp | null = null;
  private polling: Promise<void> | null = null;
  /** Bumped by every connect/disconnect: a connect that lost the race stops itself. */
  private generation = 0;
  /** Aborts a connect still in flight (grammy retries getMe on 5xx and network errors forever). */
  private connecting: AbortController | null = null;

  constructor(o: TelegramOptions) {
    this.o = o;
    this.wireReceipts = !o.deps?.createBot;
  }

  private get apiRoot(): string | undefined {
    return telegramApiRoot(this.o.env, this.o.config);
  }

  private async getBot(): Promise<Bot> {
    if (!this.bot) this.bot = await (this.o.deps?.createBot ?? defaultCreateBot)(this.o.token, this.apiRoot);
    return this.bot;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const env = this.o.env;
    const webhookUrl = env.TELEGRAM_WEBHOOK_URL?.trim();
    const secret = env.TELEGRAM_WEBHOOK_SECRET?.trim();
    if (webhookUrl && !secret)
      throw new PlatformSetupError('TELEGRAM_WEBHOOK_URL is set but TELEGRAM_WEBHOOK_SECRET is not. Set a long random TELEGRAM_WEBHOOK_SECRET in ~/.hermes/.env (Telegram sends it with every update, so nobody else can post fake updates), or unset TELEGRAM_WEBHOOK_URL to use polling.');
    const gen = ++this.generation;
    // A fresh Bot per connection: handlers are registered once per Bot.
    const bot = await (this.o.deps?.createBot ?? defaultCreateBot)(this.o.token, this.apiRoot);
    this.bot = bot;
    const ac = new AbortController();
    this.connecting = ac;
    try {
      // grammy types its signal with the abort-controller shim; the platform AbortSignal is the real thing.
      await bot.init(ac.signal as unknown as Parameters<Bot["init"]>[0]);
    } catch (e) {
      if (ac.signal.aborted) throw new Error('connect abandoned');
      // 401 (a revoked or mistyped token) never fixes itself; 404 is a token of the wrong shape.
      const code = (e as { error_code?: number }).error_code;
      if (code === 401 || code === 404) throw new PlatformSetupError(`Telegram rejected TELEGRAM_BOT_TOKEN (HTTP ${code}): check the token from @BotFather in ~/.hermes/.env`);
      throw e;
    }
    if (gen !== this.generation) throw new Error('connect superseded');
    this.botUsername = bot.botInfo.username ?? '';
    this.commandAt = null;
    // Awaited: grammy confirms an update (its next poll) only once the gateway has recorded it.
    bot.on('message', (ctx) => this.onMessage(ctx, handlers).catch((e) => this.o.log(`telegram: could not read an incoming message: ${(e as Error).message}`)));
    bot.on('callback_query:data', (ctx) => {
      const q = ctx.callbackQuery;
      const msg = q.message;
      if (!msg || !handlers.action) return;
      handlers.action({
        source: this.sourceOf(msg.chat, q.from, msg.is_topic_message ? msg.message_thread_id : undefined),
        data: q.data ?? '',
        messageId: String(msg.message_id),
        ack: async (text) => {
          await ctx.answerCallbackQuery(text ? { text } : undefined).catch(() => undefined);
        },
      });
    });
    // A reaction from a person (not an anonymous admin) goes to plugins as gateway_platform_event.
    bot.on('message_reaction', (ctx) => {
      const r = ctx.messageReaction;
      if (!r.user || !handlers.platformEvent) return;
      const emojis = r.new_reaction.flatMap((x) => (x.type === 'emoji' ? [x.emoji] : []));
      const custom = r.new_reaction.flatMap((x) => (x.type === 'custom_emoji' ? [x.custom_emoji_id] : []));
      handlers.platformEvent({ source: this.sourceOf(r.chat, r.user), eventType: 'reaction', payload: { emojis, custom_emoji_ids: custom, chat_id: String(r.chat.id), message_id: String(r.message_id), thread_id: null } });
    });
    // An edited message from a person: gateway_platform_event `message_edited` (Hermes's payload).
    bot.on('edited_message', (ctx) => {
      const m = ctx.editedMessage;
      if (!m.from || m.from.is_bot || !handlers.platformEvent) return;
      const thread = m.is_topic_message ? m.message_thread_id : undefined;
      const text = m.text ?? m.caption;
      handlers.platformEvent({
        source: this.sourceOf(m.chat, m.from, thread),
        eventType: 'message_edited',
        payload: { chat_id: String(m.chat.id), message_id: String(m.message_id), thread_id: thread !== undefined ? String(thread) : null, text: typeof text === 'string' ? text.slice(0, 8192) : null, edited_at: m.edit_date ? new Date(m.edit_date * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00') : null },
      });
    });
    bot.catch((err) => this.o.log(`telegram: update failed: ${err.message}`));
    const allowed = ['message', 'edited_message', 'callback_query', 'message_reaction'] as const;
    if (webhookUrl) {
      const { webhookCallback } = await import('grammy');
      const http = await import('node:http');
      const port = Number(env.TELEGRAM_WEBHOOK_PORT || 8443);
      const host = env.TELEGRAM_WEBHOOK_HOST || '0.0.0.0';
      const path = new URL(webhookUrl).pathname || '/';
      const cb = webhookCallback(bot, 'http', { secretToken: secret, onTimeout: 'return' });
      this.webhookServer = http.createServer((req, res) => {
        if (req.method !== 'POST' || (req.url ?? '/').split('?')[0] !== path) {
          res.writeHead(404).end();
          return;
        }
        Promise.resolve(cb(req, res)).catch(() => {
          if (!res.headersSent) res.writeHead(401).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        this.webhookServer!.once('error', reject);
        this.webhookServer!.listen(port, host, () => resolve());
      });
      await bot.api.setWebhook(webhookUrl, { secret_token: secret, allowed_updates: [...allowed] });
      this.o.log(`telegram: webhook mode, listening on ${host}:${port}${path}`);
      return;
    }
    await bot.api.deleteWebhook().catch(() => undefined);
    if (gen !== this.generation) throw new Error('connect superseded');
    await new Promise<void>((resolve, reject) => {
      let started = false;
      this.polling = bot
        .start({ allowed_updates: [...allowed], onStart: () => ((started = true), resolve()) })
        .catch((e: Error) => {
          if (!started) reject(e);
          else if (gen === this.generation) handlers.disconnected?.(new Error(`polling stopped: ${describeTelegramError(e)}`));
        });
    });
  }

  async stopIntake(): Promise<void> {
    this.generation++;
    this.connecting?.abort();
    this.connecting = null;
    if (this.bot?.isRunning()) await this.bot.stop().catch(() => undefined);
    if (this.webhookServer) {
      const s = this.webhookServer;
      this.webhookServer = null;
      await new Promise<void>((r) => s.close(() => r()));
    }
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
    await this.polling?.catch(() => undefined);
  }

  private sourceOf(chat: { id: number; type: string; title?: string; first_name?: string; username?: string }, from: { id: number; username?: string; first_name?: string; last_name?: string; is_bot?: boolean } | undefined, threadId?: number): SessionSource {
    const chatType = chat.type === 'private' ? 'dm' : chat.type === 'channel' ? 'channel' : 'group';
    return {
      platform: 'telegram',
      chatId: String(chat.id),
      chatType,
      chatName: chat.title ?? ([chat.first_name].filter(Boolean).join(' ') || chat.username),
      userId: from ? String(from.id) : undefined,
      // Usernames are unique on Telegram: `@name` allowlist entries match it (identity.ts).
      userHandle: from?.username || undefined,
      userName: from ? from.username || [from.first_name, from.last_name].filter(Boolean).join(' ') : undefined,
      threadId: threadId !== undefined ? String(threadId) : undefined,
      isBot: from?.is_bot,
    };
  }

  private async onMessage(ctx: Context, handlers: InboundHandlers): Promise<void> {
    const m = ctx.message;
    if (!m || m.from?.is_bot) return;
    const source = this.sourceOf(m.chat, m.from, m.is_topic_message ? m.message_thread_id : undefined);
    let text = m.text ?? m.caption ?? '';
    // `/cmd@thisbot args` → `/cmd args`; a leading @mention of the bot is dropped.
    if (this.botUsername) {
      const at = `@${this.botUsername}`;
      this.commandAt ??= new RegExp(`^(/\\w+)${at.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
      text = text.replace(this.commandAt, '$1');
      if (text.toLowerCase().startsWith(at.toLowerCase())) text = text.slice(at.length).trimStart();
    }
    const s = platformSettings(this.o.config, 'telegram');
    if (source.chatType !== 'dm' && truthy(s.require_mention)) {
      const mentioned = (m.text ?? m.caption ?? '').toLowerCase().includes(`@${this.botUsername.toLowerCase()}`) || m.reply_to_message?.from?.username === this.botUsername || text.startsWith('/');
      if (!mentioned) return;
    }
    const attachments: InboundAttachment[] = [];
    try {
      if (m.photo?.length) {
        const p = m.photo[m.photo.length - 1];
        const path = await this.download(p.file_id, 'image_cache', `${p.file_unique_id}.jpg`);
        if (path) attachments.push({ kind: 'image', path, mimeType: 'image/jpeg' });
      } else if (m.document) {
        const path = await this.download(m.document.file_id, join('cache', 'documents'), `${m.document.file_unique_id}-${(m.document.file_name ?? 'file').replace(/[^\w.-]/g, '_')}`);
        if (path) attachments.push({ kind: m.document.mime_type?.startsWith('image/') ? 'image' : 'document', path, mimeType: m.document.mime_type, fileName: m.document.file_name });
      } else if (m.voice) {
        const path = await this.download(m.voice.file_id, 'audio_cache', `${m.voice.file_unique_id}.ogg`);
        if (path) attachments.push({ kind: 'audio', path, mimeType: m.voice.mime_type ?? 'audio/ogg', voice: true });
      } else if (m.audio) {
        const ext = /\.(\w{1,5})$/.exec(m.audio.file_name ?? '')?.[1] ?? (m.audio.mime_type === 'audio/mpeg' ? 'mp3' : 'ogg');
        const path = await this.download(m.audio.file_id, 'audio_cache', `${m.audio.file_unique_id}.${ext}`);
        if (path) attachments.push({ kind: 'audio', path, mimeType: m.audio.mime_type, fileName: m.audio.file_name });
      }
    } catch (e) {
      this.o.log(`telegram: attachment download failed: ${(e as Error).message}`);
    }
    if (!text && !attachments.length) return;
    const msg: InboundMessage = {
      source,
      messageId: String(m.message_id),
      text,
      attachments: attachments.length ? attachments : undefined,
      replyTo: m.reply_to_message ? String(m.reply_to_message.message_id) : undefined,
      receivedAt: Date.now(),
    };
    await (handlers.message(msg) as void | Promise<void>);
  }

  private async download(fileId: string, dir: string, name: string): Promise<string | null> {
    const bot = await this.getBot();
    const f = await bot.api.getFile(fileId);
    if (!f.file_path || (f.file_size ?? 0) > MAX_DOWNLOAD) return null;
    // The file URL is the configured Bot API server's (not user-supplied), so no SSRF check applies.
    const url = `${this.apiRoot ?? 'https://api.telegram.org'}/file/bot${this.o.token}/${f.file_path}`;
    const body = this.o.deps?.download
      ? await this.o.deps.download(url)
      : await fetch(url).then(async (r) => {
          if (!r.ok) throw new Error(`file download HTTP ${r.status}`);
          return Buffer.from(await r.arrayBuffer());
        });
    if (body.length > MAX_DOWNLOAD) return null;
    const target = join(this.o.home, dir);
    mkdirSync(target, { recursive: true, mode: 0o700 });
    const path = join(target, name);
    writeFileSync(path, body, { mode: 0o600 });
    return path;
  }

  private markup(opts?: SendOptions) {
    if (!opts?.buttons?.length) return undefined;
    return { inline_keyboard: opts.buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.data.slice(0, 64) }))) };
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const bot = await this.getBot();
    const base = {
      message_thread_id: opts?.threadId ? Number(opts.threadId) : undefined,
      reply_parameters: opts?.replyTo ? { message_id: Number(opts.replyTo), allow_sending_without_reply: true } : undefined,
      reply_markup: this.markup(opts),
      link_preview_options: { is_disabled: true },
    };
    try {
      const m = await bot.api.sendMessage(chatId, toTelegramHtml(text), { ...base, parse_mode: 'HTML' });
      return { ok: true, messageId: String(m.message_id) };
    } catch (e) {
      if (!/parse entities|can't find end|unsupported start tag/i.test((e as Error).message)) return { ok: false, error: describeTelegramError(e) };
      try {
        const m = await bot.api.sendMessage(chatId, text, base);
        return { ok: true, messageId: String(m.message_id) };
      } catch (e2) {
        return { ok: false, error: describeTelegramError(e2) };
      }
    }
  }

  async edit(chatId: string, messageId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const bot = await this.getBot();
    try {
      await bot.api.editMessageText(chatId, Number(messageId), toTelegramHtml(text), { parse_mode: 'HTML', reply_markup: this.markup(opts) ?? { inline_keyboard: [] } });
      return { ok: true, messageId };
    } catch (e) {
      const msg = (e as Error).message;
      if (/message is not modified/i.test(msg)) return { ok: true, messageId };
      try {
        await bot.api.editMessageText(chatId, Number(messageId), text, { reply_markup: this.markup(opts) ?? { inline_keyboard: [] } });
        return { ok: true, messageId };
      } catch (e2) {
        return { ok: false, error: describeTelegramError(e2) };
      }
    }
  }

  /** Telegram allows a fixed set of reaction emoji: ✅/❌ become 👍/👎 (TELEGRAM_REACTIONS=true turns them on). */
  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    const bot = await this.getBot();
    const e = ({ '✅': '👍', '❌': '👎' } as Record<string, string>)[emoji] ?? emoji;
    await bot.api.setMessageReaction(chatId, Number(messageId), [{ type: 'emoji', emoji: e as never }]);
  }

  async unreact(chatId: string, messageId: string): Promise<void> {
    const bot = await this.getBot();
    await bot.api.setMessageReaction(chatId, Number(messageId), []);
  }

  async sendTyping(chatId: string, opts?: { threadId?: string }): Promise<void> {
    const bot = await this.getBot();
    await bot.api.sendChatAction(chatId, 'typing', { message_thread_id: opts?.threadId ? Number(opts.threadId) : undefined }).catch(() => undefined);
  }

  /** Files by kind; a voice note (Ogg/Opus only: Telegram shows anything else as a plain file) goes by sendVoice. */
  async sendMedia(chatId: string, path: string, opts?: SendOptions & { kind?: 'image' | 'document' | 'audio' | 'video'; caption?: string; voice?: boolean }): Promise<SendResult> {
    const bot = await this.getBot();
    const { InputFile } = await import('grammy');
    const file = new InputFile(path);
    const extra = { message_thread_id: opts?.threadId ? Number(opts.threadId) : undefined, caption: opts?.caption };
    try {
      const m =
        opts?.kind === 'image'
          ? await bot.api.sendPhoto(chatId, file, extra)
          : opts?.kind === 'audio' && opts.voice && /\.(ogg|oga|opus)$/i.test(path)
            ? await bot.api.sendVoice(chatId, file, extra)
            : opts?.kind === 'audio'
              ? await bot.api.sendAudio(chatId, file, extra)
              : opts?.kind === 'video'
                ? await bot.api.sendVideo(chatId, file, extra)
                : await bot.api.sendDocument(chatId, file, extra);
      return { ok: true, messageId: String(m.message_id) };
    } catch (e) {
      return { ok: false, error: describeTelegramError(e) };
    }
  }

  async setCommands(commands: { command: string; description: string }[]): Promise<void> {
    const bot = await this.getBot();
    await bot.api.setMyCommands(commands.slice(0, 100));
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    const bot = await this.getBot();
    try {
      const c = await bot.api.getChat(chatId);
      const title = 'title' in c && c.title ? c.title : 'first_name' in c ? (c.first_name ?? '') : '';
      return { name: title, type: c.type === 'private' ? 'dm' : c.type === 'channel' ? 'channel' : 'group' };
    } catch {
      return null;
    }
  }
}

/** A grammy error without the token (its messages never contain the URL, but be sure). */
/** The error's message, with what failed underneath for network errors (grammy's HttpError wraps fetch's), token masked. */
function describeTelegramError(e: unknown): string {
  let msg = (e as Error)?.message ?? String(e);
  const inner = (e as { error?: { message?: string; cause?: { code?: string; message?: string } } })?.error;
  const why = inner?.cause?.message || inner?.cause?.code || inner?.message;
  if (why && !msg.includes(why)) msg += ` (${why})`;
  return msg.replace(/bot\d+:[A-Za-z0-9_-]+/g, 'bot***');
}

export function createTelegramAdapter(o: TelegramOptions): TelegramAdapter {
  return new TelegramAdapter(o);
}

/** Send-only Telegram (deliveries without a running gateway). */
export function createTelegramSender(env: NodeJS.ProcessEnv, config: Record<string, unknown>): PlatformAdapter | null {
  const token = env.TELEGRAM_BOT_TOKEN || String(platformSettings(config, 'telegram').token ?? '');
  if (!token) return null;
  return new TelegramAdapter({ token, env, config, home: env.HERMES_HOME ?? '', log: () => undefined });
}

export const definition: PlatformDefinition = {
  ...telegramEntry,
  maxMessageLength: 4096,
  piiSafe: true,
  create: async (ctx) => {
    const token = ctx.env.TELEGRAM_BOT_TOKEN || String(platformSettings(ctx.config, 'telegram').token ?? '');
    return new TelegramAdapter({ token, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, deps: ctx.deps as TelegramDeps | undefined });
  },
  sender: async (ctx) => createTelegramSender(ctx.env, ctx.config),
  setup: {
    intro: 'Create a bot with @BotFather (/newbot) and paste its token.',
    fields: [{ key: 'TELEGRAM_BOT_TOKEN', prompt: 'Telegram bot token (from @BotFather)', secret: true, validate: (v) => (/^\d+:[\w-]{10,}$/.test(v.trim()) ? undefined : 'A bot token looks like 123456:ABC-…') }],
    allowlistHint: 'numeric user ids or @usernames',
  },
  probe: async (env, config) => {
    const token = env.TELEGRAM_BOT_TOKEN || String(platformSettings(config, 'telegram').token ?? '');
    const root = telegramApiRoot(env, config) ?? 'https://api.telegram.org';
    const r = await fetch(`${root}/bot${token}/getMe`);
    const body = (await r.json().catch(() => ({}))) as { ok?: boolean; result?: { username?: string }; description?: string };
    if (!body.ok) throw new Error(`Telegram refused the token: ${body.description ?? `HTTP ${r.status}`}`);
    return `@${body.result?.username ?? '?'}`;
  },
};
