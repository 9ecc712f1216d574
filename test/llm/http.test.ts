import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { nodeFetch } from '../../src/llm/http.ts';

let server: http.Server;
let base: string;
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-seen-encoding': String(req.headers['accept-encoding']) });
        res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }));
      } else if (u.pathname === '/gzip' || u.pathname === '/br') {
        const payload = Buffer.from('compressed hello '.repeat(100));
        const enc = u.pathname === '/gzip' ? zlib.gzipSync(payload) : zlib.brotliCompressSync(payload);
        res.writeHead(200, { 'content-encoding': u.pathname.slice(1), 'content-length': enc.length });
        res.end(enc);
      } else if (u.pathname === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let i = 0;
        const t = setInterval(() => {
          res.write(`data: ${i++}\n\n`);
          if (i === 3) {
            clearInterval(t);
            res.end();
          }
        }, 5);
      } else if (u.pathname === '/hang') {
        res.writeHead(200);
        res.write('partial');
      } else if (u.pathname === '/empty') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(404);
        res.end('nope');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

describe('nodeFetch', () => {
  it('sends method, headers and body and returns status, headers and JSON', async () => {
    const r = await nodeFetch(`${base}/echo`, { method: 'POST', headers: { Authorization: 'Bearer k', 'Content-Type': 'application/json' }, body: '{"a":1}' });
    assert.equal(r.status, 201);
    assert.equal(r.ok, true);
    assert.match(r.headers.get('x-seen-encoding')!, /gzip/);
    assert.deepEqual(await r.json(), { method: 'POST', body: '{"a":1}', auth: 'Bearer k' });
  });

  it('decompresses gzip and brotli bodies', async () => {
    for (const enc of ['gzip', 'br']) {
      const r = await nodeFetch(`${base}/${enc}`);
      assert.equal(r.headers.get('content-encoding'), null);
      assert.equal(await r.text(), 'compressed hello '.repeat(100));
    }
  });

  it('streams a body as it arrives', async () => {
    const r = await nodeFetch(`${base}/stream`);
    const chunks: string[] = [];
    for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c).toString());
    assert.equal(chunks.join(''), 'data: 0\n\ndata: 1\n\ndata: 2\n\n');
  });

  it('handles null-body statuses and errors statuses', async () => {
    const e = await nodeFetch(`${base}/empty`);
    assert.equal(e.status, 204);
    assert.equal(e.body, null);
    const n = await nodeFetch(`${base}/missing`);
    assert.equal(n.status, 404);
    assert.equal(await n.text(), 'nope');
  });

  it('rejects with AbortError when aborted before or during the body', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(nodeFetch(`${base}/echo`, { signal: ac.signal }), { name: 'AbortError' });
    const ac2 = new AbortController();
    const r = await nodeFetch(`${base}/hang`, { signal: ac2.signal });
    const reader = r.body!.getReader();
    await reader.read();
    setTimeout(() => ac2.abort(), 10);
    await assert.rejects(reader.read());
  });

  it('rejects like fetch (TypeError with a cause) when nothing listens', async () => {
    await assert.rejects(nodeFetch('http://127.0.0.1:9/x'), (e: unknown) => e instanceof TypeError && (e as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED');
  });

  it('sends again once on a fresh socket when a kept-alive socket was closed by the server (ECONNRESET)', async () => {
    // The server answers the first request on each connection and resets the connection on the second,
    // as a server does whose idle timeout fires just as the client reuses the socket.
    const seen = new WeakMap<object, number>();
    let served = 0;
    const srv = http.createServer((req, res) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      if (n > 1) return req.socket.resetAndDestroy();
      served++;
      res.end(`hello ${served}`);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`;
    try {
      assert.equal(await (await nodeFetch(url, { method: 'POST', body: 'a' })).text(), 'hello 1');
      assert.equal(await (await nodeFetch(url, { method: 'POST', body: 'b' })).text(), 'hello 2', 'retried on a new socket');
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});
