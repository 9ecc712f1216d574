// One loopback HTTP server speaking the memory providers' wire formats (Mem0, Supermemory,
// RetainDB, Hindsight, OpenViking, Honcho v3), recording every request. Recall answers carry a
// RECALL-<provider> marker so a test can find it in the next model request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface MemReq {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeMemory {
  url: string;
  requests: MemReq[];
  close(): Promise<void>;
}

const now = () => new Date().toISOString();

function route(m: string, path: string, body: any): unknown {
  // Mem0 platform and self-hosted
  if (m === 'POST' && (path === '/v2/memories/search/' || path === '/search')) return { results: [{ id: 'm1', memory: 'RECALL-mem0: the user drinks green tea', score: 0.9 }] };
  if (m === 'POST' && (path === '/v1/memories/' || path === '/memories')) return [{ id: 'm2', event: 'ADD' }];
  // Supermemory
  if (m === 'POST' && path === '/v4/profile') return { profile: { static: ['RECALL-supermemory: prefers dark mode'], dynamic: [] }, searchResults: { results: [{ id: 's1', memory: 'RECALL-supermemory hit', similarity: 0.8 }] } };
  if (m === 'POST' && path === '/v3/documents') return { id: 'doc1', status: 'queued' };
  if (m === 'POST' && path === '/v4/search') return { results: [{ id: 's1', memory: 'RECALL-supermemory hit', similarity: 0.8 }], total: 1, timing: 1 };
  if (m === 'POST' && path === '/v4/conversations') return { ok: true };
  // RetainDB
  if (m === 'GET' && path.startsWith('/v1/memory/profile/')) return { memories: [{ id: 'r1', content: 'RECALL-retaindb: works in Lisbon' }] };
  if (m === 'POST' && path === '/v1/context/query') return { context: '', memories: [{ id: 'r2', content: 'RECALL-retaindb context' }] };
  if (m === 'POST' && path === '/v1/memory/ingest/session') return { ok: true };
  // Hindsight
  if (m === 'POST' && /\/v1\/default\/banks\/[^/]+\/memories\/recall$/.test(path)) return { results: [{ text: 'RECALL-hindsight: the user owns a cat named Ada', type: 'world' }] };
  if (m === 'POST' && /\/v1\/default\/banks\/[^/]+\/memories$/.test(path)) return { success: true, items_count: body?.items?.length ?? 0 };
  if (m === 'POST' && /\/v1\/default\/banks\/[^/]+\/reflect$/.test(path)) return { text: 'reflected' };
  // OpenViking
  if (m === 'GET' && path === '/health') return { status: 'ok' };
  if (m === 'POST' && path === '/api/v1/search/find') return { status: 'ok', result: { memories: [{ uri: 'viking://user/memories/tz', abstract: 'RECALL-openviking: timezone is UTC+9', score: 0.9 }], resources: [], skills: [] } };
  if (m === 'POST' && path === '/api/v1/sessions') return { status: 'ok', result: { session_id: 'ov-1' } };
  if (m === 'POST' && /^\/api\/v1\/sessions\/[^/]+\/(messages|commit)$/.test(path)) return { status: 'ok', result: {} };
  // Honcho v3
  const hw = /^\/v3\/workspaces(?:\/([^/]+))?(.*)$/.exec(path);
  if (hw) {
    const [, ws = body?.id ?? 'hermes', rest] = hw;
    const base = { metadata: {}, configuration: {}, created_at: now() };
    if (m === 'POST' && !hw[1]) return { id: body?.id ?? 'hermes', ...base };
    let x: RegExpExecArray | null;
    if (m === 'POST' && rest === '/peers') return { id: body?.id, workspace_id: ws, ...base };
    if (m === 'POST' && rest === '/sessions') return { id: body?.id, workspace_id: ws, is_active: true, ...base };
    if ((x = /^\/sessions\/([^/]+)\/peers$/.exec(rest))) return {};
    if ((x = /^\/sessions\/([^/]+)\/messages$/.exec(rest)) && m === 'POST')
      return (body?.messages ?? []).map((msg: any, i: number) => ({ id: `msg${i}`, content: msg.content, peer_id: msg.peer_id, session_id: x![1], workspace_id: ws, metadata: {}, created_at: now(), token_count: 1 }));
    if ((x = /^\/sessions\/([^/]+)\/context$/.exec(rest))) return { id: x[1], messages: [], summary: null, peer_representation: 'RECALL-honcho: the user is a night owl', peer_card: ['Name: Sam'] };
    if ((x = /^\/peers\/([^/]+)\/chat$/.exec(rest))) return { content: 'RECALL-honcho dialectic: Sam likes terse answers' };
    if ((x = /^\/peers\/([^/]+)\/card$/.exec(rest))) return { peer_card: ['Name: Sam'] };
    if ((x = /^\/peers\/([^/]+)\/search$/.exec(rest))) return [];
  }
  return undefined;
}

export async function startFakeMemory(): Promise<FakeMemory> {
  const requests: MemReq[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      let body: any = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = String(v);
      requests.push({ method: req.method ?? 'GET', path, headers, body });
      const out = route(req.method ?? 'GET', path, body);
      if (out === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `fake memory: no route for ${req.method} ${path}` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
