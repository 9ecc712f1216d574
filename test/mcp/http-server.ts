// An MCP server over Streamable HTTP (and legacy SSE) on loopback, started by a test.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestHttpMcp {
  url: string;
  sseUrl: string;
  /** Authorization headers seen. */
  auth: string[];
  calls: string[];
  close(): Promise<void>;
}

function makeServer(calls: string[]): McpServer {
  const s = new McpServer({ name: 'hermes-http-test', version: '1.0.0' });
  s.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    calls.push(`add ${a} ${b}`);
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  s.registerResource('readme', 'memo://readme', { mimeType: 'text/plain', description: 'A memo' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'remember the milk' }] }));
  s.registerPrompt('greet', { description: 'A greeting', argsSchema: { name: z.string() } }, ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }] }));
  return s;
}

export async function startHttpMcp(opts: { token?: string } = {}): Promise<TestHttpMcp> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const auth: string[] = [];
  const calls: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer(async (req, res) => {
    auth.push(req.headers.authorization ?? '');
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/sse' && req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      sse.set(t.sessionId, t);
      res.on('close', () => sse.delete(t.sessionId));
      await makeServer(calls).connect(t);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const t = sse.get(url.searchParams.get('sessionId') ?? '');
      if (!t) return void res.writeHead(404).end();
      await t.handlePostMessage(req, res);
      return;
    }
    if (url.pathname !== '/mcp') return void res.writeHead(404).end();
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, created) });
      t = created;
      await makeServer(calls).connect(t);
    }
    await t.handleRequest(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    auth,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of transports.values()) void t.close();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
