import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ContextCompressor,
  FAILURE_COOLDOWNS_MS,
  findBoundaries,
  PRUNED_TOOL_OUTPUT,
  pruneToolOutputs,
  repairToolPairs,
  SUMMARY_PREFIX,
  type CompressionSettings,
  type SummaryRequest,
} from '../../src/agent/compress.ts';
import { sanitizeHistory } from '../../src/agent/repair.ts';
import type { Message } from '../../src/llm/types.ts';

const settings: CompressionSettings = { contextLength: 8000, threshold: 0.5, targetRatio: 0.2, protectFirstN: 3, protectLastN: 6 };

/** A long conversation: each turn = user, assistant tool call, tool result (bulky), assistant answer. */
function conversation(turns: number, resultChars = 1200): Message[] {
  const h: Message[] = [];
  for (let t = 0; t < turns; t++) {
    h.push({ role: 'user', content: `question ${t}: please check file-${t}.txt` });
    h.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"file-${t}.txt"}` } }] });
    h.push({ role: 'tool', tool_call_id: `c${t}`, tool_name: 'read_file', content: `contents of file ${t}: ${'x'.repeat(resultChars)}` });
    h.push({ role: 'assistant', content: `file-${t}.txt looks fine (answer ${t})` });
  }
  return h;
}

test('boundaries protect the head and a tail of at least N messages, never splitting a call from its result', () => {
  const h = conversation(10);
  const { headEnd, tailStart } = findBoundaries(h, settings);
  assert.equal(headEnd, 3, 'first user, call and its result');
  assert.ok(h.length - tailStart >= settings.protectLastN);
  assert.notEqual(h[tailStart].role, 'tool');
  for (let cut = 0; cut < h.length; cut++) {
    const b = findBoundaries(h.slice(0, cut + 1), { ...settings, protectLastN: 1 + (cut % 7) });
    for (const i of [b.headEnd, b.tailStart]) if (i < cut + 1) assert.notEqual(h[i].role, 'tool', `boundary at ${i} splits a call`);
  }
});

test('old tool output is cleared first, outside the tail', () => {
  const h = conversation(6);
  const { messages, cleared } = pruneToolOutputs(h, 16, 3);
  assert.equal(cleared, 3);
  assert.equal(messages[2].content, h[2].content, 'head untouched');
  assert.equal(messages[6].content, PRUNED_TOOL_OUTPUT);
  assert.equal(messages[18].content, h[18].content, 'tail untouched');
  assert.notStrictEqual(messages, h);
  assert.match(String(h[6].content), /contents of file 1/, 'input not modified');
});

test('a failing summary leaves the transcript whole and backs off 1, 5, 15 minutes', async () => {
  let clock = 1_000_000;
  const requests: SummaryRequest[] = [];
  const c = new ContextCompressor({
    settings,
    now: () => clock,
    summarize: async (r) => {
      requests.push(r);
      throw new Error('aux model overloaded (HTTP 529)');
    },
  });
  const h = conversation(12, 100);
  const copy = structuredClone(h);
  assert.equal(c.shouldCompress(5000), true);
  const r1 = await c.compress(h, { force: false, promptTokens: 5000 });
  assert.equal(r1.status, 'failed');
  assert.match((r1 as { error: string }).error, /overloaded/);
  assert.deepEqual(h, copy, 'history untouched');
  assert.equal(c.shouldCompress(5000), false, 'cooling down');
  assert.equal((await c.compress(h)).status, 'skipped');
  clock += FAILURE_COOLDOWNS_MS[0];
  assert.equal(c.shouldCompress(5000), true, 'retried after the cooldown');
  const r2 = await c.compress(h);
  assert.equal(r2.status, 'failed');
  assert.equal((r2 as { retryInMs: number }).retryInMs, FAILURE_COOLDOWNS_MS[1]);
  // A manual /compress ignores the cooldown.
  assert.equal((await c.compress(h, { force: true })).status, 'failed');
  assert.equal(requests.length, 3);
  assert.deepEqual(h, copy);
});

test('a successful pass: head + structured summary + tail, pairs intact, later passes update the summary', async () => {
  const requests: SummaryRequest[] = [];
  let n = 0;
  const c = new ContextCompressor({
    settings: { ...settings, contextLength: 3000 },
    summarize: async (r) => {
      requests.push(r);
      n++;
      return `## Goal\nCheck files (pass ${n}).\n## Progress\n### Done\nChecked files.`;
    },
  });
  const h = conversation(12, 100);
  const r = await c.compress(h, { promptTokens: 6000 });
  assert.equal(r.status, 'compressed');
  if (r.status !== 'compressed') return;
  assert.ok(r.summarized > 10);
  const m = r.messages;
  assert.deepEqual(m.slice(0, 3), h.slice(0, 3));
  assert.equal(m[3].role, 'user');
  assert.ok(String(m[3].content).startsWith(SUMMARY_PREFIX));
  assert.match(String(m[3].content), /Check files \(pass 1\)/);
  assert.deepEqual(m.slice(4), h.slice(h.length - (m.length - 4)));
  assert.deepEqual(sanitizeHistory(m).filter((x) => x.role === 'tool').length, m.filter((x) => x.role === 'tool').length, 'no orphan results, no stubs');
  assert.match(requests[0].prompt, /## Goal[\s\S]*## Constraints & Preferences[\s\S]*## Progress[\s\S]*## Key Decisions[\s\S]*## Relevant Files[\s\S]*## Next Steps[\s\S]*## Critical Context/);
  assert.match(requests[0].prompt, /file-5\.txt/);
  assert.ok(requests[0].maxTokens >= 2000);

  // The conversation goes on; the second pass updates the first summary.
  const longer = [...m, ...conversation(12, 100).map((x) => ({ ...x, content: typeof x.content === 'string' ? x.content.replace('question', 'later question') : x.content }))];
  const r2 = await c.compress(longer, { promptTokens: 7000, focus: 'the failing files' });
  assert.equal(r2.status, 'compressed');
  assert.match(requests[1].prompt, /<previous_summary>\n## Goal\nCheck files \(pass 1\)/);
  assert.match(requests[1].prompt, /focus the summary on: the failing files/);
  if (r2.status === 'compressed') assert.equal(r2.messages.filter((x) => String(x.content ?? '').startsWith('[CONTEXT COMPACTION]')).length, 1);
});

test('when clearing tool output is enough, no summary is requested', async () => {
  let called = false;
  const c = new ContextCompressor({
    settings: { ...settings, contextLength: 20_000 },
    summarize: async () => {
      called = true;
      return 'x';
    },
  });
  const h = conversation(14, 2500);
  const r = await c.compress(h, { promptTokens: 10_500 });
  assert.equal(r.status, 'compressed');
  assert.equal(called, false);
  if (r.status === 'compressed') {
    assert.equal(r.summarized, 0);
    assert.ok(r.prunedToolResults > 0);
    assert.equal(r.messages.length, h.length);
  }
});

test("the user's current request survives verbatim when it falls inside the compressed middle", async () => {
  const c = new ContextCompressor({ settings: { ...settings, protectFirstN: 2, protectLastN: 4 }, summarize: async () => '## Goal\nWork.' });
  const h: Message[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
    { role: 'user', content: 'Refactor the billing module and keep the public API EXACTLY as is.' },
  ];
  for (let i = 0; i < 15; i++) {
    h.push({ role: 'assistant', content: null, tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }] });
    h.push({ role: 'tool', tool_call_id: `t${i}`, tool_name: 'terminal', content: 'y'.repeat(900) });
  }
  const r = await c.compress(h, { force: true });
  assert.equal(r.status, 'compressed');
  if (r.status === 'compressed') assert.match(String(r.messages[2].content), /current request \(verbatim\)\nRefactor the billing module and keep the public API EXACTLY as is\./);
});

test('repairToolPairs drops orphan results and stubs missing ones', () => {
  const out = repairToolPairs([
    { role: 'tool', tool_call_id: 'gone', content: 'orphan' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }, { id: 'b', type: 'function', function: { name: 'y', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'a', content: 'ok' },
    { role: 'user', content: 'next' },
  ]);
  assert.deepEqual(out.map((m) => `${m.role}:${m.tool_call_id ?? ''}`), ['assistant:', 'tool:a', 'tool:b', 'user:']);
});
