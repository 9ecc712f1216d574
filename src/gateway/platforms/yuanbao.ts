// Tencent Yuanbao (元宝) bots over the Yuanbao bot gateway, as Hermes does it: YUANBAO_APP_ID +
// YUANBAO_APP_SECRET (or `platforms.yuanbao.extra.app_id/app_secret`), optional YUANBAO_BOT_ID,
// YUANBAO_WS_URL (default wss://bot-wss.yuanbao.tencent.com/wss/connection), YUANBAO_API_DOMAIN
// (default https://bot.yuanbao.tencent.com), YUANBAO_ROUTE_ENV.
//   1. sign-token: POST {api}/api/v5/robotLogic/sign-token with an HMAC-SHA256 signature of
//      nonce+timestamp+app_key+secret (keyed by the secret) → { token, bot_id, duration, source };
//      cached until a minute before it expires, re-signed on every reconnect after a failure.
//   2. WebSocket of protobuf ConnMsg frames (yuanbao-proto.ts): `auth-bind` with the token, answered
//      by an AuthBindRsp carrying a connect id; `ping` every 30 s (two missed pongs → reconnect).
//   3. People's messages arrive as pushes (InboundMessagePush, acked when the head asks for it);
//      replies go out as `send_c2c_message` (chat `direct:<account>`) or `send_group_message`
//      (chat `group:<code>`), 4000 characters a message, plain text (no edits: Yuanbao cannot edit).
// Images (TIMImageElem) and files (TIMFileElem) are downloaded: a URL carrying a `resourceId` is a
// placeholder, exchanged first for the real one at {api}/api/resource/v1/download (token headers). Hermes's intake policies are kept:
// YUANBAO_DM_POLICY / YUANBAO_GROUP_POLICY (`open`/`pairing`, `allowlist`, `disabled`) with
// YUANBAO_DM_ALLOW_FROM / YUANBAO_GROUP_ALLOW_FROM narrow what the gateway's allowlist and pairing
// allow; in groups the bot answers when @-mentioned (YUANBAO_REQUIRE_MENTION, shared gating).
// Not done (Hermes has them): outbound media (needs the COS upload credentials API), voice/video
// inbound (shown as placeholders), quoted-message context, recalls, group member @-resolution,
// forwarded WeChat chat records, stickers, the slow-response notice.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import pkg from '../../../package.json' with { type: 'json' };
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, fetchCapped, kindOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { listSetting } from './chat-common.ts';
import { channelAdmits, channelRules } from './gating.ts';
import { yuanbao as yuanbaoEntry, yuanbaoCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';
import * as pb from './yuanbao-proto.ts';

export const YUANBAO_LIMIT = 4000;
const VERSION: string = pkg.version;
const PING_MS = 30_000;
const PONG_MS = 10_000;
const REQUEST_MS = 30_000;
const AUTH_MS = 10_000;
/** Close codes after which the gateway must not reconnect (credentials revoked, kicked out, …). */
const PERMANENT_CLOSE = new Set([4012, 4013, 4014, 4018, 4019, 4021]);

export interface YuanbaoSettings {
  appId: string;
  appSecret: string;
  botId: string;
  wsUrl: string;
  apiDomain: string;
  routeEnv: string;
}

export function yuanbaoSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>): YuanbaoSettings | null {
  const c = yuanbaoCredentials(env, config);
  if (!c) return null;
  const s = platformSettings(config, 'yuanbao');
  const pick = (key: string, envKey: string, dflt = '') => String(s[key] || env[envKey] || dflt).trim();
  return {
    ...c,
    botId: pick('bot_id', 'YUANBAO_BOT_ID'),
    wsUrl: pick('ws_url', 'YUANBAO_WS_URL', 'wss://bot-wss.yuanbao.tencent.com/wss/connection'),
    apiDomain: pick('api_domain', 'YUANBAO_API_DOMAIN', 'https://bot.yuanbao.tencent.com').replace(/\/+$/, ''),
    routeEnv: pick('route_env', 'YUANBAO_ROUTE_ENV'),
  };
}

export interface SignedToken {
  token: string;
  botId: string;
  source: string;
  expiresAt: number;
}

/** Beijing time, second precision: 2026-01-02T15:04:05+08:00 (what the sign-token API expects). */
const beijingNow = () => `${new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;

/** POST sign-token; the retryable code 10099 is retried up to three times. */
export async function signToken(s: YuanbaoSettings, fetchFn: typeof fetch = fetch): Promise<SignedToken> {
  for (let attempt = 0; ; attempt++) {
    const nonce = randomBytes(16).toString('hex');
    const timestamp = beijingNow();
    const signature = createHmac('sha256', s.appSecret).update(nonce + timestamp + s.appId + s.appSecret).digest('hex');
    const headers: Record<string, string> = { 'content-type': 'application/json', 'X-AppVersion': VERSION, 'X-OperationSystem': process.platform, 'X-Instance-Id': pb.INSTANCE_ID, 'X-Bot-Version': VERSION };
    if (s.routeEnv) headers['X-Route-Env'] = s.routeEnv;
    const r = await fetchFn(`${s.apiDomain}/api/v5/robotLogic/sign-token`, { method: 'POST', headers, body: JSON.stringify({ app_key: s.appId, nonce, signature, timestamp }), signal: AbortSignal.timeout(10_000) });
    if (r.status !== 200) throw new Error(`Yuanbao sign-token answered HTTP ${r.status}: ${(await r.text()).slice(0, 200)}`);
    const body = (await r.json().catch(() => null)) as { code?: number; msg?: string; data?: Record<string, unknown> } | null;
    if (body?.code === 0 && body.data && typeof body.data === 'object') {
      const d = body.data;
      const duration = Number(d.duration) > 0 ? Number(d.duration) : 3600;
      return { token: String(d.token ?? ''), botId: String(d.bot_id ?? ''), source: String(d.source || 'bot'), expiresAt: Date.now() + duration * 1000 };
    }
    if (body?.code !== 10099 || attempt >= 3) throw new Error(`Yuanbao refused the app credentials: code ${body?.code ?? '?'} ${body?.msg ?? ''}`.trim());
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/** `yuanbao:direct:alice`, `group:123`, `*` entries, matched case-insensitively. */
const matches = (entries: string[], id: string) => entries.some((e) => {
  const v = e.trim().replace(/^yuanbao:/i, '').replace(/^(direct|group|user):/i, '').toLowerCase();
  return v === '*' || v === id.toLowerCase();
});

/** The mention elements (TIMCustomElem, elem_type 1002) of a message: who is @-mentioned. */
function mentions(body: pb.MsgElem[]): { userId: string; text: string }[] {
  const out: { userId: string; text: string }[] = [];
  for (const e of body) {
    if (e.msgType !== 'TIMCustomElem' || !e.content.data) continue;
    try {
      const d = JSON.parse(e.content.data) as { elem_type?: number; user_id?: string; text?: string };
      if (d.elem_type === 1002) out.push({ userId: String(d.user_id ?? ''), text: String(d.text ?? '') });
    } catch {
      /* not JSON: not a mention */
    }
  }
  return out;
}

/** Text of a message body; media become `[image]`-style placeholders, mentions their `@name`. */
function bodyText(body: pb.MsgElem[], botId: string): string {
  const parts: string[] = [];
  for (const e of body) {
    const c = e.content;
    if (e.msgType === 'TIMTextElem') {
      if (c.text) parts.push(c.text);
    } else if (e.msgType === 'TIMCustomElem') {
      const m = mentions([e])[0];
      if (m) {
        if (m.userId !== botId) parts.push(m.text || '@someone');
      } else parts.push('[unsupported message type]');
    } else if (e.msgType === 'TIMFileElem') {
      if (!c.url) parts.push(c.fileName ? `[file: ${c.fileName}]` : '[file]');
    }
    else if (e.msgType === 'TIMSoundElem') parts.push('[voice]');
    else if (e.msgType === 'TIMVideoFileElem') parts.push('[video]');
    else if (e.msgType === 'TIMFaceElem') parts.push('[emoji]');
    else if (e.msgType !== 'TIMImageElem' && e.msgType) parts.push(`[${e.msgType}]`);
  }
  // A leading full-width slash (Chinese input methods) is a command slash.
  return parts.join(' ').trim().replace(/^\uff0f/, '/');
}

/** The medium-size rendition (index 1) of an image, else the first. */
const imageUrl = (c: pb.MsgContent) => (c.imageInfoArray?.[1]?.url || c.imageInfoArray?.[0]?.url || c.url || '').trim();

export class YuanbaoAdapter implements PlatformAdapter {
  readonly name = 'yuanbao';
  readonly maxMessageLength = YUANBAO_LIMIT;
  readonly supportsButtons = false;
  readonly streaming = false;
  readonly s: YuanbaoSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private readonly fetchFn: typeof fetch;
  private ws: WebSocket | null = null;
  private closing = false;
  private ping: NodeJS.Timeout | null = null;
  private missedPongs = 0;
  private seq = 0;
  private token: SignedToken | null = null;
  private botId: string;
  /** The bot id the sign-token answer named (or YUANBAO_BOT_ID). */
  get boundBotId(): string {
    return this.botId;
  }
  private readonly pending = new Map<string, { resolve: (f: { head: pb.Head; data: Buffer }) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly seen = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Chats with a RUNNING reply heartbeat out: the next delivered message there ends it with FINISH. */
  private readonly typing = new Set<string>();

  constructor(o: { settings: YuanbaoSettings; env: NodeJS.ProcessEnv; config: Record<string, unknown>; home: string; log: (line: string) => void; fetch?: typeof fetch }) {
    this.s = o.settings;
    this.env = o.env;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    this.fetchFn = o.fetch ?? fetch;
    this.botId = o.settings.botId;
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) >>> 0;
    return this.seq;
  }

  /** Sends a request frame and waits for the response with the same msg_id. */
  private request(cmd: string, module: string, data: Buffer | undefined, msgId = `${cmd}_${randomUUID().replace(/-/g, '')}`, timeoutMs = REQUEST_MS): Promise<{ head: pb.Head; data: Buffer }> {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1) return Promise.reject(new Error('Yuanbao is not connected'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(msgId);
        reject(new Error(`Yuanbao did not answer ${cmd} in ${timeoutMs / 1000}s`));
      }, timeoutMs);
      this.pending.set(msgId, { resolve, reject, timer });
      ws.send(pb.encodeConnMsg({ cmdType: pb.CMD_TYPE.request, cmd, seqNo: this.nextSeq(), msgId, module }, data));
    });
  }

  private failPending(e: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(e);
      this.pending.delete(id);
    }
  }

  private async freshToken(): Promise<SignedToken> {
    if (this.token && this.token.expiresAt - Date.now() > 60_000) return this.token;
    this.token = await signToken(this.s, this.fetchFn);
    return this.token;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    this.closing = false;
    const token = await this.freshToken();
    if (token.botId) this.botId = token.botId;
    const { default: WS } = await import('ws');
    const ws = new WS(this.s.wsUrl, { handshakeTimeout: 15_000 });
    this.ws = ws;
    ws.on('message', (raw, isBinary) => {
      if (!isBinary) return;
      let f: { head: pb.Head; data: Buffer };
      try {
        f = pb.decodeConnMsg(Buffer.isBuffer(raw) ? raw : Buffer.concat(raw as Buffer[]));
      } catch {
        return;
      }
      if (f.head.cmdType === pb.CMD_TYPE.response) {
        const p = this.pending.get(f.head.msgId);
        if (!p) return;
        this.pending.delete(f.head.msgId);
        clearTimeout(p.timer);
        p.resolve(f);
        return;
      }
      if (f.head.cmdType !== pb.CMD_TYPE.push) return;
      if (f.head.needAck) ws.send(pb.encodeConnMsg({ cmdType: pb.CMD_TYPE.pushAck, cmd: f.head.cmd, seqNo: this.nextSeq(), msgId: f.head.msgId, module: f.head.module }));
      if (f.head.cmd === 'kickout') {
        this.log('yuanbao: kicked out by the server (another connection took over)');
        return;
      }
      if (!f.data.length) return;
      let push: pb.InboundPush;
      try {
        push = pb.decodeInboundPush(f.data);
      } catch (e) {
        this.log(`yuanbao: could not read a message: ${(e as Error).message}`);
        return;
      }
      // One chat's messages in order, even when an earlier one waits on a download.
      const key = push.groupCode ? `group:${push.groupCode}` : `direct:${push.fromAccount}`;
      const next = (this.chains.get(key) ?? Promise.resolve())
        .then(() => this.onPush(push, handlers))
        .catch((e) => this.log(`yuanbao: could not read a message: ${(e as Error).message}`));
      this.chains.set(key, next);
      void next.then(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    });
    ws.on('error', (e) => this.log(`yuanbao: websocket: ${e.message}`));
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.failPending(new Error('Yuanbao connection closed'));
      if (this.ping) clearInterval(this.ping);
      if (this.closing) return;
      // Any drop re-signs: a stale token is the usual reason auth-bind fails after a reconnect.
      this.token = null;
      if (PERMANENT_CLOSE.has(code)) this.log(`yuanbao: the server closed the connection for good (code ${code}); check the app credentials`);
      handlers.disconnected?.(new Error(`websocket closed (${code})`));
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const req = pb.encodeAuthBindReq({ bizId: 'ybBot', uid: this.botId, source: token.source, token: token.token, appVersion: VERSION, os: process.platform, botVersion: VERSION, routeEnv: this.s.routeEnv });
    let rsp: ReturnType<typeof pb.decodeAuthBindRsp>;
    try {
      const f = await this.request('auth-bind', pb.CONN_MODULE, req, randomUUID(), AUTH_MS);
      rsp = f.data.length ? pb.decodeAuthBindRsp(f.data) : { code: f.head.status || -1, message: 'empty auth-bind answer', connectId: '' };
    } catch (e) {
      this.closing = true;
      ws.close();
      throw e;
    }
    if (rsp.code !== 0 || !rsp.connectId) {
      this.closing = true;
      this.token = null;
      ws.close();
      throw new Error(`Yuanbao refused the auth-bind: ${rsp.message || 'no connect id'} (code ${rsp.code})`);
    }
    this.missedPongs = 0;
    this.ping = setInterval(() => {
      void this.request('ping', pb.CONN_MODULE, undefined, randomUUID(), PONG_MS).then(
        () => (this.missedPongs = 0),
        () => {
          if (++this.missedPongs >= 2) ws.terminate();
        },
      );
    }, PING_MS);
    this.ping.unref();
  }

  private policy(kind: 'dm' | 'group'): { mode: string; allow: string[] } {
    const s = platformSettings(this.config, 'yuanbao');
    const mode = String(s[`${kind}_policy`] || this.env[`YUANBAO_${kind.toUpperCase()}_POLICY`] || 'open').toLowerCase();
    return { mode, allow: listSetting(this.env[`YUANBAO_${kind.toUpperCase()}_ALLOW_FROM`], s[`${kind}_allow_from`]) };
  }

  /** Hermes's own intake policies (`pairing` and `open` leave the decision to the gateway's allowlist and pairing). */
  private admits(isGroup: boolean, id: string): boolean {
    const p = this.policy(isGroup ? 'group' : 'dm');
    if (p.mode === 'disabled') return false;
    return p.mode !== 'allowlist' || matches(p.allow, id);
  }

  private async onPush(p: pb.InboundPush, handlers: InboundHandlers): Promise<void> {
    const msgId = p.msgId || p.msgKey || `${p.fromAccount}-${p.msgSeq}-${p.msgRandom}`;
    if (this.seen.has(msgId)) return;
    this.seen.add(msgId);
    if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value as string);
    if (!p.fromAccount || (this.botId && p.fromAccount === this.botId)) return;
    if (p.callbackCommand && /recall/i.test(p.callbackCommand)) return;
    const isGroup = !!p.groupCode;
    const chatId = isGroup ? `group:${p.groupCode}` : `direct:${p.fromAccount}`;
    if (!this.admits(isGroup, isGroup ? p.groupCode : p.fromAccount)) return;
    if (isGroup) {
      const mentioned = mentions(p.msgBody).some((m) => m.userId === this.botId);
      if (!channelAdmits(channelRules('yuanbao', this.env, this.config), [p.groupCode, chatId], mentioned)) return;
    }
    let text = bodyText(p.msgBody, this.botId);
    // "@Bot /approve" typed as plain text in a group is the command "/approve".
    if (isGroup) text = text.replace(/^@\S+\s*/, '').trim();
    const attachments: InboundAttachment[] = [];
    for (const [i, e] of p.msgBody.filter((x) => x.msgType === 'TIMImageElem' || x.msgType === 'TIMFileElem').entries()) {
      const isImage = e.msgType === 'TIMImageElem';
      const url = isImage ? imageUrl(e.content) : (e.content.url ?? '').trim();
      if (!url) continue;
      try {
        const a = await this.download(url, isImage, e.content.fileName, `${msgId}-${i}`);
        if (a) attachments.push(a);
      } catch (err) {
        this.log(`yuanbao: attachment ${i} of ${msgId}: ${(err as Error).message}`);
        if (!isImage) text = `${text} [file: ${e.content.fileName ?? 'unreadable'}]`.trim();
      }
    }
    if (!text && !attachments.length) return;
    handlers.message({
      source: { platform: 'yuanbao', chatId, chatType: isGroup ? 'group' : 'dm', chatName: isGroup ? p.groupName || p.groupCode : undefined, userId: p.fromAccount, userName: p.senderNickname || p.fromAccount },
      messageId: msgId,
      text,
      attachments: attachments.length ? attachments : undefined,
      receivedAt: Date.now(),
    });
  }

  /** A `…?resourceId=…` URL is a placeholder (401 on a direct GET): the resource API names the real one. */
  private async resolveUrl(url: string): Promise<string> {
    let rid = '';
    try {
      const u = new URL(url);
      rid = (u.searchParams.get('resourceId') ?? u.searchParams.get('resourceid') ?? '').trim();
    } catch {
      return url;
    }
    if (!rid) return url;
    for (let attempt = 0; attempt < 2; attempt++) {
      const t = await this.freshToken();
      const r = await this.fetchFn(`${this.s.apiDomain}/api/resource/v1/download?resourceId=${encodeURIComponent(rid)}`, {
        headers: { 'content-type': 'application/json', 'X-ID': t.botId || this.botId || this.s.appId, 'X-Token': t.token, 'X-Source': t.source || 'web' },
        signal: AbortSignal.timeout(15_000),
      });
      if (r.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      if (!r.ok) throw new Error(`resource download API answered HTTP ${r.status}`);
      const body = (await r.json()) as { code?: number; msg?: string; data?: { url?: string; realUrl?: string }; url?: string; realUrl?: string };
      if (body.code !== undefined && body.code !== 0) throw new Error(`resource download API: code ${body.code} ${body.msg ?? ''}`.trim());
      const d = body.data && typeof body.data === 'object' ? body.data : body;
      const real = String(d.url || d.realUrl || '').trim();
      if (!real) throw new Error('resource download API gave no URL');
      return real;
    }
    throw new Error('resource download API refused the token');
  }

  private async download(url: string, isImage: boolean, fileName: string | undefined, id: string): Promise<InboundAttachment | null> {
    const got = await fetchCapped(await this.resolveUrl(url), attachmentCapBytes(this.config), {}, this.fetchFn);
    if ('tooLarge' in got) return { kind: isImage ? 'image' : 'document', fileName, tooLarge: got.tooLarge };
    if (isImage) {
      const mimeType = got.mimeType?.startsWith('image/') ? got.mimeType : got.bytes[0] === 0x89 ? 'image/png' : got.bytes[0] === 0x47 ? 'image/gif' : 'image/jpeg';
      return { kind: 'image', mimeType, path: saveAttachment(this.home, { kind: 'image', bytes: got.bytes, mimeType, id }) };
    }
    const mimeType = got.mimeType && got.mimeType !== 'application/octet-stream' ? got.mimeType : undefined;
    const kind = kindOf(mimeType, fileName);
    return { kind, mimeType, fileName, path: saveAttachment(this.home, { kind, bytes: got.bytes, mimeType, fileName, id }) };
  }

  async stopIntake(): Promise<void> {
    this.closing = true;
    if (this.ping) clearInterval(this.ping);
    const ws = this.ws;
    this.ws = null;
    this.failPending(new Error('Yuanbao adapter stopped'));
    ws?.close();
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    const body: pb.MsgElem[] = [{ msgType: 'TIMTextElem', content: { text: text.slice(0, YUANBAO_LIMIT) } }];
    const group = /^group:/i.test(chatId) ? chatId.slice(6) : '';
    const msgId = `${group ? 'grp' : 'c2c'}_${randomUUID().replace(/-/g, '')}`;
    try {
      const data = group
        ? pb.encodeSendGroup({ msgId, groupCode: group, from: this.botId, body, refMsgId: opts?.replyTo })
        : pb.encodeSendC2C({ msgId, to: chatId.replace(/^direct:/i, ''), from: this.botId, random: randomBytes(4).readUInt32BE() >>> 1, body });
      const r = await this.request(group ? 'send_group_message' : 'send_c2c_message', pb.BIZ_MODULE, data, msgId);
      if (r.head.status) return { ok: false, error: `Yuanbao send failed with status ${r.head.status}` };
      if (this.typing.delete(chatId)) this.heartbeat(chatId, pb.HEARTBEAT.finish);
      return { ok: true, messageId: msgId };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  /** "Typing": the reply heartbeat (RUNNING now, FINISH once the reply is delivered), fire and forget. */
  async sendTyping(chatId: string): Promise<void> {
    if (this.heartbeat(chatId, pb.HEARTBEAT.running)) this.typing.add(chatId);
  }

  private heartbeat(chatId: string, hb: number): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1 || !this.botId) return false;
    const group = /^group:/i.test(chatId) ? chatId.slice(6) : '';
    const data = group ? pb.encodeGroupHeartbeat(this.botId, group, hb) : pb.encodePrivateHeartbeat(this.botId, chatId.replace(/^direct:/i, ''), hb);
    ws.send(pb.encodeConnMsg({ cmdType: pb.CMD_TYPE.request, cmd: group ? 'send_group_heartbeat' : 'send_private_heartbeat', seqNo: this.nextSeq(), msgId: `hb_${randomUUID().replace(/-/g, '')}`, module: pb.BIZ_MODULE }, data));
    return true;
  }
}

export const definition: PlatformDefinition = {
  ...yuanbaoEntry,
  maxMessageLength: YUANBAO_LIMIT,
  targetHint: 'direct:<account> for a person or group:<group code> for a group',
  parseTarget: (rest) => {
    const v = rest.trim();
    if (!v) return null;
    return { chatId: /^(direct|group):/i.test(v) ? v : `direct:${v}` };
  },
  create: async (ctx) => {
    const settings = yuanbaoSettings(ctx.env, ctx.config);
    if (!settings) throw new Error('Yuanbao needs YUANBAO_APP_ID and YUANBAO_APP_SECRET');
    return new YuanbaoAdapter({ settings, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  // Sends ride the bot's socket: outside a running gateway there is none, so no send-only client.
  setup: {
    intro: 'Yuanbao app → bot settings (元宝 → 我的机器人 → 开发者设置): create a bot and copy its App ID (app key) and App Secret.',
    fields: [
      { key: 'YUANBAO_APP_ID', prompt: 'App ID' },
      { key: 'YUANBAO_APP_SECRET', prompt: 'App Secret', secret: true },
    ],
    allowlistHint: 'Yuanbao account ids',
  },
  probe: async (env, config) => {
    const s = yuanbaoSettings(env, config);
    if (!s) throw new Error('YUANBAO_APP_ID and YUANBAO_APP_SECRET are needed');
    // Sign a token and bind it over the socket: what the gateway does at start.
    const a = new YuanbaoAdapter({ settings: s, env, config, home: '', log: () => undefined });
    await a.connect({ message: () => undefined });
    await a.disconnect();
    return `bot ${a.boundBotId || s.appId}`;
  },
  promptHint: 'Yuanbao shows plain text with light Markdown; keep tables and long code blocks out.',
};
