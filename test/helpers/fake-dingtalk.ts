// A fake DingTalk on loopback for Stream Mode: `POST /v1.0/gateway/connections/open` hands out an
// endpoint and ticket, the WebSocket there pushes robot messages as CALLBACK frames (topic
// `/v1.0/im/bot/messages/get`, the message JSON in `data`) and records the client's acks; the
// session webhook (`/robot/sendBySession`), the OpenAPI token, robot sends (`oToMessages/batchSend`,
// `groupMessages/send`) and `messageFiles/download` answer as DingTalk's do.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLoopback } from './loopback.ts';

export interface DingTalkSent {
  via: 'webhook' | 'otm' | 'group';
  chat: string;
  msgtype: string;
  title?: string;
  text: string;
}

export interface FakeDingTalk {
  url: string;
  clientId: string;
  clientSecret: string;
  sent: DingTalkSent[];
  acks: string[];
  files: Map<string, { bytes: Buffer; type: string }>;
  /** A person writes to the robot (a DM unless `group`); returns the message id. */
  userMessage(o: { user: string; text: string; group?: string; atBot?: boolean; picture?: string; staleWebhook?: boolean; nick?: string }): string;
  connections(): number;
  sockets(): number;
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeDingTalk(): Promise<FakeDingTalk> {
  const clientId = 'dingfakeappkey0001';
  const clientSecret = 'ding-fake-secret';
  const sent: DingTalkSent[] = [];
  const acks: string[] = [];
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const tickets = new Set<string>();
  const sessions = new Map<string, string>();
  const live = new Set<WebSocket>();
  let conns = 0;
  let n = 0;
  const token = 'ding-access-token';
  let base = '';

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = parts.length ? (JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, any>) : {};
    const p = url.pathname;
    if (req.method === 'POST' && p === '/v1.0/gateway/connections/open') {
      if (body.clientId !== clientId || body.clientSecret !== clientSecret) return json(401, { code: 'InvalidAuthentication', message: 'clientId or clientSecret is invalid' });
      const ticket = randomUUID();
      tickets.add(ticket);
      return json(200, { endpoint: `${base.replace(/^http/, 'ws')}/connect`, ticket });
    }
    if (req.method === 'POST' && p === '/v1.0/oauth2/accessToken') {
      if (body.appKey !== clientId || body.appSecret !== clientSecret) return json(400, { code: 'invalidClientIdOrSecret', message: '无效的clientId或者clientSecret' });
      return json(200, { accessToken: token, expireIn: 7200 });
    }
    if (req.method === 'POST' && p === '/robot/sendBySession') {
      const chat = sessions.get(url.searchParams.get('session') ?? '');
      if (!chat) return json(200, { errcode: 300001, errmsg: 'session expired' });
      sent.push({ via: 'webhook', chat, msgtype: body.msgtype, title: body.markdown?.title, text: body.markdown?.text ?? body.text?.content ?? '' });
      return json(200, { errcode: 0, errmsg: 'ok' });
    }
    if (p.startsWith('/v1.0/robot/') && req.headers['x-acs-dingtalk-access-token'] !== token) return json(401, { code: 'InvalidAuthentication', message: '不合法的access_token' });
    if (req.method === 'POST' && p === '/v1.0/robot/oToMessages/batchSend') {
      const param = JSON.parse(body.msgParam) as { title?: string; text?: string };
      for (const u of body.userIds as string[]) sent.push({ via: 'otm', chat: `dm:${u}`, msgtype: body.msgKey, title: param.title, text: param.text ?? '' });
      return json(200, { processQueryKey: `pq${++n}` });
    }
    if (req.method === 'POST' && p === '/v1.0/robot/groupMessages/send') {
      const param = JSON.parse(body.msgParam) as { title?: string; text?: string };
      sent.push({ via: 'group', chat: body.openConversationId, msgtype: body.msgKey, title: param.title, text: param.text ?? '' });
      return json(200, { processQueryKey: `pq${++n}` });
    }
    if (req.method === 'POST' && p === '/v1.0/robot/messageFiles/download') {
      if (body.robotCode !== clientId || !files.has(body.downloadCode)) return json(400, { code: 'invalidParameter', message: 'downloadCode is invalid' });
      return json(200, { downloadUrl: `${base}/files/${encodeURIComponent(body.downloadCode)}` });
    }
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/files\/(.+)$/.exec(p))) {
      const f = files.get(decodeURIComponent(m[1]));
      return f ? res.writeHead(200, { 'content-type': f.type }).end(f.bytes) : json(404, {});
    }
    return json(404, { message: `no route ${req.method} ${p}` });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/connect' || !tickets.delete(ticket)) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      conns++;
      live.add(ws);
      ws.on('message', (raw) => {
        const f = JSON.parse(String(raw)) as { headers?: { messageId?: string } };
        if (f.headers?.messageId) acks.push(f.headers.messageId);
      });
      ws.on('close', () => live.delete(ws));
      ws.send(JSON.stringify({ specVersion: '1.0', type: 'SYSTEM', headers: { topic: 'CONNECTED', messageId: randomUUID(), contentType: 'application/json', time: String(Date.now()) }, data: '{}' }));
    });
  });
  const served = await serveLoopback(server);
  base = served.url;

  return {
    url: served.url,
    clientId,
    clientSecret,
    sent,
    acks,
    files,
    userMessage(o) {
      const msgId = `msg${++n}`;
      const chat = o.group ?? `cid-dm-${o.user}`;
      const session = randomUUID();
      sessions.set(session, chat);
      const msg: Record<string, unknown> = {
        conversationId: chat,
        conversationType: o.group ? '2' : '1',
        conversationTitle: o.group ? `Group ${o.group}` : undefined,
        chatbotCorpId: 'dingcorp',
        chatbotUserId: 'botuser',
        msgId,
        senderNick: o.nick ?? `Nick ${o.user}`,
        isAdmin: false,
        senderStaffId: o.user,
        senderId: `$:LWCP_v1:$${o.user}`,
        senderCorpId: 'dingcorp',
        sessionWebhook: `${base}/robot/sendBySession?session=${session}`,
        sessionWebhookExpiredTime: o.staleWebhook ? Date.now() + 60_000 : Date.now() + 90 * 60_000,
        createAt: Date.now(),
        isInAtList: !!o.atBot,
        robotCode: clientId,
        msgtype: o.picture ? 'richText' : 'text',
      };
      if (o.picture) msg.content = { richText: [{ text: o.text }, { type: 'picture', downloadCode: o.picture, pictureDownloadCode: o.picture }] };
      else msg.text = { content: o.text };
      const frame = { specVersion: '1.0', type: 'CALLBACK', headers: { appId: clientId, connectionId: 'conn', contentType: 'application/json', messageId: `frame-${msgId}`, time: String(Date.now()), topic: '/v1.0/im/bot/messages/get' }, data: JSON.stringify(msg) };
      for (const ws of live) ws.send(JSON.stringify(frame));
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
