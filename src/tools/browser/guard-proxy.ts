// The local browser's guard: an HTTP proxy on loopback (with a per-launch password) that every
// request of the local Chromium goes through — page loads, subresources, redirect hops, workers,
// WebSockets (CONNECT), loopback included (Playwright adds `<-loopback>`). Each request is checked
// against the URL policy, the host is resolved here and the connection goes to the checked address,
// so DNS rebinding cannot swap in a private one. Refusals are recorded for the tools to report.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { isIP, connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { UrlBlock, UrlGuard } from './url-policy.ts';

export interface BlockRecord extends UrlBlock {
  at: number;
}

export interface GuardProxy {
  server: string;
  username: string;
  password: string;
  /** Refusals, oldest first (at most 200 kept). */
  readonly blocked: BlockRecord[];
  close(): Promise<void>;
}

const HOP_HEADERS = ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function blockedPage(message: string): string {
  return `<!doctype html><html><head><title>Blocked by Hermes</title></head><body><h1>Blocked by Hermes</h1><p>${escapeHtml(message)}</p></body></html>`;
}

export async function startGuardProxy(guard: UrlGuard): Promise<GuardProxy> {
  const username = 'hermes';
  const password = randomBytes(18).toString('base64url');
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const blocked: BlockRecord[] = [];
  const record = (b: UrlBlock) => {
    blocked.push({ ...b, at: Date.now() });
    if (blocked.length > 200) blocked.splice(0, blocked.length - 200);
  };
  const sockets = new Set<Duplex>();

  /** The address to connect to for `host`, after every address it resolves to passed the rules. */
  const pick = async (host: string, url: string): Promise<{ ip: string } | { block: UrlBlock }> => {
    const bare = host.replace(/^\[|\]$/g, '');
    let ips: string[];
    if (isIP(bare)) ips = [bare];
    else {
      try {
        ips = await guard.resolve(bare);
      } catch (e) {
        return { block: { url, kind: 'dns', message: `Could not resolve ${bare}: ${(e as Error).message}` } };
      }
    }
    if (!ips.length) return { block: { url, kind: 'dns', message: `Could not resolve ${bare}.` } };
    for (const ip of ips) {
      const b = guard.checkAddress(bare, ip);
      if (b) return { block: { ...b, url } };
    }
    return { ip: ips[0] };
  };

  const server = http.createServer(async (req, res) => {
    if (req.headers['proxy-authorization'] !== expected) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="hermes"' });
      res.end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400);
      res.end();
      return;
    }
    const refuse = (b: UrlBlock) => {
      if (b.kind !== 'dns') record(b);
      res.writeHead(b.kind === 'dns' ? 502 : 403, { 'content-type': 'text/html; charset=utf-8', 'x-hermes-blocked': encodeURIComponent(b.message) });
      res.end(blockedPage(b.message));
    };
    const verdict = await guard.check(url.href, { dns: false });
    if (verdict) return refuse(verdict);
    const target = await pick(url.hostname, url.href);
    if ('block' in target) return refuse(target.block);
    const headers = { ...req.headers };
    for (const h of HOP_HEADERS) delete headers[h];
    const up = http.request(
      { host: target.ip, port: Number(url.port) || 80, path: `${url.pathname}${url.search}`, method: req.method, headers, setHost: false },
      (r) => {
        const out = { ...r.headers };
        for (const h of ['connection', 'keep-alive', 'proxy-connection']) delete out[h];
        res.writeHead(r.statusCode ?? 502, r.statusMessage, out);
        r.pipe(res);
      },
    );
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Upstream error: ${e.message}`);
    });
    req.pipe(up);
  });

  server.on('connect', async (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (req.headers['proxy-authorization'] !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="hermes"\r\n\r\n');
      return;
    }
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!m) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, host, port] = m;
    const url = `https://${host}${port === '443' ? '' : `:${port}`}/`;
    const refuse = (b: UrlBlock) => {
      if (b.kind !== 'dns') record(b);
      client.end(`HTTP/1.1 ${b.kind === 'dns' ? '502 Bad Gateway' : '403 Forbidden'}\r\nX-Hermes-Blocked: ${encodeURIComponent(b.message)}\r\n\r\n`);
    };
    const verdict = await guard.check(url, { dns: false });
    if (verdict) return refuse(verdict);
    const target = await pick(host, url);
    if ('block' in target) return refuse(target.block);
    const up = connect(Number(port), target.ip, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
    client.on('close', () => up.destroy());
  });

  // Plain (non-CONNECT) WebSocket upgrades are not proxied; Chromium tunnels WebSockets with CONNECT.
  server.on('upgrade', (_req, socket: Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
  server.on('clientError', (_e, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const port = (server.address() as { port: number }).port;
  return {
    server: `http://127.0.0.1:${port}`,
    username,
    password,
    blocked,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
