// image_generate against local fakes of FAL's queue API (submit, poll, result, CDN download) and
// OpenAI's images API; images land under HERMES_HOME and come back as MEDIA: tags.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolRegistry } from '../../src/tools/registry.ts';
import imageGenerate from '../../src/tools/defs/image-generate.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { call, makeServices } from '../tools/helpers.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let server: Server;
let base = '';
const calls: { method: string; path: string; headers: IncomingMessage['headers']; body: any }[] = [];
let polls = 0;
let cdnUrl = '';

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const path = req.url!;
      const body = /json/.test(String(req.headers['content-type'])) && raw ? JSON.parse(raw) : raw;
      calls.push({ method: req.method!, path, headers: req.headers, body });
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (path === '/cdn/result.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PNG);
      }
      if (path.startsWith('/fal/')) {
        if (req.headers.authorization !== 'Key fal-good') return json(401, { detail: 'Invalid authentication credentials' });
        const m = /^\/fal\/(.+?)\/requests\/(req-\w+)(\/status)?$/.exec(path);
        if (req.method === 'POST') {
          polls = 0;
          const model = path.slice('/fal/'.length);
          return json(200, { request_id: 'req-1', status_url: `${base}/fal/${model}/requests/req-1/status`, response_url: `${base}/fal/${model}/requests/req-1` });
        }
        if (m && m[3]) return json(200, { status: ++polls < 3 ? (polls === 1 ? 'IN_QUEUE' : 'IN_PROGRESS') : 'COMPLETED' });
        if (m) return json(200, { images: [{ url: cdnUrl, width: 1, height: 1, content_type: 'image/png' }], seed: 42 });
      }
      if (path === '/openai/v1/images/generations') {
        if (req.headers.authorization !== 'Bearer sk-img-good') return json(401, { error: { message: 'Incorrect API key provided' } });
        return json(200, { created: 1, data: [{ b64_json: PNG.toString('base64') }] });
      }
      json(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  cdnUrl = `${base}/cdn/result.png`;
});
after(() => server.close());

function svc(env: Record<string, string>, imageGen: Record<string, unknown> = {}): ToolSession {
  const s = makeServices();
  Object.assign(s.env, env);
  (s.config.security as { allow_private_urls: boolean }).allow_private_urls = true; // the fake CDN is on loopback
  Object.assign(s.config.image_gen, imageGen);
  return s;
}

const fal = () => svc({ FAL_KEY: 'fal-good', FAL_QUEUE_URL: `${base}/fal` });

describe('image_generate', () => {
  it('FAL (default model): submits to the queue, polls until done, saves the image and returns a MEDIA tag', async () => {
    calls.length = 0;
    const s = fal();
    const r = await call(imageGenerate, { prompt: '  A red fox in the snow  ' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.provider, 'fal');
    assert.equal(r.json.model, 'fal-ai/flux-2/klein/9b');
    assert.equal(r.json.modality, 'text');
    assert.equal(r.json.image_url, cdnUrl);
    assert.match(r.json.image, /(image_cache|cache\/images)\/img_\d{8}_\d{6}_[0-9a-f]{8}\.png$/);
    assert.equal(r.json.media_tag, `MEDIA:${r.json.image}`);
    assert.ok(readFileSync(r.json.image).equals(PNG));
    const submit = calls.find((c) => c.method === 'POST')!;
    assert.equal(submit.path, '/fal/fal-ai/flux-2/klein/9b');
    assert.deepEqual(submit.body, { num_inference_steps: 4, output_format: 'png', enable_safety_checker: false, prompt: 'A red fox in the snow', image_size: 'landscape_16_9' });
    assert.equal(calls.filter((c) => c.path.endsWith('/status')).length, 3);
  });

  it('FAL: the aspect ratio in each model’s own terms', async () => {
    calls.length = 0;
    await call(imageGenerate, { prompt: 'square', aspect_ratio: 'square' }, fal());
    assert.equal(calls[0].body.image_size, 'square_hd');
    calls.length = 0;
    const nb = svc({ FAL_KEY: 'fal-good', FAL_QUEUE_URL: `${base}/fal` }, { model: 'fal-ai/nano-banana-pro' });
    await call(imageGenerate, { prompt: 'tall', aspect_ratio: 'portrait' }, nb);
    assert.equal(calls[0].path, '/fal/fal-ai/nano-banana-pro');
    assert.equal(calls[0].body.aspect_ratio, '9:16');
    assert.equal(calls[0].body.image_size, undefined);
  });

  it('FAL: editing a local image goes to the edit endpoint with the image as a data URI', async () => {
    calls.length = 0;
    const s = fal();
    const src = join(s.cwd, 'photo.png');
    writeFileSync(src, PNG);
    const r = await call(imageGenerate, { prompt: 'make it blue', image_url: 'photo.png' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.modality, 'image');
    assert.equal(calls[0].path, '/fal/fal-ai/flux-2/klein/9b/edit');
    assert.deepEqual(calls[0].body.image_urls, [`data:image/png;base64,${PNG.toString('base64')}`]);
  });

  it('FAL: a model that cannot edit, a wrong key — clear errors', async () => {
    const z = svc({ FAL_KEY: 'fal-good', FAL_QUEUE_URL: `${base}/fal` }, { model: 'fal-ai/z-image/turbo' });
    const r = await call(imageGenerate, { prompt: 'x', image_url: 'https://example.com/a.png' }, z);
    assert.equal(r.json.success, false);
    assert.match(r.json.error, /cannot edit images/);
    const bad = svc({ FAL_KEY: 'fal-bad', FAL_QUEUE_URL: `${base}/fal` });
    const e = await call(imageGenerate, { prompt: 'x' }, bad);
    assert.deepEqual(Object.keys(e.json).sort(), ['error', 'error_type', 'image', 'success']);
    assert.match(e.json.error, /FAL returned HTTP 401 \(check the API key\): Invalid authentication credentials/);
  });

  it('a generated image at a cloud-metadata address is not fetched', async () => {
    cdnUrl = 'http://169.254.169.254/latest/x.png';
    try {
      const r = await call(imageGenerate, { prompt: 'x' }, fal());
      assert.equal(r.json.success, false);
      assert.match(r.json.error, /metadata/);
    } finally {
      cdnUrl = `${base}/cdn/result.png`;
    }
  });

  it('OpenAI images: the size for the aspect ratio, base64 data saved as a PNG', async () => {
    calls.length = 0;
    const s = svc({ OPENAI_API_KEY: 'sk-img-good' }, { provider: 'openai', openai: { base_url: `${base}/openai/v1` } });
    const r = await call(imageGenerate, { prompt: 'A lighthouse', aspect_ratio: 'portrait' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.provider, 'openai');
    assert.equal(r.json.model, 'gpt-image-1');
    assert.deepEqual(calls[0].body, { model: 'gpt-image-1', prompt: 'A lighthouse', size: '1024x1536', n: 1 });
    assert.ok(readFileSync(r.json.image).equals(PNG));
    assert.equal(r.json.image_url, undefined);
  });

  it('availability: hidden without a key, with the reason and the fix', () => {
    const reg = new ToolRegistry();
    reg.register(imageGenerate);
    const s = makeServices();
    assert.deepEqual(reg.availability(s)[0], {
      name: 'image_generate',
      toolset: 'image_gen',
      available: false,
      reason: 'the fal image provider needs FAL_KEY (get one at https://fal.ai); set it in ~/.hermes/.env, or pick another image_gen.provider (fal, openai)',
    });
    s.env.FAL_KEY = 'k';
    assert.equal(reg.availability(s)[0].available, true);
  });
});
