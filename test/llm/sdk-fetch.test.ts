// nodeFetch's Response (src/llm/node-response.ts) through the real OpenAI and Anthropic SDKs,
// against the fake LLM: as installed, and as the build bundles them (scripts/sdk-web-globals.mjs:
// the fetch globals they see are stand-ins, so that a request does not load Node's undici). A pass-through proxy in front of the fake can gzip what it forwards and
// records whether the client closed a response before it was finished (an abort reaching the socket).
import StockAnthropic from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';
import StockOpenAI from 'openai';
import type OpenAI from 'openai';
import { sdkWebGlobals } from '../../scripts/sdk-web-globals.mjs';
import { toProviderError } from '../../src/llm/errors.ts';
import { nodeFetch } from '../../src/llm/http.ts';
import { headersFromRaw } from '../../src/llm/fetch-headers.ts';
import { ROOT } from '../helpers/cli.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { runtime } from './_util.ts';

let fake: FakeLlm;
let proxy: http.Server;
let proxyUrl: string;
let gzip = false;
const cutByClient: string[] = [];

before(async () => {
  fake = await startFakeLlm();
  proxy = http.createServer((req, res) => {
    const up = http.request(`${fake.url}${req.url}`, { method: req.method, headers: req.headers }, (ur) => {
      const headers = { ...ur.headers };
      let out: NodeJS.WritableStream = res;
      if (gzip) {
        delete headers['content-length'];
        headers['content-encoding'] = 'gzip';
        const z = zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH }); // SSE events stay events
        z.pipe(res);
        out = z;
      }
      res.writeHead(ur.statusCode ?? 502, headers);
      ur.pipe(out);
      // The fake dropped the connection (a cut stream): drop ours too.
      ur.on('close', () => {
        if (!ur.complete) {
          upstreamCut = true;
          res.socket?.destroy();
        }
      });
    });
    let upstreamCut = false;
    res.on('close', () => {
      if (!res.writableFinished && !upstreamCut) {
        cutByClient.push(req.url ?? '');
        up.destroy();
      }
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
after(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((r) => proxy.close(() => r()));
  await fake.close();
});

interface Sdks {
  OpenAI: typeof StockOpenAI;
  Anthropic: typeof StockAnthropic;
}

/** Both SDKs bundled the way scripts/build.mjs bundles them. */
async function bundledSdks(): Promise<{ sdks: Sdks; file: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'hermes-sdks-')), 'sdks.mjs');
  await build({
    stdin: { contents: "export { default as OpenAI } from 'openai';\nexport { default as Anthropic } from '@anthropic-ai/sdk';\n", resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: file,
    plugins: [sdkWebGlobals],
    logLevel: 'warning',
  });
  return { sdks: (await import(pathToFileURL(file).href)) as Sdks, file };
}

const bundled = await bundledSdks();
const FLAVOURS: [string, Sdks][] = [
  ['installed', { OpenAI: StockOpenAI, Anthropic: StockAnthropic }],
  ['bundled', bundled.sdks],
];
const MSG = [{ role: 'user' as const, content: 'hi' }];

async function chatText(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<string> {
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  return text;
}
async function claudeText(stream: AsyncIterable<Anthropic.MessageStreamEvent>): Promise<string> {
  let text = '';
  for await (const e of stream) if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  return text;
}

for (const [flavour, { OpenAI, Anthropic }] of FLAVOURS) {
  const openai = (maxRetries = 0) => new OpenAI({ apiKey: 'k', baseURL: `${proxyUrl}/v1`, fetch: nodeFetch as typeof fetch, maxRetries });
  const anthropic = (maxRetries = 0) => new Anthropic({ apiKey: 'k', baseURL: proxyUrl, fetch: nodeFetch as typeof fetch, maxRetries });

  for (const zipped of [false, true]) {
    describe(`${flavour} SDKs over nodeFetch${zipped ? ' (gzip)' : ''}`, () => {
      before(() => (gzip = zipped));
      after(() => (gzip = false));

      test('OpenAI: non-streamed JSON, with the raw response', async () => {
        fake.enqueue({ text: 'plain answer' });
        const { data, response } = await openai().chat.completions.create({ model: 'm', messages: MSG, stream: false }).withResponse();
        assert.equal(data.choices[0].message.content, 'plain answer');
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /application\/json/);
        assert.equal(response.headers.get('content-encoding'), null, 'decoded bodies drop content-encoding');
      });

      test('OpenAI: SSE streaming', async () => {
        fake.enqueue({ text: 'The quick brown fox jumps over the lazy dog', chunkSize: 5 });
        assert.equal(await chatText(await openai().chat.completions.create({ model: 'm', messages: MSG, stream: true })), 'The quick brown fox jumps over the lazy dog');
      });

      test('Anthropic: non-streamed JSON and SSE streaming', async () => {
        fake.enqueue({ text: 'json reply', stream: false }, { text: 'streamed reply from claude', chunkSize: 4 });
        const msg = await anthropic().messages.create({ model: 'claude', max_tokens: 10, messages: MSG });
        assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : '')), ['json reply']);
        assert.equal(await claudeText(await anthropic().messages.create({ model: 'claude', max_tokens: 10, messages: MSG, stream: true })), 'streamed reply from claude');
      });
    });
  }

  describe(`${flavour} SDKs: error paths over nodeFetch`, () => {
    test('4xx error bodies become the SDK error with status, message and headers', async () => {
      fake.enqueue({ status: 400, error: 'messages: field required' }, { status: 401, error: 'bad key here' });
      await assert.rejects(openai().chat.completions.create({ model: 'm', messages: MSG, stream: true }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal(e.status, 400);
        assert.match(e.message, /messages: field required/);
        assert.match(e.headers?.get('content-type') ?? '', /json/);
        return true;
      });
      await assert.rejects(anthropic().messages.create({ model: 'c', max_tokens: 5, messages: MSG, stream: true }), (e: unknown) => {
        assert.ok(e instanceof Anthropic.AuthenticationError);
        assert.match(e.message, /bad key here/);
        return true;
      });
    });

    test('5xx/429 with Retry-After: the SDK waits and retries; without retries the header reaches our error', async () => {
      const n = fake.requests.length;
      fake.enqueue({ status: 503, retryAfter: 0.01 }, { text: 'after the retry' });
      assert.equal(await chatText(await openai(1).chat.completions.create({ model: 'm', messages: MSG, stream: true })), 'after the retry');
      assert.equal(fake.requests.length - n, 2);
      fake.enqueue({ status: 529, retryAfter: 0.01 }, { text: 'claude retried' });
      assert.equal(await claudeText(await anthropic(1).messages.create({ model: 'c', max_tokens: 5, messages: MSG, stream: true })), 'claude retried');

      fake.enqueue({ status: 429, retryAfter: 7 });
      const err = await openai().chat.completions.create({ model: 'm', messages: MSG, stream: true }).then(
        () => assert.fail('expected a 429'),
        (e: unknown) => e,
      );
      const pe = toProviderError(err, runtime({ baseUrl: `${proxyUrl}/v1` }));
      assert.equal(pe.kind, 'rate_limit');
      assert.equal(pe.retryAfterMs, 7000);
    });

    test('abort mid-stream ends the stream and closes the connection (OpenAI and Anthropic)', { timeout: 60_000 }, async () => {
      for (const sdk of ['openai', 'anthropic'] as const) {
        const before = cutByClient.length;
        fake.enqueue({ text: 'a long answer that keeps on streaming for a while', chunkSize: 2, chunkDelayMs: 20 });
        const ac = new AbortController();
        let got = '';
        const run = async () => {
          if (sdk === 'openai') {
            const s = await openai().chat.completions.create({ model: 'm', messages: MSG, stream: true }, { signal: ac.signal });
            for await (const c of s) {
              got += c.choices[0]?.delta?.content ?? '';
              if (got) ac.abort();
            }
          } else {
            const s = await anthropic().messages.create({ model: 'c', max_tokens: 5, messages: MSG, stream: true }, { signal: ac.signal });
            for await (const e of s) {
              if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') got += e.delta.text;
              if (got) ac.abort();
            }
          }
        };
        // The SDKs either end the iteration or throw their abort error; both are fine, a hang is not.
        await run().catch((e: unknown) => assert.match(String((e as Error).name), /Abort/, String(e)));
        assert.ok(got.length > 0 && got.length < 20, `${sdk}: stopped early (${JSON.stringify(got)})`);
        while (cutByClient.length === before) await new Promise((r) => setTimeout(r, 5));
        assert.ok(cutByClient.at(-1), `${sdk}: the connection was closed`);
      }
    });

    test('a stream the server cuts fails the SDK iteration with a connection error', async () => {
      fake.enqueue({ text: 'The quick brown fox jumps over the lazy dog', cutAfterChunks: 3 });
      const s = await openai().chat.completions.create({ model: 'm', messages: MSG, stream: true });
      const err = await chatText(s).then(() => undefined, (e: unknown) => e);
      assert.ok(err, 'the cut is an error, not a short answer');
      assert.equal(toProviderError(err, runtime({ baseUrl: `${proxyUrl}/v1` })).kind, 'connection');
    });
  });
}

describe('bundled SDKs and undici', () => {
  // A fresh process asks both SDKs (JSON and SSE) through nodeFetch and lists what it loaded.
  const run = async (load: string): Promise<string[]> => {
    const script = `
      const { OpenAI, Anthropic } = ${load};
      const { nodeFetch } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/llm/http.ts')).href)});
      const messages = [{ role: 'user', content: 'hi' }];
      const o = new OpenAI({ apiKey: 'k', baseURL: ${JSON.stringify(`${fake.url}/v1`)}, fetch: nodeFetch, maxRetries: 0 });
      const a = new Anthropic({ apiKey: 'k', baseURL: ${JSON.stringify(fake.url)}, fetch: nodeFetch, maxRetries: 0 });
      const got = [(await o.chat.completions.create({ model: 'm', messages })).choices[0].message.content];
      for await (const c of await o.chat.completions.create({ model: 'm', messages, stream: true })) got.push(c.choices[0]?.delta?.content ?? '');
      got.push((await a.messages.create({ model: 'c', max_tokens: 5, messages })).content[0].text);
      for await (const e of await a.messages.create({ model: 'c', max_tokens: 5, messages, stream: true })) if (e.type === 'content_block_delta') got.push(e.delta.text);
      console.log(JSON.stringify({ got: got.join(''), loaded: process.moduleLoadList.filter((m) => /undici|http2/.test(m)) }));
    `;
    fake.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three', stream: false }, { text: 'four' });
    // Not spawnSync: the fake answering the child runs in this process.
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      c.stdout.on('data', (d) => (stdout += d));
      c.stderr.on('data', (d) => (stderr += d));
      c.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { got: string; loaded: string[] };
    assert.equal(out.got, 'onetwothreefour');
    return out.loaded;
  };

  test('as bundled, a request through either SDK does not load undici (nor http2)', async () => {
    assert.deepEqual(await run(`await import(${JSON.stringify(pathToFileURL(bundled.file).href)})`), []);
  });

  test('as installed, they do (what the bundling saves)', async () => {
    const loaded = await run("{ OpenAI: (await import('openai')).default, Anthropic: (await import('@anthropic-ai/sdk')).default }");
    assert.ok(loaded.includes('NativeModule internal/deps/undici/undici'), loaded.join(', '));
  });
});

describe('NodeResponse as a fetch Response', () => {
  test('headers: case-insensitive, duplicates joined, set-cookie kept apart, sorted iteration', () => {
    const h = headersFromRaw(['X-B', '1', 'Content-Type', 'text/plain', 'x-b', '2', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2']);
    assert.equal(h.get('x-b'), '1, 2');
    assert.equal(h.get('CONTENT-TYPE'), 'text/plain');
    assert.equal(h.has('missing'), false);
    assert.deepEqual(h.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual([...h], [['content-type', 'text/plain'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['x-b', '1, 2']]);
    const seen: string[] = [];
    h.forEach((v, k) => seen.push(`${k}=${v}`));
    assert.equal(seen[0], 'content-type=text/plain');
  });

  test('body: read once, clone() reads the same bytes, toWebResponse() gives a real Response', async () => {
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: MSG }) };
    const r = await nodeFetch(`${proxyUrl}/v1/chat/completions`, init);
    const copy = r.clone();
    assert.equal(r.bodyUsed, false);
    const a = (await r.json()) as OpenAI.ChatCompletion;
    assert.equal(r.bodyUsed, true);
    await assert.rejects(r.text(), TypeError);
    assert.deepEqual(await copy.json(), a);
    assert.equal(a.choices[0].message.content, 'one');

    const r2 = await nodeFetch(`${proxyUrl}/v1/chat/completions`, init);
    const web = await (r2 as unknown as { toWebResponse(): Promise<Response> }).toWebResponse();
    assert.ok(web instanceof Response);
    assert.equal(((await web.json()) as OpenAI.ChatCompletion).choices[0].message.content, 'two');
  });
});
