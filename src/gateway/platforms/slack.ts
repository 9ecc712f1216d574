// Slack through @slack/bolt in Socket Mode (SLACK_BOT_TOKEN xoxb-… + SLACK_APP_TOKEN xapp-…, no
// public URL needed). DMs always; in channels only when the bot is mentioned (slack.require_mention,
// default true; slack.free_response_channels exempt) and the reply goes into the message's thread,
// so a thread is one shared conversation. The workspace id scopes session keys. Buttons are Block
// Kit actions. The app is built through `deps.createApp` so tests swap in a fake.
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { splitList } from '../auth.ts';
import { platformSettings, truthy } from '../config.ts';
import { attachmentCapBytes, downloadAttachment, kindOf } from '../media.ts';
import type { ChatInfo, InboundAttachment, InboundHandlers, InboundMessage, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { slack as slackEntry } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { slackPlatformEvent } from './slack-events.ts';
import { toSlackMrkdwn } from '../markdown/serializers.ts';

/** The part of a Bolt App this adapter uses. */
export interface SlackAppLike {
  client: {
    auth: { test(): Promise<{ user_id?: string; team_id?: string; user?: string }> };
    chat: {
      postMessage(a: Record<string, unknown>): Promise<{ ok?: boolean; ts?: string; error?: string }>;
      update(a: Record<string, unknown>): Promise<{ ok?: boolean; ts?: string }>;
    };
    conversations: { info(a: { channel: string }): Promise<{ channel?: { name?: string; is_im?: boolean } }>; list?(a: Record<string, unknown>): Promise<{ channels?: { id: string; name?: string }[] }> };
    files?: { uploadV2(a: Record<string, unknown>): Promise<unknown> };
    reactions?: { add(a: Record<string, unknown>): Promise<unknown>; remove(a: Record<string, unknown>): Promise<unknown> };
  };
  event(name: string, fn: (a: { event: any; body?: any }) => Promise<void> | void): unknown;
  action(pattern: RegExp, fn: (a: { ack: () => Promise<void>; body: any; action: any; respond?: (m: unknown) => Promise<unknown> }) => Promise<void> | void): unknown;
  error?(fn: (e: Error) => Promise<void>): unknown;
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
}

export interface SlackDeps {
  createApp?: (o: { token: string; appToken: string; apiUrl?: string; log?: (line: string) => void }) => Promise<SlackAppLike>;
  fetch?: typeof fetch;
}

export interface SlackOptions {
  botToken: string;
  appToken: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  /** HERMES_HOME: attachments are saved under it. */
  home?: string;
  log: (line: string) => void;
  deps?: SlackDeps;
}

async function defaultApp(o: { token: string; appToken: string; apiUrl?: string; log?: (line: string) => void }): Promise<SlackAppLike> {
  const bolt = await import('@slack/bolt');
  const App = (bolt as unknown as { App: new (o: Record<string, unknown>) => SlackAppLike }).App ?? (bolt as unknown as { default: { App: new (o: Record<string, unknown>) => SlackAppLike } }).default.App;
  // SLACK_API_URL (a proxy, Slack's GovSlack host, tests) reaches both the Web API and the Socket Mode client.
  const clientOptions = o.apiUrl ? { slackApiUrl: o.apiUrl } : undefined;
  // Bolt's own console logger would write to the terminal; its errors go to the gateway log instead.
  const quiet = () => undefined;
  const logger = { debug: quiet, info: quiet, warn: quiet, error: (...m: unknown[]) => o.log?.(`slack: ${m.map(String).join(' ').slice(0, 300)}`), setLevel: quiet, getLevel: () => 'error', setName: quiet };
  return new App({ token: o.token, appToken: o.appToken, socketMode: true, logger, logLevel: 'error', clientOptions, installerOptions: clientOptions ? { clientOptions: { ...clientOptions } } : undefined });
}

const SLACK_EMOJI: Record<string, string> = { '👀': 'eyes', '✅': 'white_check_mark', '❌': 'x' };

function blocks(text: string, opts?: SendOptions) {
  if (!opts?.buttons?.length) return undefined;
  return [
    { type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } },
    ...opts.buttons.map((row, i) => ({
      type: 'actions',
      block_id: `hx_${i}`,
      elements: row.map((b) => ({ type: 'button', text: { type: 'plain_text', text: b.label.slice(0, 75), emoji: true }, action_id: b.data.slice(0, 255), value: b.data.slice(0, 2000), ...(/deny|\u274c/i.test(b.label) ? { style: 'danger' } : {}) })),
    })),
  ];
}

export class SlackAdapter implements PlatformAdapter {
  readonly name = 'slack';
  readonly maxMessageLength = 39_000;
  readonly supportsButtons = true;
  readonly editIntervalMs = 1200;
  private app: SlackAppLike | null = null;
  private botUserId = '';
  private teamId = '';
  private readonly o: SlackOptions;
  private readonly names = new Map<string, string>();
  /** client_msg_id → ts (reactions name a message by its ts). */
  private readonly tsOf = new Map<string, string>();

  constructor(o: SlackOptions) {
    this.o = o;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const app = await (this.o.deps?.createApp ?? defaultApp)({ token: this.o.botToken, appToken: this.o.appToken, apiUrl: this.o.env.SLACK_API_URL, log: this.o.log });
    this.app = app;
    const me = await app.client.auth.test();
    this.botUserId = me.user_id ?? '';
    this.teamId = me.team_id ?? '';
    const onMessage = async ({ event, body }: { event: any; body?: any }) => {
      try {
        if (slackPlatformEvent(event, { botUserId: this.botUserId, teamId: this.teamId || undefined, emit: handlers.platformEvent })) return;
        const msg = this.normalize(event, body?.team_id);
        if (msg) handlers.message(await this.withFiles(msg, event));
      } catch (e) {
        this.o.log(`slack: could not read a message: ${(e as Error).message}`);
      }
    };
    app.event('message', onMessage);
    app.event('app_mention', onMessage);
    app.action(/^hx:/, async ({ ack, body, action }) => {
      await ack();
      if (!handlers.action) return;
      const ch = body?.channel?.id ?? body?.container?.channel_id;
      const threadTs = body?.message?.thread_ts ?? body?.container?.thread_ts;
      const isDm = String(ch ?? '').startsWith('D');
      handlers.action({
        source: { platform: 'slack', chatId: String(ch), chatType: isDm ? 'dm' : threadTs ? 'thread' : 'group', userId: body?.user?.id, userName: body?.user?.username ?? body?.user?.name, threadId: threadTs, scopeId: body?.team?.id ?? this.teamId },
        data: String(action?.value ?? action?.action_id ?? ''),
        messageId: body?.message?.ts,
      });
    });
    app.error?.(async (e) => this.o.log(`slack: ${e.message}`));
    await app.start();
  }

  private normalize(ev: any, team?: string): InboundMessage | null {
    if (!ev || ev.bot_id || (ev.subtype && ev.subtype !== 'file_share' && ev.subtype !== 'thread_broadcast') || ev.user === this.botUserId || !ev.user) return null;
    const isDm = ev.channel_type === 'im' || String(ev.channel).startsWith('D');
    const s = platformSettings(this.o.config, 'slack');
    let text = String(ev.text ?? '');
    const mention = this.botUserId ? new RegExp(`<@${this.botUserId}>`, 'g') : null;
    const mentioned = ev.type === 'app_mention' || (!!mention && mention.test(text));
    if (!isDm) {
      // A mention arrives twice (message + app_mention); take it once, as the app_mention.
      if (ev.type === 'message' && mentioned) return null;
      const requireMention = s.require_mention === undefined ? true : truthy(s.require_mention) || s.require_mention === true;
      const free = splitList(Array.isArray(s.free_response_channels) ? s.free_response_channels.join(',') : String(s.free_response_channels ?? ''));
      if (requireMention && !mentioned && !free.includes(String(ev.channel))) return null;
    }
    if (mention) text = text.replace(mention, '').trim();
    // Slack keeps `/…` for its own slash commands, so `!stop` means /stop (as in Hermes).
    if (/^![a-z][\w-]*(\s|$)/i.test(text)) text = `/${text.slice(1)}`;
    // In channels the conversation is the thread (a top-level mention starts one).
    const threadId = ev.thread_ts ?? (isDm ? undefined : ev.ts);
    const source: SessionSource = {
      platform: 'slack',
      chatId: String(ev.channel),
      chatType: isDm ? 'dm' : 'thread',
      userId: String(ev.user),
      userName: ev.user_profile?.display_name || ev.user_profile?.real_name || undefined,
      threadId: isDm ? ev.thread_ts : threadId,
      scopeId: ev.team ?? team ?? (this.teamId || undefined),
    };
    if (!text && !ev.files?.length) return null;
    if (ev.client_msg_id) {
      this.tsOf.set(String(ev.client_msg_id), String(ev.ts));
      if (this.tsOf.size > 2000) this.tsOf.delete(this.tsOf.keys().next().value as string);
    }
    return { source, messageId: String(ev.client_msg_id ?? ev.ts), text, receivedAt: Date.now() };
  }

  /** Downloads the message's files (private URLs, with the bot token and the size cap). */
  private async withFiles(msg: InboundMessage, ev: any): Promise<InboundMessage> {
    const files = (ev.files ?? []) as { id: string; name?: string; mimetype?: string; size?: number; url_private_download?: string; url_private?: string }[];
    if (!files.length) return msg;
    const attachments: InboundAttachment[] = [];
    for (const f of files) {
      const url = f.url_private_download ?? f.url_private;
      if ((f.size ?? 0) > attachmentCapBytes(this.o.config)) attachments.push({ kind: kindOf(f.mimetype, f.name), fileName: f.name, mimeType: f.mimetype, tooLarge: f.size });
      else if (url && this.o.home)
        attachments.push(await downloadAttachment(this.o.home, this.o.config, { url, mimeType: f.mimetype, fileName: f.name, id: f.id, headers: { authorization: `Bearer ${this.o.botToken}` } }).catch((e: Error) => (this.o.log(`slack: file ${f.id}: ${e.message}`), { kind: kindOf(f.mimetype, f.name), fileName: f.name } as InboundAttachment)));
    }
    return { ...msg, attachments };
  }

  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    const ts = this.tsOf.get(messageId) ?? messageId;
    await this.client.reactions?.add({ channel: chatId, timestamp: ts, name: SLACK_EMOJI[emoji] ?? emoji });
  }

  async unreact(chatId: string, messageId: string, emoji: string): Promise<void> {
    const ts = this.tsOf.get(messageId) ?? messageId;
    await this.client.reactions?.remove({ channel: chatId, timestamp: ts, name: SLACK_EMOJI[emoji] ?? emoji });
  }

  async disconnect(): Promise<void> {
    const a = this.app;
    this.app = null;
    await a?.stop().catch(() => undefined);
  }

  private get client() {
    if (!this.app) throw new Error('Slack is not connected');
    return this.app.client;
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const mrkdwn = toSlackMrkdwn(text);
      const r = await this.client.chat.postMessage({ channel: chatId, text: mrkdwn, thread_ts: opts?.threadId, blocks: blocks(mrkdwn, opts), unfurl_links: false });
      return r.ok === false ? { ok: false, error: r.error ?? 'postMessage failed' } : { ok: true, messageId: r.ts };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(chatId: string, messageId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const mrkdwn = toSlackMrkdwn(text);
      await this.client.chat.update({ channel: chatId, ts: messageId, text: mrkdwn, blocks: blocks(mrkdwn, opts) ?? [] });
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    try {
      if (!this.client.files) return { ok: false, error: 'file uploads are not available' };
      await this.client.files.uploadV2({ channel_id: chatId, thread_ts: opts?.threadId, file: createReadStream(path), filename: basename(path), initial_comment: opts?.caption });
      return { ok: true };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    try {
      const r = await this.client.conversations.info({ channel: chatId });
      return { name: r.channel?.name ?? '', type: r.channel?.is_im ? 'dm' : 'group' };
    } catch {
      return null;
    }
  }

  async resolveTarget(name: string): Promise<string | null> {
    if (!name.startsWith('#') || !this.client.conversations.list) return null;
    const want = name.slice(1).toLowerCase();
    if (this.names.has(want)) return this.names.get(want)!;
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = (await this.client.conversations.list({ limit: 200, cursor, types: 'public_channel,private_channel' })) as { channels?: { id: string; name?: string }[]; response_metadata?: { next_cursor?: string } };
      for (const c of r.channels ?? []) if (c.name) this.names.set(c.name.toLowerCase(), c.id);
      if (this.names.has(want)) return this.names.get(want)!;
      cursor = r.response_metadata?.next_cursor;
      if (!cursor) break;
    }
    return null;
  }
}

/** Send-only Slack over its Web API (deliveries without a running gateway). */
export class SlackWebSender implements PlatformAdapter {
  readonly name = 'slack';
  readonly maxMessageLength = 39_000;
  readonly supportsButtons = false;
  private readonly token: string;
  private readonly base: string;
  private readonly fetchFn: typeof fetch;

  constructor(token: string, opts: { base?: string; fetch?: typeof fetch } = {}) {
    this.token = token;
    this.base = (opts.base ?? 'https://slack.com/api').replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const r = await this.fetchFn(`${this.base}/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: chatId, text: toSlackMrkdwn(text), thread_ts: opts?.threadId, unfurl_links: false }),
    });
    const body = (await r.json().catch(() => ({}))) as { ok?: boolean; ts?: string; error?: string };
    return r.ok && body.ok ? { ok: true, messageId: body.ts } : { ok: false, error: body.error ?? `HTTP ${r.status}` };
  }
}

export function createSlackSender(env: NodeJS.ProcessEnv, config: Record<string, unknown>, deps?: SlackDeps): PlatformAdapter | null {
  const token = env.SLACK_BOT_TOKEN || String(platformSettings(config, 'slack').bot_token ?? '');
  return token ? new SlackWebSender(token, { base: env.SLACK_API_URL, fetch: deps?.fetch }) : null;
}

export const definition: PlatformDefinition = {
  ...slackEntry,
  maxMessageLength: 39_000,
  create: async (ctx) => {
    const s = platformSettings(ctx.config, 'slack');
    return new SlackAdapter({ botToken: ctx.env.SLACK_BOT_TOKEN || String(s.bot_token ?? ''), appToken: ctx.env.SLACK_APP_TOKEN || String(s.app_token ?? ''), env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, deps: ctx.deps as SlackDeps | undefined });
  },
  sender: async (ctx) => createSlackSender(ctx.env, ctx.config, ctx.deps as SlackDeps | undefined),
  setup: {
    intro: 'api.slack.com/apps → your app: enable Socket Mode (app-level token with connections:write) and install it to the workspace (bot token).',
    fields: [
      { key: 'SLACK_BOT_TOKEN', prompt: 'Slack bot token (xoxb-…)', secret: true, validate: (v) => (v.startsWith('xoxb-') ? undefined : 'A bot token starts with xoxb-') },
      { key: 'SLACK_APP_TOKEN', prompt: 'Slack app-level token for Socket Mode (xapp-…)', secret: true, validate: (v) => (v.startsWith('xapp-') ? undefined : 'An app token starts with xapp-') },
    ],
    allowlistHint: 'member ids like U0123',
  },
  probe: async (env, config) => {
    const token = env.SLACK_BOT_TOKEN || String(platformSettings(config, 'slack').bot_token ?? '');
    const r = await fetch(`${(env.SLACK_API_URL ?? 'https://slack.com/api').replace(/\/+$/, '')}/auth.test`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const body = (await r.json().catch(() => ({}))) as { ok?: boolean; user?: string; team?: string; error?: string };
    if (!body.ok) throw new Error(`Slack refused the token: ${body.error ?? `HTTP ${r.status}`}`);
    return `${body.user ?? '?'} in ${body.team ?? '?'}`;
  },
};
