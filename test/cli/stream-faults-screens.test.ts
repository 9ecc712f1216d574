// What a person sees when the model's stream stalls mid-answer and is sent again, in tmux: the
// REPL, the full-screen TUI and a one-shot question on a terminal. The partial answer is on screen
// first; once the stall is detected it is withdrawn (erased, or marked where it cannot be) and the
// answer of the retry replaces it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { tempHome } from '../helpers/cli.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const skip = tmuxAvailable();
let fake: FakeLlm;
let proxy: FaultProxy;
const PARTIAL = 'The answer is forty-two, because six times seven is forty-two. ';
const GOOD = 'Forty-two, in full.';
// Long enough to see the partial answer on screen before the stall is declared.
const ENV = { HERMES_STREAM_STALE_TIMEOUT: '4' };
const isMain = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;

before(async () => {
  fake = await startFakeLlm();
  proxy = await startFaultProxy(fake.url);
});
after(async () => {
  await proxy?.close();
  await fake?.close();
});

let mainCalls = 0;
beforeEach(() => {
  mainCalls = 0;
  fake.setHandler((r) => (!isMain(r) ? { text: 'A title' } : ++mainCalls === 1 ? { text: PARTIAL.repeat(6) } : { text: GOOD }));
  // The turn's request (it offers tools), not a title or other side request.
  proxy.enqueue({ stallAfter: 1500, match: /"tools"/ });
});

function home(): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: primary\n  default: test-model\nproviders:\n  primary:\n    base_url: ${proxy.openaiBaseUrl}\n    api_key: k\n`);
  return h;
}

describe('a stalled stream, seen on a terminal', { skip: skip ?? false }, () => {
  it('REPL: the partial answer shows, then is withdrawn; the retry’s answer replaces it', async () => {
    const t = startHermes([], { home: home(), env: ENV });
    try {
      await t.waitFor(/❯/);
      t.type('what is the answer?');
      t.keys('Enter');
      await t.waitFor(/six times seven/);
      const s = await t.waitFor(new RegExp(GOOD));
      assert.match(s, /✗ partial answer withdrawn \(the stream stalled: no data from the provider for 4s\); it is asked again/);
      assert.match(s, /↻ custom:primary: the stream stalled/);
      assert.doesNotMatch(s, /six times seven/, 'the partial line was still being written: it is gone');
    } finally {
      t.kill();
    }
  });

  it('TUI: the partial answer is taken out of the transcript', async () => {
    const t = startHermes(['--tui'], { home: home(), env: ENV });
    try {
      await t.waitFor(/● ready/, { timeoutMs: 30_000 });
      t.type('what is the answer?');
      t.keys('Enter');
      await t.waitFor(/six times seven/);
      const s = await t.waitFor(new RegExp(GOOD));
      assert.doesNotMatch(t.visible(), /six times seven/);
      assert.match(s, /partial answer withdrawn/);
    } finally {
      t.kill();
    }
  });

  it('one-shot on a terminal: the partial answer is erased, the answer printed once', async () => {
    const t = startHermes(['chat', '-q', 'what is the answer?'], { home: home(), env: ENV });
    try {
      await t.waitFor(/six times seven/);
      assert.equal(await t.exitCode(30_000), 0);
      const s = t.screen();
      assert.doesNotMatch(s, /six times seven/);
      assert.equal(s.split(GOOD).length - 1, 1, s);
    } finally {
      t.kill();
    }
  });
});
