// The API server's limits: bodies over the cap are refused with 413 before they are read (a
// declared 300 MB body, a chunked body that keeps coming), and a request that never finishes
// arriving is cut off with 408.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const KEY = 'sk-hermes-limits-key';

describe('API server limits', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let port = 0;

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({
      llmUrl: llm.openaiBaseUrl,
      env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY, API_SERVER_MAX_BODY_BYTES: String(1024 * 1024), API_SERVER_REQUEST_TIMEOUT: '1' },
    });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    port = (gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number }).port;
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  /** Sends the headers and the first bytes of a body, and returns the response without sending the rest. */
  function partialPost(headers: Record<string, string>, firstBytes: Buffer, keepSending?: Buffer): Promise<{ status: number; body: string; sentBytes: number }> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBytes: sent }));
      });
      req.on('error', reject);
      req.write(firstBytes);
      sent += firstBytes.length;
      if (keepSending) {
        // A chunked body that goes on (up to 64 MB) until the server answers.
        const pump = () => {
          if (req.destroyed || sent > 64 * 1024 * 1024) return;
          sent += keepSending.length;
          if (req.write(keepSending)) setImmediate(pump);
          else req.once('drain', pump);
        };
        pump();
      }
    });
  }

  test('a declared 300 MB body gets 413 before it is read', async () => {
    const r = await partialPost({ 'content-length': String(300 * 1024 * 1024) }, Buffer.from('{"messages": ['));
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body).error.code, 'request_too_large');
    assert.match(JSON.parse(r.body).error.message, /API_SERVER_MAX_BODY_BYTES/);
  });

  test('a chunked body over the cap gets 413 once it passes the cap', async () => {
    const r = await partialPost({ 'transfer-encoding': 'chunked' }, Buffer.from('{"messages": ['), Buffer.alloc(64 * 1024, 0x20));
    assert.equal(r.status, 413);
    assert.ok(r.sentBytes < 64 * 1024 * 1024, 'the server did not wait for the whole body');
  });

  test('a body under the cap still works', async () => {
    llm.enqueue({ text: 'small and fine' });
    const body = JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'x'.repeat(500_000) }] });
    const r = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body });
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content, 'small and fine');
  });

  test('a request that stops half way is cut off (408), not kept open', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"mess`);
      });
      let got = '';
      sock.setEncoding('utf8');
      sock.on('data', (d) => (got += d));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 408/);
  });
});
