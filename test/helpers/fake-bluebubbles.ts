// A fake BlueBubbles server on loopback: the REST API (every call authenticated by `?password=`):
// ping, server info, webhook registration, chat query, text and attachment sends, attachment
// downloads; and `inbound`, which posts a new-message webhook to every registered URL the way the
// server does (JSON body, password in the registered URL's query).
import http from 'node:http';
import { serveLoopback } from './loopback.ts';

export interface FakeBbSent {
  guid: string;
  chatGuid: string;
  text: string;
  attachment?: { name: string; bytes: number };
}

export interface FakeBlueBubbles {
  url: string;
  password: string;
  sent: FakeBbSent[];
  webhooks: { id: number; url: string; events: string[] }[];
  attachments: Map<string, { bytes: Buffer; mime: string; name: string }>;
  /** A person (`address`) writes in their DM (or in `group`, a `;+;` chat GUID); returns the webhook's HTTP status per registration. */
  inbound(address: string, text: string, o?: { group?: string; attachment?: string; password?: string }): Promise<number[]>;
  close(): Promise<void>;
}

export async function startFakeBlueBubbles(o: { privateApi?: boolean } = {}): Promise<FakeBlueBubbles> {
  const password = 'bb-server-password';
  const sent: FakeBbSent[] = [];
  const webhooks: FakeBlueBubbles['webhooks'] = [];
  const attachments = new Map<string, { bytes: Buffer; mime: string; name: string }>();
  const chats = new Map<string, { guid: string; chatIdentifier: string; displayName: string; participants: { address: string }[] }>();
  let n = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.searchParams.get('password') !== password) return json(401, { status: 401, message: 'Unauthorized', error: { type: 'Unauthorized' } });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    const body = () => JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && p === '/api/v1/ping') return json(200, { status: 200, message: 'Ping received!', data: 'pong' });
    if (req.method === 'GET' && p === '/api/v1/server/info') return json(200, { status: 200, data: { server_version: '1.9.9', private_api: !!o.privateApi, helper_connected: !!o.privateApi, os_version: '14.0' } });
    if (req.method === 'GET' && p === '/api/v1/webhook') return json(200, { status: 200, data: webhooks });
    if (req.method === 'POST' && p === '/api/v1/webhook') {
      const b = body() as { url: string; events: string[] };
      const w = { id: ++n, url: b.url, events: b.events };
      webhooks.push(w);
      return json(200, { status: 200, data: w });
    }
    if (req.method === 'DELETE' && (m = /^\/api\/v1\/webhook\/(\d+)$/.exec(p))) {
      const i = webhooks.findIndex((w) => w.id === Number(m![1]));
      if (i >= 0) webhooks.splice(i, 1);
      return json(200, { status: 200 });
    }
    if (req.method === 'POST' && p === '/api/v1/chat/query') return json(200, { status: 200, data: [...chats.values()] });
    if (req.method === 'GET' && (m = /^\/api\/v1\/chat\/([^/]+)$/.exec(p))) {
      const c = chats.get(decodeURIComponent(m[1]));
      return c ? json(200, { status: 200, data: c }) : json(404, { status: 404, message: 'Chat does not exist' });
    }
    if (req.method === 'POST' && p === '/api/v1/message/text') {
      const b = body() as { chatGuid: string; message: string };
      if (!chats.has(b.chatGuid)) return json(404, { status: 404, message: 'Chat does not exist' });
      const s = { guid: `out-${++n}`, chatGuid: b.chatGuid, text: b.message };
      sent.push(s);
      return json(200, { status: 200, data: { guid: s.guid, text: b.message } });
    }
    if (req.method === 'POST' && p === '/api/v1/message/attachment') {
      const form = await new Response(raw, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      const f = form.get('attachment') as File | null;
      if (!f) return json(400, { status: 400, message: 'attachment missing' });
      const s = { guid: `out-${++n}`, chatGuid: String(form.get('chatGuid')), text: '', attachment: { name: String(form.get('name')), bytes: f.size } };
      sent.push(s);
      return json(200, { status: 200, data: { guid: s.guid } });
    }
    if (req.method === 'GET' && (m = /^\/api\/v1\/attachment\/([^/]+)\/download$/.exec(p))) {
      const a = attachments.get(decodeURIComponent(m[1]));
      return a ? res.writeHead(200, { 'content-type': a.mime, 'content-length': a.bytes.length }).end(a.bytes) : json(404, { status: 404, message: 'no such attachment' });
    }
    return json(404, { status: 404, message: `no route ${req.method} ${p}` });
  });
  const served = await serveLoopback(server);
  return {
    url: served.url,
    password,
    sent,
    webhooks,
    attachments,
    async inbound(address, text, io = {}) {
      const guid = io.group ?? `iMessage;-;${address}`;
      if (!chats.has(guid)) chats.set(guid, { guid, chatIdentifier: io.group ? guid.split(';+;')[1] : address, displayName: io.group ? 'Family' : '', participants: [{ address }] });
      const a = io.attachment ? attachments.get(io.attachment) : undefined;
      const event = {
        type: 'new-message',
        data: {
          guid: `in-${++n}`,
          text,
          isFromMe: false,
          handle: { address },
          chats: [{ guid, chatIdentifier: chats.get(guid)!.chatIdentifier, displayName: chats.get(guid)!.displayName }],
          attachments: a ? [{ guid: io.attachment, mimeType: a.mime, transferName: a.name, totalBytes: a.bytes.length }] : [],
          dateCreated: Date.now(),
        },
      };
      const out: number[] = [];
      for (const w of webhooks) {
        const u = new URL(w.url.replace('//localhost:', '//127.0.0.1:'));
        if (io.password !== undefined) u.searchParams.set('password', io.password);
        const r = await fetch(u, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
        out.push(r.status);
      }
      return out;
    },
    close: () => served.close(),
  };
}
