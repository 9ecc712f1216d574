// web_extract reads PDFs (a PDF the test makes, served from loopback): text by page with the
// document's title, a mislabelled PDF recognised by its signature, and clear errors for broken ones.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import webExtract from '../../src/tools/defs/web-extract.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { makePdf } from '../helpers/pdf.ts';
import { call, makeServices } from './helpers.ts';

let server: Server;
let base = '';
const manual = makePdf(['Widget manual (v2)\nStep 1: unpack the widget', 'Step 2: plug it in'], 'Widget Manual');

before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/manual.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(manual);
    } else if (req.url === '/download') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(makePdf(['Mislabelled but real']));
    } else if (req.url === '/broken.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.4\nthis is not a real document');
    } else if (req.url === '/scanned.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(makePdf(['']));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

describe('web_extract on PDFs', () => {
  it('returns the text by page, with the title', async () => {
    const s = makeServices({ env: { HERMES_ALLOW_PRIVATE_URLS: '1' } });
    const r = await call(webExtract, { urls: [`${base}/manual.pdf`, `${base}/download`] }, s);
    assert.equal(r.isError, false, r.raw);
    const [pdf, mislabelled] = r.json.results;
    assert.equal(pdf.title, 'Widget Manual');
    assert.equal(pdf.content, '--- Page 1 ---\nWidget manual (v2)\nStep 1: unpack the widget\n\n--- Page 2 ---\nStep 2: plug it in');
    assert.equal(mislabelled.content, 'Mislabelled but real');
  });

  it('says what is wrong with a PDF it cannot read', async () => {
    const s = makeServices({ env: { HERMES_ALLOW_PRIVATE_URLS: '1' } });
    const r = await call(webExtract, { urls: [`${base}/broken.pdf`, `${base}/scanned.pdf`] }, s);
    assert.equal(r.isError, true);
    assert.match(r.json.results[0].error, /The PDF could not be parsed/);
    assert.match(r.json.results[1].error, /no text layer/);
  });

  it('through hermes chat -q: the model reads a PDF and answers from it', async () => {
    const fake = await startFakeLlm();
    try {
      const home = homeWithModel(fake.openaiBaseUrl);
      fake.enqueue({ toolCalls: [{ name: 'web_extract', arguments: { urls: [`${base}/manual.pdf`] } }] }, { text: 'Step 2 is to plug it in.' });
      const r = await hermes(['chat', '-q', 'what is step 2 of the widget manual?'], { home, env: { HERMES_ALLOW_PRIVATE_URLS: '1' } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Step 2 is to plug it in\./);
      const tool = (fake.requests[1].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
      assert.match(tool.content, /Step 2: plug it in/);
      assert.doesNotMatch(r.stdout + r.stderr, /Warning:/, 'PDF.js stays quiet');
    } finally {
      await fake.close();
    }
  });
});
