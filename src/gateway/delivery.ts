// The delivery router: one place that turns a target (`origin`, `local`, `telegram`,
// `telegram:<chat>[:<thread>]`, `discord:#general`, `slack:C123:<thread_ts>`, `email:a@b.c`, …)
// into a sent message. Live gateway adapters are used when the gateway runs; otherwise a
// send-only client talks to the platform's API directly (cron runs from the CLI, send_message in
// `hermes chat`). Replies are chunked to the platform's limit; `MEDIA:<path>` lines become
// attachments; secrets are redacted.
import { existsSync } from 'node:fs';
import { withWireHook } from '../llm/wire-hook.ts';
import { redactionEnabled, redactSecrets } from '../policy/redact.ts';
import { chunkMessage } from './chunk.ts';
import { homeChannel, platformEnabled, splitChatThread } from './config.ts';
import { getPlatform, platformNames } from './platforms/registry.ts';
import type { Deliver, DeliverResult, DeliveryOrigin, PlatformAdapter, SendOptions, SendResult } from './types.ts';

export type ParsedTarget =
  | { kind: 'origin' }
  | { kind: 'local' }
  | { kind: 'home'; platform: string }
  | { kind: 'chat'; platform: string; chatId: string; threadId?: string }
  | { kind: 'named'; platform: string; name: string; threadId?: string };

export class TargetError extends Error {}

const notConfigured = (platform: string, env?: NodeJS.ProcessEnv, config?: Record<string, unknown>) =>
  env && config && platformEnabled(platform, config, env) && !getPlatform(platform)?.sender
    ? `${platform} can only send through the running gateway (it has no direct API): start it with \`hermes gateway start\`.`
    : `${platform} is not configured (no credentials in ~/.hermes/.env) and no gateway connection is up for it.`;

export function parseTarget(raw: string): ParsedTarget {
  const t = raw.trim();
  if (!t) throw new TargetError('The delivery target is empty. Use origin, local, a platform name (telegram) or platform:chat_id.');
  const lower = t.toLowerCase();
  if (lower === 'origin') return { kind: 'origin' };
  if (lower === 'local' || lower === 'log') return { kind: 'local' };
  const colon = t.indexOf(':');
  const platform = (colon < 0 ? t : t.slice(0, colon)).toLowerCase();
  const def = getPlatform(platform);
  if (!def) throw new TargetError(`Unknown delivery platform "${platform}". Use one of: origin, local, ${platformNames('chat').join(', ')}.`);
  if (colon < 0) return { kind: 'home', platform };
  const rest = t.slice(colon + 1).trim();
  if (!rest) return { kind: 'home', platform };
  if (def.parseTarget) {
    const parsed = def.parseTarget(rest);
    if (!parsed) throw new TargetError(`"${rest}" is not ${def.targetHint ?? `a ${def.label} chat id`}.`);
    return { kind: 'chat', platform, ...parsed };
  }
  if (rest.startsWith('#') || rest.startsWith('@')) {
    const [name, thread] = splitChatThread(rest);
    return { kind: 'named', platform, name, threadId: thread };
  }
  const [chatId, threadId] = splitChatThread(rest);
  return { kind: 'chat', platform, chatId, threadId };
}

/**
 * `MEDIA:<path>` lines (Hermes's attachment convention) split from the text; `[[audio_as_voice]]`
 * (from text_to_speech) asks for its audio as a voice note (`voice: true`).
 */
export function extractMedia(text: string): { text: string; media: string[]; voice?: true } {
  const media: string[] = [];
  let voice = false;
  const kept = text.split('\n').filter((line) => {
    if (line.trim() === '[[audio_as_voice]]') {
      voice = true;
      return false;
    }
    const m = /^\s*MEDIA:\s*(\S.*?)\s*$/.exec(line);
    if (m && m[1].startsWith('/')) {
      media.push(m[1]);
      return false;
    }
    return true;
  });
  return { text: kept.join('\n').replace(/\n{3,}/g, '\n\n').trim(), media, ...(voice ? { voice: true as const } : {}) };
}

export function mediaKind(path: string): 'image' | 'audio' | 'video' | 'document' {
  const ext = path.toLowerCase().split('.').pop() ?? '';
  if (['png', 'jpg', 'jpeg', 'gif', 'webp'].includes(ext)) return 'image';
  if (['mp3', 'ogg', 'oga', 'opus', 'wav', 'm4a'].includes(ext)) return 'audio';
  if (['mp4', 'mov', 'webm', 'mkv'].includes(ext)) return 'video';
  return 'document';
}

export interface SendTextOptions {
  threadId?: string;
  replyTo?: string;
  meta?: Record<string, unknown>;
  /** Waits before the retries of a send that failed on the network (default SEND_RETRY_DELAYS_MS). */
  retryDelaysMs?: number[];
}

/**
 * Network failures where the platform most likely never got the request (no connection, a reset
 * or closed keep-alive socket): a reply lost to one would leave the person waiting forever, so
 * they are tried again (as Hermes's _send_with_retry). Read timeouts are not: the message may have
 * arrived, and a duplicate is worse than a logged failure.
 */
const TRANSIENT_SEND = /connect timeout|ECONNREFUSED|ECONNRESET|other side closed|socket hang up|EPIPE|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|UND_ERR_(SOCKET|CONNECT)/i;
export const SEND_RETRY_DELAYS_MS = [1000, 3000];

export function transientSendFailure(r: SendResult): boolean {
  return !r.ok && (r.retryable === true || (!!r.error && TRANSIENT_SEND.test(r.error)));
}

/**
 * How the delivery ledger watches a reply's parts (its text chunks, then its attachments, in order):
 * `out(i)` runs when part i's request is going out (wire-hook.ts), `back(i)` when it failed on the
 * network and is tried again (the platform most likely never got it), and a reply sent again after a
 * restart starts at part `skip` (the parts before it went out).
 */
export interface ReplyParts {
  skip: number;
  out(i: number): void | Promise<void>;
  back(i: number): void | Promise<void>;
}

/** One part's send, watched at the socket when the ledger asks (wire-hook.ts). */
const watched = (parts: ReplyParts | undefined, i: number, send: () => Promise<SendResult>): Promise<SendResult> => (parts ? withWireHook(() => parts.out(i), send) : send());

/** A part's send, tried again after a transient network failure (with jitter, so chats that failed together do not retry together). */
async function sendRetrying(send: () => Promise<SendResult>, delays: number[], back?: () => void | Promise<void>): Promise<SendResult> {
  let r = await send();
  for (const ms of delays) {
    if (!transientSendFailure(r)) break;
    await back?.();
    await new Promise((resolve) => setTimeout(resolve, ms * (0.8 + Math.random() * 0.4)));
    r = await send();
  }
  return r;
}

/** The parts of a reply: its text chunks for `adapter`, then its `MEDIA:` files. */
export function replyParts(adapter: PlatformAdapter, text: string, redact = true): { chunks: string[]; media: string[]; voice?: true } {
  const { text: body, media, voice } = extractMedia(redact ? redactSecrets(text) : text);
  const limit = Math.min(adapter.maxMessageLength, getPlatform(adapter.name)?.maxMessageLength ?? adapter.maxMessageLength);
  return { chunks: chunkMessage(body, limit), media, ...(voice ? { voice } : {}) };
}

/** Sends text (chunked, with MEDIA attachments) through one adapter. */
export async function sendText(adapter: PlatformAdapter, chatId: string, text: string, o: SendTextOptions & { redact?: boolean; parts?: ReplyParts } = {}): Promise<{ ok: boolean; error?: string; messageIds: string[] }> {
  const { chunks, media, voice } = replyParts(adapter, text, o.redact !== false);
  const ids: string[] = [];
  const parts = o.parts;
  const skip = parts?.skip ?? 0;
  for (let i = skip; i < chunks.length; i++) {
    const opts = { threadId: o.threadId, replyTo: i === 0 ? o.replyTo : undefined, meta: o.meta };
    const r = await sendRetrying(() => watched(parts, i, () => adapter.send(chatId, chunks[i], opts)), o.retryDelaysMs ?? SEND_RETRY_DELAYS_MS, parts && (() => parts.back(i)));
    if (!r.ok) return { ok: false, error: r.error ?? 'send failed', messageIds: ids };
    if (r.messageId) ids.push(r.messageId);
  }
  const r = await sendAttachments(adapter, chatId, media, { ...o, voice }, parts && { ...parts, first: chunks.length });
  ids.push(...r.messageIds);
  if (!r.ok) return { ok: false, error: r.error, messageIds: ids };
  return { ok: true, messageIds: ids };
}

/** `MEDIA:` files as attachments (a note where the file is missing or the platform has no attachments). */
export async function sendAttachments(adapter: PlatformAdapter, chatId: string, media: string[], o: SendTextOptions & { voice?: boolean } = {}, parts?: ReplyParts & { first: number }): Promise<{ ok: boolean; error?: string; messageIds: string[] }> {
  const ids: string[] = [];
  for (let k = 0; k < media.length; k++) {
    const i = (parts?.first ?? 0) + k;
    if (parts && i < parts.skip) continue;
    const path = media[k];
    const note = !existsSync(path) ? `(attachment not found: ${path})` : !adapter.sendMedia ? `(attachment: ${path})` : null;
    const r = await watched(parts, i, () =>
      note ? adapter.send(chatId, note, { threadId: o.threadId, meta: o.meta }) : adapter.sendMedia!(chatId, path, { threadId: o.threadId, kind: mediaKind(path), meta: o.meta, ...(o.voice && mediaKind(path) === 'audio' ? { voice: true } : {}) }),
    );
    if (!r.ok) return { ok: false, error: r.error ?? 'attachment failed', messageIds: ids };
    if (r.messageId && !note) ids.push(r.messageId);
  }
  return { ok: true, messageIds: ids };
}

export type SenderFactory = (platform: string) => Promise<PlatformAdapter | null>;

export interface RouterOptions {
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  /** Send-only clients for platforms without a live adapter (default: each platform's REST API). */
  senderFactory?: SenderFactory;
  log?: (line: string) => void;
  /** Called after a successful delivery (mirroring into the target's session). */
  onDelivered?: (d: { platform: string; chatId: string; threadId?: string; content: string; source: string }) => void;
}

export interface KnownChat {
  target: string;
  platform: string;
  name?: string;
  type?: string;
}

export class DeliveryRouter {
  private readonly live = new Map<string, PlatformAdapter>();
  private readonly senders = new Map<string, Promise<PlatformAdapter | null>>();
  private readonly o: RouterOptions;
  /** Chats the gateway knows (sessions.json), for `send_message action=list`. */
  knownChats: () => KnownChat[] = () => [];

  constructor(o: RouterOptions) {
    this.o = o;
  }

  attach(adapter: PlatformAdapter): void {
    this.live.set(adapter.name, adapter);
  }

  detach(name: string): void {
    this.live.delete(name);
  }

  connectedPlatforms(): string[] {
    return [...this.live.keys()];
  }

  private async adapterFor(platform: string): Promise<PlatformAdapter | null> {
    const live = this.live.get(platform);
    if (live) return live;
    if (getPlatform(platform)?.kind !== 'chat') return null;
    let p = this.senders.get(platform);
    if (!p) {
      const factory = this.o.senderFactory ?? defaultSenderFactory(this.o.env, this.o.config, this.o.log);
      p = factory(platform).catch((e) => {
        this.o.log?.(`delivery: ${platform}: ${(e as Error).message}`);
        return null;
      });
      this.senders.set(platform, p);
    }
    return p;
  }

  /** Resolves a target to a concrete chat, or explains why it cannot be. */
  async resolve(target: string, origin?: DeliveryOrigin): Promise<{ local: true } | { platform: string; chatId: string; threadId?: string } | { error: string }> {
    let t: ParsedTarget;
    try {
      t = parseTarget(target);
    } catch (e) {
      return { error: (e as Error).message };
    }
    switch (t.kind) {
      case 'local':
        return { local: true };
      case 'origin':
        if (!origin?.platform || !origin.chatId) return { error: 'deliver=origin but the job has no origin chat (it was not created from a chat). Set deliver to a platform or platform:chat_id.' };
        return { platform: origin.platform, chatId: origin.chatId, threadId: origin.threadId };
      case 'home': {
        const h = homeChannel(t.platform, this.o.env, this.o.config);
        if (!h) return { error: `No home channel for ${t.platform}. Send /sethome in the chat that should receive deliveries, or set ${getPlatform(t.platform)?.homeEnv ?? `${t.platform.toUpperCase()}_HOME_CHANNEL`}.` };
        return { platform: t.platform, ...h };
      }
      case 'chat':
        return { platform: t.platform, chatId: t.chatId, threadId: t.threadId };
      case 'named': {
        const a = await this.adapterFor(t.platform);
        if (!a) return { error: notConfigured(t.platform) };
        const id = a?.resolveTarget ? await a.resolveTarget(t.name) : null;
        if (id) return { platform: t.platform, chatId: id, threadId: t.threadId };
        if (t.platform === 'telegram' && t.name.startsWith('@')) return { platform: t.platform, chatId: t.name, threadId: t.threadId };
        return { error: `Could not find ${t.name} on ${t.platform}. Use send_message action=list to see known chats, or the numeric chat id.` };
      }
    }
  }

  /** Sends `content` to `target`. Never throws: failures come back as `{ok:false, error}`. */
  async send(target: string, content: string, meta: { origin?: DeliveryOrigin; source?: string } = {}): Promise<DeliverResult & { platform?: string; chatId?: string }> {
    const r = await this.resolve(target, meta.origin);
    if ('error' in r) return { ok: false, error: r.error };
    if ('local' in r) return { ok: true };
    const adapter = await this.adapterFor(r.platform);
    if (!adapter) return { ok: false, error: notConfigured(r.platform, this.o.env, this.o.config) };
    try {
      const sent = await sendText(adapter, r.chatId, content, { threadId: r.threadId, redact: redactionEnabled(this.o.env, this.o.config as never) });
      if (!sent.ok) return { ok: false, error: redactSecrets(`${r.platform} rejected the message: ${sent.error}`) };
      this.o.onDelivered?.({ platform: r.platform, chatId: r.chatId, threadId: r.threadId, content, source: meta.source ?? 'delivery' });
      return { ok: true, platform: r.platform, chatId: r.chatId };
    } catch (e) {
      return { ok: false, error: redactSecrets(`${r.platform} delivery failed: ${(e as Error).message}`) };
    }
  }

  /** The cron contract's `deliver`. */
  readonly deliver: Deliver = async (target, content, meta) => {
    const r = await this.send(target, content, { origin: meta.origin, source: `cron:${meta.jobId}` });
    return r.ok ? { ok: true } : { ok: false, error: r.error };
  };

  /** What `send_message action=list` shows. */
  listTargets(): { platforms: { name: string; connected: boolean; home: string | null }[]; chats: KnownChat[] } {
    const platforms = platformNames('chat').filter((p) => this.live.has(p) || platformEnabled(p, this.o.config, this.o.env)).map((p) => {
      const h = homeChannel(p, this.o.env, this.o.config);
      return { name: p, connected: this.live.has(p), home: h ? `${p}:${h.chatId}${h.threadId ? `:${h.threadId}` : ''}` : null };
    });
    return { platforms, chats: this.knownChats() };
  }

  async close(): Promise<void> {
    for (const p of this.senders.values()) {
      const a = await p;
      await a?.disconnect().catch(() => undefined);
    }
    this.senders.clear();
  }
}

/** Send-only clients over each platform's own API (the registry's `sender`), loaded on first use. */
export function defaultSenderFactory(env: NodeJS.ProcessEnv, config: Record<string, unknown>, log?: (line: string) => void): SenderFactory {
  return async (platform) => {
    const def = getPlatform(platform);
    if (!def?.sender || !platformEnabled(platform, config, env)) return null;
    return def.sender({ env, config, home: env.HERMES_HOME ?? '', log: log ?? (() => undefined) });
  };
}

/** A router for processes without a running gateway (cron from the CLI, `hermes chat`). */
export function standaloneRouter(env: NodeJS.ProcessEnv, config: Record<string, unknown>, log?: (line: string) => void): DeliveryRouter {
  return new DeliveryRouter({ env, config, log });
}
