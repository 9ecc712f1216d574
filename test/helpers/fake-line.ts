// A fake LINE Messaging API on loopback (api.line.me and api-data.line.me on one port): bot info,
// reply (single-use tokens, mapped to the chat they came from), push, loading animation, message
// content; and `webhook`, which signs a message event with the channel secret (X-Line-Signature)
// and posts it to the bot.
import http from 'node:http';
import { lineSignature } from '../../src/gateway/platforms/line.ts';
import { serveLoopback } from './loopback.ts';

export interface FakeLineSent {
  id: string;
  to: string;
  via: 'reply' | 'push';
  text: string;
  messages: { type: string; text?: string; originalContentUrl?: string }[];
}

export interface FakeLine {
  url: string;
  token: string;
  secret: string;
  sent: FakeLineSent[];
  content: Map<string, { bytes: Buffer; type: string }>;
  loading: string[];
  webhook(endpoint: string, e: { user: string; group?: string; text?: string; image?: string; mentionSelf?: boolean; expiredToken?: boolean }, o?: { secret?: string }): Promise<number>;
  close(): Promise<void>;
}

export async function startFakeLine(): Promise<FakeLine> {
  const token = 'line-channel-access-token';
  const secret = '0123456789abcdef0123456789abcdef';
  const sent: FakeLineSent[] = [];
  const content = new Map<string, { bytes: Buffer; type: string }>();
  const loading: string[] = [];
  const replyTokens = new Map<string, string>();
  let n = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { message: 'Authentication failed. Confirm that the access token in the authorization header is valid.' });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as { replyToken?: string; to?: string; messages?: FakeLineSent['messages']; chatId?: string };
    let m: RegExpExecArray | null;
    const record = (to: string, via: 'reply' | 'push') => {
      const msgs = body.messages ?? [];
      if (!msgs.length || msgs.length > 5) return json(400, { message: 'The request body has 1 error(s)', details: [{ message: 'Size must be between 1 and 5', property: 'messages' }] });
      for (const x of msgs) if (x.type === 'text' && (x.text ?? '').length > 5000) return json(400, { message: 'text too long' });
      const ids = msgs.map((x) => {
        const s = { id: `out${++n}`, to, via, text: x.text ?? '', messages: [x] };
        sent.push(s);
        return { id: s.id, quoteToken: `q${n}` };
      });
      return json(200, { sentMessages: ids });
    };
    if (req.method === 'GET' && url.pathname === '/v2/bot/info') return json(200, { userId: 'Ubot0000000000000000000000000000', basicId: '@hermes', displayName: 'Hermes', chatMode: 'bot', markAsReadMode: 'auto' });
    if (req.method === 'POST' && url.pathname === '/v2/bot/message/reply') {
      const to = replyTokens.get(body.replyToken ?? '');
      if (!to) return json(400, { message: 'Invalid reply token' });
      replyTokens.delete(body.replyToken!);
      return record(to, 'reply');
    }
    if (req.method === 'POST' && url.pathname === '/v2/bot/message/push') {
      if (!/^[UCR][0-9a-f]{32}$/.test(body.to ?? '')) return json(400, { message: 'The property, \'to\', in the request body is invalid' });
      return record(body.to!, 'push');
    }
    if (req.method === 'POST' && url.pathname === '/v2/bot/chat/loading/start') {
      loading.push(body.chatId ?? '');
      return json(202, {});
    }
    if (req.method === 'GET' && (m = /^\/v2\/bot\/message\/([^/]+)\/content$/.exec(url.pathname))) {
      const c = content.get(m[1]);
      return c ? res.writeHead(200, { 'content-type': c.type }).end(c.bytes) : json(404, { message: 'Not found' });
    }
    return json(404, { message: 'Not found' });
  });
  const served = await serveLoopback(server);
  return {
    url: served.url,
    token,
    secret,
    sent,
    content,
    loading,
    async webhook(endpoint, e, o = {}) {
      const id = `${Date.now()}${++n}`;
      const replyToken = `rt${n}`;
      const chat = e.group ?? e.user;
      if (!e.expiredToken) replyTokens.set(replyToken, chat);
      const message = e.image ? { id: e.image, type: 'image', contentProvider: { type: 'line' } } : { id, type: 'text', text: e.mentionSelf ? `@Hermes ${e.text}` : e.text, ...(e.mentionSelf ? { mention: { mentionees: [{ index: 0, length: 7, type: 'user', userId: 'Ubot0000000000000000000000000000', isSelf: true }] } } : {}) };
      const payload = JSON.stringify({ destination: 'Ubot0000000000000000000000000000', events: [{ type: 'message', mode: 'active', timestamp: Date.now(), webhookEventId: `ev${id}`, deliveryContext: { isRedelivery: false }, replyToken, source: e.group ? { type: 'group', groupId: e.group, userId: e.user } : { type: 'user', userId: e.user }, message }] });
      const r = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'x-line-signature': lineSignature(o.secret ?? secret, payload) }, body: payload });
      return r.status;
    },
    close: () => served.close(),
  };
}
