// The gateway's side of the delivery ledger (the tables: src/state/delivery-ledger.ts, and
// src/state/store/postgres/ledger.ts for a cluster). It is the runner's inbound dedupe too: a
// message is recorded (with itself, so it can be run again) before anything else happens to it,
// and before the platform is told it arrived (Telegram's next poll confirms it).
//
// Replies: the turn commits the answer to the transcript first (turn.ts), then `send` records the
// reply (`pending`) before it goes out, marks it `attempting` — and which of its parts (text chunks,
// then attachments) went out — at the moment each part's request is written to the socket
// (wire-hook.ts; adapters whose sends go through nodeFetch say `wireReceipts`), and `delivered`,
// with the platform's message id, right after. A part that failed on the network and is tried
// again counts as not sent until its next try goes out.
//
// After a restart or failover (`recover`, per platform once it is connected), for each message a
// dead owner took and did not finish:
//   - its reply is `delivered`, or every part of it was written to the socket: it is answered;
//     nothing is sent;
//   - its reply is recorded and some parts were never written (`pending`, `failed`, or
//     `attempting` part way): those parts are sent now, not the ones that went out;
//   - a reply of an adapter without wire receipts was being sent: sent again, marked as possibly
//     a duplicate (Hermes's rule for that case);
//   - no reply yet: the message is run again (the model sees it once: the copy the dead turn saved
//     is rewound, see turn.ts), unless two turns already started on it and neither finished — then
//     the chat is told to send it again (the loop guard), once.
import { createHash } from 'node:crypto';
import { t } from '../i18n/index.ts';
import { redactionEnabled } from '../policy/redact.ts';
import type { InboundRow, LedgerCounts, LedgerStore } from '../state/delivery-ledger.ts';
import type { InboundFiles } from './cluster/files.ts';
import type { Unfinished } from './dedupe.ts';
import { replyParts, type ReplyParts } from './delivery.ts';
import type { GatewayRunner } from './runner.ts';
import type { InboundMessage, PlatformAdapter, SessionSource } from './types.ts';

/** Turns started on one message before the loop guard gives up on it. */
export const MAX_TURNS = 2;

export const DUPLICATE_MARKER = '♻️ Recovered reply (the gateway restarted while sending it, so this may be a duplicate):\n\n';

const keyOf = (platform: string, chatId: string, messageId: string) => `${platform}:${chatId}:${messageId}`;

/** The messages of a batch the ledger tracks (background notices are not from a person). */
export function ledgerKeys(batch: InboundMessage[]): string[] {
  return batch.filter((m) => !m.meta?.notice).map((m) => keyOf(m.source.platform, m.source.chatId, m.messageId));
}

/** A stable id for one reply (Hermes's: session key, the message it answers, the text). */
export function obligationId(sessionKey: string, messageRef: string, content: string): string {
  return createHash('sha256').update(`${sessionKey}|${messageRef}|${content}`).digest('hex').slice(0, 24);
}

/** What the payload keeps of a message (the adapter's live objects are not data). */
function payloadOf(msg: InboundMessage | undefined): string | null {
  if (!msg) return null;
  try {
    return JSON.stringify(msg);
  } catch {
    return JSON.stringify({ ...msg, meta: undefined });
  }
}

export class GatewayLedger {
  readonly store: LedgerStore;
  private readonly log: (line: string) => void;
  /** Where a cluster keeps the files messages brought (so another machine can answer them). */
  private readonly files: InboundFiles | undefined;

  constructor(store: LedgerStore, log: (line: string) => void = () => undefined, opts: { files?: InboundFiles } = {}) {
    this.store = store;
    this.log = log;
    this.files = opts.files;
  }

  // ---- the runner's Dedupe ------------------------------------------------------------------

  claim(platform: string, chatId: string, messageId: string, threadId?: string, msg?: InboundMessage): boolean | Promise<boolean> {
    const row = { key: keyOf(platform, chatId, messageId), platform, chatId, threadId, messageId, payload: payloadOf(msg) };
    if (this.files && msg?.attachments?.some((a) => a.path)) return this.files.save(row.key, msg).then(() => this.store.receive(row));
    return this.store.receive(row);
  }

  finish(platform: string, chatId: string, messageId: string): void {
    this.finishKey(keyOf(platform, chatId, messageId));
  }

  finishKey(key: string): void {
    this.quiet(this.store.settle([key], 'handled'), 'settle');
  }

  /** Nothing to tell at attach: `recover` answers what was left. */
  unfinished(): Unfinished[] {
    return [];
  }

  close(): void {
    this.quiet(this.store.close(), 'close');
  }

  private quiet(v: unknown, what: string): void {
    if (v && typeof (v as Promise<unknown>).then === 'function') (v as Promise<unknown>).catch((e: unknown) => this.log(`ledger: ${what} failed: ${(e as Error).message}`));
  }

  // ---- turns and replies --------------------------------------------------------------------

  /** A turn starts on these messages. */
  async start(batch: InboundMessage[], sessionKey: string, sessionId: string): Promise<void> {
    const keys = ledgerKeys(batch);
    if (keys.length) await this.store.start(keys, sessionKey, sessionId);
  }

  /**
   * Sends a reply to `batch` with the ledger around it. `send` performs the send (with `parts`, the
   * ledger's watch on each part, for an adapter with wire receipts) and returns whether the platform
   * took it and its message id. A failure of the ledger itself never stops the reply.
   */
  async send(
    adapter: PlatformAdapter,
    src: SessionSource,
    batch: InboundMessage[],
    sessionKey: string,
    text: string,
    send: (parts?: ReplyParts) => Promise<{ ok: boolean; messageId?: string; error?: string }>,
  ): Promise<{ ok: boolean; messageId?: string }> {
    const keys = ledgerKeys(batch);
    if (!keys.length) return send();
    const last = batch.filter((m) => !m.meta?.notice).at(-1)!;
    const id = obligationId(sessionKey, last.messageId, text);
    const wire = adapter.wireReceipts === true;
    try {
      await this.store.obligate({ id, keys, sessionKey, platform: src.platform, chatId: src.chatId, threadId: src.threadId, content: text, sendMode: wire ? 'wire' : 'call' });
      if (!wire) await this.store.attempting(id);
    } catch (e) {
      this.log(`ledger: could not record a reply to ${src.platform}:${src.chatId}: ${(e as Error).message}`);
      return send();
    }
    return this.sending(id, keys, src, () => send(wire ? this.parts(id, 0) : undefined));
  }

  /**
   * Each part's request going out (and one that failed on the network, tried again) is recorded. A
   * failure to record is logged: it never stops the reply (nor throws inside the socket's write).
   */
  private parts(id: string, skip: number): ReplyParts {
    const safe = (what: string, f: () => void | Promise<void>): void | Promise<void> => {
      const said = (e: unknown) => this.log(`ledger: could not record a reply part as ${what}: ${(e as Error).message}`);
      try {
        const p = f();
        if (p && typeof p.then === 'function') return p.then(undefined, said);
      } catch (e) {
        said(e);
      }
    };
    return { skip, out: (i) => safe('going out', () => this.store.attempting(id, i)), back: (i) => safe('not sent', () => this.store.back(id, i)) };
  }

  /** Runs a send and records how it ended. */
  private async sending(id: string, keys: string[], src: SessionSource, send: () => Promise<{ ok: boolean; messageId?: string; error?: string }>): Promise<{ ok: boolean; messageId?: string }> {
    const r = await send();
    try {
      if (r.ok) await this.store.delivered(id, keys, r.messageId);
      else await this.store.failed(id, r.error ?? 'send failed');
    } catch (e) {
      this.log(`ledger: could not record the reply to ${src.platform}:${src.chatId} as sent: ${(e as Error).message}`);
    }
    return r;
  }

  /** A reply shown by streaming edits: it is on the platform already. */
  async streamed(src: SessionSource, batch: InboundMessage[], sessionKey: string, text: string): Promise<void> {
    const keys = ledgerKeys(batch);
    if (!keys.length) return;
    const last = batch.filter((m) => !m.meta?.notice).at(-1)!;
    const id = obligationId(sessionKey, last.messageId, text);
    try {
      await this.store.obligate({ id, keys, sessionKey, platform: src.platform, chatId: src.chatId, threadId: src.threadId, content: text, sendMode: 'call' });
      await this.store.attempting(id);
      await this.store.delivered(id, keys, undefined);
    } catch (e) {
      this.log(`ledger: could not record a streamed reply: ${(e as Error).message}`);
    }
  }

  counts(): Promise<LedgerCounts> {
    return Promise.resolve(this.store.counts());
  }

  // ---- after a restart or failover ----------------------------------------------------------

  /** Answers what owners that are gone left of `adapter`'s messages (see the top of this file). */
  async recover(r: GatewayRunner, adapter: PlatformAdapter): Promise<void> {
    const { inbound, obligations } = await this.store.recoverable(adapter.name);
    if (!inbound.length) return;
    const sent = new Set<string>();
    const told = new Set<string>();
    let replayed = 0;
    let resent = 0;
    let settled = 0;
    let gaveUp = 0;
    for (const row of inbound) {
      if (!(await this.store.adopt(row.key, row.owner))) continue; // another gateway took it first
      const o = row.obligationId ? obligations.get(row.obligationId) : undefined;
      if (o && o.state !== 'abandoned') {
        if (sent.has(o.id)) continue;
        sent.add(o.id);
        const rows = inbound.filter((x) => x.obligationId === o.id);
        const keys = rows.map((x) => x.key);
        const src: SessionSource = { platform: row.platform, chatId: row.chatId, threadId: row.threadId ?? undefined, chatType: 'dm' };
        const wireSent = row.sendMode === 'wire';
        // Parts whose request went out (a wire send that was going out had at least its first).
        const out = Math.max(0, ...rows.map((x) => x.partsOut), wireSent && o.state === 'attempting' ? 1 : 0);
        const { chunks, media } = replyParts(adapter, o.content, redactionEnabled(r.env, r.config as never));
        if (o.state === 'delivered' || (wireSent && o.state === 'attempting' && out >= chunks.length + media.length)) {
          await this.store.delivered(o.id, keys, undefined);
          settled++;
          continue;
        }
        const wire = adapter.wireReceipts === true;
        if (wireSent && wire) {
          // The parts that never went out are sent now, each recorded as it goes.
          await this.sending(o.id, keys, src, () => r.sendRaw(adapter, src, o.content, this.parts(o.id, out)));
        } else {
          // Unwatched (or no longer watched): what was being sent may have arrived (Hermes's rule).
          const text = o.state === 'attempting' ? DUPLICATE_MARKER + o.content : o.content;
          if (!wire) await this.store.attempting(o.id);
          await this.sending(o.id, keys, src, () => r.sendRaw(adapter, src, text, wire ? this.parts(o.id, 0) : undefined));
        }
        resent++;
        continue;
      }
      let msg = this.parse(row);
      if (msg && this.files) msg = await this.files.restore(row.key, msg).catch(() => msg);
      if (!msg || row.attempts >= MAX_TURNS) {
        await this.store.settle([row.key], 'given_up');
        gaveUp++;
        const chat = `${row.chatId}:${row.threadId ?? ''}`;
        if (told.has(chat) || adapter.name === 'api_server' || adapter.name === 'webhook') continue;
        told.add(chat);
        const res = await r.sendRaw(adapter, { platform: row.platform, chatId: row.chatId, threadId: row.threadId ?? undefined, chatType: 'dm' }, t('gateway.restarted'));
        if (!res.ok) this.log(`ledger: could not tell ${row.platform}:${row.chatId} to send a message again: ${res.error}`);
        continue;
      }
      replayed++;
      r.onMessage(adapter, { ...msg, meta: { ...msg.meta, replayed: true } });
    }
    const parts = [replayed && `${replayed} answered now`, resent && `${resent} reply(ies) sent now`, settled && `${settled} already answered`, gaveUp && `${gaveUp} given up (asked to resend)`].filter(Boolean);
    if (parts.length) this.log(`gateway: ${adapter.name}: messages a stopped gateway left: ${parts.join(', ')}`);
  }

  private parse(row: InboundRow): InboundMessage | null {
    if (!row.payload) return null;
    try {
      const m = JSON.parse(row.payload) as InboundMessage;
      return m && m.source && typeof m.messageId === 'string' ? m : null;
    } catch {
      return null;
    }
  }
}
