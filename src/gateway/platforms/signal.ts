// Signal through the signal-cli daemon in HTTP mode (`signal-cli -a +NUMBER daemon --http
// 127.0.0.1:8080`): messages stream in as Server-Sent Events (GET /api/v1/events), everything out
// is JSON-RPC (POST /api/v1/rpc: send, sendTyping, sendReaction, getAttachment). SIGNAL_HTTP_URL +
// SIGNAL_ACCOUNT. DMs follow the allowlist/pairing rules; groups are ignored unless listed in
// SIGNAL_GROUP_ALLOWED_USERS (or `*`). Note-to-self works (sync messages to our own number, with
// echo protection). Signal cannot edit messages here, so replies are not streamed; phone numbers
// are PII (hashed for the model with privacy.redact_pii) and masked in logs.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { splitList } from '../auth.ts';
import { platformSettings, truthy } from '../config.ts';
import { attachmentCapBytes, kindOf, mimeOf, saveAttachment } from '../media.ts';
import type { InboundAttachment, InboundHandlers, PlatformAdapter, SendOptions, SendResult, SessionSource } from '../types.ts';
import { signal as signalEntry, signalSettings } from './catalog.ts';
import type { PlatformDefinition } from './registry.ts';

export interface SignalDeps {
  fetch?: typeof fetch;
}

export interface SignalOptions {
  url: string;
  account: string;
  env: NodeJS.ProcessEnv;
  config: Record<string, unknown>;
  home: string;
  log: (line: string) => void;
  deps?: SignalDeps;
}

export const SIGNAL_LIMIT = 8000;

/** `+15551234567` → `+155****4567` (logs never carry whole numbers). */
export function maskPhone(s: string): string {
  return s.replace(/\+?\d{7,15}/g, (n) => (n.length > 7 ? `${n.slice(0, 4)}****${n.slice(-4)}` : '****'));
}

interface Attachment {
  id?: string;
  contentType?: string;
  filename?: string;
  size?: number;
  voiceNote?: boolean;
}

interface DataMessage {
  timestamp?: number;
  message?: string | null;
  groupInfo?: { groupId?: string; groupName?: string };
  attachments?: Attachment[];
  quote?: { id?: number };
  reaction?: unknown;
}

interface Envelope {
  source?: string;
  sourceNumber?: string | null;
  sourceUuid?: string;
  sourceName?: string;
  timestamp?: number;
  dataMessage?: DataMessage;
  syncMessage?: { sentMessage?: DataMessage & { destination?: string | null; destinationNumber?: string | null } };
  storyMessage?: unknown;
}

/** Chat ids: a number or UUID for DMs, `group:<id>` for groups (Hermes's `signal:group:<id>` targets). */
const recipient = (chatId: string): Record<string, unknown> => (chatId.startsWith('group:') ? { groupId: chatId.slice(6) } : { recipient: [chatId] });

export class SignalAdapter implements PlatformAdapter {
  readonly name = 'signal';
  readonly maxMessageLength = SIGNAL_LIMIT;
  readonly supportsButtons = false;
  readonly prefers = { toolProgress: 'off' as const };
  private readonly o: SignalOptions;
  private abort: AbortController | null = null;
  private rpcId = 1;
  /** Timestamps of messages we sent (note-to-self echo protection). */
  private readonly mine = new Set<number>();

  constructor(o: SignalOptions) {
    this.o = o;
  }

  private get fetchFn(): typeof fetch {
    return this.o.deps?.fetch ?? fetch;
  }

  async rpc<T = unknown>(method: string, params: Record<string, unknown>): Promise<T> {
    const r = await this.fetchFn(`${this.o.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.rpcId++, method, params: { account: this.o.account, ...params } }),
    });
    const body = (await r.json().catch(() => ({}))) as { result?: T; error?: { message?: string; code?: number } };
    if (!r.ok || body.error) throw new Error(`signal-cli ${method}: ${body.error?.message ?? `HTTP ${r.status}`}`);
    return body.result as T;
  }

  async connect(handlers: InboundHandlers): Promise<void> {
    const ac = new AbortController();
    this.abort = ac;
    const r = await this.fetchFn(`${this.o.url}/api/v1/events?account=${encodeURIComponent(this.o.account)}`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    if (!r.ok || !r.body) throw new Error(`signal-cli events: HTTP ${r.status} (is the daemon running with --http at ${this.o.url}?)`);
    void this.read(r.body, ac, handlers);
  }

  private async read(body: ReadableStream<Uint8Array>, ac: AbortController, handlers: InboundHandlers): Promise<void> {
    const decoder = new TextDecoder();
    let buf = '';
    let data: string[] = [];
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (data.length) void this.onEvent(data.join('\n'), handlers).catch((e) => this.o.log(`signal: could not read a message: ${maskPhone((e as Error).message)}`));
            data = [];
          } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
      }
      if (!ac.signal.aborted) handlers.disconnected?.(new Error('the signal-cli event stream ended'));
    } catch (e) {
      if (!ac.signal.aborted) handlers.disconnected?.(new Error(`the signal-cli event stream failed: ${(e as Error).message}`));
    }
  }

  private async onEvent(raw: string, handlers: InboundHandlers): Promise<void> {
    const ev = JSON.parse(raw) as { envelope?: Envelope };
    const env = ev.envelope;
    if (!env) return;
    const ignoreStories = this.o.env.SIGNAL_IGNORE_STORIES === undefined ? true : truthy(this.o.env.SIGNAL_IGNORE_STORIES);
    if (env.storyMessage && ignoreStories) return;
    let dm = env.dataMessage;
    const sender = env.sourceNumber || env.source || env.sourceUuid || '';
    // Note to self: what we typed on the phone arrives as a sync of a message sent to our own number.
    const sent = env.syncMessage?.sentMessage;
    if (!dm && sent && (sent.destinationNumber ?? sent.destination) === this.o.account && sender === this.o.account) {
      if (sent.timestamp && this.mine.has(sent.timestamp)) return;
      dm = sent;
    }
    if (!dm || dm.reaction || !sender) return;
    if (sender === this.o.account && !sent) return;
    const group = dm.groupInfo?.groupId;
    if (group) {
      const allowed = splitList(this.o.env.SIGNAL_GROUP_ALLOWED_USERS ?? (platformSettings(this.o.config, 'signal').group_allowed_users as string | undefined));
      if (!allowed.includes('*') && !allowed.includes(group)) return;
    }
    const source: SessionSource = {
      platform: 'signal',
      chatId: group ? `group:${group}` : sender,
      chatType: group ? 'group' : 'dm',
      chatName: group ? dm.groupInfo?.groupName : env.sourceName || undefined,
      userId: sender,
      // The other id signal-cli reports (the ACI UUID beside the number); the profile name is display only.
      userIdAlt: env.sourceUuid && env.sourceUuid !== sender ? env.sourceUuid : undefined,
      userName: env.sourceName || undefined,
    };
    const attachments: InboundAttachment[] = [];
    const cap = attachmentCapBytes(this.o.config);
    for (const a of dm.attachments ?? []) {
      const kind = kindOf(a.contentType, a.filename);
      if ((a.size ?? 0) > cap) {
        attachments.push({ kind, mimeType: a.contentType, fileName: a.filename, tooLarge: a.size });
        continue;
      }
      try {
        const got = await this.rpc<{ data?: string }>('getAttachment', { id: a.id, ...(group ? { groupId: group } : { recipient: sender }) });
        const bytes = Buffer.from(got?.data ?? '', 'base64');
        attachments.push({ kind, mimeType: a.contentType, fileName: a.filename, voice: !!a.voiceNote, path: saveAttachment(this.o.home, { kind, bytes, mimeType: a.contentType, fileName: a.filename, id: a.id }) });
      } catch (e) {
        this.o.log(`signal: attachment download failed: ${(e as Error).message}`);
      }
    }
    const text = (dm.message ?? '').trim();
    if (!text && !attachments.length) return;
    handlers.message({ source, messageId: String(dm.timestamp ?? env.timestamp ?? Date.now()), text, attachments: attachments.length ? attachments : undefined, replyTo: dm.quote?.id ? String(dm.quote.id) : undefined, receivedAt: Date.now(), meta: { author: sender } });
  }

  async stopIntake(): Promise<void> {
    this.abort?.abort();
    this.abort = null;
  }

  async disconnect(): Promise<void> {
    await this.stopIntake();
  }

  private remember(ts: number | undefined): void {
    if (!ts) return;
    this.mine.add(ts);
    if (this.mine.size > 500) this.mine.delete(this.mine.values().next().value as number);
  }

  async send(chatId: string, text: string, opts?: SendOptions): Promise<SendResult> {
    try {
      const quote = opts?.replyTo && typeof opts.meta?.author === 'string' ? { quoteTimestamp: Number(opts.replyTo), quoteAuthor: opts.meta.author } : {};
      const r = await this.rpc<{ timestamp?: number }>('send', { ...recipient(chatId), message: text, ...quote });
      this.remember(r?.timestamp);
      return { ok: true, messageId: r?.timestamp ? String(r.timestamp) : undefined };
    } catch (e) {
      return { ok: false, error: maskPhone((e as Error).message) };
    }
  }

  async sendTyping(chatId: string): Promise<void> {
    await this.rpc('sendTyping', recipient(chatId)).catch(() => undefined);
  }

  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    const author = chatId.startsWith('group:') ? undefined : chatId;
    if (!author) return;
    await this.rpc('sendReaction', { ...recipient(chatId), emoji, targetAuthor: author, targetTimestamp: Number(messageId) });
  }

  async unreact(chatId: string, messageId: string, emoji: string): Promise<void> {
    if (chatId.startsWith('group:')) return;
    await this.rpc('sendReaction', { ...recipient(chatId), emoji, targetAuthor: chatId, targetTimestamp: Number(messageId), remove: true });
  }

  async sendMedia(chatId: string, path: string, opts?: SendOptions & { caption?: string; voice?: boolean; kind?: string }): Promise<SendResult> {
    try {
      const bytes = readFileSync(path);
      const mime = mimeOf(path);
      const r = await this.rpc<{ timestamp?: number }>('send', { ...recipient(chatId), message: opts?.caption ?? '', attachments: [`data:${mime};filename=${basename(path)};base64,${bytes.toString('base64')}`], ...(opts?.voice ? { voiceNote: true } : {}) });
      this.remember(r?.timestamp);
      return { ok: true, messageId: r?.timestamp ? String(r.timestamp) : undefined };
    } catch (e) {
      return { ok: false, error: maskPhone((e as Error).message) };
    }
  }
}

export const definition: PlatformDefinition = {
  ...signalEntry,
  maxMessageLength: SIGNAL_LIMIT,
  piiSafe: true,
  // `signal:+15551234567`, `signal:<uuid>`, `signal:group:<id>`: the whole rest is the chat.
  parseTarget: (rest) => (rest ? { chatId: rest } : null),
  targetHint: 'a phone number (+E.164), a UUID or group:<id>',
  create: async (ctx) => {
    const s = signalSettings(ctx.env, ctx.config);
    if (!s) throw new Error('Signal needs SIGNAL_HTTP_URL and SIGNAL_ACCOUNT');
    return new SignalAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log, deps: ctx.deps as SignalDeps | undefined });
  },
  sender: async (ctx) => {
    const s = signalSettings(ctx.env, ctx.config);
    return s ? new SignalAdapter({ ...s, env: ctx.env, config: ctx.config, home: ctx.home, log: ctx.log }) : null;
  },
  setup: {
    intro: 'Run signal-cli as a linked device and start its daemon: signal-cli -a +NUMBER daemon --http 127.0.0.1:8080',
    fields: [
      { key: 'SIGNAL_HTTP_URL', prompt: 'signal-cli daemon URL', placeholder: 'http://127.0.0.1:8080', validate: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start the URL with http://') },
      { key: 'SIGNAL_ACCOUNT', prompt: 'The bot’s phone number (E.164, e.g. +15551234567)', validate: (v) => (/^\+\d{6,15}$/.test(v) ? undefined : 'Use E.164: + and the digits') },
    ],
    allowlistHint: 'phone numbers (+E.164) or UUIDs',
  },
  probe: async (env, config) => {
    const s = signalSettings(env, config);
    if (!s) throw new Error('SIGNAL_HTTP_URL and SIGNAL_ACCOUNT are needed');
    const r = await fetch(`${s.url}/api/v1/check`).catch((e: Error) => {
      throw new Error(`cannot reach signal-cli at ${s.url}: ${e.message}`);
    });
    if (!r.ok) throw new Error(`signal-cli answered HTTP ${r.status}`);
    const body = (await r.json().catch(() => ({}))) as { versions?: Record<string, string> };
    return `signal-cli ${body.versions?.['signal-cli'] ?? ''}`.trim();
  },
  promptHint: 'Signal shows plain text: avoid Markdown tables; keep formatting light.',
};
