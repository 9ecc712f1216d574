// End to end: `hermes chat -q` against the fake LLM, which drives the browser tools through a
// JavaScript page served on loopback — navigate, type into the form, click, read the result — in
// a real headless Chromium, which is gone when hermes exits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/tools/browser/config.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

const skip = findChromium(process.env) ? false : 'Chromium is not installed (apt-get install chromium)';
if (skip) console.log(`# skipping browser e2e: ${skip}`);

const PAGE = `<!doctype html><html><head><title>Sign-up</title></head><body><div id="app"></div>
<script>
  // The form only exists once JavaScript ran.
  document.getElementById('app').innerHTML = '<h1>Join the club</h1><label for="who">Name</label><input id="who"><button id="join">Join</button><p id="out"></p>';
  document.getElementById('join').onclick = () => { document.getElementById('out').textContent = 'Welcome aboard, ' + document.getElementById('who').value + '!'; };
</script></body></html>`;

let site: Server;
let url = '';
let fake: FakeLlm;

before(async () => {
  site = createServer((_q, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  fake = await startFakeLlm();
});
after(async () => {
  site.close();
  await fake.close();
});

/** The tool results the model has seen so far, in order. */
function toolResults(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

describe('browser tools end to end', { skip }, () => {
  it('hermes chat -q: the model opens a JavaScript page, fills the form and reads the answer', async () => {
    fake.setHandler((req) => {
      const seen = toolResults(req);
      if (seen.length === 0) return { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] };
      if (seen.length === 1) {
        const snap = JSON.parse(seen[0]).snapshot as string;
        const box = /textbox "Name" \[ref=(\w+)\]/.exec(snap)![1];
        const button = /button "Join" \[ref=(\w+)\]/.exec(snap)![1];
        return { toolCalls: [{ name: 'browser_type', arguments: { ref: `@${box}`, text: 'Grace' } }, { name: 'browser_click', arguments: { ref: `@${button}` } }] };
      }
      if (seen.length === 3) return { toolCalls: [{ name: 'browser_snapshot', arguments: {} }] };
      const page = JSON.parse(seen[3]).snapshot as string;
      return { text: `The page now says: ${/Welcome aboard, \w+!/.exec(page)?.[0] ?? 'nothing'}` };
    });
    const home = homeWithModel(fake.openaiBaseUrl, 'security:\n  allow_private_urls: true\n');
    const r = await hermes(['chat', '-q', 'Sign me up as Grace on the club page'], { home, timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /The page now says: Welcome aboard, Grace!/);
    assert.match(r.stderr, /browser_navigate|🌐/);
    // The browser toolset is deferred: tool_search lists its tools and a call loads them.
    const tools = JSON.stringify(fake.requests[0].body.tools);
    for (const t of ['browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_press', 'browser_scroll', 'browser_back', 'browser_get_images', 'browser_console', 'browser_close'])
      assert.ok(tools.includes(t), `${t} offered to the model`);
    const left = spawnSync('pgrep', ['-f', `${home}/browser/profiles`], { encoding: 'utf8' });
    assert.equal(left.stdout.trim(), '', 'no Chromium left running after hermes exits');
  });
});
