// The API server under a slow reader: a streaming client that stops reading does not make the server
// buffer the turn's output (an 8 MB answer here): the stream holds back at its high-water mark, the
// turn waits (its next step is not requested), and once the client reads again everything arrives,
// nothing lost. A client that reads nothing past API_SERVER_WRITE_TIMEOUT is cut off, its turn
// interrupted. (Not timed: what is checked is how much is held, and that the turn did not go on.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { gatewayLogPath } from '../../src/gateway/log.ts';
import { SSE_HIGH_WATER } from '../../src/gateway/platforms/api-sse.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, type TestHome } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A word per line, numbered: the reader can tell that every piece arrived, in order. */
const BIG = Array.from({ length: 200_000 }, (_, i) => `w${i} lorem ipsum dolor sit amet\n`).join('');

interface SlowClient {
  socket: net.Socket;
  /** What was read so far (raw HTTP). */
  read: () => string;
  /** Starts reading again; resolves when the server closes the response. */
  resume: () => Promise<string>;
  closed: Promise<void>;
}

/** POSTs a streaming chat completion on a raw socket, reads the first bytes, then stops reading. */
async function slowClient(port: number, content: string): Promise<SlowClient> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const body = JSON.stringify({ model: 'hermes-agent', stream: true, messages: [{ role: 'user', content }] });
  socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  let got = '';
  const onData = (d: Buffer) => (got += d.toString('utf8'));
  socket.on('data', onData);
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  // The first event arrives, then the client stops reading: the kernel buffers fill, then the server's.
  while (!got.includes('data: ')) await sleep(10);
  socket.pause();
  return {
    socket,
    read: () => got,
    resume: async () => {
      socket.resume();
      await closed;
      return got;
    },
    closed,
  };
}

/** The content of every chat.completion.chunk in a raw SSE response, joined. */
function streamedText(raw: string): string {
  let text = '';
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const c = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
    text += c.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

describe('API server backpressure', () => {
  let llm: FakeLlm;
  let t: TestHome;
  let gw: RunningGateway;
  let port = 0;
  let buffered: () => number[];

  before(async () => {
    llm = await startFakeLlm();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_WRITE_TIMEOUT: '2' }, yaml: 'toolsets: [todo]\ncompression:\n  enabled: false\n' });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    const api = gw.adapters.find((a) => a.name === 'api_server') as unknown as { port: number; streamBuffered(): number[] };
    port = api.port;
    buffered = () => api.streamBuffered();
  });
  after(async () => {
    await gw?.shutdown();
    await llm?.close();
  });

  test('a client that stops reading holds the turn back, not megabytes in the server; it gets everything once it reads', async () => {
    // Step 1: 8 MB of text and a tool call; step 2 (only after the tool ran): the last words.
    llm.enqueue({ text: BIG, chunkSize: 4096, toolCalls: [{ name: 'todo', arguments: {}, id: 'call_t1' }] }, { text: '\nTHE END' });
    const seen = llm.requests.length;
    const c = await slowClient(port, 'write a lot');
    // The server fills what the client does not read, up to its cap, and then holds still.
    let peak = 0;
    for (let i = 0; i < 600 && peak < SSE_HIGH_WATER; i++) {
      peak = Math.max(peak, ...buffered(), 0);
      await sleep(10);
    }
    assert.ok(peak >= SSE_HIGH_WATER / 2, `the stream filled up to its cap (${peak} bytes)`);
    for (let i = 0; i < 30; i++) {
      peak = Math.max(peak, ...buffered(), 0);
      await sleep(20);
    }
    assert.ok(peak <= 4 * SSE_HIGH_WATER, `at most a few high-water marks are held (${peak} bytes held at most; the answer is ${BIG.length} bytes)`);
    assert.equal(llm.requests.length - seen, 1, 'the turn waits for the client: its next step is not requested');
    assert.ok(c.read().length < BIG.length / 2, 'the client has not read most of it');

    const raw = await c.resume();
    const text = streamedText(raw);
    const want = `${BIG}\nTHE END`;
    let at = 0;
    while (at < want.length && text[at] === want[at]) at++;
    assert.ok(at === want.length && text.length === want.length, `every delta arrived, in order (merged while the client was behind): ${text.length} of ${want.length} characters; the first difference at ${at}: ${JSON.stringify(text.slice(at - 40, at + 40))} where ${JSON.stringify(want.slice(at - 40, at + 40))} was sent`);
    assert.match(raw, /data: \[DONE\]/);
    assert.equal(llm.requests.length - seen, 2);
  });

  test('a client that reads nothing past the write timeout is cut off and its turn interrupted', async () => {
    llm.enqueue({ text: BIG, chunkSize: 4096, toolCalls: [{ name: 'todo', arguments: {}, id: 'call_t2' }] }, { text: 'never asked for' });
    const seen = llm.requests.length;
    const c = await slowClient(port, 'write a lot, again');
    let log = '';
    for (let i = 0; i < 1500 && !/read nothing for 2 s/.test(log); i++) {
      log = existsSync(gatewayLogPath(t.home)) ? readFileSync(gatewayLogPath(t.home), 'utf8') : '';
      await sleep(20);
    }
    assert.match(log, /a streaming client read nothing for 2 s with [\d,]+ bytes waiting: closed, its turn interrupted/);
    // What the kernel had buffered still reaches the client, then the connection ends, unfinished.
    const raw = await c.resume();
    assert.doesNotMatch(raw, /data: \[DONE\]/);
    for (let i = 0; i < 100 && buffered().length; i++) await sleep(20);
    assert.deepEqual(buffered(), [], 'nothing is held for it any more');
    assert.equal(llm.requests.length - seen, 1, 'the interrupted turn did not go on to its next step');
  });
});
