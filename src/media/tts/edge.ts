// Edge TTS (no key): Microsoft Edge's read-aloud service, spoken to over its WebSocket protocol —
// the same requests the browser (and the edge-tts Python package Hermes uses) sends: a Sec-MS-GEC
// token derived from the clock, a `speech.config` message, then one SSML request per ≤4 KB chunk
// of text; the answer is binary `Path:audio` frames of MP3 until `Path:turn.end`.
// `tts.edge.voice` (en-US-AriaNeural); `tts.edge.endpoint` / EDGE_TTS_ENDPOINT point it elsewhere.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { section, str, type TtsProvider } from './types.ts';

export const TRUSTED_CLIENT_TOKEN = '6A5AA1D4EAFF4E9FB37E23D68491D6F4';
const CHROMIUM_FULL_VERSION = '143.0.3650.75';
const CHROMIUM_MAJOR = CHROMIUM_FULL_VERSION.split('.')[0];
export const EDGE_ENDPOINT = 'wss://speech.platform.bing.com/consumer/speech/synthesize/readaloud/edge/v1';
const WIN_EPOCH = 11_644_473_600;
const MAX_CHUNK_BYTES = 4096;

/** The DRM token the service checks: SHA-256 of the 5-minute-rounded Windows file time and the client token. */
export function secMsGec(nowMs: number): string {
  let secs = Math.floor(nowMs / 1000) + WIN_EPOCH;
  secs -= secs % 300;
  return createHash('sha256').update(`${BigInt(secs) * 10_000_000n}${TRUSTED_CLIENT_TOKEN}`, 'ascii').digest('hex').toUpperCase();
}

/** `en-US-AriaNeural` → `Microsoft Server Speech Text to Speech Voice (en-US, AriaNeural)`. */
export function voiceName(short: string): string {
  const m = /^([a-z]{2,})-([A-Z]{2,})-(.+Neural)$/.exec(short.trim());
  if (!m) return short.trim();
  let [, lang, region, name] = m;
  const dash = name.indexOf('-');
  if (dash >= 0) {
    region = `${region}-${name.slice(0, dash)}`;
    name = name.slice(dash + 1);
  }
  return `Microsoft Server Speech Text to Speech Voice (${lang}-${region}, ${name})`;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Splits escaped text into chunks of at most `max` UTF-8 bytes, at spaces when possible, never inside an entity. */
export function splitForEdge(escaped: string, max = MAX_CHUNK_BYTES): string[] {
  const out: string[] = [];
  let rest = escaped;
  while (Buffer.byteLength(rest, 'utf8') > max) {
    let cut = 0;
    let bytes = 0;
    for (const ch of rest) {
      const n = Buffer.byteLength(ch, 'utf8');
      if (bytes + n > max) break;
      bytes += n;
      cut += ch.length;
    }
    const space = Math.max(rest.lastIndexOf(' ', cut), rest.lastIndexOf('\n', cut));
    if (space > cut / 2) cut = space;
    const amp = rest.lastIndexOf('&', cut - 1);
    if (amp >= 0 && rest.indexOf(';', amp) >= cut) cut = amp;
    const piece = rest.slice(0, cut).trim();
    if (piece) out.push(piece);
    rest = rest.slice(cut);
  }
  if (rest.trim()) out.push(rest.trim());
  return out;
}

/** `Thu Jan 01 2026 12:00:00 GMT+0000 (Coordinated Universal Time)`, as the browser sends it. */
export function edgeDate(d = new Date()): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${p(d.getUTCDate())} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} GMT+0000 (Coordinated Universal Time)`;
}

function headersOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

interface ChunkOptions {
  endpoint: string;
  voice: string;
  rate: string;
  text: string;
  signal?: AbortSignal;
  skewMs: number;
}

class ClockSkew extends Error {
  readonly skewMs: number;
  constructor(skewMs: number) {
    super('Edge TTS refused the connection: HTTP 403 (the clock may be off)');
    this.skewMs = skewMs;
  }
}

async function synthesizeChunk(o: ChunkOptions): Promise<Buffer> {
  const { default: WebSocket } = await import('ws');
  const url = `${o.endpoint}?TrustedClientToken=${TRUSTED_CLIENT_TOKEN}&ConnectionId=${randomUUID().replace(/-/g, '')}&Sec-MS-GEC=${secMsGec(Date.now() + o.skewMs)}&Sec-MS-GEC-Version=1-${CHROMIUM_FULL_VERSION}`;
  const ws = new WebSocket(url, {
    headers: {
      Pragma: 'no-cache',
      'Cache-Control': 'no-cache',
      Origin: 'chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold',
      'User-Agent': `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROMIUM_MAJOR}.0.0.0 Safari/537.36 Edg/${CHROMIUM_MAJOR}.0.0.0`,
      'Accept-Encoding': 'gzip, deflate, br, zstd',
      'Accept-Language': 'en-US,en;q=0.9',
      Cookie: `muid=${randomBytes(16).toString('hex').toUpperCase()};`,
    },
    handshakeTimeout: 20_000,
  });
  const audio: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      try {
        ws.close();
      } catch {
        /* already closed */
      }
      if (err) reject(err);
      else if (!audio.length) reject(new Error('Edge TTS sent no audio (check tts.edge.voice).'));
      else resolve(Buffer.concat(audio));
    };
    const onAbort = () => finish(new Error('interrupted'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish(new Error('Edge TTS timed out after 60 s')), 60_000);
    ws.on('unexpected-response', (_req, res) => {
      const date = res.headers.date ? Date.parse(String(res.headers.date)) : NaN;
      if (res.statusCode === 403 && Number.isFinite(date)) finish(new ClockSkew(date - Date.now()));
      else finish(new Error(`Edge TTS refused the connection: HTTP ${res.statusCode}`));
    });
    ws.on('error', (e) => finish(new Error(`Edge TTS connection failed: ${e.message}`)));
    ws.on('open', () => {
      const ts = edgeDate();
      ws.send(
        `X-Timestamp:${ts}\r\nContent-Type:application/json; charset=utf-8\r\nPath:speech.config\r\n\r\n` +
          '{"context":{"synthesis":{"audio":{"metadataoptions":{"sentenceBoundaryEnabled":"false","wordBoundaryEnabled":"true"},"outputFormat":"audio-24khz-48kbitrate-mono-mp3"}}}}\r\n',
      );
      const ssml = `<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='${voiceName(o.voice)}'><prosody pitch='+0Hz' rate='${o.rate}' volume='+0%'>${o.text}</prosody></voice></speak>`;
      ws.send(`X-RequestId:${randomUUID().replace(/-/g, '')}\r\nContent-Type:application/ssml+xml\r\nX-Timestamp:${ts}Z\r\nPath:ssml\r\n\r\n${ssml}`);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        const text = data.toString('utf8');
        const sep = text.indexOf('\r\n\r\n');
        const h = headersOf(sep >= 0 ? text.slice(0, sep) : text);
        if (h.path === 'turn.end') finish(null);
        return;
      }
      if (data.length < 2) return;
      const len = data.readUInt16BE(0);
      const h = headersOf(data.subarray(2, 2 + len).toString('utf8'));
      if (h.path !== 'audio') return;
      const body = data.subarray(2 + len);
      if (body.length) audio.push(Buffer.from(body));
    });
    ws.on('close', () => finish(audio.length ? null : new Error('Edge TTS closed the connection before sending audio.')));
  });
}

export const edgeTts: TtsProvider = {
  name: 'edge',
  nativeOpus: false,
  maxChars: 100_000,
  unavailable: () => null,
  async synthesize(req) {
    const o = section(req.config, 'edge');
    const endpoint = str(o.endpoint) || req.env.EDGE_TTS_ENDPOINT || EDGE_ENDPOINT;
    const voice = str(o.voice, 'en-US-AriaNeural');
    const speed = Number(o.speed ?? req.speed ?? 1) || 1;
    const pct = Math.round((speed - 1) * 100);
    const rate = `${pct >= 0 ? '+' : ''}${pct}%`;
    // Control characters the service rejects become spaces.
    const clean = req.text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');
    const parts: Buffer[] = [];
    let skewMs = 0;
    for (const text of splitForEdge(xmlEscape(clean))) {
      try {
        parts.push(await synthesizeChunk({ endpoint, voice, rate, text, signal: req.signal, skewMs }));
      } catch (e) {
        if (!(e instanceof ClockSkew)) throw e;
        skewMs = e.skewMs;
        parts.push(await synthesizeChunk({ endpoint, voice, rate, text, signal: req.signal, skewMs }));
      }
    }
    writeFileSync(req.outPath, Buffer.concat(parts.map((p, i) => (i ? stripId3(p) : p))));
  },
};

/** MP3 data without a leading ID3v2 tag (so streams can be joined frame to frame). */
export function stripId3(b: Buffer): Buffer {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return b;
  const size = ((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f);
  return b.subarray(10 + size + (b[5] & 0x10 ? 10 : 0));
}
