// A fake QQ Bot Open Platform on loopback: the app-token endpoint, `GET /gateway`, the WebSocket
// gateway (Hello → Identify/Resume → READY/RESUMED, heartbeats acked, events as op 0 dispatches with
// a rising `s`), and the v2 message endpoints for users and groups, which insist on a valid
// passive-reply msg_id and refuse a repeated (msg_id, msg_seq) as QQ does.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface QQSent {
  chat: string;
  kind: 'c2c' | 'group';
  text: string;
  msgType: number;
  msgId?: string;
  msgSeq?: number;
}

export interface FakeQQ {
  url: string;
  tokenUrl: string;
  appId: string;
  secret: string;
  sent: QQSent[];
  identifies: number;
  resumes: number;
  files: Map<string, { bytes: Buffer; type: string }>;
  userMessage(o: { user: string; text: string; group?: string; image?: string }): string;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeQQ(): Promise<FakeQQ> {
  const appId = '102030405';
  const secret = 'qq-client-secret';
  const token = 'qq-access-token';
  const botId = '1234567890123';
  const sent: QQSent[] = [];
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const live = new Set<WebSocket>();
  const inbound = new Map<string, string>();
  const usedSeq = new Set<string>();
  const sessions = new Set<string>();
  let conns = 0;
  let seq = 0;
  let n = 0;
  let base = '';
  const fake: FakeQQ = {
    url: '',
    tokenUrl: '',
    appId,
    secret,
    sent,
    identifies: 0,
    resumes: 0,
    files,
    userMessage(o) {
      const id = `ROBOT1.0_${++n}`;
      const attachments = o.image ? [{ content_type: files.get(o.image)?.type, filename: 'pixel.png', url: `${base.replace(/^http:/, 'http:')}/media/${o.image}`, size: files.get(o.image)?.bytes.length }] : undefined;
      const ev = o.group
        ? { t: 'GROUP_AT_MESSAGE_CREATE', d: { id, author: { member_openid: o.user }, content: ` ${o.text}`, group_openid: o.group, timestamp: new Date().toISOString(), attachments } }
        : { t: 'C2C_MESSAGE_CREATE', d: { id, author: { user_openid: o.user }, content: o.text, timestamp: new Date().toISOString(), attachments } };
      inbound.set(id, o.group ?? o.user);
      seq++;
      for (const ws of live) ws.send(JSON.stringify({ op: 0, s: seq, id: `${ev.t}:${randomUUID()}`, ...ev }));
      return id;
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
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = parts.length ? (JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, any>) : {};
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/media\/(.+)$/.exec(url.pathname))) {
      const f = files.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.type }).end(f.bytes) : json(404, {});
    }
    if (req.method === 'POST' && url.pathname === '/app/getAppAccessToken') {
      if (body.appId !== appId || body.clientSecret !== secret) return json(200, { code: 100016, message: 'invalid appid or secret' });
      return json(200, { access_token: token, expires_in: '7200' });
    }
    if (req.headers.authorization !== `QQBot ${token}`) return json(401, { code: 11241, message: 'wrong token' });
    if (req.method === 'GET' && url.pathname === '/gateway') return json(200, { url: `${base.replace(/^http/, 'ws')}/websocket` });
    if (req.method === 'GET' && url.pathname === '/users/@me') return json(200, { id: botId, username: 'HermesBot', bot: true });
    if (req.method === 'POST' && (m = /^\/v2\/(users|groups)\/([^/]+)\/messages$/.exec(url.pathname))) {
      const chat = m[2];
      if (body.msg_id) {
        if (inbound.get(body.msg_id) !== chat) return json(400, { code: 40034024, message: 'msg_id invalid' });
        const key = `${body.msg_id}:${body.msg_seq ?? 1}`;
        if (usedSeq.has(key)) return json(400, { code: 40054005, message: '消息被去重，请检查请求msgseq' });
        usedSeq.add(key);
      } else if (m[1] === 'groups') return json(400, { code: 40034006, message: 'proactive group messages are not allowed' });
      sent.push({ chat, kind: m[1] === 'users' ? 'c2c' : 'group', text: body.msg_type === 2 ? body.markdown?.content : body.content, msgType: body.msg_type, msgId: body.msg_id, msgSeq: body.msg_seq });
      return json(200, { id: `sent${++n}`, timestamp: Date.now() });
    }
    return json(404, { code: 404, message: `no route ${req.method} ${url.pathname}` });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (req.url !== '/websocket') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      conns++;
      ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41250 } }));
      ws.on('message', (raw) => {
        const f = JSON.parse(String(raw)) as { op: number; d: any };
        if (f.op === 1) return ws.send(JSON.stringify({ op: 11 }));
        if (f.op === 2) {
          if (f.d?.token !== `QQBot ${token}`) return ws.close(4004, 'invalid token');
          fake.identifies++;
          const sid = randomUUID();
          sessions.add(sid);
          live.add(ws);
          return ws.send(JSON.stringify({ op: 0, s: ++seq, t: 'READY', d: { version: 1, session_id: sid, user: { id: botId, username: 'HermesBot', bot: true }, shard: [0, 1] } }));
        }
        if (f.op === 6) {
          if (f.d?.token !== `QQBot ${token}` || !sessions.has(f.d?.session_id)) return ws.send(JSON.stringify({ op: 9, d: false }));
          fake.resumes++;
          live.add(ws);
          return ws.send(JSON.stringify({ op: 0, s: ++seq, t: 'RESUMED', d: '' }));
        }
      });
      ws.on('close', () => live.delete(ws));
    });
  });
  const served = await serveLoopback(server);
  base = served.url;
  fake.url = served.url;
  fake.tokenUrl = `${served.url}/app/getAppAccessToken`;
  return fake;
}
