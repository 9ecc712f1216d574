// test-timeout: 60
// max_tokens on the wire (issue 37), as Hermes sends it: a custom endpoint's default cap, or
// model.max_tokens from config; the guidance the first request carries.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

async function firstRequest(extraYaml = '') {
  const n = fake.requests.length;
  fake.enqueue({ text: 'ok' });
  const r = await hermes(['chat', '-q', 'hello'], { home: homeWithModel(fake.openaiBaseUrl, extraYaml) });
  assert.equal(r.code, 0, r.stderr);
  return fake.requests[n].body;
}

it('a custom endpoint gets max_tokens 65536 and the behaviour guidance', async () => {
  const body = await firstRequest();
  assert.equal(body.max_tokens, 65536);
  const system = String(body.messages[0].content);
  assert.match(system, /Finish the job/);
  assert.match(system, /Batch independent tool calls/);
  assert.match(system, /\[USER MESSAGE\]…\[\/USER MESSAGE\]/);
  assert.match(system, /^Host: .*; working directory /m);
  assert.match(system, /No attachments/);
});

it('model.max_tokens in config wins', async () => {
  const body = await firstRequest('  max_tokens: 3000\n');
  assert.equal(body.max_tokens, 3000);
});
