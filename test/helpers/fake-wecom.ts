// A fake WeCom AI Bot gateway on loopback: the WebSocket takes `aibot_subscribe` (bot id + secret),
// `ping`, `aibot_send_msg` and `aibot_respond_msg` (answered by req_id with errcode/errmsg, as the
// real one does) and pushes `aibot_msg_callback` frames for people's messages. Images are served
// over HTTP encrypted the way WeCom encrypts them (AES-256-CBC, IV = key[:16], PKCS#7 to 32).
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface WeComSent {
  cmd: 'aibot_send_msg' | 'aibot_respond_msg';
  chat: string;
  text: string;
}

export interface FakeWeCom {
  url: string;
  wsUrl: string;
  botId: string;
  secret: string;
  sent: WeComSent[];
  /** Serves `bytes` encrypted; returns the image ref a callback carries ({url, aeskey}). */
  image(bytes: Buffer): { url: string; aeskey: string };
  userMessage(o: { user: string; text: string; group?: string; image?: { url: string; aeskey: string } }): string;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeWeCom(): Promise<FakeWeCom> {
  const botId = 'aibfakebot0001';
  const secret = 'wecom-bot-secret';
  const sent: WeComSent[] = [];
  const files = new Map<string, Buffer>();
  const live = new Set<WebSocket>();
  /** req_id of a callback → its chat (respond_msg binds to it). */
  const callbacks = new Map<string, string>();
  let conns = 0;
  let n = 0;
  let base = '';
  const server = http.createServer((req, res) => {
    const m = /^\/media\/(.+)$/.exec(req.url ?? '');
    const f = m ? files.get(m[1]) : undefined;
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(f);
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    conns++;
    ws.on('message', (raw) => {
      const f = JSON.parse(String(raw)) as { cmd: string; headers: { req_id: string }; body: Record<string, any> };
      const reply = (errcode = 0, errmsg = 'ok') => ws.send(JSON.stringify({ headers: { req_id: f.headers.req_id }, errcode, errmsg }));
      if (f.cmd === 'aibot_subscribe') {
        if (f.body.bot_id !== botId || f.body.secret !== secret) return reply(40058, 'invalid bot_id or secret');
        live.add(ws);
        return reply();
      }
      if (!live.has(ws)) return reply(40001, 'not subscribed');
      if (f.cmd === 'ping') return reply();
      if (f.cmd === 'aibot_send_msg') {
        sent.push({ cmd: f.cmd, chat: f.body.chatid, text: f.body.markdown?.content ?? '' });
        return reply();
      }
      if (f.cmd === 'aibot_respond_msg') {
        const chat = callbacks.get(f.headers.req_id);
        if (!chat) return reply(40008, 'invalid req_id');
        sent.push({ cmd: f.cmd, chat, text: f.body.markdown?.content ?? '' });
        return reply();
      }
      return reply(40004, `unknown cmd ${f.cmd}`);
    });
    ws.on('close', () => live.delete(ws));
  });
  const served = await serveLoopback(server);
  base = served.url;
  return {
    url: served.url,
    wsUrl: served.url.replace(/^http/, 'ws'),
    botId,
    secret,
    sent,
    image(bytes) {
      const key = randomBytes(32);
      const pad = 32 - (bytes.length % 32);
      const c = createCipheriv('aes-256-cbc', key, key.subarray(0, 16));
      c.setAutoPadding(false);
      const enc = Buffer.concat([c.update(Buffer.concat([bytes, Buffer.alloc(pad, pad)])), c.final()]);
      const id = `m${++n}`;
      files.set(id, enc);
      return { url: `${base}/media/${id}`, aeskey: key.toString('base64').replace(/=+$/, '') };
    },
    userMessage(o) {
      const msgid = `msg${++n}`;
      const reqId = randomUUID();
      const chat = o.group ?? o.user;
      callbacks.set(reqId, chat);
      const body: Record<string, unknown> = { msgid, aibotid: botId, chattype: o.group ? 'group' : 'single', from: { userid: o.user } };
      if (o.group) body.chatid = o.group;
      if (o.image) Object.assign(body, { msgtype: 'mixed', mixed: { msg_item: [{ msgtype: 'text', text: { content: o.text } }, { msgtype: 'image', image: o.image }] } });
      else Object.assign(body, { msgtype: 'text', text: { content: o.text } });
      for (const ws of live) ws.send(JSON.stringify({ cmd: 'aibot_msg_callback', headers: { req_id: reqId }, body }));
      return msgid;
    },
    connections: () => conns,
    sockets: () => live.size,
    drop() {
      for (const ws of live) ws.terminate();
    },
    async close() {
      for (const ws of live) ws.terminate();
      wss.close();
      await served.close();
    },
  };
}
