// A fake Feishu / Lark open platform on loopback, speaking what @larksuiteoapi/node-sdk speaks:
// `POST /callback/ws/endpoint` hands out the long-connection URL and client config, the WebSocket
// carries protobuf `pbbp2.Frame`s (events as data frames with type/message_id/sum/seq headers and a
// JSON payload; the client answers each with a frame whose payload is `{code:200}`), the tenant
// token, bot info, IM messages (create, reply, update), message resources and chats answer as the
// real ones do. `callback()` posts an event the way the platform's HTTP callbacks do (encrypted with
// the app's Encrypt Key and signed), for webhook mode.
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { getAll, getBytes, getStr, getUint, parseFields, Writer } from '../../src/gateway/protobuf.ts';
import { serveLoopback } from './loopback.ts';

export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: Record<string, string>;
  payload?: Buffer;
}

export function encodeFrame(f: Frame): Buffer {
  const w = new Writer().uint(1, f.SeqID, true).uint(2, f.LogID, true).uint(3, f.service, true).uint(4, f.method, true);
  for (const [k, v] of Object.entries(f.headers)) w.msg(5, new Writer().str(1, k, true).str(2, v, true));
  if (f.payload) w.bytes(8, f.payload, true);
  return w.finish();
}

export function decodeFrame(buf: Buffer): Frame {
  const m = parseFields(buf);
  const f: Frame = { SeqID: getUint(m, 1), LogID: getUint(m, 2), service: getUint(m, 3), method: getUint(m, 4), headers: {} };
  // a Header is {1: key, 2: value}
  for (const h of getAll(m, 5).map(parseFields)) f.headers[getStr(h, 1)] = getStr(h, 2);
  if (m.has(8)) f.payload = Buffer.from(getBytes(m, 8));
  return f;
}

export interface FeishuMsg {
  message_id: string;
  chat_id: string;
  msg_type: string;
  content: string;
  text: string;
  edits: number;
  reply_to?: string;
  in_thread?: boolean;
}

export interface FakeFeishu {
  url: string;
  appId: string;
  appSecret: string;
  botOpenId: string;
  sent: FeishuMsg[];
  acks: { message_id: string; code: number }[];
  resources: Map<string, { bytes: Buffer; type: string }>;
  /** The event a person's message makes (what the long connection and the callbacks carry). */
  event(o: { user: string; text: string; chat?: string; group?: boolean; mentionBot?: boolean; image?: string }): Record<string, unknown>;
  /** Pushes a person's message over the long connection; returns its message id. */
  userMessage(o: { user: string; text: string; chat?: string; group?: boolean; mentionBot?: boolean; image?: string }): string;
  /** Posts an event to a webhook-mode server as Feishu does (encrypted and signed with `encryptKey`). */
  callback(url: string, event: Record<string, unknown>, o: { encryptKey: string; token: string; badSignature?: boolean }): Promise<number>;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

const textOf = (msgType: string, content: string): string => {
  const c = JSON.parse(content) as Record<string, any>;
  if (msgType === 'text') return c.text;
  if (msgType === 'post') return (c.zh_cn?.content ?? c.content ?? []).flat().map((n: { text?: string }) => n.text ?? '').join('');
  return `[${msgType}]`;
};

export async function startFakeFeishu(): Promise<FakeFeishu> {
  const appId = 'cli_a1b2c3d4e5f60718';
  const appSecret = 'feishu-app-secret';
  const botOpenId = 'ou_botbotbotbot';
  const token = 't-fake-tenant-token';
  const sent: FeishuMsg[] = [];
  const acks: FakeFeishu['acks'] = [];
  const resources = new Map<string, { bytes: Buffer; type: string }>();
  const live = new Set<WebSocket>();
  let conns = 0;
  let n = 0;
  let base = '';
  /** Chat of each message people sent (reply targets). */
  const inbound = new Map<string, string>();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    const body = raw && String(req.headers['content-type']).includes('json') ? (JSON.parse(raw) as Record<string, any>) : {};
    const p = url.pathname;
    if (req.method === 'POST' && p === '/callback/ws/endpoint') {
      if (body.AppID !== appId || body.AppSecret !== appSecret) return json(200, { code: 1000040345, msg: 'app secret invalid', data: {} });
      return json(200, { code: 0, msg: 'ok', data: { URL: `${base.replace(/^http/, 'ws')}/ws?device_id=dev1&service_id=33`, ClientConfig: { ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0, PingInterval: 120 } } });
    }
    if (req.method === 'POST' && p === '/open-apis/auth/v3/tenant_access_token/internal') {
      if (body.app_id !== appId || body.app_secret !== appSecret) return json(200, { code: 10014, msg: 'app secret invalid' });
      return json(200, { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 });
    }
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { code: 99991663, msg: 'Invalid access token for authorization' });
    if (req.method === 'GET' && p === '/open-apis/bot/v3/info') return json(200, { code: 0, msg: 'ok', bot: { open_id: botOpenId, app_name: 'Fake Hermes Bot', activate_status: 2 } });
    let m: RegExpExecArray | null;
    const store = (chat: string, o: { msg_type: string; content: string; reply_to?: string; in_thread?: boolean }) => {
      const msg: FeishuMsg = { message_id: `om_bot${++n}`, chat_id: chat, msg_type: o.msg_type, content: o.content, text: textOf(o.msg_type, o.content), edits: 0, reply_to: o.reply_to, in_thread: o.in_thread };
      sent.push(msg);
      return json(200, { code: 0, msg: 'success', data: { message_id: msg.message_id, chat_id: chat, msg_type: o.msg_type } });
    };
    if (req.method === 'POST' && p === '/open-apis/im/v1/messages') {
      const type = url.searchParams.get('receive_id_type');
      const chat = type === 'chat_id' ? body.receive_id : `${type}:${body.receive_id}`;
      return store(chat, body as { msg_type: string; content: string });
    }
    if (req.method === 'POST' && (m = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(p))) {
      const parent = sent.find((s) => s.message_id === m![1])?.chat_id ?? inbound.get(m[1]);
      if (!parent) return json(400, { code: 230011, msg: 'The message was withdrawn.' });
      return store(parent, { msg_type: body.msg_type, content: body.content, reply_to: m[1], in_thread: body.reply_in_thread });
    }
    if (req.method === 'PUT' && (m = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(p))) {
      const msg = sent.find((s) => s.message_id === m![1]);
      if (!msg) return json(400, { code: 230001, msg: 'message not found' });
      msg.content = body.content;
      msg.msg_type = body.msg_type;
      msg.text = textOf(body.msg_type, body.content);
      msg.edits++;
      return json(200, { code: 0, msg: 'success', data: {} });
    }
    if (req.method === 'GET' && (m = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(p))) {
      const r = resources.get(m[2]);
      return r ? res.writeHead(200, { 'content-type': r.type }).end(r.bytes) : json(404, { code: 234003, msg: 'File not in msg.' });
    }
    if (req.method === 'GET' && (m = /^\/open-apis\/im\/v1\/chats\/([^/]+)$/.exec(p))) return json(200, { code: 0, msg: 'ok', data: { name: `Chat ${m[1]}`, chat_mode: m[1].startsWith('oc_dm_') ? 'p2p' : 'group' } });
    return json(404, { code: 404, msg: `no route ${req.method} ${p}` });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/ws?')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      conns++;
      ws.on('message', (raw) => {
        const f = decodeFrame(raw as Buffer);
        if (f.method === 1 && f.headers.type === 'event') acks.push({ message_id: f.headers.message_id, code: (JSON.parse(f.payload?.toString('utf8') ?? '{}') as { code: number }).code });
        // The client pings as soon as it is open; events go only to sockets that have (as Feishu
        // starts pushing once the client is talking).
        if (f.method === 0 && f.headers.type === 'ping') live.add(ws);
        if (f.method === 0 && f.headers.type === 'ping') ws.send(encodeFrame({ ...f, headers: { type: 'pong' }, payload: Buffer.from(JSON.stringify({ PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 })) }));
      });
      ws.on('close', () => live.delete(ws));
    });
  });
  const served = await serveLoopback(server);
  base = served.url;

  const event: FakeFeishu['event'] = (o) => {
    const id = `om_user${++n}`;
    inbound.set(id, o.chat ?? `oc_dm_${o.user}`);
    const mentions = o.mentionBot ? [{ key: '@_user_1', id: { open_id: botOpenId, union_id: 'on_bot', user_id: '' }, name: 'Hermes', tenant_key: 'tk' }] : [];
    const text = o.mentionBot ? `@_user_1 ${o.text}` : o.text;
    const message = o.image
      ? { message_type: 'post', content: JSON.stringify({ title: '', content: [[{ tag: 'text', text }], [{ tag: 'img', image_key: o.image }]] }) }
      : { message_type: 'text', content: JSON.stringify({ text }) };
    return {
      schema: '2.0',
      header: { event_id: randomUUID(), event_type: 'im.message.receive_v1', create_time: String(Date.now()), token: 'verify-token', app_id: appId, tenant_key: 'tk' },
      event: {
        sender: { sender_id: { open_id: o.user, union_id: `on_${o.user}`, user_id: '' }, sender_type: 'user', tenant_key: 'tk' },
        message: { message_id: id, root_id: '', parent_id: '', create_time: String(Date.now()), chat_id: o.chat ?? `oc_dm_${o.user}`, chat_type: o.group ? 'group' : 'p2p', mentions, ...message },
      },
    };
  };

  return {
    url: served.url,
    appId,
    appSecret,
    botOpenId,
    sent,
    acks,
    resources,
    event,
    userMessage(o) {
      const ev = event(o);
      const id = (ev.event as { message: { message_id: string } }).message.message_id;
      const frame = encodeFrame({ SeqID: 0, LogID: 0, service: 33, method: 1, headers: { type: 'event', message_id: `ev-${id}`, sum: '1', seq: '0', trace_id: randomUUID() }, payload: Buffer.from(JSON.stringify(ev)) });
      for (const ws of live) ws.send(frame);
      return id;
    },
    async callback(url, ev, o) {
      const key = createHash('sha256').update(o.encryptKey).digest();
      const iv = randomBytes(16);
      const c = createCipheriv('aes-256-cbc', key, iv);
      const encrypt = Buffer.concat([iv, c.update(JSON.stringify({ ...ev, header: { ...(ev.header as object), token: o.token } })), c.final()]).toString('base64');
      const body = JSON.stringify({ encrypt });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const signature = createHash('sha256').update(timestamp + nonce + (o.badSignature ? 'wrong' : o.encryptKey) + body).digest('hex');
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lark-request-timestamp': timestamp, 'x-lark-request-nonce': nonce, 'x-lark-signature': signature }, body });
      await r.text();
      return r.status;
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
