// Discord through discord.js: DMs always; in guild channels only when the bot is mentioned
// (discord.require_mention, default true; discord.free_response_channels are exempt). Threads are
// shared sessions (chat = parent channel, thread = the thread's id). Approval and clarify choices
// are buttons. The client is built through `deps.createClient` so tests swap in a fake.
import { attachmentCapBytes, downloadAttachment, kindOf } from '../media.ts';
import type { ChatInfo, InboundAttachment, InboundHandlers, InboundMessage, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { platformSettings, truthy } from '../config.ts';
import { splitList } from '../auth.ts';
import { discord as discordEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { uniqueDiscordName, watchDiscordEvents } from './discord-events.ts';

/** The part of a discord.js Client this adapter uses. */
export interface DiscordClientLike {
  user: { id: string; username?: string } | null;
  on(event: string, fn: (...args: any[]) => void): unknown;
  once(event: string, fn: (...args: any[]) => void): unknown;
  login(token: string): Promise<unknown>;
  destroy(): Promise<void> | void;
  channels: { fetch(id: string): Promise<any>; cache: { values(): IterableIterator<any> } };
}

export interface DiscordDeps {
  createClient?: (o: { apiBase?: string }) => Promise<DiscordClientLike>;
  /** REST for the send-only client (deliveries without a gateway). */
  fetch?: typeof fetch;
}

export interface DiscordOptions {
  token: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  /** HERMES_HOME: attachments are saved under it. */
  home?: string;
  log: (line: string) => void;
  deps?: DiscordDeps;
}

async function defaultClient(o: { apiBase?: string }): Promise<DiscordClientLike> {
  const d = await import('discord.js');
  // DISCORD_API_BASE (`https://discord.com/api/v10` form) points REST, and through /gateway/bot the
  // gateway, at another host (a proxy, tests).
  const api = o.apiBase?.replace(/\/+$/, '').replace(/\/v\d+$/, '');
  return new d.Client({
    intents: [d.GatewayIntentBits.Guilds, d.GatewayIntentBits.GuildMessages, d.GatewayIntentBits.MessageContent, d.GatewayIntentBits.DirectMessages],
    partials: [d.Partials.Channel],
    ...(api ? { rest: { api } } : {}),
  }) as unknown as DiscordClientLike;
}

const CHANNEL_DM = 1;

function rows(opts?: SendOptions) {
  if (!opts?.buttons?.length) return undefined;
  return opts.buttons.slice(0, 5).map((row) => ({
    type: 1,
    components: row.slice(0, 5).map((b) => ({ type: 2, style: /deny|\u274c/i.test(b.label) ? 4 : 1, label: b.label.slice(0, 80), custom_id: b.data.slice(0, 100) })),
  }));
}

export class DiscordAdapter implements PlatformAdapter {
  readonly name = 'discord';
  readonly maxMessageLength = 2000;
  readonly supportsButtons = true;
  readonly editIntervalMs = 1000;
  readonly prefers = { reactions: true };
  private client: DiscordClientLike | null = null;
  private readonly o: DiscordOptions;

  constructor(o: DiscordOptions) {
    this.o = o;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const client = await (this.o.deps?.createClient ?? defaultClient)({ apiBase: this.o.env.DISCORD_API_BASE });
    this.client = client;
    client.on('messageCreate', (m: any) => {
      try {
        const msg = this.normalize(m);
        if (msg) void this.withFiles(msg, m).then((x) => handlers.message(x), (e: Error) => this.o.log(`discord: attachments: ${e.message}`));
      } catch (e) {
        this.o.log(`discord: could not read a message: ${(e as Error).message}`);
      }
    });
    client.on('interactionCreate', (i: any) => {
      if (!i?.isButton?.() || !handlers.action) return;
      const ch = i.channel;
      const thread = ch?.isThread?.() ? ch : null;
      handlers.action({
        source: {
          platform: 'discord',
          chatId: thread ? String(thread.parentId) : String(i.channelId),
          chatType: thread ? 'thread' : ch?.type === CHANNEL_DM ? 'dm' : 'group',
          userId: String(i.user?.id ?? ''),
          userHandle: uniqueDiscordName(i.user),
          userName: i.user?.username,
          threadId: thread ? String(thread.id) : undefined,
          scopeId: i.guildId ?? undefined,
        },
        data: String(i.customId ?? ''),
        messageId: i.message?.id,
        ack: async (text) => {
          await (text ? i.reply({ content: text, ephemeral: true }) : i.deferUpdate()).catch(() => undefined);
        },
      });
    });
    // Message edits/deletes and thread created/renamed: plugins' gateway_platform_event.
    if (handlers.platformEvent) watchDiscordEvents(client, handlers.platformEvent, this.o.log);
    client.on('error', (e: Error) => this.o.log(`discord: ${e.message}`));
    client.on('shardDisconnect', () => handlers.disconnected?.(new Error('Discord gateway connection closed')));
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      Promise.resolve(client.login(this.o.token)).catch(reject);
    });
  }

  private normalize(m: any): InboundMessage | null {
    if (!m || m.author?.bot || m.author?.id === this.client?.user?.id) return null;
    const ch = m.channel;
    const isDm = ch?.type === CHANNEL_DM || !m.guildId;
    const thread = ch?.isThread?.() ? ch : null;
    const s = platformSettings(this.o.config, 'discord');
    let text: string = m.content ?? '';
    const botId = this.client?.user?.id;
    const mention = botId ? new RegExp(`<@!?${botId}>`, 'g') : null;
    if (!isDm) {
      const requireMention = s.require_mention === undefined ? true : truthy(s.require_mention) || s.require_mention === true;
      const free = splitList(Array.isArray(s.free_response_channels) ? s.free_response_channels.join(',') : String(s.free_response_channels ?? ''));
      const channelId = String(thread ? thread.parentId : ch?.id);
      const mentioned = (mention && mention.test(text)) || (botId && m.mentions?.users?.has?.(botId));
      if (requireMention && !mentioned && !free.includes(channelId) && !(thread && free.includes(String(thread.id)))) return null;
    }
    if (mention) text = text.replace(mention, '').trim();
    const source: SessionSource = {
      platform: 'discord',
      chatId: isDm ? String(ch?.id ?? m.channelId) : thread ? String(thread.parentId) : String(ch?.id ?? m.channelId),
      chatType: isDm ? 'dm' : thread ? 'thread' : 'group',
      chatName: isDm ? undefined : (thread?.name ?? ch?.name),
      userId: String(m.author?.id ?? ''),
      userHandle: uniqueDiscordName(m.author),
      userName: m.author?.username,
      threadId: thread ? String(thread.id) : undefined,
      scopeId: m.guildId ?? undefined,
    };
    const hasFiles = (m.attachments?.size ?? 0) > 0;
    if (!text && !hasFiles) return null;
    return { source, messageId: String(m.id), text, replyTo: m.reference?.messageId, receivedAt: Date.now() };
  }

  /** Downloads the message's attachments (Discord's CDN URLs, with the size cap). */
  private async withFiles(msg: InboundMessage, m: any): Promise<InboundMessage> {
    const list = [...(m.attachments?.values?.() ?? [])] as { id: string; url: string; name?: string; contentType?: string | null; size?: number }[];
    if (!list.length) return msg;
    const attachments: InboundAttachment[] = [];
    // Discord's voice messages carry the IS_VOICE_MESSAGE flag (1 << 13) and one Ogg/Opus attachment.
    const voice = !!m.flags?.has?.(1 << 13);
    for (const a of list) {
      const mimeType = a.contentType ?? undefined;
      if ((a.size ?? 0) > attachmentCapBytes(this.o.config) || !this.o.home) attachments.push({ kind: kindOf(mimeType, a.name), fileName: a.name, mimeType, tooLarge: this.o.home ? a.size : undefined });
      else attachments.push(await downloadAttachment(this.o.home, this.o.config, { url: a.url, mimeType, fileName: a.name, id: a.id, fetch: this.o.deps?.fetch, voice: voice && kindOf(mimeType, a.name) === 'audio' }));
    }
    return { ...msg, attachments };
  }

  async disconnect(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.destroy();
  }

  private async channel(chatId: string, threadId?: string): Promise<any> {
    if (!this.client) throw new Error('Discord is not connected');
    return this.client.channels.fetch(threadId ?? chatId);
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const ch = await this.channel(chatId, opts?.threadId);
      const m = await ch.send({ content: text, components: rows(opts), reply: opts?.replyTo ? { messageReference: opts.replyTo, failIfNotExists: false } : undefined, allowedMentions: { parse: [] } });
      return { ok: true, messageId: String(m.id) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(chatId: string, messageId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const ch = await this.channel(chatId, opts?.threadId);
      const m = await ch.messages.fetch(messageId);
      await m.edit({ content: text, components: rows(opts) ?? [] });
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendTyping(chatId: string, opts?: { threadId?: string }): Promise<void> {
    try {
      const ch = await this.channel(chatId, opts?.threadId);
      await ch.sendTyping();
    } catch {
      /* typing is best effort */
    }
  }

  private async reaction(method: 'put' | 'delete', chatId: string, messageId: string, emoji: string, threadId?: string): Promise<void> {
    const c = this.client as unknown as { rest?: { put(r: string): Promise<unknown>; delete(r: string): Promise<unknown> } } | null;
    if (!c?.rest) return;
    await c.rest[method](`/channels/${threadId ?? chatId}/messages/${messageId}/reactions/${encodeURIComponent(emoji)}/@me`);
  }

  react(chatId: string, messageId: string, emoji: string, opts?: { threadId?: string }): Promise<void> {
    return this.reaction('put', chatId, messageId, emoji, opts?.threadId);
  }

  unreact(chatId: string, messageId: string, emoji: string, opts?: { threadId?: string }): Promise<void> {
    return this.reaction('delete', chatId, messageId, emoji, opts?.threadId);
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    try {
      const ch = await this.channel(chatId, opts?.threadId);
      const m = await ch.send({ content: opts?.caption, files: [path] });
      return { ok: true, messageId: String(m.id) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    try {
      const ch = await this.channel(chatId);
      return { name: ch.name ?? '', type: ch.type === CHANNEL_DM ? 'dm' : ch.isThread?.() ? 'thread' : 'group' };
    } catch {
      return null;
    }
  }

  async resolveTarget(name: string): Promise<string | null> {
    if (!this.client || !name.startsWith('#')) return null;
    const want = name.slice(1).toLowerCase();
    for (const ch of this.client.channels.cache.values()) if (String(ch?.name ?? '').toLowerCase() === want) return String(ch.id);
    return null;
  }
}

/** Send-only Discord over its REST API (deliveries without a running gateway). */
export class DiscordRestSender implements PlatformAdapter {
  readonly name = 'discord';
  readonly maxMessageLength = 2000;
  readonly supportsButtons = false;
  private readonly token: string;
  private readonly base: string;
  private readonly fetchFn: typeof fetch;

  constructor(token: string, opts: { base?: string; fetch?: typeof fetch } = {}) {
    this.token = token;
    this.base = (opts.base ?? 'https://discord.com/api/v10').replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const r = await this.fetchFn(`${this.base}/channels/${encodeURIComponent(opts?.threadId ?? chatId)}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: text, allowed_mentions: { parse: [] } }),
    });
    const body = (await r.json().catch(() => ({}))) as { id?: string; message?: string };
    return r.ok ? { ok: true, messageId: body.id } : { ok: false, error: `HTTP ${r.status}: ${body.message ?? 'error'}` };
  }
}

export function createDiscordSender(env: NodeJS.ProcessEnv, config: Record<string, unknown>, deps?: DiscordDeps): PlatformAdapter | null {
  const token = env.DISCORD_BOT_TOKEN || String(platformSettings(config, 'discord').token ?? '');
  return token ? new DiscordRestSender(token, { base: env.DISCORD_API_BASE, fetch: deps?.fetch }) : null;
}

export const definition: PlatformDefinition = {
  ...discordEntry,
  maxMessageLength: 2000,
  create: async (ctx) => {
    const token = ctx.env.DISCORD_BOT_TOKEN || String(platformSettings(ctx.config, 'discord').token ?? '');
    return new DiscordAdapter({ token, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, deps: ctx.deps as DiscordDeps | undefined });
  },
  sender: async (ctx) => createDiscordSender(ctx.env, ctx.config, ctx.deps as DiscordDeps | undefined),
  setup: {
    intro: 'Developer Portal → your application → Bot: reset the token, and enable the Message Content intent.',
    fields: [{ key: 'DISCORD_BOT_TOKEN', prompt: 'Discord bot token', secret: true }],
    allowlistHint: 'numeric user ids, or @username',
  },
  probe: async (env, config) => {
    const token = env.DISCORD_BOT_TOKEN || String(platformSettings(config, 'discord').token ?? '');
    const r = await fetch(`${(env.DISCORD_API_BASE ?? 'https://discord.com/api/v10').replace(/\/+$/, '')}/users/@me`, { headers: { authorization: `Bot ${token}` } });
    const body = (await r.json().catch(() => ({}))) as { username?: string; message?: string };
    if (!r.ok) throw new Error(`Discord refused the token: ${body.message ?? `HTTP ${r.status}`}`);
    return body.username ?? '?';
  },
};
