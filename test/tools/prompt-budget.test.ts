// The prompt budget (issue 30): the default one-shot request's system prompt + tool schemas stay
// within BUDGET tokens while offering at least MIN_TOOLS tools, with every optional tool's
// credentials set. Read from the request the real `hermes chat -q` sends; bench/prompt.ts reports the
// same figure for every toolset. A tool description that grows past the budget fails here.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { BUDGET, FULL_TOOL_ENV, MIN_TOOLS, promptSize } from '../helpers/prompt-size.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

for (const [label, args] of [
  ['the default one-shot', []],
  ['a gateway toolset (hermes-telegram)', ['-t', 'hermes-telegram']],
] as const)
  it(`${label}: ≤ ${BUDGET} tokens of system prompt and tool schemas, ≥ ${MIN_TOOLS} tools`, async () => {
    const n = fake.requests.length;
    fake.enqueue({ text: 'ok' });
    const r = await hermes(['chat', '-q', 'hello', ...args], { home: homeWithModel(fake.openaiBaseUrl), env: FULL_TOOL_ENV });
    assert.equal(r.code, 0, r.stderr);
    const s = promptSize(fake.requests[n].body);
    assert.ok(s.tools >= MIN_TOOLS, `only ${s.tools} tools: ${s.names.join(', ')}`);
    assert.ok(s.tokens <= BUDGET, `${s.tokens} tokens (system ${s.systemChars} + schemas ${s.toolChars} chars) is over the budget of ${BUDGET}`);
  });
