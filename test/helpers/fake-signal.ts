// A fake signal-cli daemon in HTTP mode on loopback: GET /api/v1/check, the SSE event stream
// (GET /api/v1/events, `data: {"envelope": …}` records as signal-cli writes them) and JSON-RPC 2.0
// at POST /api/v1/rpc (send, sendTyping, sendReaction, getAttachment). Tests push envelopes as
// people and read what the bot sent.
import http from 'node:http';
import { serveLoopback } from './loopback.ts';

export interface SignalRpc {
  method: string;
  params: Record<string, any>;
  timestamp: number;
}

export interface FakeSignal {
  url: string;
  account: string;
  rpcs: SignalRpc[];
  attachments: Map<string, Buffer>;
  /** A person (by number) sends a message; returns its timestamp. */
  userMessage(o: { from: string; text: string; name?: string; groupId?: string; attachments?: { id: string; contentType: string; filename: string; size: number; voiceNote?: boolean }[] }): number;
  pushEnvelope(envelope: Record<string, unknown>): void;
  /** Event streams opened so far. */
  connections(): number;
  streams(): number;
  /** Ends every event stream (the daemon restarting). */
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeSignal(o: { account?: string } = {}): Promise<FakeSignal> {
  const account = o.account ?? '+15550000001';
  const rpcs: SignalRpc[] = [];
  const attachments = new Map<string, Buffer>();
  const streams = new Set<http.ServerResponse>();
  let opened = 0;
  let ts = 1_700_000_000_000;

  const push = (envelope: Record<string, unknown>) => {
    const line = `event:receive\ndata:${JSON.stringify({ envelope, account })}\n\n`;
    for (const s of streams) s.write(line);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && url.pathname === '/api/v1/check') return json(200, { versions: { 'signal-cli': '0.13.99' } });
    if (req.method === 'GET' && url.pathname === '/api/v1/events') {
      if (url.searchParams.get('account') !== account) return json(400, { error: 'unknown account' });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      opened++;
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/rpc') {
      const parts: Buffer[] = [];
      for await (const c of req) parts.push(c as Buffer);
      const call = JSON.parse(Buffer.concat(parts).toString('utf8')) as { id: number; method: string; params: Record<string, any> };
      const reply = (result: unknown) => json(200, { jsonrpc: '2.0', id: call.id, result });
      const fail = (code: number, message: string) => json(200, { jsonrpc: '2.0', id: call.id, error: { code, message } });
      if (call.params?.account !== account) return fail(-32602, 'unknown account');
      const stamp = ++ts;
      rpcs.push({ method: call.method, params: call.params, timestamp: stamp });
      switch (call.method) {
        case 'send':
          return reply({ timestamp: stamp, results: [{ type: 'SUCCESS' }] });
        case 'sendTyping':
        case 'sendReaction':
          return reply({ timestamp: stamp });
        case 'getAttachment': {
          const a = attachments.get(String(call.params.id));
          return a ? reply({ data: a.toString('base64') }) : fail(-1, 'attachment not found');
        }
        default:
          return fail(-32601, `Method not implemented: ${call.method}`);
      }
    }
    return json(404, { error: 'not found' });
  });
  const served = await serveLoopback(server);
  const port = served.port;

  return {
    url: `http://127.0.0.1:${port}`,
    account,
    rpcs,
    attachments,
    userMessage(m) {
      const stamp = ++ts;
      const dataMessage: Record<string, unknown> = { timestamp: stamp, message: m.text, expiresInSeconds: 0, viewOnce: false };
      if (m.groupId) dataMessage.groupInfo = { groupId: m.groupId, groupName: 'Test group', type: 'DELIVER' };
      if (m.attachments) dataMessage.attachments = m.attachments;
      push({ source: m.from, sourceNumber: m.from, sourceUuid: `uuid-${m.from.slice(1)}`, sourceName: m.name ?? 'Someone', sourceDevice: 1, timestamp: stamp, dataMessage });
      return stamp;
    },
    pushEnvelope: push,
    connections: () => opened,
    streams: () => streams.size,
    drop() {
      for (const s of streams) s.end();
      streams.clear();
    },
    async close() {
      for (const s of streams) s.end();
      await served.close();
    },
  };
}
