// The small HTTP server that webhook-style platforms (BlueBubbles, Teams, Google Chat, LINE) listen
// on: reads the body up to a cap, hands it to the platform's handler, writes its answer. Binding
// errors reject `listen` so the supervisor reports and retries them.
import type { IncomingMessage, Server } from 'node:http';

export interface InboundReply {
  status: number;
  body?: string | Buffer;
  type?: string;
}

export type InboundHandler = (req: IncomingMessage, url: URL, body: Buffer) => InboundReply | Promise<InboundReply>;

export interface InboundServer {
  port: number;
  close(): Promise<void>;
}

export async function listenInbound(host: string, port: number, handler: InboundHandler, o: { maxBytes?: number; log?: (l: string) => void } = {}): Promise<InboundServer> {
  const http = await import('node:http');
  const max = o.maxBytes ?? 1024 * 1024;
  const server: Server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        res.writeHead(413).end();
        req.destroy();
      } else parts.push(c);
    });
    req.on('end', () => {
      if (size > max) return;
      Promise.resolve()
        .then(() => handler(req, new URL(req.url ?? '/', 'http://x'), Buffer.concat(parts)))
        .then((r) => res.writeHead(r.status, { 'content-type': r.type ?? 'application/json' }).end(r.body ?? ''))
        .catch((e) => {
          o.log?.(`inbound request failed: ${(e as Error).message}`);
          if (!res.headersSent) res.writeHead(500).end();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host || undefined, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
