// /moa and MoA presets as models: reference models advise every request of the acting aggregator
// (in parallel, no tools), their advice rides on that request only and never reaches the stored
// transcript; `/moa <preset>` and `/model <preset> --provider moa` select a preset for the session,
// `/moa <prompt>` runs one turn and restores the model. All models are the fake LLM.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
  fake.models = ['test-model', 'agg-model'];
  fake.setHandler((r) => {
    const model = String(r.body.model);
    if (model === 'ref-a') return { text: 'Reference A: use a queue.' };
    if (model === 'ref-b') return { text: 'Reference B: add retries.' };
    if (model === 'ref-broken') return { status: 400, error: 'boom' };
    const last = r.body.messages.at(-1);
    if (model === 'agg-model' && /list the files/.test(JSON.stringify(r.body.messages)) && last.role !== 'tool' && !/tool result/.test(JSON.stringify(last)) && !r.body.messages.some((m: { role: string }) => m.role === 'tool'))
      return { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'look', status: 'pending' }] } }] };
    return { text: `answer from ${model}` };
  });
});
after(async () => {
  await fake.close();
});

const slot = (m: string) => `{ provider: custom, model: ${m}, base_url: "${fake.openaiBaseUrl}", api_key: k }`;

function setup(presets: string) {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\ntoolsets: [todo]\nmoa:\n${presets}`);
  const env = { ...process.env, HERMES_HOME: home, HOME: home };
  const store = SessionDB.open(join(home, 'state.db'));
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false, store: new SqliteSessionStore(store) });
  const notices: string[] = [];
  session.on((e) => {
    if (e.type === 'notice') notices.push(e.message);
  });
  const run = async (line: string) => (await runCommand(createCommandRegistry({ home }), line, { session, surface: 'cli', hooks: {} }))!;
  return { home, session, store, notices, run };
}

const REVIEW = () => `  default_preset: review\n  presets:\n    review:\n      reference_models:\n        - ${slot('ref-a')}\n        - ${slot('ref-b')}\n        - { provider: custom, model: ref-off, enabled: false }\n      aggregator: ${slot('agg-model')}\n    cheap:\n      reference_models:\n        - ${slot('ref-b')}\n`;
const lastUser = (r: RecordedRequest) => JSON.stringify([...r.body.messages].reverse().find((m: { role: string }) => m.role === 'user'));

it('/moa <prompt>: references advise the aggregator for one turn, their text stays out of the transcript, the model comes back', async () => {
  const { session, store, notices, run } = setup(REVIEW());
  const n = fake.requests.length;
  const r = await run('/moa how should I process uploads?');
  assert.match(r.output ?? '', /^MoA \(review\): custom\/agg-model answers this turn/);
  assert.equal(r.send, 'how should I process uploads?', 'the prompt is sent as typed');
  const turn = await session.prompt(r.send!);
  assert.equal(turn.finalText, 'answer from agg-model');
  const reqs = fake.requests.slice(n);
  const refs = reqs.filter((q) => String(q.body.model).startsWith('ref-'));
  assert.deepEqual(refs.map((q) => q.body.model).sort(), ['ref-a', 'ref-b'], 'enabled references only');
  assert.ok(refs.every((q) => !(q.body.tools as unknown[] | undefined)?.length), 'references run without tools');
  assert.ok(refs.every((q) => /how should I process uploads\?/.test(JSON.stringify(q.body.messages))), 'references see the conversation');
  const agg = reqs.filter((q) => q.body.model === 'agg-model');
  assert.equal(agg.length, 1);
  assert.match(lastUser(agg[0]), /how should I process uploads\?.*Reference A: use a queue\..*Reference B: add retries\./s, 'the advice rides on the aggregator request');
  assert.ok((agg[0].body.tools as unknown[]).length > 0, 'the aggregator acts with tools');
  assert.ok(notices.some((m) => /MoA \(review\): 2\/2 reference model\(s\) answered/.test(m)));
  await session.flushStore();
  const stored = JSON.stringify(store.getTranscript(session.id));
  assert.match(stored, /how should I process uploads\?/);
  assert.doesNotMatch(stored, /Reference A|<reference/, 'reference answers are not stored');
  assert.doesNotMatch(JSON.stringify(session.history), /Reference A/);
  assert.equal(session.llm.active.model, 'test-model', 'the session model is back after the turn');
  const m = fake.requests.length;
  await session.prompt('and now?');
  assert.deepEqual(fake.requests.slice(m).map((q) => q.body.model), ['test-model'], 'no references after the one-shot turn');
  await session.close();
  store.close();
});

it('/moa <preset> selects it for the session: references re-run after each tool result; /model switches back; /model <preset> --provider moa too', async () => {
  const { session, run } = setup(REVIEW());
  const sel = await run('/moa review');
  assert.match(sel.output ?? '', /Now using the MoA preset review \(provider moa\): custom\/agg-model acts/);
  assert.equal(sel.send, undefined, 'an exact preset name selects, it is not a prompt');
  const n = fake.requests.length;
  const t = await session.prompt('please list the files');
  assert.equal(t.finalText, 'answer from agg-model');
  const reqs = fake.requests.slice(n).map((q) => String(q.body.model));
  assert.equal(reqs.filter((m) => m === 'agg-model').length, 2, 'a tool call, then the answer');
  assert.equal(reqs.filter((m) => m === 'ref-a').length, 2, 'references advise again once the tool result is in');
  const aggAfterTool = fake.requests.slice(n).filter((q) => q.body.model === 'agg-model')[1];
  assert.ok(aggAfterTool.body.messages.some((m: { role: string }) => m.role === 'tool'), 'the aggregator sees the real tool result');
  assert.match(JSON.stringify(aggAfterTool.body.messages.at(-1)), /Mixture of Agents \(review\)/, 'advice after the tool result is its own trailing user message');
  await session.prompt('again');
  assert.equal(fake.requests.at(-1)!.body.model, 'agg-model', 'the preset stays selected');
  assert.match((await run('/model')).output ?? '', /^MoA preset: review \(provider moa\).*\nModel: agg-model via custom/);
  const back = await run('/model test-model');
  assert.match(back.output ?? '', /test-model/);
  const m = fake.requests.length;
  await session.prompt('plain');
  assert.deepEqual(fake.requests.slice(m).map((q) => q.body.model), ['test-model']);
  const viaModel = await run('/model cheap --provider moa');
  assert.match(viaModel.output ?? '', /MoA preset cheap .*custom\/test-model acts/, 'a preset without an aggregator keeps the session model acting');
  const k = fake.requests.length;
  await session.prompt('cheap one');
  assert.deepEqual(fake.requests.slice(k).map((q) => q.body.model).sort(), ['ref-b', 'test-model']);
  assert.match((await run('/model moa:nope')).output ?? '', /No MoA preset "nope"\. Presets: review, cheap\./);
  assert.match((await run('/moa')).output ?? '', /MoA preset review/, 'bare /moa selects the default preset');
  await session.close();
});

it('/moa tolerates a failing reference model and says which one failed; without presets it says how to add one', async () => {
  const { session, notices, run } = setup(`  presets:\n    default:\n      reference_models:\n        - ${slot('ref-a')}\n        - ${slot('ref-broken')}\n`);
  const r = await run('/moa plan it');
  assert.match(r.output ?? '', /^MoA \(default\): custom\/test-model answers this turn/);
  const turn = await session.prompt(r.send!);
  assert.equal(turn.finalText, 'answer from test-model');
  assert.ok(notices.some((m) => /1\/2 reference model\(s\) answered \(failed: custom\/ref-broken: /.test(m)), notices.join('\n'));
  assert.match(lastUser(fake.requests.at(-1)!), /Reference A.*failed: custom\/ref-broken/s);
  await session.close();
  const none = setup('  {}\n');
  assert.match((await none.run('/moa hi')).output ?? '', /No Mixture of Agents preset: add moa\.presets/);
  await none.session.close();
});

it('reference calls are metered: the spend ledger records them as moa, and a spend cap stops them before they are sent', async () => {
  const { home, session, run } = setup(`  presets:\n    default:\n      reference_models:\n        - ${slot('ref-a')}\n        - ${slot('ref-b')}\n`);
  await session.prompt((await run('/moa plan it'))!.send!);
  const day = readdirSync(join(home, 'spend'));
  const kinds = day.flatMap((f) => readFileSync(join(home, 'spend', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; model: string }));
  assert.deepEqual(kinds.filter((e) => e.kind === 'moa').map((e) => e.model).sort(), ['ref-a', 'ref-b']);
  assert.ok(kinds.some((e) => e.kind === 'main' && e.model === 'test-model'));
  await session.close();

  // A cap the references' requests (4,000 output tokens each) would pass: they are not sent.
  const capped = setup(`  presets:\n    default:\n      reference_models:\n        - ${slot('ref-a')}\nbudgets:\n  session_tokens: 3000\n  action: stop\n`);
  const n = fake.requests.length;
  await capped.session.prompt((await capped.run('/moa plan it'))!.send!);
  assert.deepEqual(fake.requests.slice(n).filter((q) => String(q.body.model).startsWith('ref-')), [], 'no reference request reached the provider');
  assert.ok(capped.notices.some((m) => /0\/1 reference model\(s\) answered \(failed: custom\/ref-a: .*budgets\.session_tokens/.test(m)), capped.notices.join('\n'));
  await capped.session.close();
});
