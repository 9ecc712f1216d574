// A fake Twilio on loopback: the Messages API (form-encoded, HTTP Basic with the account SID and
// auth token), account lookup, MMS media behind the same auth, and a signer that posts webhooks the
// way Twilio does (form body, X-Twilio-Signature over the public URL and the sorted parameters).
import http from 'node:http';
import { twilioSignature } from '../../src/gateway/platforms/sms.ts';
import { serveLoopback } from './loopback.ts';

export interface FakeTwilio {
  url: string;
  sid: string;
  token: string;
  number: string;
  sent: { sid: string; to: string; from: string; body: string }[];
  media: Map<string, { bytes: Buffer; type: string }>;
  /** Posts an inbound SMS webhook (signed for `publicUrl`) to `postUrl`; returns the HTTP status. */
  inbound(postUrl: string, publicUrl: string, o: { from: string; body: string; media?: string[]; token?: string }): Promise<number>;
  close(): Promise<void>;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const sid = `AC${'0123456789abcdef'.repeat(2)}`;
  const token = 'twilio-auth-token';
  const number = '+15550001234';
  const sent: FakeTwilio['sent'] = [];
  const media = new Map<string, { bytes: Buffer; type: string }>();
  let n = 0;
  const basic = `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== basic) return json(401, { code: 20003, message: 'Authenticate', status: 401 });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && url.pathname === `/2010-04-01/Accounts/${sid}/Messages.json`) {
      const p = Object.fromEntries(new URLSearchParams(Buffer.concat(parts).toString('utf8')));
      if (!p.To?.startsWith('+')) return json(400, { code: 21211, message: `The 'To' number ${p.To} is not a valid phone number.`, status: 400 });
      const msg = { sid: `SM${++n}`, to: p.To, from: p.From, body: p.Body };
      sent.push(msg);
      return json(201, { ...msg, status: 'queued', account_sid: sid });
    }
    if (req.method === 'GET' && url.pathname === `/2010-04-01/Accounts/${sid}.json`) return json(200, { sid, friendly_name: 'Fake account', status: 'active' });
    if (req.method === 'GET' && (m = /^\/media\/(.+)$/.exec(url.pathname))) {
      const f = media.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.type, 'content-length': f.bytes.length }).end(f.bytes) : json(404, { message: 'not found' });
    }
    return json(404, { message: 'not found' });
  });
  const served = await serveLoopback(server);
  return {
    url: served.url,
    sid,
    token,
    number,
    sent,
    media,
    async inbound(postUrl, publicUrl, o) {
      const params: Record<string, string> = { AccountSid: sid, MessageSid: `SMIN${++n}`, SmsSid: `SMIN${n}`, From: o.from, To: number, Body: o.body, NumMedia: String(o.media?.length ?? 0) };
      (o.media ?? []).forEach((id, i) => {
        params[`MediaUrl${i}`] = `${served.url}/media/${id}`;
        params[`MediaContentType${i}`] = media.get(id)?.type ?? 'application/octet-stream';
      });
      const r = await fetch(postUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(o.token ?? token, publicUrl, params) }, body: new URLSearchParams(params).toString() });
      return r.status;
    },
    close: () => served.close(),
  };
}
