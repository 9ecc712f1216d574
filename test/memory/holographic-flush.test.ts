// Holographic end to end with no fake service (SQLite in HERMES_HOME), and the memory flush before
// compression: the model gets one memory-only request and what it saves lands in MEMORY.md.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sqlite } from '../../src/state/sqlite.ts';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm({ defaultReply: { text: 'ok' } });
});
after(() => llm.close());

test('holographic: a fact stored in one session is recalled in the next, from memory_store.db', async () => {
  const home = homeWithModel(llm.openaiBaseUrl, 'memory:\n  provider: holographic\n');
  llm.enqueue(
    { toolCalls: [{ name: 'fact_store', arguments: { action: 'add', content: 'The user\'s code editor is "Helix" and they deploy with Fly Machines', category: 'user' } }] },
    { text: 'Saved.' },
  );
  const a = await hermes(['chat', '-q', 'I use Helix as my editor'], { home });
  assert.equal(a.code, 0, a.stderr);
  assert.ok(existsSync(join(home, 'memory_store.db')));
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(join(home, 'memory_store.db'));
  const facts = db.prepare('SELECT content, trust_score FROM facts').all() as { content: string; trust_score: number }[];
  const entities = db.prepare('SELECT name FROM entities ORDER BY name').all() as { name: string }[];
  db.close();
  assert.equal(facts.length, 1);
  assert.equal(facts[0].trust_score, 0.5);
  assert.deepEqual(entities.map((e) => e.name), ['Fly Machines', 'Helix']);

  const before = llm.requests.length;
  const b = await hermes(['chat', '-q', 'which editor should I open this in?'], { home });
  assert.equal(b.code, 0, b.stderr);
  const users = (llm.requests[before].body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user');
  assert.match(JSON.stringify(users.at(-1)), /memory-context[\s\S]*Helix/);

  llm.enqueue({ toolCalls: [{ name: 'fact_store', arguments: { action: 'probe', entity: 'helix' } }] }, { text: 'Found it.' });
  const c = await hermes(['chat', '-q', 'what do you know about Helix?'], { home });
  assert.equal(c.code, 0, c.stderr);
  const toolResult = (llm.requests.at(-1)!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
  assert.match(String(toolResult?.content), /Fly Machines/);
  const st = await hermes(['memory', 'status'], { home });
  assert.match(st.stdout, /✓ local store .*memory_store\.db · 1 fact/);
});

test('memory flush: before compression the model gets one memory-only request, and its save lands in MEMORY.md', async () => {
  const h = tempHome();
  const aux = await startFakeLlm();
  writeFileSync(
    join(h, 'config.yaml'),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  api_key: k\n  context_length: 9000\ntoolsets: [memory]\ncompression:\n  protect_last_n: 4\n` +
      `auxiliary:\n  compression:\n    base_url: ${aux.openaiBaseUrl}\n    model: summary-model\n    api_key: aux-key\n`,
  );
  aux.setHandler(() => ({ text: '## Goal\nEssays.' }));
  let flushes = 0;
  llm.setHandler((r) => {
    const msgs = r.body.messages as { role: string; content: string }[];
    if (/about to be compacted/.test(String(msgs.at(-1)?.content))) {
      flushes++;
      assert.deepEqual((r.body.tools as { function: { name: string } }[]).map((t) => t.function.name), ['memory'], 'only the memory tool');
      return { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'user', content: 'Writes essays about tides' } }] };
    }
    return { text: `Thoughts: ${'interesting '.repeat(150)}`, usage: { input: Math.ceil(JSON.stringify(r.body).length / 4) } };
  });
  try {
    let compressed = 0;
    for (let i = 0; i < 9 && !compressed; i++) {
      const r = await hermes(['chat', ...(i ? ['--continue'] : []), '-q', `essay${i} ${'lorem ipsum dolor '.repeat(110)}`], { home: h });
      assert.equal(r.code, 0, r.stderr);
      if (/Context compressed/.test(r.stderr)) compressed++;
    }
    assert.equal(compressed, 1);
    assert.equal(flushes, 1);
    assert.match(readFileSync(join(h, 'memories', 'USER.md'), 'utf8'), /Writes essays about tides/);
    // The flush exchange is not part of the conversation.
    assert.ok(llm.requests.at(-1)!.body.messages.every((m: { content: unknown }) => !/about to be compacted/.test(JSON.stringify(m.content))));
  } finally {
    llm.setHandler(null);
    await aux.close();
  }
});
