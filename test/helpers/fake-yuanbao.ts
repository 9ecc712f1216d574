// A fake Yuanbao bot gateway on loopback. HTTP: `POST /api/v5/robotLogic/sign-token` checks the
// HMAC-SHA256 signature (key = app secret, over nonce+timestamp+app_key+secret) and hands out a
// token; media URLs in pushes are placeholders (`/api/resource/download?resourceId=…` answers 401),
// exchanged at `/api/resource/v1/download` (X-ID / X-Token of a signed token) for `/media/<id>`. WebSocket (`/wss/connection`): binary protobuf ConnMsg
// frames — `auth-bind` must carry a token it signed (answered by AuthBindRsp with a connect id),
// `ping` is answered, `send_c2c_message` / `send_group_message` are recorded and answered by
// msg_id, and people's messages are pushed as InboundMessagePush with need_ack set (acks counted).
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import * as pb from '../../src/gateway/platforms/yuanbao-proto.ts';
import { getStr, getUint, parseFields } from '../../src/gateway/protobuf.ts';
import { serveLoopback } from './loopback.ts';

export interface YuanbaoSent {
  cmd: 'send_c2c_message' | 'send_group_message';
  /** `direct:<account>` or `group:<code>`, as Hermes names chats. */
  chat: string;
  from: string;
  text: string;
}

export interface FakeYuanbao {
  url: string;
  wsUrl: string;
  appId: string;
  appSecret: string;
  botId: string;
  sent: YuanbaoSent[];
  /** Tokens signed, auth-binds accepted, push acks received, reply heartbeats seen. */
  counts: { signs: number; binds: number; acks: number; heartbeats: number; badSignatures: number; resources: number };
  /** Reply heartbeats as (chat, 1 = RUNNING / 2 = FINISH). */
  heartbeats: { chat: string; hb: number }[];
  /** Serves `bytes`; returns the placeholder URL a TIMImageElem / TIMFileElem carries. */
  image(bytes: Buffer): string;
  file(bytes: Buffer, type: string): string;
  userMessage(o: { user: string; text: string; group?: string; mentionBot?: boolean; imageUrl?: string; file?: { url: string; name: string }; nickname?: string; msgId?: string }): string;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeYuanbao(): Promise<FakeYuanbao> {
  const appId = 'ybappkey0001';
  const appSecret = 'yuanbao-app-secret';
  const botId = 'yb_bot_42';
  const sent: YuanbaoSent[] = [];
  const counts = { signs: 0, binds: 0, acks: 0, heartbeats: 0, badSignatures: 0, resources: 0 };
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const heartbeats: { chat: string; hb: number }[] = [];
  const tokens = new Set<string>();
  const live = new Set<WebSocket>();
  let conns = 0;
  let n = 0;
  let seq = 0;
  let base = '';
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/api/v5/robotLogic/sign-token') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const b = JSON.parse(raw) as { app_key: string; nonce: string; signature: string; timestamp: string };
        const want = createHmac('sha256', appSecret).update(b.nonce + b.timestamp + b.app_key + appSecret).digest('hex');
        res.setHeader('content-type', 'application/json');
        if (b.app_key !== appId || b.signature !== want || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/.test(b.timestamp) || req.headers['x-instance-id'] !== '17') {
          counts.badSignatures++;
          return res.end(JSON.stringify({ code: 40001, msg: 'invalid signature' }));
        }
        counts.signs++;
        const token = `tok-${randomUUID()}`;
        tokens.add(token);
        res.end(JSON.stringify({ code: 0, msg: 'ok', data: { token, bot_id: botId, duration: 7200, product: 'yuanbao', source: 'bot' } }));
      });
      return;
    }
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/api/resource/v1/download') {
      res.setHeader('content-type', 'application/json');
      const id = u.searchParams.get('resourceId') ?? '';
      if (!tokens.has(String(req.headers['x-token'])) || req.headers['x-id'] !== botId) return res.writeHead(401).end(JSON.stringify({ code: 401, msg: 'bad token' }));
      if (!files.has(id)) return res.end(JSON.stringify({ code: 404, msg: 'no such resource' }));
      counts.resources++;
      return res.end(JSON.stringify({ code: 0, data: { realUrl: `${base}/media/${id}` } }));
    }
    if (u.pathname === '/api/resource/download') return res.writeHead(401).end();
    const f = u.pathname.startsWith('/media/') ? files.get(u.pathname.slice(7)) : undefined;
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type }).end(f.bytes);
  });
  const wss = new WebSocketServer({ server, path: '/wss/connection' });
  wss.on('connection', (ws) => {
    conns++;
    ws.on('message', (raw, isBinary) => {
      if (!isBinary) return ws.close(4000, 'binary frames only');
      const { head, data } = pb.decodeConnMsg(raw as Buffer);
      const respond = (body?: Buffer, status = 0) => ws.send(pb.encodeConnMsg({ cmdType: pb.CMD_TYPE.response, cmd: head.cmd, seqNo: ++seq, msgId: head.msgId, module: head.module, status }, body));
      if (head.cmdType === pb.CMD_TYPE.pushAck) {
        counts.acks++;
        return;
      }
      if (head.cmd === 'auth-bind' && head.module === pb.CONN_MODULE) {
        const a = pb.decodeAuthBindReq(data);
        if (!tokens.has(a.token) || a.uid !== botId || a.bizId !== 'ybBot') return respond(pb.encodeAuthBindRsp({ code: 41001, message: 'invalid token' }));
        counts.binds++;
        live.add(ws);
        return respond(pb.encodeAuthBindRsp({ code: 0, message: 'ok', connectId: `conn-${conns}` }));
      }
      if (!live.has(ws)) return respond(undefined, 401);
      if (head.cmd === 'ping') return respond();
      if (head.cmd === 'send_private_heartbeat' || head.cmd === 'send_group_heartbeat') {
        counts.heartbeats++;
        const f = parseFields(data);
        if (head.cmd === 'send_private_heartbeat') heartbeats.push({ chat: `direct:${getStr(f, 2)}`, hb: getUint(f, 3) });
        else heartbeats.push({ chat: `group:${getStr(f, 3)}`, hb: getUint(f, 5) });
        return respond();
      }
      const text = (body: pb.MsgElem[]) => body.filter((e) => e.msgType === 'TIMTextElem').map((e) => e.content.text ?? '').join('');
      if (head.cmd === 'send_c2c_message') {
        const r = pb.decodeSendC2C(data);
        sent.push({ cmd: head.cmd, chat: `direct:${r.to}`, from: r.from, text: text(r.body) });
        return respond();
      }
      if (head.cmd === 'send_group_message') {
        const r = pb.decodeSendGroup(data);
        sent.push({ cmd: head.cmd, chat: `group:${r.groupCode}`, from: r.from, text: text(r.body) });
        return respond();
      }
      respond(undefined, 404);
    });
    ws.on('close', () => live.delete(ws));
  });
  const served = await serveLoopback(server);
  base = served.url;
  return {
    url: served.url,
    wsUrl: `${served.url.replace(/^http/, 'ws')}/wss/connection`,
    appId,
    appSecret,
    botId,
    sent,
    counts,
    heartbeats,
    image(bytes) {
      const id = `img${++n}`;
      files.set(id, { bytes, type: 'image/png' });
      return `${base}/api/resource/download?resourceId=${id}`;
    },
    file(bytes, type) {
      const id = `file${++n}`;
      files.set(id, { bytes, type });
      return `${base}/api/resource/download?resourceId=${id}`;
    },
    userMessage(o) {
      const msgId = o.msgId ?? `msg${++n}`;
      n++;
      const body: pb.MsgElem[] = [];
      if (o.mentionBot) body.push({ msgType: 'TIMCustomElem', content: { data: JSON.stringify({ elem_type: 1002, text: '@Hermes', user_id: botId }) } });
      if (o.text) body.push({ msgType: 'TIMTextElem', content: { text: o.text } });
      if (o.file) body.push({ msgType: 'TIMFileElem', content: { url: o.file.url, fileName: o.file.name, fileSize: 10 } });
      if (o.imageUrl) body.push({ msgType: 'TIMImageElem', content: { imageFormat: 1, imageInfoArray: [{ type: 1, url: o.imageUrl }, { type: 2, url: o.imageUrl }] } });
      const push = pb.encodeInboundPush({ callbackCommand: o.group ? 'Group.CallbackAfterSendMsg' : 'C2C.CallbackAfterSendMsg', fromAccount: o.user, toAccount: botId, senderNickname: o.nickname ?? o.user, groupCode: o.group, groupName: o.group ? `Group ${o.group}` : undefined, msgSeq: n, msgRandom: n * 7, msgTime: Math.floor(Date.now() / 1000), msgId, msgBody: body });
      for (const ws of live) ws.send(pb.encodeConnMsg({ cmdType: pb.CMD_TYPE.push, cmd: 'inbound_message', seqNo: ++seq, msgId: `push-${msgId}`, module: pb.BIZ_MODULE, needAck: true }, push));
      return msgId;
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
