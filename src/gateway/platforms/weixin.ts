// Weixin (personal WeChat) over Tencent's iLink Bot API, as Hermes does it: a long-poll on
// `ilink/bot/getupdates` brings messages, `ilink/bot/sendmessage` answers (every reply echoes the
// person's latest `context_token`), media moves through an AES-128-ECB encrypted CDN. Credentials:
// WEIXIN_TOKEN + WEIXIN_ACCOUNT_ID, or the account Hermes's QR login saved under
// HERMES_HOME/weixin/accounts/<account>.json (token, base_url); WEIXIN_BASE_URL / WEIXIN_CDN_BASE_URL
// override the hosts. The poll cursor (`<account>.sync.json`) and the context tokens
// (`<account>.context-tokens.json`) live beside it in Hermes's formats, so a switch either way keeps
// them. Intake policies as Hermes: WEIXIN_DM_POLICY (`pairing` default, `open`, `allowlist`,
// `disabled`) and WEIXIN_GROUP_POLICY (`disabled` default, `open`, `allowlist` with
// WEIXIN_GROUP_ALLOWED_USERS); the gateway's allowlist and pairing still decide who is answered.
// Messages cannot be edited: replies are sent whole, split at 2000 characters. Images, files, video
// and voice in are downloaded and decrypted; sending files (CDN upload) is not built.
import { createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformSettings } from '../config.ts';
import { attachmentCapBytes, fetchCapped, kindOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult } from '../types.ts';
import { listSetting } from './chat-common.ts';
import { readJsonObject, weixin as weixinEntry, weixinAccountsDir, weixinCredentials } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export const WEIXIN_LIMIT = 2000;
const ILINK = 'https://ilinkai.weixin.qq.com';
const CDN = 'https://novac2c.cdn.weixin.qq.com/c2c';
const CLIENT_VERSION = String((2 << 16) | (2 << 8) | 0);
const LONG_POLL_MS = 35_000;
const ITEM = { text: 1, image: 2, voice: 3, file: 4, video: 5 } as const;

export interface WeixinSettings {
  accountId: string;
  token: string;
  baseUrl: string;
  cdnUrl: string;
  dmPolicy: string;
  groupPolicy: string;
  allowFrom: string[];
  groupAllowFrom: string[];
}

function writeJson(path: string, data: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
  renameSync(tmp, path);
  try {
    chmodSync(path, 0o600);
  } catch {
    // best effort on filesystems without modes
  }
}

export function weixinSettings(env: NodeJS.ProcessEnv, config: Record<string, unknown>, home: string): WeixinSettings | null {
  const c = weixinCredentials(env, config, home);
  if (!c) return null;
  const { accountId, token } = c;
  const s = platformSettings(config, 'weixin');
  const pick = (key: string, dflt = '') => String(s[key] ?? env[`WEIXIN_${key.toUpperCase()}`] ?? dflt).trim();
  const baseUrl = c.savedBaseUrl ?? pick('base_url', ILINK);
  return {
    accountId,
    token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    cdnUrl: pick('cdn_base_url', CDN).replace(/\/+$/, ''),
    dmPolicy: pick('dm_policy', 'pairing').toLowerCase(),
    groupPolicy: pick('group_policy', 'disabled').toLowerCase(),
    allowFrom: s.allow_from !== undefined ? listSetting(undefined, s.allow_from) : listSetting(env.WEIXIN_ALLOWED_USERS, undefined),
    groupAllowFrom: s.group_allow_from !== undefined ? listSetting(undefined, s.group_allow_from) : listSetting(env.WEIXIN_GROUP_ALLOWED_USERS, undefined),
  };
}

/** iLink media keys: base64 of 16 raw bytes, or of 32 hex characters. */
export function parseWeixinAesKey(b64: string): Buffer {
  const d = Buffer.from(b64, 'base64');
  if (d.length === 16) return d;
  const text = d.length === 32 ? d.toString('ascii') : '';
  if (/^[0-9a-f]{32}$/i.test(text)) return Buffer.from(text, 'hex');
  throw new Error(`unexpected media key format (${d.length} bytes)`);
}

export function decryptWeixinMedia(data: Buffer, key: Buffer): Buffer {
  const d = createDecipheriv('aes-128-ecb', key, null);
  d.setAutoPadding(false);
  const out = Buffer.concat([d.update(data), d.final()]);
  const pad = out[out.length - 1];
  return pad >= 1 && pad <= 16 && out.subarray(out.length - pad).every((b) => b === pad) ? out.subarray(0, out.length - pad) : out;
}

interface WxItem {
  type?: number;
  text_item?: { text?: string };
  image_item?: { media?: WxMedia; aeskey?: string };
  voice_item?: { media?: WxMedia; text?: string };
  file_item?: { media?: WxMedia; file_name?: string };
  video_item?: { media?: WxMedia };
  ref_msg?: { title?: string; message_item?: WxItem };
}
interface WxMedia {
  encrypt_query_param?: string;
  aes_key?: string;
  full_url?: string;
}
interface WxMessage {
  message_id?: string | number;
  from_user_id?: string;
  to_user_id?: string;
  room_id?: string;
  chat_room_id?: string;
  message_type?: number;
  context_token?: string;
  item_list?: WxItem[];
}

function itemText(items: WxItem[]): string {
  for (const it of items) {
    if (it.type !== ITEM.text) continue;
    const text = it.text_item?.text ?? '';
    const ref = it.ref_msg;
    if (ref?.message_item) {
      const inner = ref.message_item.type === ITEM.text ? (ref.message_item.text_item?.text ?? '') : '';
      const quoted = [ref.title, inner].filter(Boolean).join(' | ');
      return quoted ? `[Quoting: ${quoted}]\n${text}`.trim() : text;
    }
    return text;
  }
  for (const it of items) if (it.type === ITEM.voice && !it.voice_item?.media && it.voice_item?.text) return `[Voice transcription provided by Weixin]\n${it.voice_item.text}`;
  return '';
}

export class WeixinAdapter implements PlatformAdapter {
  readonly name = 'weixin';
  readonly maxMessageLength = WEIXIN_LIMIT;
  readonly supportsButtons = false;
  readonly s: WeixinSettings;
  private readonly config: Record<string, unknown>;
  private readonly home: string;
  private readonly log: (line: string) => void;
  private running = false;
  private poll: AbortController | null = null;
  private loop: Promise<void> | null = null;
  private readonly seen = new Set<string>();
  private readonly contextTokens: Record<string, string>;

  constructor(o: { settings: WeixinSettings; config: Record<string, unknown>; home: string; log: (line: string) => void }) {
    this.s = o.settings;
    this.config = o.config;
    this.home = o.home;
    this.log = o.log;
    const saved = readJsonObject(this.file('context-tokens'));
    this.contextTokens = Object.fromEntries(Object.entries(saved ?? {}).filter(([, v]) => typeof v === 'string' && v)) as Record<string, string>;
  }

  private file(kind: 'sync' | 'context-tokens'): string {
    return join(weixinAccountsDir(this.home), `${this.s.accountId}.${kind}.json`);
  }

  private async api<T extends { ret?: number; errcode?: number; errmsg?: string }>(endpoint: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    const body = JSON.stringify({ ...payload, base_info: { channel_version: '2.2.0' } });
    const r = await fetch(`${this.s.baseUrl}/${endpoint}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorizationtype: 'ilink_bot_token',
        authorization: `Bearer ${this.s.token}`,
        'x-wechat-uin': Buffer.from(String(randomBytes(4).readUInt32BE())).toString('base64'),
        'ilink-app-id': 'bot',
        'ilink-app-clientversion': CLIENT_VERSION,
      },
      body,
      signal: signal ?? AbortSignal.timeout(15_000),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`iLink ${endpoint}: HTTP ${r.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    if (this.s.groupPolicy !== 'disabled') this.log('weixin: group_policy is on, but iLink bot identities usually cannot join ordinary WeChat groups; group messages may never arrive');
    // The first poll proves the token: a bad one is refused at once, a good one is held open by the
    // server (long poll). Connected = refused by nobody within a moment; that poll then goes on.
    const cursor = String(readJsonObject(this.file('sync'))?.get_updates_buf ?? '');
    this.running = true;
    const first = this.getUpdates(cursor);
    const early = await Promise.race([first, new Promise<null>((r) => setTimeout(() => r(null), 1500).unref())]).catch((e: Error) => {
      this.running = false;
      throw e;
    });
    if (early && (early.ret || early.errcode)) {
      this.running = false;
      throw new Error(`iLink refused the bot token: ${early.errmsg ?? `ret ${early.ret ?? early.errcode}`}${early.ret === -14 || early.errcode === -14 ? ' (session expired: log in again with the QR code)' : ''}`);
    }
    this.loop = this.pollLoop(cursor, handlers, first);
  }

  private async getUpdates(cursor: string, timeoutMs = LONG_POLL_MS): Promise<{ ret?: number; errcode?: number; errmsg?: string; msgs?: WxMessage[]; get_updates_buf?: string; longpolling_timeout_ms?: number }> {
    const ctl = new AbortController();
    this.poll = ctl;
    const timer = setTimeout(() => ctl.abort(new Error('poll timeout')), timeoutMs + 5_000);
    try {
      return await this.api('ilink/bot/getupdates', { get_updates_buf: cursor }, ctl.signal);
    } catch (e) {
      if (ctl.signal.aborted && this.running) return { ret: 0, msgs: [], get_updates_buf: cursor };
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  private take(r: { msgs?: WxMessage[]; get_updates_buf?: string }, cursor: string, handlers: InboundHandlers): string {
    if (r.get_updates_buf && r.get_updates_buf !== cursor) {
      cursor = r.get_updates_buf;
      writeJson(this.file('sync'), { get_updates_buf: cursor });
    }
    for (const m of r.msgs ?? []) void this.onMessage(m, handlers).catch((e) => this.log(`weixin: could not read a message: ${(e as Error).message}`));
    return cursor;
  }

  private async pollLoop(cursor: string, handlers: InboundHandlers, first: ReturnType<WeixinAdapter['getUpdates']>): Promise<void> {
    let failures = 0;
    let pending: ReturnType<WeixinAdapter['getUpdates']> | null = first;
    while (this.running) {
      try {
        const r = await (pending ?? this.getUpdates(cursor));
        pending = null;
        if (!this.running) return;
        if (r.ret || r.errcode) {
          const expired = r.ret === -14 || r.errcode === -14;
          this.log(`weixin: getupdates failed: ${r.errmsg ?? `ret ${r.ret ?? r.errcode}`}${expired ? ' (session expired; log in again)' : ''}`);
          if (expired) {
            this.running = false;
            handlers.disconnected?.(new Error('iLink session expired'));
            return;
          }
          failures++;
        } else {
          failures = 0;
          cursor = this.take(r, cursor, handlers);
        }
      } catch (e) {
        pending = null;
        if (!this.running) return;
        failures++;
        this.log(`weixin: poll error (${failures}): ${(e as Error).message}`);
      }
      if (failures) await new Promise((r) => setTimeout(r, failures >= 3 ? 30_000 : 2_000));
    }
  }

  private admits(isGroup: boolean, chatId: string, userId: string): boolean {
    const has = (list: string[], id: string) => list.includes('*') || list.includes(id);
    if (isGroup) return this.s.groupPolicy === 'open' || (this.s.groupPolicy === 'allowlist' && has(this.s.groupAllowFrom, chatId));
    if (this.s.dmPolicy === 'disabled') return false;
    return this.s.dmPolicy !== 'allowlist' || has(this.s.allowFrom, userId);
  }

  private async onMessage(m: WxMessage, handlers: InboundHandlers): Promise<void> {
    const sender = String(m.from_user_id ?? '').trim();
    const id = String(m.message_id ?? '').trim();
    if (!sender || sender === this.s.accountId || (id && this.seen.has(id))) return;
    if (id) this.seen.add(id);
    if (this.seen.size > 2000) this.seen.delete(this.seen.values().next().value as string);
    const room = String(m.room_id || m.chat_room_id || '').trim();
    const to = String(m.to_user_id ?? '').trim();
    const isGroup = !!room || (!!to && to !== this.s.accountId && m.message_type === 1);
    const chatId = isGroup ? room || to : sender;
    if (!this.admits(isGroup, chatId, sender)) return;
    if (m.context_token && this.contextTokens[sender] !== m.context_token) {
      this.contextTokens[sender] = m.context_token;
      writeJson(this.file('context-tokens'), this.contextTokens);
    }
    const items = m.item_list ?? [];
    const text = itemText(items).trim();
    const attachments: InboundAttachment[] = [];
    for (const [i, it] of items.flatMap((x) => (x.ref_msg?.message_item ? [x, x.ref_msg.message_item] : [x])).entries()) {
      try {
        const a = await this.media(it, `${id || randomUUID()}-${i}`);
        if (a) attachments.push(a);
      } catch (e) {
        this.log(`weixin: attachment ${i} of ${id}: ${(e as Error).message}`);
      }
    }
    if (!text && !attachments.length) return;
    handlers.message({ source: { platform: 'weixin', chatId, chatType: isGroup ? 'group' : 'dm', userId: sender, userName: sender }, messageId: id || randomUUID(), text, attachments: attachments.length ? attachments : undefined, receivedAt: Date.now() });
  }

  private async media(it: WxItem, id: string): Promise<InboundAttachment | null> {
    const spec =
      it.type === ITEM.image ? { m: it.image_item?.media, kind: 'image' as const, mime: 'image/jpeg', name: undefined as string | undefined, key: it.image_item?.aeskey }
      : it.type === ITEM.video ? { m: it.video_item?.media, kind: 'video' as const, mime: 'video/mp4', name: undefined, key: undefined }
      : it.type === ITEM.file ? { m: it.file_item?.media, kind: undefined, mime: undefined, name: it.file_item?.file_name, key: undefined }
      : it.type === ITEM.voice ? { m: it.voice_item?.media, kind: 'audio' as const, mime: 'audio/silk', name: undefined, key: undefined }
      : null;
    if (!spec?.m) return null;
    let url: string;
    if (spec.m.encrypt_query_param) url = `${this.s.cdnUrl}/download?encrypted_query_param=${encodeURIComponent(spec.m.encrypt_query_param)}`;
    else if (spec.m.full_url && /^https:\/\/([a-z0-9-]+\.)*(weixin\.qq\.com|qlogo\.cn|wx\.qq\.com|qpic\.cn)\//i.test(spec.m.full_url)) url = spec.m.full_url;
    else return null;
    const got = await fetchCapped(url, attachmentCapBytes(this.config));
    const kind = spec.kind ?? kindOf(undefined, spec.name);
    if ('tooLarge' in got) return { kind, fileName: spec.name, tooLarge: got.tooLarge };
    // The image item's own hex key wins over the media's base64 one, as in Hermes.
    const key = spec.key && /^[0-9a-f]{32}$/i.test(spec.key) ? Buffer.from(spec.key, 'hex') : spec.m.aes_key ? parseWeixinAesKey(spec.m.aes_key) : null;
    const bytes = key ? decryptWeixinMedia(got.bytes, key) : got.bytes;
    const mimeType = kind === 'image' && bytes[0] === 0x89 ? 'image/png' : spec.mime;
    return { kind, mimeType, fileName: spec.name, voice: kind === 'audio', path: saveAttachment(this.home, { kind, bytes, mimeType, fileName: spec.name, id }) };
  }

  async stopIntake(): Promise<void> {
    this.running = false;
    this.poll?.abort(new Error('stopping'));
    await this.loop?.catch(() => undefined);
    this.loop = null;
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  async send(chatId: string, text: string, _opts?: SendOptions): Promise<SendResult> {
    if (!text.trim()) return { ok: true };
    const msg: Record<string, unknown> = { from_user_id: '', to_user_id: chatId, client_id: `hermes-${randomUUID()}`, message_type: 2, message_state: 2, item_list: [{ type: ITEM.text, text_item: { text } }] };
    const ctx = this.contextTokens[chatId];
    if (ctx) msg.context_token = ctx;
    try {
      const r = await this.api('ilink/bot/sendmessage', { msg });
      if (r.ret || r.errcode) return { ok: false, error: `iLink refused the message: ${r.errmsg ?? `ret ${r.ret ?? r.errcode}`}${r.ret === -2 || r.errcode === -2 ? ' (rate limited)' : ''}` };
      return { ok: true, messageId: msg.client_id as string };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }
}

export const definition: PlatformDefinition = {
  ...weixinEntry,
  maxMessageLength: WEIXIN_LIMIT,
  targetHint: 'a WeChat user id (…@im.wechat)',
  parseTarget: (rest) => (rest.trim() ? { chatId: rest.trim() } : null),
  create: async (ctx) => {
    const settings = weixinSettings(ctx.env, ctx.config, ctx.home);
    if (!settings) throw new Error('Weixin needs WEIXIN_ACCOUNT_ID and WEIXIN_TOKEN (or an account saved by the QR login under HERMES_HOME/weixin/accounts)');
    return new WeixinAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log });
  },
  sender: async (ctx) => {
    const settings = weixinSettings(ctx.env, ctx.config, ctx.home);
    return settings ? new WeixinAdapter({ settings, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Weixin goes through Tencent iLink: the bot token and account id come from its QR login (Hermes saves them under HERMES_HOME/weixin/accounts; that file is read as is).',
    fields: [
      { key: 'WEIXIN_ACCOUNT_ID', prompt: 'iLink bot account id (…@im.bot)' },
      { key: 'WEIXIN_TOKEN', prompt: 'iLink bot token', secret: true },
    ],
    allowlistHint: 'WeChat user ids (…@im.wechat)',
  },
  promptHint: 'This is WeChat: it shows plain text with light Markdown; keep replies short and skip tables.',
};
