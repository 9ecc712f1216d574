// /moa: reference models answer in parallel (no tools), the preset's aggregator runs the turn with
// their analyses, and the session's model is back afterwards. All models are the fake LLM.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { Session } from '../../src/runtime/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((r) => {
    const model = String(r.body.model);
    if (model === 'ref-a') return { text: 'Reference A: use a queue.' };
    if (model === 'ref-b') return { text: 'Reference B: add retries.' };
    if (model === 'ref-broken') return { status: 400, error: 'boom' };
    return { text: `answer from ${model}` };
  });
});
after(async () => {
  await fake.close();
});

it('/moa asks the reference models, lets the aggregator answer with their analyses, then restores the model', async () => {
  const home = tempHome();
  const slot = (m: string) => `{ provider: custom, model: ${m}, base_url: "${fake.openaiBaseUrl}", api_key: k }`;
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\nmoa:\n  default_preset: review\n  presets:\n    review:\n      reference_models:\n        - ${slot('ref-a')}\n        - ${slot('ref-b')}\n        - { provider: custom, model: ref-off, enabled: false }\n      aggregator: ${slot('agg-model')}\n`,
  );
  const env = { ...process.env, HERMES_HOME: home, HOME: home };
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false });
  const registry = createCommandRegistry({ home });
  const n = fake.requests.length;
  const r = (await runCommand(registry, '/moa how should I process uploads?', { session, surface: 'cli', hooks: {} }))!;
  assert.match(r.output ?? '', /^MoA \(review\): 2\/2 reference model\(s\) answered; custom\/agg-model answers now\./);
  const refReqs = fake.requests.slice(n);
  assert.deepEqual(refReqs.map((q) => q.body.model).sort(), ['ref-a', 'ref-b']);
  assert.ok(refReqs.every((q) => !(q.body.tools as unknown[] | undefined)?.length), 'references run without tools');
  assert.match(r.send ?? '', /^how should I process uploads\?/);
  assert.match(r.send ?? '', /<reference index="\d" model="custom\/ref-a">\nReference A: use a queue\.\n<\/reference>/);
  const turn = await session.prompt(r.send!);
  assert.equal(turn.finalText, 'answer from agg-model');
  assert.equal(fake.requests.at(-1)!.body.model, 'agg-model');
  assert.equal(session.llm.active.model, 'test-model', 'the session model is back after the turn');
  await session.prompt('and now?');
  assert.equal(fake.requests.at(-1)!.body.model, 'test-model');
  await session.close();
});

it('/moa tolerates a failing reference model and says which one failed', async () => {
  const home = tempHome();
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\nmoa:\n  presets:\n    default:\n      reference_models:\n        - { provider: custom, model: ref-a, base_url: "${fake.openaiBaseUrl}", api_key: k }\n        - { provider: custom, model: ref-broken, base_url: "${fake.openaiBaseUrl}", api_key: k }\n`,
  );
  const env = { ...process.env, HERMES_HOME: home, HOME: home };
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false });
  const r = (await runCommand(createCommandRegistry({ home }), '/moa plan it', { session, surface: 'cli', hooks: {} }))!;
  assert.match(r.output ?? '', /^MoA \(default\): 1\/2 reference model\(s\) answered \(failed: ref-broken: .*\); custom\/test-model answers now\./);
  assert.match(r.send ?? '', /Reference A/);
  await session.close();
});
