// Local fakes of the speech APIs, speaking their wire formats: Microsoft Edge's read-aloud WebSocket
// protocol (checks the token, headers and message framing, answers with binary audio frames), the
// OpenAI `/v1/audio/speech` and ElevenLabs `/v1/text-to-speech/<voice>` HTTP APIs, and the OpenAI /
// Groq `/audio/transcriptions` API.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { WebSocketServer } from 'ws';

const TOKEN = '6A5AA1D4EAFF4E9FB37E23D68491D6F4';

function gec(nowMs: number): string {
  let secs = Math.floor(nowMs / 1000) + 11_644_473_600;
  secs -= secs % 300;
  return createHash('sha256').update(`${BigInt(secs) * 10_000_000n}${TOKEN}`).digest('hex').toUpperCase();
}

export interface EdgeRequest {
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  config: string;
  ssml: string;
}

export interface FakeEdge {
  endpoint: string;
  requests: EdgeRequest[];
  /** Pretend the service's clock is off by this much (the client must adapt after a 403). */
  clockOffsetMs: number;
  rejectedHandshakes: number;
  close(): Promise<void>;
}

/** The Edge read-aloud service: each SSML request is answered with `audio` split over binary frames. */
export async function startFakeEdge(audio: Buffer): Promise<FakeEdge> {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  const fake: FakeEdge = { endpoint: '', requests: [], clockOffsetMs: 0, rejectedHandshakes: 0, close: async () => undefined };
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url!, 'http://x');
    const now = Date.now() + fake.clockOffsetMs;
    const okToken = url.searchParams.get('TrustedClientToken') === TOKEN && [gec(now), gec(now - 300_000)].includes(url.searchParams.get('Sec-MS-GEC') ?? '');
    const okHeaders = req.headers.origin === 'chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold' && /^1-\d+\./.test(url.searchParams.get('Sec-MS-GEC-Version') ?? '') && /^[0-9a-f]{32}$/.test(url.searchParams.get('ConnectionId') ?? '');
    if (url.pathname !== '/consumer/speech/synthesize/readaloud/edge/v1' || !okToken || !okHeaders) {
      fake.rejectedHandshakes++;
      socket.end(`HTTP/1.1 403 Forbidden\r\nDate: ${new Date(now).toUTCString()}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      let config = '';
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const text = data.toString();
        if (/\r\nPath:speech\.config\r\n/.test(text)) {
          config = text;
          return;
        }
        if (!/\r\nPath:ssml\r\n\r\n/.test(text)) return;
        const reqId = /X-RequestId:(\w+)/.exec(text)?.[1] ?? '';
        fake.requests.push({ query: url.searchParams, headers: req.headers, config, ssml: text.slice(text.indexOf('\r\n\r\n') + 4) });
        ws.send(`X-RequestId:${reqId}\r\nContent-Type:application/json; charset=utf-8\r\nPath:turn.start\r\n\r\n{"context":{"serviceTag":"fake"}}`);
        const frame = (body: Buffer) => {
          const h = Buffer.from(`X-RequestId:${reqId}\r\nContent-Type:audio/mpeg\r\nX-StreamId:1\r\nPath:audio\r\n`);
          const len = Buffer.alloc(2);
          len.writeUInt16BE(h.length);
          return Buffer.concat([len, h, body]);
        };
        const step = Math.ceil(audio.length / 3);
        for (let i = 0; i < audio.length; i += step) ws.send(frame(audio.subarray(i, i + step)), { binary: true });
        ws.send(`X-RequestId:${reqId}\r\nContent-Type:application/json; charset=utf-8\r\nPath:audio.metadata\r\n\r\n{"Metadata":[]}`);
        ws.send(`X-RequestId:${reqId}\r\nPath:turn.end\r\n\r\n{}`);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.endpoint = `ws://127.0.0.1:${(server.address() as { port: number }).port}/consumer/speech/synthesize/readaloud/edge/v1`;
  fake.close = async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return fake;
}

export interface HttpCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  json?: any;
}

export interface FakeSpeechApis {
  url: string;
  calls: HttpCall[];
  close(): Promise<void>;
}

/**
 * OpenAI (`/openai/v1/audio/speech`, `/openai/v1/audio/transcriptions`), Groq
 * (`/groq/openai/v1/audio/transcriptions`) and ElevenLabs (`/eleven/v1/text-to-speech/<voice>`).
 */
export async function startFakeSpeechApis(o: { mp3: Buffer; ogg: Buffer; transcript?: (call: HttpCall) => string }): Promise<FakeSpeechApis> {
  const calls: HttpCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const call: HttpCall = { method: req.method!, path: req.url!, headers: req.headers, body };
      if (/json/.test(String(req.headers['content-type']))) call.json = JSON.parse(body.toString() || 'null');
      calls.push(call);
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      const path = new URL(req.url!, 'http://x').pathname;
      if (path === '/openai/v1/audio/speech') {
        if (req.headers.authorization !== 'Bearer sk-voice-good') return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
        res.writeHead(200, { 'content-type': call.json.response_format === 'opus' ? 'audio/ogg' : 'audio/mpeg' });
        return res.end(call.json.response_format === 'opus' ? o.ogg : o.mp3);
      }
      if (path.startsWith('/eleven/v1/text-to-speech/')) {
        if (req.headers['xi-api-key'] !== 'el-good') return json(401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
        const fmt = new URL(req.url!, 'http://x').searchParams.get('output_format') ?? '';
        res.writeHead(200, { 'content-type': fmt.startsWith('opus') ? 'audio/ogg' : 'audio/mpeg' });
        return res.end(fmt.startsWith('opus') ? o.ogg : o.mp3);
      }
      if (path === '/openai/v1/audio/transcriptions' || path === '/groq/openai/v1/audio/transcriptions') {
        const key = path.startsWith('/groq') ? 'Bearer gsk-good' : 'Bearer sk-voice-good';
        if (req.headers.authorization !== key) return json(401, { error: { message: 'Invalid API Key' } });
        if (!/multipart\/form-data; boundary=/.test(String(req.headers['content-type']))) return json(400, { error: { message: 'expected multipart' } });
        return json(200, { text: o.transcript?.(call) ?? 'hello from the fake' });
      }
      json(404, { error: { message: `no route ${path}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The parts of a multipart/form-data body (name → {filename, data}). */
export function multipart(call: HttpCall): Record<string, { filename?: string; data: Buffer }> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(call.headers['content-type']))!;
  const sep = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const out: Record<string, { filename?: string; data: Buffer }> = {};
  let pos = call.body.indexOf(sep);
  while (pos >= 0) {
    const start = pos + sep.length;
    const next = call.body.indexOf(sep, start);
    if (next < 0) break;
    const part = call.body.subarray(start + 2, next - 2);
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString();
    const name = /name="([^"]+)"/.exec(head)?.[1];
    if (name) out[name] = { filename: /filename="([^"]*)"/.exec(head)?.[1], data: part.subarray(headEnd + 4) };
    pos = next;
  }
  return out;
}
