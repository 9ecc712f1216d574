// A loopback HTTP proxy in front of the fake LLM (or any upstream) that breaks responses the way
// networks and providers do: it cuts the connection after N bytes of the body, resets it, stalls
// before the first byte or mid-stream, or slips a malformed event into the SSE stream. Each
// request takes the next planned fault (`enqueue`), else the default (`setDefault`, initially
// none): the request always reaches the upstream, so what the model "said" is the upstream's reply.
//
//   cutAfter: N      write N bytes of the body, then close the connection (a clean FIN, no end of body)
//   resetAfter: N    write N bytes of the body, then reset the connection (RST)
//   stallAfter: N    write N bytes of the body, then nothing more (the connection stays open)
//   stallBeforeFirstByte  no status line at all (the request is read and forwarded, the answer held)
//   malformedAfterEvents: N  after N whole SSE events, an event whose data is not JSON; the rest follows
//   status: S        answer S with a JSON error body instead of forwarding (a 503 wave)
//   match: /re/      only a request whose body matches takes this fault (others pass it by)
//
// Sizes count the response body as the upstream sent it (SSE text), not headers or chunk framing.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Fault {
  cutAfter?: number;
  resetAfter?: number;
  stallAfter?: number;
  stallBeforeFirstByte?: boolean;
  malformedAfterEvents?: number;
  status?: number;
  match?: RegExp;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The request body (its first 4,000 characters). */
  body: string;
  fault: Fault | null;
}

export interface FaultProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** url + '/v1' */
  openaiBaseUrl: string;
  /** Faults for the next POST requests, in order (GETs such as /models always pass). */
  enqueue(...faults: Fault[]): void;
  /** The fault for a POST when no queued one applies (null: pass through). */
  setDefault(fault: Fault | null): void;
  /** Every request seen, with the fault it got. */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

const MALFORMED = 'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {oops\n\n';

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const queue: Fault[] = [];
  let fallback: Fault | null = null;
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let fault: Fault | null = null;
    const text = body.toString('utf8');
    if (req.method === 'POST') {
      const i = queue.findIndex((f) => !f.match || f.match.test(text));
      fault = i >= 0 ? queue.splice(i, 1)[0] : fallback && (!fallback.match || fallback.match.test(text)) ? fallback : null;
    }
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', body: text.slice(0, 4000), fault });
    if (fault?.status) {
      const err = JSON.stringify({ error: { message: `Service unavailable (fault proxy ${fault.status})`, type: 'server_error', code: 'server_error' } });
      res.writeHead(fault.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(err) });
      res.end(err);
      return;
    }
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (upRes) => {
        if (fault?.stallBeforeFirstByte) {
          upRes.resume();
          return; // the client hears nothing; it gives up, or close() ends it
        }
        const headers = { ...upRes.headers };
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        res.writeHead(upRes.statusCode ?? 502, headers);
        let sent = 0;
        let events = 0;
        let injected = false;
        let stopped = false;
        const limit = fault?.cutAfter ?? fault?.resetAfter ?? fault?.stallAfter;
        upRes.on('data', (chunk: Buffer) => {
          if (stopped) return;
          let text = chunk.toString('utf8');
          if (fault?.malformedAfterEvents !== undefined && !injected) {
            // Split at event boundaries and slip the bad event in after the Nth.
            let out = '';
            let rest = text;
            for (;;) {
              const end = rest.indexOf('\n\n');
              if (end < 0 || injected) break;
              out += rest.slice(0, end + 2);
              rest = rest.slice(end + 2);
              if (++events === fault.malformedAfterEvents) {
                out += MALFORMED;
                injected = true;
              }
            }
            text = out + rest;
          }
          if (limit !== undefined && sent + Buffer.byteLength(text) >= limit) {
            const part = Buffer.from(text).subarray(0, Math.max(0, limit - sent));
            stopped = true;
            upRes.resume();
            res.write(part, () => {
              if (fault?.cutAfter !== undefined) res.socket?.end();
              else if (fault?.resetAfter !== undefined) res.socket?.resetAndDestroy();
              // stallAfter: nothing more
            });
            return;
          }
          sent += Buffer.byteLength(text);
          res.write(text);
        });
        upRes.on('end', () => {
          if (!stopped) res.end();
        });
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
    res.on('close', () => up.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    enqueue: (...f) => void queue.push(...f),
    setDefault: (f) => void (fallback = f),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
