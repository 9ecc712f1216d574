// A reply that streams into the chat by editing its message as tokens arrive (Hermes's
// `streaming:` block: enabled, transport, edit_interval, buffer_threshold, cursor). The first
// message goes out once `buffer_threshold` characters are there; edits follow at most every
// `edit_interval` (default: the platform's own rate-limit-safe interval; a failed edit doubles it).
// Text past the platform's limit is split the way final replies are (chunk.ts: code fences closed
// and reopened), so earlier messages freeze and a new one continues. The final edit shows the
// finished text without the cursor; `MEDIA:` files go out after it.
import { redactSecrets } from '../policy/redact.ts';
import { chunkMessage, isSilent } from './chunk.ts';
import { platformSettings, truthy } from './config.ts';
import { extractMedia, sendAttachments } from './delivery.ts';
import { getPlatform } from './platforms/registry.ts';
import type { PlatformAdapter, SessionSource } from './types.ts';

export interface StreamSettings {
  enabled: boolean;
  /** ms between edits; null = the adapter's default. */
  intervalMs: number | null;
  threshold: number;
  cursor: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** `streaming:` (top level; a platform's own `platforms.<p>.streaming` block overrides it). Off by default, as in Hermes. */
export function streamSettings(config: Obj, platform: string): StreamSettings {
  const top = isObj(config.streaming) ? config.streaming : {};
  const own = platformSettings(config, platform).streaming;
  const s: Obj = { ...top, ...(isObj(own) ? own : typeof own === 'boolean' ? { enabled: own } : {}) };
  const transport = typeof s.transport === 'string' ? s.transport : 'edit';
  const interval = Number(s.edit_interval);
  const threshold = Number(s.buffer_threshold);
  return {
    enabled: truthy(s.enabled) && transport !== 'off',
    intervalMs: s.edit_interval !== undefined && Number.isFinite(interval) && interval >= 0 ? interval * 1000 : null,
    threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : 40,
    cursor: typeof s.cursor === 'string' ? s.cursor : ' ▉',
  };
}

export interface StreamReplyOptions {
  settings: StreamSettings;
  redact: boolean;
  replyTo?: string;
  meta?: Record<string, unknown>;
  log: (line: string) => void;
}

export class StreamingReply {
  private text = '';
  private ids: string[] = [];
  private shown: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private lastFlush = 0;
  private interval: number;
  private broken = false;
  /** Edits made (for tests and logs). */
  edits = 0;
  private readonly adapter: PlatformAdapter;
  private readonly src: SessionSource;
  private readonly o: StreamReplyOptions;
  private readonly limit: number;

  constructor(adapter: PlatformAdapter, src: SessionSource, o: StreamReplyOptions) {
    this.adapter = adapter;
    this.src = src;
    this.o = o;
    this.interval = o.settings.intervalMs ?? adapter.editIntervalMs ?? 1000;
    this.limit = Math.min(adapter.maxMessageLength, getPlatform(adapter.name)?.maxMessageLength ?? adapter.maxMessageLength);
  }

  /** Whether this adapter can stream at all (it can edit its messages, and has a finite limit). */
  static supported(adapter: PlatformAdapter): boolean {
    return !!adapter.edit && Number.isFinite(adapter.maxMessageLength) && adapter.streaming !== false;
  }

  get started(): boolean {
    return this.ids.length > 0;
  }

  push(delta: string): void {
    this.text += delta;
    this.schedule();
  }

  /** A retried API call starts its text again: the next render overwrites what was shown. */
  restart(): void {
    this.text = '';
  }

  /**
   * The stream broke after it had begun and the call is sent again: what the chat shows of it is
   * withdrawn at once (the first message says so, any further ones are blanked) and the new text
   * replaces it as it arrives.
   */
  retract(): void {
    this.text = '';
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.ids.length || this.broken) return;
    this.chain = this.chain
      .then(async () => {
        for (let i = 0; i < this.ids.length; i++) {
          const body = i ? '…' : '↻ The answer was cut off; retrying…';
          if (this.shown[i] === body) continue;
          const r = await this.adapter.edit!(this.src.chatId, this.ids[i], body, { threadId: this.src.threadId, meta: this.o.meta });
          if (!r.ok) break;
          this.shown[i] = body;
          this.edits++;
        }
      })
      .catch((e) => this.o.log(`gateway: streaming edit failed: ${(e as Error).message}`));
  }

  private visible(text: string, final: boolean): string {
    let t = this.o.redact ? redactSecrets(text) : text;
    t = extractMedia(t).text;
    // A MEDIA: line still arriving is not shown half-written.
    if (!final) t = t.replace(/\n?\s*MEDIA:[^\n]*$/, '');
    return t;
  }

  private schedule(): void {
    if (this.broken || this.timer) return;
    const shown = this.visible(this.text, false);
    if (!this.ids.length && (shown.trim().length < this.o.settings.threshold || isSilent(shown) || '[SILENT]'.startsWith(shown.trim().toUpperCase()))) return;
    const wait = Math.max(0, this.lastFlush + this.interval - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.chain = this.chain.then(() => this.render(this.text, false)).catch((e) => this.o.log(`gateway: streaming edit failed: ${(e as Error).message}`));
    }, wait);
    this.timer.unref?.();
  }

  private async render(raw: string, final: boolean): Promise<void> {
    if (this.broken) return;
    const cursor = final ? '' : this.o.settings.cursor;
    const body = this.visible(raw, final);
    if (!body.trim()) return;
    const chunks = chunkMessage(body, this.limit - cursor.length);
    if (cursor && chunks.length) chunks[chunks.length - 1] += cursor;
    for (let i = 0; i < chunks.length; i++) {
      if (i < this.ids.length) {
        if (this.shown[i] === chunks[i]) continue;
        const r = await this.adapter.edit!(this.src.chatId, this.ids[i], chunks[i], { threadId: this.src.threadId, meta: this.o.meta });
        if (r.ok) {
          this.shown[i] = chunks[i];
          this.edits++;
        } else {
          // Rate limited or refused: slow down; the final edit tries again.
          this.interval = Math.min(this.interval * 2, 10_000);
          this.o.log(`gateway: ${this.adapter.name}: streaming edit refused (${r.error}); edits now every ${this.interval} ms`);
          break;
        }
      } else {
        const r = await this.adapter.send(this.src.chatId, chunks[i], { threadId: this.src.threadId, replyTo: i === 0 ? this.o.replyTo : undefined, meta: this.o.meta });
        if (!r.ok || !r.messageId) {
          this.broken = true;
          this.o.log(`gateway: ${this.adapter.name}: streaming stopped: ${r.error ?? 'no message id'}`);
          return;
        }
        this.ids.push(r.messageId);
        this.shown.push(chunks[i]);
      }
    }
    this.lastFlush = Date.now();
  }

  private async settle(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
  }

  /** The text so far is complete (a tool call follows): its messages get their final form and stay. */
  async seal(): Promise<void> {
    await this.settle();
    if (this.ids.length) await this.render(this.text, true);
    this.ids = [];
    this.shown = [];
    this.text = '';
  }

  /**
   * The turn's final text. Returns false when nothing was streamed (the caller sends the reply the
   * ordinary way); otherwise the messages are edited into the final text and media are sent.
   */
  async finish(finalText: string): Promise<boolean> {
    await this.settle();
    if (!this.ids.length || this.broken) return false;
    await this.render(finalText, true);
    const { media, voice } = extractMedia(this.o.redact ? redactSecrets(finalText) : finalText);
    const r = await sendAttachments(this.adapter, this.src.chatId, media, { threadId: this.src.threadId, meta: this.o.meta, voice });
    if (!r.ok) this.o.log(`gateway: ${this.adapter.name}: attachment failed: ${r.error}`);
    return true;
  }
}
