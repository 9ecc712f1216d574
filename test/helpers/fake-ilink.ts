// A fake Tencent iLink Bot API (Weixin) on loopback: `ilink/bot/getupdates` long-polls (held until a
// message is queued, then answered with `msgs` and a new `get_updates_buf`), `ilink/bot/sendmessage`
// takes bot messages and insists on the person's latest `context_token`, and the CDN serves media
// encrypted with AES-128-ECB under the key the message carries.
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { serveLoopback } from './loopback.ts';

export interface IlinkSent {
  to: string;
  text: string;
  contextToken?: string;
}

export interface FakeIlink {
  url: string;
  cdnUrl: string;
  accountId: string;
  token: string;
  sent: IlinkSent[];
  /** Cursors the client sent with each poll. */
  cursors: string[];
  /** Serves `bytes` on the CDN encrypted; returns the media ref an image item carries. */
  media(bytes: Buffer): { encrypt_query_param: string; aes_key: string };
  userMessage(o: { user: string; text: string; image?: { encrypt_query_param: string; aes_key: string } }): string;
  connections(): number;
  polling(): boolean;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeIlink(): Promise<FakeIlink> {
  const accountId = 'b0f5e1d2c3a4@im.bot';
  const token = 'ilink-bot-token';
  const sent: IlinkSent[] = [];
  const cursors: string[] = [];
  const queue: Record<string, unknown>[] = [];
  const files = new Map<string, Buffer>();
  const latestToken = new Map<string, string>();
  let waiting: { res: http.ServerResponse; socket: Socket } | null = null;
  let cursor = 0;
  let n = 0;
  let conns = 0;
  let dropped = true;

  const flush = () => {
    if (!waiting || !queue.length) return;
    const w = waiting;
    waiting = null;
    cursor++;
    w.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ret: 0, msgs: queue.splice(0), get_updates_buf: `buf-${cursor}`, longpolling_timeout_ms: 35000 }));
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && url.pathname === '/c2c/download') {
      const f = files.get(url.searchParams.get('encrypted_query_param') ?? '');
      return f ? res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(f) : res.writeHead(404).end();
    }
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, any>;
    if (req.headers.authorization !== `Bearer ${token}` || req.headers.authorizationtype !== 'ilink_bot_token' || req.headers['ilink-app-id'] !== 'bot') return json({ ret: -14, errcode: -14, errmsg: 'session timeout' });
    if (url.pathname === '/ilink/bot/getupdates') {
      cursors.push(String(body.get_updates_buf ?? ''));
      if (dropped) {
        conns++;
        dropped = false;
      }
      if (waiting) waiting.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ret: 0, msgs: [], get_updates_buf: `buf-${cursor}` }));
      waiting = { res, socket: req.socket };
      flush();
      return;
    }
    if (url.pathname === '/ilink/bot/sendmessage') {
      const m = body.msg as { to_user_id: string; context_token?: string; item_list: { type: number; text_item?: { text: string } }[] };
      if (!m.context_token || m.context_token !== latestToken.get(m.to_user_id)) return json({ ret: -1, errmsg: 'invalid context_token' });
      sent.push({ to: m.to_user_id, text: m.item_list.map((i) => i.text_item?.text ?? '').join(''), contextToken: m.context_token });
      return json({ ret: 0 });
    }
    return json({ ret: -1, errmsg: `unknown endpoint ${url.pathname}` });
  });
  const served = await serveLoopback(server);
  return {
    url: served.url,
    cdnUrl: `${served.url}/c2c`,
    accountId,
    token,
    sent,
    cursors,
    media(bytes) {
      const key = randomBytes(16);
      const c = createCipheriv('aes-128-ecb', key, null);
      const q = `q${++n}`;
      files.set(q, Buffer.concat([c.update(bytes), c.final()]));
      // iLink often sends the key as base64 of its hex spelling.
      return { encrypt_query_param: q, aes_key: Buffer.from(key.toString('hex')).toString('base64') };
    },
    userMessage(o) {
      const id = String(7_000_000 + ++n);
      const ctx = `ctx-${randomUUID()}`;
      latestToken.set(o.user, ctx);
      const item_list: Record<string, unknown>[] = [{ type: 1, text_item: { text: o.text } }];
      if (o.image) item_list.push({ type: 2, image_item: { media: { ...o.image, encrypt_type: 1 } } });
      queue.push({ message_id: id, from_user_id: o.user, to_user_id: accountId, client_id: randomUUID(), create_time_ms: Date.now(), message_type: 1, message_state: 2, context_token: ctx, item_list });
      flush();
      return id;
    },
    connections: () => conns,
    polling: () => !!waiting,
    drop() {
      dropped = true;
      const w = waiting;
      waiting = null;
      w?.socket.destroy();
    },
    async close() {
      waiting?.socket.destroy();
      await served.close();
    },
  };
}
