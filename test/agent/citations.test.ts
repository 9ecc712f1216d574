// Grounded citations: sources numbered as results come back, an answer's [n] checked against them
// and ended with the real URLs; through the real binary, a cited one-shot answer whose numbers map
// to the pages the search returned (and a made-up number dropped).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { groundAnswer, linkedSource, SourceBook, sourcesIn } from '../../src/agent/citations.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

describe('the source book and grounding', () => {
  it('finds URLs and sessions in results, numbering each once for the session', () => {
    const book = new SourceBook();
    const found = sourcesIn(JSON.stringify({ data: { web: [{ title: 'A', url: 'https://a.example/x' }, { title: 'B', url: 'https://b.example/' }, { url: 'ftp://nope' }] } }));
    assert.deepEqual(found.map((f) => f.ref), ['https://a.example/x', 'https://b.example/']);
    for (const f of found) book.add(f.ref, f.title);
    assert.equal(book.add('https://a.example/x').n, 1, 'the same page keeps its number');
    const s = sourcesIn(JSON.stringify({ results: [{ session_id: '20260301_abc', title: 'Tax chat' }], error: null }));
    assert.deepEqual(s, [{ ref: 'session:20260301_abc', title: 'Tax chat' }]);
    assert.deepEqual(sourcesIn(JSON.stringify({ results: [{ url: 'https://x.example', error: 'blocked' }] })), [], 'a page that failed is no source');
    assert.deepEqual(sourcesIn('not json'), []);
  });

  it('keeps known numbers, drops made-up ones, replaces the model’s own list and leaves code alone', () => {
    const book = new SourceBook();
    book.add('https://a.example/x', 'Page A');
    book.add('https://b.example/', 'Page B');
    const g = groundAnswer('Rates fell [2]. Also [7]. Code: `arr[1]`.\n\n## Sources\n[2] https://wrong.example/', book)!;
    assert.equal(g.text, 'Rates fell [2]. Also . Code: `arr[1]`.\n\nSources:\n[2] Page B — https://b.example/');
    assert.deepEqual(g.unknown, [7]);
    assert.equal(groundAnswer('No citations here.', book), null, 'an answer without citations is untouched');
    assert.equal(groundAnswer('See [1].', new SourceBook()), null, 'nothing to ground against');
    assert.equal(linkedSource(book.get(1)!), '[1] [Page A](https://a.example/x)');
  });
});

describe('a cited one-shot answer (the real binary)', () => {
  let fake: FakeLlm;
  let searx: Server;
  let searxUrl = '';
  before(async () => {
    fake = await startFakeLlm();
    searx = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [
        { title: 'Central bank cuts rates', url: 'https://news.example/rates', content: 'The bank cut rates by 0.25 points.' },
        { title: 'Jobs report', url: 'https://stats.example/jobs', content: 'Unemployment fell to 3.9%.' },
      ] }));
    });
    await new Promise<void>((r) => searx.listen(0, '127.0.0.1', () => r()));
    searxUrl = `http://127.0.0.1:${(searx.address() as { port: number }).port}`;
  });
  after(async () => {
    await fake.close();
    searx.close();
  });

  it('ends with the sources its numbers point to', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n  api_mode: chat_completions\n`);
    fake.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'economy news' } }] }, { text: 'The bank cut rates by a quarter point [1], and unemployment fell to 3.9% [2]. Inflation doubled [5].' });
    const r = await hermes(['-z', 'What happened in the economy?', '--toolsets', 'web'], { home, env: { SEARXNG_URL: searxUrl } });
    assert.equal(r.code, 0, r.stderr);
    const tool = fake.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'tool');
    assert.match(String(tool.content), /Cite these as \[1\] news\.example\/rates · \[2\] stats\.example\/jobs/, 'the model saw the numbers');
    assert.equal(
      r.stdout.trim(),
      'The bank cut rates by a quarter point [1], and unemployment fell to 3.9% [2]. Inflation doubled .\n\nSources:\n[1] Central bank cuts rates — https://news.example/rates\n[2] Jobs report — https://stats.example/jobs',
    );
  });
});
