// A fake Meta Graph API for the WhatsApp Cloud API on loopback (/{version}/{phone_number_id}/messages,
// media lookup and download, media upload), plus a signer for webhooks as Meta sends them.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveLoopback } from './loopback.ts';

export interface FakeGraph {
  url: string;
  token: string;
  phoneNumberId: string;
  appSecret: string;
  sent: { to: string; type: string; body: Record<string, any>; id: string }[];
  media: Map<string, { bytes: Buffer; mime: string }>;
  /** POSTs a signed webhook with these messages to the adapter's server. */
  deliver(webhookUrl: string, messages: Record<string, unknown>[], contacts?: { wa_id: string; name: string }[], secret?: string): Promise<number>;
  close(): Promise<void>;
}

export async function startFakeGraph(): Promise<FakeGraph> {
  const token = 'EAAtesttoken';
  const phoneNumberId = '106540352242922';
  const appSecret = '0123456789abcdef0123456789abcdef';
  const sent: FakeGraph['sent'] = [];
  const media = new Map<string, { bytes: Buffer; mime: string }>();
  let n = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { error: { message: 'Invalid OAuth access token.', code: 190 } });
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && url.pathname === `/v20.0/${phoneNumberId}/messages`) {
      const body = JSON.parse(raw.toString('utf8'));
      const id = `wamid.OUT${++n}`;
      sent.push({ to: body.to, type: body.type, body, id });
      return json(200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] });
    }
    if (req.method === 'POST' && url.pathname === `/v20.0/${phoneNumberId}/media`) {
      const id = `media${++n}`;
      media.set(id, { bytes: raw, mime: 'application/octet-stream' });
      return json(200, { id });
    }
    if (req.method === 'GET' && (m = /^\/v20\.0\/(media[^/]+)$/.exec(url.pathname))) {
      const f = media.get(m[1]);
      if (!f) return json(404, { error: { message: 'no media' } });
      return json(200, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/files/${m[1]}`, mime_type: f.mime, file_size: f.bytes.length, id: m[1], messaging_product: 'whatsapp' });
    }
    if (req.method === 'GET' && (m = /^\/files\/(.+)$/.exec(url.pathname))) {
      const f = media.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.mime }).end(f.bytes) : json(404, {});
    }
    return json(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  });
  const served = await serveLoopback(server);
  const port = served.port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    phoneNumberId,
    appSecret,
    sent,
    media,
    async deliver(webhookUrl, messages, contacts = [], secret = appSecret) {
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId }, contacts: contacts.map((c) => ({ profile: { name: c.name }, wa_id: c.wa_id })), messages } }] }],
      });
      const sig = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const r = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sig }, body });
      return r.status;
    },
    async close() {
      await served.close();
    },
  };
}
