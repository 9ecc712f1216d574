// A fake Google for a Chat app on loopback: the OAuth token endpoint (JWT-bearer assertions signed
// with the service account key it issued), Google's ID-token JWKS, and the Chat REST API (create and
// PATCH messages, media downloads) recording what the app shows. `event` posts a MESSAGE event with
// a Google-signed ID token the way Chat calls an HTTP endpoint.
import { createSign, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { serveLoopback } from './loopback.ts';

export interface FakeChatMessage {
  name: string;
  space: string;
  thread?: string;
  text: string;
  edits: number;
}

export interface FakeGoogleChat {
  url: string;
  serviceAccountJson: string;
  messages: FakeChatMessage[];
  media: Map<string, { bytes: Buffer; type: string; name: string }>;
  jwksUrl: string;
  event(endpoint: string, audience: string, e: { user: string; space: string; dm?: boolean; text: string; mention?: boolean; media?: string; displayName?: string }, o?: { token?: string; email?: string }): Promise<number>;
  sign(claims: Record<string, unknown>, key?: KeyObject): string;
  close(): Promise<void>;
}

const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export async function startFakeGoogleChat(): Promise<FakeGoogleChat> {
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const google = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = 'google-kid-1';
  const accessToken = 'ya29.fake-chat-token';
  const messages: FakeChatMessage[] = [];
  const media = new Map<string, { bytes: Buffer; type: string; name: string }>();
  let n = 0;
  let base = '';
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let m: RegExpExecArray | null;
    if (url.pathname === '/certs') return json(200, { keys: [{ ...(google.publicKey.export({ format: 'jwk' }) as object), kid, alg: 'RS256', use: 'sig' }] });
    if (url.pathname === '/token' && req.method === 'POST') {
      const p = new URLSearchParams(raw);
      const [h, b, s] = String(p.get('assertion')).split('.');
      const ok = p.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && s && createVerify('RSA-SHA256').update(`${h}.${b}`).verify(sa.publicKey, Buffer.from(s, 'base64url'));
      const claims = ok ? JSON.parse(Buffer.from(b, 'base64url').toString()) : {};
      if (!ok || claims.scope !== 'https://www.googleapis.com/auth/chat.bot') return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return json(200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
    }
    if (req.headers.authorization !== `Bearer ${accessToken}`) return json(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
    if ((m = /^\/v1\/media\/(.+)$/.exec(url.pathname))) {
      const f = media.get(decodeURIComponent(m[1]));
      return f ? res.writeHead(200, { 'content-type': f.type }).end(f.bytes) : json(404, { error: { message: 'not found' } });
    }
    if (req.method === 'POST' && (m = /^\/v1\/(spaces\/[\w-]+)\/messages$/.exec(url.pathname))) {
      const body = JSON.parse(raw || '{}') as { text?: string; thread?: { name?: string } };
      const msg = { name: `${m[1]}/messages/out${++n}`, space: m[1], thread: body.thread?.name, text: body.text ?? '', edits: 0 };
      messages.push(msg);
      return json(200, { name: msg.name, text: msg.text, thread: { name: msg.thread ?? `${m[1]}/threads/t${n}` } });
    }
    if (req.method === 'PATCH' && (m = /^\/v1\/(spaces\/[\w-]+\/messages\/[\w-]+)$/.exec(url.pathname))) {
      const msg = messages.find((x) => x.name === m![1]);
      if (!msg) return json(404, { error: { message: 'message not found' } });
      if (url.searchParams.get('updateMask') !== 'text') return json(400, { error: { message: 'updateMask required' } });
      msg.text = (JSON.parse(raw || '{}') as { text?: string }).text ?? '';
      msg.edits++;
      return json(200, { name: msg.name, text: msg.text });
    }
    return json(404, { error: { message: `no route ${url.pathname}` } });
  });
  const served = await serveLoopback(server);
  base = served.url;
  const sign = (claims: Record<string, unknown>, key: KeyObject = google.privateKey) => {
    const head = b64u(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
    const body = b64u(JSON.stringify(claims));
    return `${head}.${body}.${b64u(createSign('RSA-SHA256').update(`${head}.${body}`).sign(key))}`;
  };
  const serviceAccountJson = JSON.stringify({ type: 'service_account', project_id: 'fake-project', client_email: 'hermes-bot@fake-project.iam.gserviceaccount.com', private_key: sa.privateKey.export({ format: 'pem', type: 'pkcs8' }), token_uri: `${base}/token` });
  return {
    url: base,
    serviceAccountJson,
    messages,
    media,
    jwksUrl: `${base}/certs`,
    sign,
    async event(endpoint, audience, e, o = {}) {
      const now = Math.floor(Date.now() / 1000);
      const token = o.token ?? sign({ iss: 'https://accounts.google.com', aud: audience, email: o.email ?? 'chat@system.gserviceaccount.com', email_verified: true, iat: now, exp: now + 3600 });
      const id = ++n;
      const a = e.media ? media.get(e.media) : undefined;
      const ev = {
        type: 'MESSAGE',
        eventTime: new Date().toISOString(),
        space: { name: e.space, type: e.dm ? 'DM' : 'ROOM', spaceType: e.dm ? 'DIRECT_MESSAGE' : 'SPACE', displayName: e.dm ? '' : 'Ops' },
        message: {
          name: `${e.space}/messages/in${id}`,
          text: e.mention ? `@Hermes ${e.text}` : e.text,
          argumentText: e.mention ? ` ${e.text}` : e.text,
          sender: { name: `users/${e.user}`, displayName: e.displayName ?? e.user, email: `${e.user}@example.com`, type: 'HUMAN' },
          thread: { name: `${e.space}/threads/th${id}` },
          annotations: e.mention ? [{ type: 'USER_MENTION', userMention: { user: { name: 'users/app', type: 'BOT' } } }] : [],
          attachment: a ? [{ name: `${e.space}/messages/in${id}/attachments/a1`, contentName: a.name, contentType: a.type, attachmentDataRef: { resourceName: e.media }, source: 'UPLOADED_CONTENT' }] : [],
        },
        user: { name: `users/${e.user}`, displayName: e.displayName ?? e.user, email: `${e.user}@example.com`, type: 'HUMAN' },
      };
      const r = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(ev) });
      return r.status;
    },
    close: () => served.close(),
  };
}
