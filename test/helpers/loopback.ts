// Fake platform servers share this: listen on a free loopback port, remember open sockets, and on
// close cut them (long polls and event streams would otherwise keep `server.close` waiting).
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Served {
  port: number;
  url: string;
  /** Destroys every open socket, then closes the server. */
  close(): Promise<void>;
}

export async function serveLoopback(server: http.Server): Promise<Served> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
