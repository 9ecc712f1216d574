// Mattermost over its REST API (v4) and WebSocket events: MATTERMOST_URL + MATTERMOST_TOKEN (a
// bot or personal access token). DMs always; in channels only when @mentioned (require_mention,
// free_response_channels, allowed_channels). Existing threads keep their own session; top-level
// messages start one when `mattermost.auto_thread` (channels) / `dm_auto_thread` (DMs) is on, or
// MATTERMOST_REPLY_MODE=thread (legacy). Replies stream by editing the post; 👀/✅ reactions;
// files in (downloaded with a cap) and out (uploaded, then attached to a post).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type WebSocket from 'ws';
import { attachmentCapBytes, downloadAttachment } from '../media.ts';
import type { ChatInfo, InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules, flag } from './gating.ts';
import { mattermost as mattermostEntry, mattermostSettings } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export interface MattermostDeps {
  fetch?: typeof fetch;
}

export interface MattermostOptions {
  url: string;
  token: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  home: string;
  log: (line: string) => void;
  deps?: MattermostDeps;
}

/** Mattermost's post limit is 16383 characters; older servers took 4000, which Hermes keeps. */
export const MATTERMOST_LIMIT = 4000;

const EMOJI: Record<string, string> = { '👀': 'eyes', '✅': 'white_check_mark', '❌': 'x' };

interface Post {
  id: string;
  user_id: string;
  channel_id: string;
  message: string;
  root_id?: string;
  file_ids?: string[];
  type?: string;
  props?: Record<string, unknown>;
}

export class MattermostAdapter implements PlatformAdapter {
  readonly name = 'mattermost';
  readonly maxMessageLength = MATTERMOST_LIMIT;
  readonly supportsButtons = false;
  readonly editIntervalMs = 500;
  readonly prefers = { reactions: true };
  private readonly o: MattermostOptions;
  private ws: WebSocket | null = null;
  private me: { id: string; username: string } | null = null;
  private seq = 1;
  private closing = false;
  private readonly channelTypes = new Map<string, string>();

  constructor(o: MattermostOptions) {
    this.o = o;
  }

  private get fetchFn(): typeof fetch {
    return this.o.deps?.fetch ?? fetch;
  }

  private async api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.fetchFn(`${this.o.url}/api/v4${path}`, {
      method,
      headers: { authorization: `Bearer ${this.o.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    const data = text ? (JSON.parse(text) as T & { message?: string }) : ({} as T & { message?: string });
    if (!r.ok) throw new Error(`Mattermost ${method} ${path}: HTTP ${r.status}${data.message ? ` (${data.message})` : ''}`);
    return data;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    this.me = await this.api<{ id: string; username: string }>('GET', '/users/me');
    const { default: WS } = await import('ws');
    const wsUrl = `${this.o.url.replace(/^http/, 'ws')}/api/v4/websocket`;
    const ws = new WS(wsUrl, { headers: { authorization: `Bearer ${this.o.token}` } });
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      let hello = false;
      ws.once('open', () => ws.send(JSON.stringify({ seq: this.seq++, action: 'authentication_challenge', data: { token: this.o.token } })));
      ws.on('message', (raw) => {
        let ev: { event?: string; data?: Record<string, unknown>; broadcast?: Record<string, unknown> };
        try {
          ev = JSON.parse(String(raw));
        } catch {
          return;
        }
        if (ev.event === 'hello' && !hello) {
          hello = true;
          resolve();
          return;
        }
        if (ev.event === 'posted') void this.onPosted(ev.data ?? {}, handlers).catch((e) => this.o.log(`mattermost: could not read a post: ${(e as Error).message}`));
      });
      ws.once('error', (e) => (hello ? this.o.log(`mattermost: websocket: ${e.message}`) : reject(e)));
      ws.once('close', (code) => {
        if (!hello) reject(new Error(`websocket closed before hello (${code})`));
        else if (!this.closing && this.ws === ws) handlers.disconnected?.(new Error(`websocket closed (${code})`));
      });
    });
  }

  private async onPosted(data: Record<string, unknown>, handlers: InboundHandlers): Promise<void> {
    const post = JSON.parse(String(data.post ?? '{}')) as Post;
    if (!post.id || !this.me || post.user_id === this.me.id || (post.type && post.type !== '')) return;
    // A webhook's post carries its creator's user id and a name of the poster's choosing: not a person.
    if (post.props?.from_webhook === 'true' || post.props?.from_webhook === true || post.props?.from_bot === 'true') return;
    const channelType = String(data.channel_type ?? '');
    this.channelTypes.set(post.channel_id, channelType);
    const isDm = channelType === 'D';
    const env = this.o.env;
    const config = this.o.config;
    let text = post.message ?? '';
    const mention = new RegExp(`@${this.me.username.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'gi');
    const mentioned = mention.test(text);
    if (!isDm && !channelAdmits(channelRules('mattermost', env, config), [post.channel_id], mentioned)) return;
    text = text.replace(mention, '').trim();
    const legacy = String(env.MATTERMOST_REPLY_MODE ?? '').toLowerCase() === 'thread';
    const auto = isDm ? flag('mattermost', 'dm_auto_thread', env, config, legacy) : flag('mattermost', 'auto_thread', env, config, legacy);
    const threadId = post.root_id || (auto ? post.id : undefined);
    const sender = String(data.sender_name ?? '').replace(/^@/, '');
    const source: SessionSource = {
      platform: 'mattermost',
      chatId: post.channel_id,
      chatType: isDm ? 'dm' : threadId ? 'thread' : 'group',
      chatName: typeof data.channel_display_name === 'string' ? data.channel_display_name : undefined,
      userId: post.user_id,
      userName: sender || undefined,
      threadId,
      scopeId: typeof data.team_id === 'string' && data.team_id ? data.team_id : undefined,
    };
    const attachments: InboundAttachment[] = [];
    for (const id of post.file_ids ?? []) {
      try {
        const info = await this.api<{ name?: string; mime_type?: string; size?: number }>('GET', `/files/${id}/info`);
        if ((info.size ?? 0) > attachmentCapBytes(config)) {
          attachments.push({ kind: 'document', fileName: info.name, mimeType: info.mime_type, tooLarge: info.size });
          continue;
        }
        attachments.push(await downloadAttachment(this.o.home, config, { url: `${this.o.url}/api/v4/files/${id}`, mimeType: info.mime_type, fileName: info.name, id, headers: { authorization: `Bearer ${this.o.token}` }, fetch: this.fetchFn }));
      } catch (e) {
        this.o.log(`mattermost: attachment ${id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    handlers.message({ source, messageId: post.id, text, attachments: attachments.length ? attachments : undefined, replyTo: post.root_id || undefined, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, opts?: SendOptions & { fileIds?: string[] }): Promise<SendResult> {
    try {
      const p = await this.api<Post>('POST', '/posts', { channel_id: chatId, message: text, root_id: opts?.threadId ?? '', file_ids: opts?.fileIds });
      return { ok: true, messageId: p.id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(_chatId: string, messageId: string, text: string): Promise<SendResult> {
    try {
      await this.api('PUT', `/posts/${messageId}/patch`, { message: text });
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendTyping(chatId: string, opts?: { threadId?: string }): Promise<void> {
    if (!this.me) return;
    await this.api('POST', `/users/${this.me.id}/typing`, { channel_id: chatId, parent_id: opts?.threadId ?? '' }).catch(() => undefined);
  }

  async react(_chatId: string, messageId: string, emoji: string): Promise<void> {
    if (!this.me) return;
    await this.api('POST', '/reactions', { user_id: this.me.id, post_id: messageId, emoji_name: EMOJI[emoji] ?? emoji });
  }

  async unreact(_chatId: string, messageId: string, emoji: string): Promise<void> {
    if (!this.me) return;
    await this.api('DELETE', `/users/${this.me.id}/posts/${messageId}/reactions/${EMOJI[emoji] ?? emoji}`);
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string }): Promise<SendResult> {
    try {
      const form = new FormData();
      form.append('channel_id', chatId);
      form.append('files', new Blob([readFileSync(path)]), basename(path));
      const r = await this.fetchFn(`${this.o.url}/api/v4/files`, { method: 'POST', headers: { authorization: `Bearer ${this.o.token}` }, body: form });
      const body = (await r.json().catch(() => ({}))) as { file_infos?: { id: string }[]; message?: string };
      if (!r.ok || !body.file_infos?.length) return { ok: false, error: `upload failed: HTTP ${r.status}${body.message ? ` (${body.message})` : ''}` };
      return this.send(chatId, opts?.caption ?? '', { threadId: opts?.threadId, fileIds: body.file_infos.map((f) => f.id) });
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async chatInfo(chatId: string): Promise<ChatInfo | null> {
    try {
      const c = await this.api<{ display_name?: string; name?: string; type?: string }>('GET', `/channels/${chatId}`);
      return { name: c.display_name || c.name || chatId, type: c.type === 'D' ? 'dm' : 'group' };
    } catch {
      return null;
    }
  }
}

export const definition: PlatformDefinition = {
  ...mattermostEntry,
  maxMessageLength: MATTERMOST_LIMIT,
  create: async (ctx) => {
    const s = mattermostSettings(ctx.env, ctx.config);
    if (!s) throw new Error('Mattermost needs MATTERMOST_URL and MATTERMOST_TOKEN');
    return new MattermostAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, deps: ctx.deps as MattermostDeps | undefined });
  },
  sender: async (ctx) => {
    const s = mattermostSettings(ctx.env, ctx.config);
    return s ? new MattermostAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'System Console → Integrations → Bot Accounts: enable them, then create a bot and copy its token.',
    fields: [
      { key: 'MATTERMOST_URL', prompt: 'Mattermost server URL', placeholder: 'https://mm.example.com', validate: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start the URL with https://') },
      { key: 'MATTERMOST_TOKEN', prompt: 'Bot token (or personal access token)', secret: true },
    ],
    allowlistHint: '26-character user ids',
  },
  probe: async (env, config) => {
    const s = mattermostSettings(env, config);
    if (!s) throw new Error('MATTERMOST_URL and MATTERMOST_TOKEN are needed');
    const r = await fetch(`${s.url}/api/v4/users/me`, { headers: { authorization: `Bearer ${s.token}` } });
    const body = (await r.json().catch(() => ({}))) as { username?: string; message?: string };
    if (!r.ok) throw new Error(`Mattermost refused the token: ${body.message ?? `HTTP ${r.status}`}`);
    return `@${body.username ?? '?'}`;
  },
  promptHint: 'Mattermost renders Markdown (code blocks, tables, links).',
};
