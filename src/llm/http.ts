// A `fetch` for the LLM SDKs built on node:http(s) with keep-alive agents. It does what the SDKs
// need (streamed bodies, abort, gzip/br/deflate, connection errors shaped like undici's) with less
// machinery per request than the global fetch: the agent loop makes one request per iteration, so
// this is on its hot path. It returns a NodeResponse (node-response.ts), not undici's Response.
// `HERMES_HTTP_CLIENT=fetch` switches back to the global fetch.
import type http from 'node:http';
import type https from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type zlib from 'node:zlib';
import { headersFromRaw } from './fetch-headers.ts';
import { BodySource, type NodeBody, NodeResponse } from './node-response.ts';
import { wireHook } from './wire-hook.ts';

// https (TLS) and zlib load only when a request needs them: a local model server over plain http
// should not pay ~10 ms of start-up for TLS. node:http itself is required, not imported: Node's ESM
// view of a built-in reads every export, and node:http's lazy WebSocket/EventSource getters then
// load undici (tens of ms of start-up for the REPL and the TUI, before anything is sent).
const load = createRequire(import.meta.url);
let httpMod: typeof http | undefined;
const httpLib = () => (httpMod ??= load('node:http') as typeof http);
let httpsMod: typeof https | undefined;
let zlibMod: typeof zlib | undefined;
const httpsLib = () => (httpsMod ??= load('node:https') as typeof https);
const zlibLib = () => (zlibMod ??= load('node:zlib') as typeof zlib);

let httpAgent: http.Agent | undefined;
let httpsAgent: https.Agent | undefined;
const agentFor = (protocol: string): http.Agent =>
  protocol === 'https:'
    ? (httpsAgent ??= new (httpsLib().Agent)({ keepAlive: true, scheduling: 'lifo' }))
    : (httpAgent ??= new (httpLib().Agent)({ keepAlive: true, scheduling: 'lifo' }));

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  // (Not `instanceof Headers`: the global Headers loads undici on first touch.)
  if (Array.isArray(init)) for (const [k, v] of init) out[k.toLowerCase()] = v;
  else if (typeof (init as Headers).forEach === 'function') (init as Headers).forEach((v, k) => (out[k] = v));
  else for (const [k, v] of Object.entries(init)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

async function bodyBytes(body: BodyInit | null | undefined): Promise<string | Uint8Array | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  // Anything else (Blob, FormData, URLSearchParams, streams): let Response serialise it.
  return new Uint8Array(await new Response(body).arrayBuffer());
}

function decoded(res: http.IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '').toLowerCase().trim();
  if (enc === 'gzip' || enc === 'x-gzip') return res.pipe(zlibLib().createGunzip());
  if (enc === 'br') return res.pipe(zlibLib().createBrotliDecompress());
  if (enc === 'deflate') return res.pipe(zlibLib().createInflate());
  return res;
}

export async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal);
  const headers = headerRecord(init.headers);
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  const body = await bodyBytes(init.body);
  if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  const mod = url.protocol === 'https:' ? httpsLib() : httpLib();
  // Taken here, in the caller's context (a retry below runs in the socket's).
  const onWire = wireHook();

  // A kept-alive socket the server closed while idle fails at once with ECONNRESET (or EPIPE, when
  // the close comes between the writes of a watched request), before the request reached anyone:
  // send it again (what Node's docs advise). Sockets of one burst go idle together, so the next one
  // from the pool may be closed too: a few tries.
  const send = (tries: number): Promise<Response> => new Promise<Response>((resolve, reject) => {
    const req = mod.request(url, { method: init.method ?? 'GET', headers, agent: agentFor(url.protocol) });
    let responded = false;
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(abortError(signal));
      else if (tries < 3 && !responded && req.reusedSocket && /^(ECONNRESET|EPIPE)$/.test(String((err as NodeJS.ErrnoException).code))) resolve(send(tries + 1));
      else reject(Object.assign(new TypeError('fetch failed'), { cause: err }));
    });
    let source: BodySource | undefined;
    const onAbort = () => {
      source?.fail(abortError(signal!)); // readers see the AbortError, not the socket's reset
      req.destroy(abortError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      responded = true;
      const h = headersFromRaw(res.rawHeaders);
      const status = res.statusCode ?? 0;
      let resBody: NodeBody | null = null;
      if (!NULL_BODY.has(status) && init.method !== 'HEAD') {
        const stream = decoded(res);
        if (stream !== res) {
          h.delete('content-encoding');
          h.delete('content-length');
          res.on('error', (e) => stream.destroy(e));
        }
        source = new BodySource(stream, () => {
          res.destroy();
          if (stream !== res) stream.destroy();
        });
        resBody = source.body();
      } else res.resume();
      res.on('close', () => signal?.removeEventListener('abort', onAbort));
      resolve(new NodeResponse(resBody, { status, statusText: res.statusMessage, headers: h, url: url.href }) as unknown as Response);
    });
    if (!onWire) return void (body !== undefined ? req.end(body) : req.end());
    // Watched (see wire-hook.ts): all of the request but its last byte goes first; once the kernel
    // has taken that, the hook runs and the last byte is written in the same synchronous step. The
    // platform cannot act on a request it has not got whole, so a process killed before the hook
    // sent nothing it could act on, and one killed after it sent everything.
    const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    const last = () => {
      const fin = () => (bytes?.length ? req.end(bytes.subarray(bytes.length - 1)) : req.end());
      let p: void | Promise<void> | undefined;
      try {
        p = onWire();
      } finally {
        if (p && typeof p.then === 'function') void p.then(fin, fin);
        else fin();
      }
    };
    req.once('socket', (s) => {
      const go = () => (bytes && bytes.length > 1 ? void req.write(bytes.subarray(0, bytes.length - 1), (err) => void (err ? undefined : last())) : last());
      const tls = (s as { encrypted?: boolean; _secureEstablished?: boolean }).encrypted === true && (s as { _secureEstablished?: boolean })._secureEstablished === false;
      if (tls) s.once('secureConnect', go);
      else if (s.connecting) s.once('connect', go);
      else go();
    });
  });
  return send(0);
}

/** The fetch the SDK clients use: node:http unless HERMES_HTTP_CLIENT=fetch. */
export function sdkFetch(env: NodeJS.ProcessEnv = process.env): typeof fetch {
  return env.HERMES_HTTP_CLIENT === 'fetch' ? globalThis.fetch : (nodeFetch as typeof fetch);
}
