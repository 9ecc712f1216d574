// A fake Baileys socket: the event surface (`connection.update`, `messages.upsert`, `creds.update`)
// and the calls (sendMessage with text / edit / react / media, sendPresenceUpdate, end) of a real
// WASocket. WhatsApp's multi-device wire protocol (Noise + protobuf over its WebSocket) cannot be
// served locally, so the WhatsApp adapter is tested at this seam: everything above the socket is real.
import { EventEmitter } from 'node:events';
import type { WaKey, WaMessage, WaSocketLike } from '../../src/gateway/platforms/whatsapp.ts';

export interface SentWa {
  jid: string;
  content: Record<string, any>;
  key: WaKey;
}

export interface FakeBaileys {
  /** Pass as deps.whatsapp.makeSocket. */
  makeSocket(dir: string): Promise<WaSocketLike>;
  /** The bot's own JID. */
  me: string;
  sent: SentWa[];
  media: Map<string, Buffer>;
  sockets(): number;
  connections(): number;
  /** Sockets asked for (including ones told to pair). */
  dirs: string[];
  /** The next sockets ask for a QR pairing instead of opening. */
  unpaired: boolean;
  userMessage(o: { from: string; text?: string; name?: string; group?: string; image?: { id: string; mimetype: string; caption?: string }; fromMe?: boolean; jid?: string; mentions?: string[] }): string;
  /** The phone scans the QR shown by an unpaired socket: it closes with 515 and the next socket opens. */
  scan(): void;
  /** Closes the live socket like a dropped connection (status 428). */
  drop(code?: number): void;
}

export function fakeBaileys(me = '15550001111:7@s.whatsapp.net'): FakeBaileys {
  const live = new Set<EventEmitter>();
  const waitingQr = new Set<EventEmitter>();
  const sent: SentWa[] = [];
  const media = new Map<string, Buffer>();
  const dirs: string[] = [];
  let opened = 0;
  let n = 0;
  const fb: FakeBaileys = {
    me,
    sent,
    media,
    dirs,
    unpaired: false,
    async makeSocket(dir) {
      dirs.push(dir);
      const ev = new EventEmitter();
      const sock: WaSocketLike = {
        user: { id: me, name: 'Hermes' },
        ev: { on: (e, fn) => void ev.on(e, fn), removeAllListeners: (e?: string) => void ev.removeAllListeners(e) },
        async sendMessage(jid, content) {
          const key: WaKey = { remoteJid: jid, fromMe: true, id: `OUT${++n}` };
          sent.push({ jid, content, key });
          return { key };
        },
        async sendPresenceUpdate() {},
        end() {
          live.delete(ev);
          ev.emit('connection.update', { connection: 'close', lastDisconnect: { error: { message: 'ended', output: { statusCode: 428 } } } });
        },
      };
      (sock as unknown as { __ev: EventEmitter }).__ev = ev;
      setImmediate(() => {
        if (fb.unpaired) {
          waitingQr.add(ev);
          return ev.emit('connection.update', { qr: '2@fakeQRpayload,abc,def' });
        }
        live.add(ev);
        opened++;
        ev.emit('connection.update', { connection: 'open' });
      });
      return sock;
    },
    sockets: () => live.size,
    connections: () => opened,
    userMessage(o) {
      const id = `IN${++n}`;
      const jid = o.jid ?? o.group ?? `${o.from}@s.whatsapp.net`;
      const message: Record<string, unknown> = o.image
        ? { imageMessage: { mimetype: o.image.mimetype, caption: o.image.caption, fileLength: media.get(o.image.id)?.length ?? 0, __id: o.image.id } }
        : o.mentions
          ? { extendedTextMessage: { text: o.text, contextInfo: { mentionedJid: o.mentions } } }
          : { conversation: o.text };
      const m: WaMessage = { key: { remoteJid: jid, fromMe: !!o.fromMe, id, participant: o.group ? `${o.from}@s.whatsapp.net` : undefined }, message, pushName: o.name ?? 'Tester', messageTimestamp: Math.floor(Date.now() / 1000) };
      for (const ev of live) ev.emit('messages.upsert', { type: 'notify', messages: [m] });
      return id;
    },
    scan() {
      fb.unpaired = false;
      for (const ev of [...waitingQr]) {
        waitingQr.delete(ev);
        ev.emit('connection.update', { connection: 'close', lastDisconnect: { error: { message: 'restart required', output: { statusCode: 515 } } } });
      }
    },
    drop(code = 428) {
      for (const ev of [...live]) {
        live.delete(ev);
        ev.emit('connection.update', { connection: 'close', lastDisconnect: { error: { message: 'Connection Closed', output: { statusCode: code } } } });
      }
    },
  };
  return fb;
}

/** deps.whatsapp.download for the fake: the image bytes by the id the fake put in the message. */
export const fakeDownload = (fb: FakeBaileys) => async (m: WaMessage) => fb.media.get(String((m.message?.imageMessage as { __id?: string } | undefined)?.__id)) ?? Buffer.alloc(0);
