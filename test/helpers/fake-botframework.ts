// A fake Bot Framework on loopback: OpenID metadata and a JWKS (a fresh RSA key, endorsed for
// msteams), an Entra ID token endpoint (client credentials), and the connector API
// (POST/PUT /v3/conversations/{id}/activities) that records what the bot shows, edits included.
// `post` signs an activity the way the Bot Connector does and posts it to the bot's endpoint.
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { serveLoopback } from './loopback.ts';

export interface FakeTeamsMessage {
  id: string;
  conversation: string;
  text: string;
  edits: number;
  attachments?: unknown[];
  replyToId?: string;
}

export interface FakeBotFramework {
  url: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  metadataUrl: string;
  tokenUrl: string;
  messages: FakeTeamsMessage[];
  typing: string[];
  files: Map<string, { bytes: Buffer; type: string }>;
  /** Signs (unless `token` is given) and posts a message activity to `endpoint`; returns the HTTP status. */
  post(endpoint: string, a: { from: string; name?: string; conversation: string; type?: 'personal' | 'groupChat' | 'channel'; text: string; mention?: boolean; image?: string }, o?: { token?: string; serviceUrl?: string; claimServiceUrl?: string }): Promise<number>;
  /** A token signed by the fake's key with the given claims (for negative tests). */
  sign(claims: Record<string, unknown>, key?: KeyObject): string;
  close(): Promise<void>;
}

const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export async function startFakeBotFramework(): Promise<FakeBotFramework> {
  const clientId = '11111111-2222-3333-4444-555555555555';
  const clientSecret = 'teams-client-secret';
  const tenantId = '99999999-8888-7777-6666-555555555555';
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = 'fake-kid-1';
  const messages: FakeTeamsMessage[] = [];
  const typing: string[] = [];
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const botToken = 'bot-access-token-xyz';
  let n = 0;
  let base = '';
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let m: RegExpExecArray | null;
    if (url.pathname === '/openid') return json(200, { issuer: 'https://api.botframework.com', jwks_uri: `${base}/keys`, id_token_signing_alg_values_supported: ['RS256'] });
    if (url.pathname === '/keys') return json(200, { keys: [{ ...(publicKey.export({ format: 'jwk' }) as object), kid, use: 'sig', endorsements: ['msteams'] }] });
    if (url.pathname === `/${tenantId}/oauth2/v2.0/token` && req.method === 'POST') {
      const p = new URLSearchParams(raw);
      if (p.get('client_id') !== clientId || p.get('client_secret') !== clientSecret || p.get('grant_type') !== 'client_credentials') return json(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
      return json(200, { token_type: 'Bearer', expires_in: 3599, access_token: botToken });
    }
    if ((m = /^\/files\/(.+)$/.exec(url.pathname))) {
      if (req.headers.authorization !== `Bearer ${botToken}`) return json(401, { message: 'unauthorized' });
      const f = files.get(m[1]);
      return f ? res.writeHead(200, { 'content-type': f.type }).end(f.bytes) : json(404, {});
    }
    if ((m = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname))) {
      if (req.headers.authorization !== `Bearer ${botToken}`) return json(401, { error: { code: 'Unauthorized', message: 'Authorization has been denied for this request.' } });
      const conv = decodeURIComponent(m[1]);
      const body = JSON.parse(raw || '{}') as { type?: string; text?: string; attachments?: unknown[]; replyToId?: string };
      if (req.method === 'POST') {
        if (body.type === 'typing') {
          typing.push(conv);
          return json(200, {});
        }
        const msg = { id: `act-${++n}`, conversation: conv, text: body.text ?? '', edits: 0, attachments: body.attachments, replyToId: body.replyToId };
        messages.push(msg);
        return json(201, { id: msg.id });
      }
      if (req.method === 'PUT' && m[2]) {
        const msg = messages.find((x) => x.id === decodeURIComponent(m![2]));
        if (!msg) return json(404, { error: { code: 'NotFound', message: 'activity not found' } });
        msg.text = body.text ?? '';
        msg.edits++;
        return json(200, { id: msg.id });
      }
    }
    return json(404, { error: { message: 'not found' } });
  });
  const served = await serveLoopback(server);
  base = served.url;
  const sign = (claims: Record<string, unknown>, key: KeyObject = privateKey) => {
    const head = b64u(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
    const body = b64u(JSON.stringify(claims));
    const s = createSign('RSA-SHA256').update(`${head}.${body}`).sign(key);
    return `${head}.${body}.${b64u(s)}`;
  };
  return {
    url: base,
    clientId,
    clientSecret,
    tenantId,
    metadataUrl: `${base}/openid`,
    tokenUrl: `${base}/${tenantId}/oauth2/v2.0/token`,
    messages,
    typing,
    files,
    sign,
    async post(endpoint, a, o = {}) {
      const serviceUrl = o.serviceUrl ?? base;
      const now = Math.floor(Date.now() / 1000);
      const token = o.token ?? sign({ iss: 'https://api.botframework.com', aud: clientId, exp: now + 3600, nbf: now - 10, serviceurl: o.claimServiceUrl ?? serviceUrl });
      const type = a.type ?? 'personal';
      const activity = {
        type: 'message',
        id: `in-${++n}`,
        channelId: 'msteams',
        serviceUrl,
        from: { id: `29:${a.from}`, name: a.name ?? a.from, aadObjectId: a.from },
        recipient: { id: `28:${clientId}`, name: 'Hermes' },
        conversation: { id: a.conversation, conversationType: type, tenantId },
        text: a.mention ? `<at>Hermes</at> ${a.text}` : a.text,
        entities: a.mention ? [{ type: 'mention', mentioned: { id: `28:${clientId}`, name: 'Hermes' }, text: '<at>Hermes</at>' }] : [],
        attachments: a.image ? [{ contentType: files.get(a.image)?.type ?? 'image/png', contentUrl: `${base}/files/${a.image}`, name: `${a.image}.png` }] : [],
        channelData: type === 'channel' ? { team: { id: '19:team@thread.tacv2' }, channel: { id: a.conversation.split(';')[0] } } : {},
      };
      const r = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(activity) });
      return r.status;
    },
    close: () => served.close(),
  };
}
