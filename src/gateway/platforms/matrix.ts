// Matrix through matrix-js-sdk: MATRIX_HOMESERVER with MATRIX_ACCESS_TOKEN (or MATRIX_USER_ID +
// MATRIX_PASSWORD, logged in once at connect). Rooms with just the bot and one person are DMs; in
// other rooms the bot answers when mentioned (MATRIX_REQUIRE_MENTION, MATRIX_FREE_RESPONSE_ROOMS)
// and, with MATRIX_AUTO_THREAD (default on), replies in a thread rooted at the message. Invites
// from allowed users are accepted. Replies are HTML-formatted, streamed by `m.replace` edits;
// 👀/✅ reactions (MATRIX_REACTIONS, default on); media in (authenticated media download) and out
// (upload + m.image/m.file). End-to-end encrypted rooms are not read (MATRIX_ENCRYPTION is not
// supported yet): the bot says so in the log instead of answering blind.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { MatrixClient, MatrixEvent, Room } from 'matrix-js-sdk';
import { authorize } from '../auth.ts';
import { attachmentCapBytes, downloadAttachment } from '../media.ts';
import type { PairingStore } from '../pairing.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { channelAdmits, channelRules, flag } from './gating.ts';
import { matrix as matrixEntry, matrixSettings } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import { toMatrixHtml } from '../markdown/serializers.ts';

export interface MatrixDeps {
  fetch?: typeof fetch;
}

export interface MatrixOptions {
  homeserver: string;
  accessToken?: string;
  userId?: string;
  password?: string;
  deviceId?: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  home: string;
  log: (line: string) => void;
  pairing?: PairingStore;
  deps?: MatrixDeps;
}

export const MATRIX_LIMIT = 16_000;

const content = (text: string) => ({ msgtype: 'm.text', body: text, format: 'org.matrix.custom.html', formatted_body: toMatrixHtml(text) });

export class MatrixAdapter implements PlatformAdapter {
  readonly name = 'matrix';
  readonly maxMessageLength = MATRIX_LIMIT;
  readonly supportsButtons = false;
  readonly editIntervalMs = 500;
  readonly prefers = { reactions: true };
  private client: MatrixClient | null = null;
  private readonly o: MatrixOptions;
  private me = '';
  private stopped = false;
  /** Our reaction event ids, to redact them when the work is done. */
  private readonly reactions = new Map<string, string>();

  constructor(o: MatrixOptions) {
    this.o = o;
  }

  /** The SDK logs a lot to the console; its warnings and errors go to the gateway log instead. */
  private readonly sdkLogger = (() => {
    const quiet = () => undefined;
    type SdkLogger = { trace(...m: unknown[]): void; debug(...m: unknown[]): void; info(...m: unknown[]): void; warn(...m: unknown[]): void; error(...m: unknown[]): void; getChild(ns: string): SdkLogger };
    const make = (prefix: string): SdkLogger => ({
      trace: quiet,
      debug: quiet,
      info: quiet,
      warn: (...m: unknown[]) => this.o.log(`matrix: ${prefix}${m.map(String).join(' ').slice(0, 300)}`),
      error: (...m: unknown[]) => this.o.log(`matrix: ${prefix}${m.map(String).join(' ').slice(0, 300)}`),
      getChild: (ns: string) => make(`${prefix}${ns} `),
    });
    return make('');
  })();

  private async build(): Promise<MatrixClient> {
    const sdk = await import('matrix-js-sdk');
    const logger = this.sdkLogger;
    const fetchFn = this.o.deps?.fetch;
    let token = this.o.accessToken;
    let userId = this.o.userId;
    let deviceId = this.o.deviceId;
    if (!token) {
      const anon = sdk.createClient({ baseUrl: this.o.homeserver, fetchFn, logger });
      const r = await anon.loginRequest({ type: 'm.login.password', identifier: { type: 'm.id.user', user: this.o.userId! }, password: this.o.password!, device_id: deviceId, initial_device_display_name: 'Hermes Agent' });
      token = r.access_token;
      userId = r.user_id;
      deviceId = r.device_id;
    }
    if (!userId) {
      const probe = sdk.createClient({ baseUrl: this.o.homeserver, accessToken: token, fetchFn, logger });
      userId = (await probe.whoami()).user_id;
    }
    this.me = userId;
    return sdk.createClient({ baseUrl: this.o.homeserver, accessToken: token, userId, deviceId, fetchFn, logger, timelineSupport: false });
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.stopped = false;
    const sdk = await import('matrix-js-sdk');
    const client = await this.build();
    this.client = client;
    client.on(sdk.RoomEvent.Timeline, (ev: MatrixEvent, room: Room | undefined, toStartOfTimeline: boolean | undefined) => {
      if (toStartOfTimeline || !room) return;
      void this.onEvent(ev, room, handlers).catch((e) => this.o.log(`matrix: could not read an event: ${(e as Error).message}`));
    });
    client.on(sdk.RoomMemberEvent.Membership, (_ev: MatrixEvent, member: { userId: string; membership?: string; roomId: string; events?: { member?: MatrixEvent } }) => {
      if (member.userId !== this.me || member.membership !== 'invite') return;
      const inviter = member.events?.member?.getSender();
      const ok = inviter && authorize({ platform: 'matrix', chatId: member.roomId, chatType: 'dm', userId: inviter }, this.o.env, this.o.pairing ?? null).ok;
      if (!ok) return this.o.log(`matrix: ignored an invite to ${member.roomId} from ${inviter ?? '?'} (not allowed)`);
      void client.joinRoom(member.roomId).catch((e: Error) => this.o.log(`matrix: could not join ${member.roomId}: ${e.message}`));
    });
    await new Promise<void>((resolve, reject) => {
      let ready = false;
      client.on(sdk.ClientEvent.Sync, (state: string, _prev: string | null, data?: { error?: Error }) => {
        if (!ready && (state === 'PREPARED' || state === 'SYNCING')) {
          ready = true;
          resolve();
        } else if (!ready && state === 'ERROR') reject(data?.error ?? new Error('the first sync failed'));
        else if (ready && state === 'ERROR' && !this.stopped) {
          // The SDK keeps retrying by itself; hand the retry to the supervisor so status shows it.
          handlers.disconnected?.(data?.error ?? new Error('sync failed'));
        }
      });
      void client.startClient({ initialSyncLimit: 0, lazyLoadMembers: true }).catch(reject);
    });
  }

  private isDm(room: Room): boolean {
    return room.getJoinedMemberCount() <= 2 && room.getInvitedMemberCount() === 0;
  }

  private async onEvent(ev: MatrixEvent, room: Room, handlers: InboundHandlers): Promise<void> {
    const sender = ev.getSender();
    if (!sender || sender === this.me) return;
    if (ev.getType() === 'm.room.encrypted') {
      this.o.log(`matrix: ${room.roomId} is end-to-end encrypted; Hermes cannot read it (MATRIX_ENCRYPTION is not supported yet)`);
      return;
    }
    if (ev.getType() !== 'm.room.message') return;
    const c = ev.getContent() as { msgtype?: string; body?: string; filename?: string; url?: string; info?: { mimetype?: string; size?: number }; 'm.relates_to'?: { rel_type?: string; event_id?: string; 'm.in_reply_to'?: { event_id?: string } }; 'm.mentions'?: { user_ids?: string[] } };
    if (c['m.relates_to']?.rel_type === 'm.replace') return; // edits of earlier messages
    const dm = this.isDm(room);
    const env = this.o.env;
    const config = this.o.config;
    let text = c.msgtype === 'm.text' || c.msgtype === 'm.notice' || c.msgtype === 'm.emote' ? (c.body ?? '') : '';
    const localpart = this.me.replace(/^@/, '').split(':')[0];
    const mentioned = !!c['m.mentions']?.user_ids?.includes(this.me) || text.includes(this.me) || new RegExp(`(^|\\W)@?${localpart}\\b`, 'i').test(text);
    const relates = c['m.relates_to'];
    const inThread = relates?.rel_type === 'm.thread' ? relates.event_id : undefined;
    const rules = channelRules('matrix', env, config, { freeKey: 'free_response_rooms' });
    if (!dm && !channelAdmits(rules, [room.roomId], mentioned)) return;
    text = text.replace(new RegExp(`${this.me.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:?`, 'g'), '').trim();
    const autoThread = dm ? flag('matrix', 'dm_mention_threads', env, config, false) && mentioned : flag('matrix', 'auto_thread', env, config, true);
    const threadId = inThread ?? (autoThread ? ev.getId() : undefined);
    const source: SessionSource = {
      platform: 'matrix',
      chatId: room.roomId,
      chatType: dm ? 'dm' : threadId ? 'thread' : 'group',
      chatName: room.name || undefined,
      userId: sender,
      userName: room.getMember(sender)?.name ?? sender,
      threadId,
    };
    const attachments: InboundAttachment[] = [];
    if (c.url && ['m.image', 'm.file', 'm.audio', 'm.video'].includes(c.msgtype ?? '')) {
      const kind = c.msgtype === 'm.image' ? 'image' : c.msgtype === 'm.audio' ? 'audio' : c.msgtype === 'm.video' ? 'video' : 'document';
      if ((c.info?.size ?? 0) > attachmentCapBytes(config)) attachments.push({ kind, fileName: c.filename ?? c.body, mimeType: c.info?.mimetype, tooLarge: c.info?.size });
      else {
        const url = this.client!.mxcUrlToHttp(c.url, undefined, undefined, undefined, false, true, true);
        if (url) attachments.push(await downloadAttachment(this.o.home, config, { url, kind, mimeType: c.info?.mimetype, fileName: c.filename ?? c.body, id: ev.getId(), headers: { authorization: `Bearer ${this.client!.getAccessToken()}` }, fetch: this.o.deps?.fetch, voice: kind === 'audio' && 'org.matrix.msc3245.voice' in c }));
      }
      // MSC2530: with a `filename`, a different `body` is the caption.
      text = c.filename && c.body && c.body !== c.filename ? c.body : '';
    }
    if (!text && !attachments.length) return;
    handlers.message({ source, messageId: ev.getId() ?? `${Date.now()}`, text, attachments: attachments.length ? attachments : undefined, replyTo: relates?.['m.in_reply_to']?.event_id, receivedAt: Date.now() });
  }

  async stopIntake(): Promise<void> {
    this.stopped = true;
    this.client?.stopClient();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
    this.client?.removeAllListeners();
  }

  private async ensure(): Promise<MatrixClient> {
    if (!this.client) this.client = await this.build();
    return this.client;
  }

  private thread(opts?: SendOptions) {
    return opts?.threadId ? { 'm.relates_to': { rel_type: 'm.thread', event_id: opts.threadId, is_falling_back: true, 'm.in_reply_to': { event_id: opts.replyTo ?? opts.threadId } } } : opts?.replyTo ? { 'm.relates_to': { 'm.in_reply_to': { event_id: opts.replyTo } } } : {};
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const client = await this.ensure();
      const r = await client.sendEvent(chatId, 'm.room.message' as never, { ...content(text), ...this.thread(opts) } as never);
      return { ok: true, messageId: r.event_id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async edit(chatId: string, messageId: string, text: string): Promise<SendResult> {
    try {
      const client = await this.ensure();
      await client.sendEvent(chatId, 'm.room.message' as never, { ...content(`* ${text}`), 'm.new_content': content(text), 'm.relates_to': { rel_type: 'm.replace', event_id: messageId } } as never);
      return { ok: true, messageId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async sendTyping(chatId: string): Promise<void> {
    await this.client?.sendTyping(chatId, true, 8000).catch(() => undefined);
  }

  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    if (!flag('matrix', 'reactions', this.o.env, this.o.config, true)) return;
    const client = await this.ensure();
    const r = await client.sendEvent(chatId, 'm.reaction' as never, { 'm.relates_to': { rel_type: 'm.annotation', event_id: messageId, key: emoji } } as never);
    this.reactions.set(`${messageId}|${emoji}`, r.event_id);
  }

  async unreact(chatId: string, messageId: string, emoji: string): Promise<void> {
    const id = this.reactions.get(`${messageId}|${emoji}`);
    if (!id) return;
    this.reactions.delete(`${messageId}|${emoji}`);
    await (await this.ensure()).redactEvent(chatId, id);
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { kind?: string; caption?: string; voice?: boolean }): Promise<SendResult> {
    try {
      const client = await this.ensure();
      const bytes = readFileSync(path);
      const up = await client.uploadContent(new Blob([bytes]), { name: basename(path), includeFilename: true });
      const msgtype = opts?.kind === 'image' ? 'm.image' : opts?.kind === 'audio' ? 'm.audio' : opts?.kind === 'video' ? 'm.video' : 'm.file';
      const r = await client.sendEvent(chatId, 'm.room.message' as never, { msgtype, body: opts?.caption || basename(path), url: up.content_uri, info: { size: bytes.length }, ...(opts?.voice ? { 'org.matrix.msc3245.voice': {} } : {}), ...this.thread(opts) } as never);
      return { ok: true, messageId: r.event_id };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  async resolveTarget(name: string): Promise<string | null> {
    if (!name.startsWith('#')) return null;
    try {
      return (await (await this.ensure()).getRoomIdForAlias(name)).room_id;
    } catch {
      return null;
    }
  }
}

export const definition: PlatformDefinition = {
  ...matrixEntry,
  maxMessageLength: MATRIX_LIMIT,
  homeEnv: 'MATRIX_HOME_ROOM',
  // `matrix:!room:server`, `matrix:#alias:server`, `matrix:@user:server`: ids contain colons.
  parseTarget: (rest) => {
    const m = /^([!@#][^:\s]+:[^\s:]+(?::\d+)?)(?::(\$[^\s]+))?$/.exec(rest);
    return m ? { chatId: m[1], threadId: m[2] } : null;
  },
  targetHint: 'a room id (!room:server) or alias (#room:server)',
  create: async (ctx) => {
    const s = matrixSettings(ctx.env, ctx.config);
    if (!s) throw new Error('Matrix needs MATRIX_HOMESERVER and MATRIX_ACCESS_TOKEN (or MATRIX_USER_ID and MATRIX_PASSWORD)');
    if (/^(1|true|yes|on)$/i.test(ctx.env.MATRIX_ENCRYPTION ?? '')) ctx.log('matrix: MATRIX_ENCRYPTION is not supported yet; encrypted rooms are not read');
    return new MatrixAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, pairing: ctx.runner?.pairing, deps: ctx.deps as MatrixDeps | undefined });
  },
  sender: async (ctx) => {
    const s = matrixSettings(ctx.env, ctx.config);
    return s ? new MatrixAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Create a bot account on your homeserver; an access token is in Element → Settings → Help & About (or log in with the password).',
    fields: [
      { key: 'MATRIX_HOMESERVER', prompt: 'Homeserver URL', placeholder: 'https://matrix.org', validate: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start the URL with https://') },
      { key: 'MATRIX_USER_ID', prompt: 'Bot user id (@hermes:example.org)', validate: (v) => (/^@[^:]+:.+$/.test(v) ? undefined : 'A user id looks like @name:server') },
      { key: 'MATRIX_ACCESS_TOKEN', prompt: 'Access token', secret: true },
    ],
    allowlistHint: 'user ids like @alice:matrix.org',
  },
  probe: async (env, config) => {
    const s = matrixSettings(env, config);
    if (!s?.accessToken) throw new Error('MATRIX_HOMESERVER and MATRIX_ACCESS_TOKEN are needed for the test');
    const r = await fetch(`${s.homeserver}/_matrix/client/v3/account/whoami`, { headers: { authorization: `Bearer ${s.accessToken}` } });
    const body = (await r.json().catch(() => ({}))) as { user_id?: string; error?: string };
    if (!r.ok) throw new Error(`the homeserver refused the token: ${body.error ?? `HTTP ${r.status}`}`);
    return body.user_id ?? '?';
  },
  promptHint: 'Matrix renders Markdown converted to HTML (code blocks, bold, links).',
};
