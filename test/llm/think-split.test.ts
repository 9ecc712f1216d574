// <think> blocks written into the answer are reasoning, however the stream splits the tags.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settleOrphanThink, ThinkSplitter } from '../../src/llm/think-split.ts';

function split(chunks: string[]): { text: string; reasoning: string } {
  let text = '';
  let reasoning = '';
  const s = new ThinkSplitter((t) => (text += t), (t) => (reasoning += t));
  for (const c of chunks) s.push(c);
  s.end();
  return { text, reasoning };
}

const every = (s: string, n: number) => Array.from({ length: Math.ceil(s.length / n) }, (_, i) => s.slice(i * n, i * n + n));

describe('ThinkSplitter', () => {
  const answer = '\n<think>\nThe user wants 6*7. <tool_call>{"name":"x"}</tool_call>\n</think>\n\nIt is 42.';
  for (const n of [1, 3, 8, 200]) {
    it(`splits a leading block in ${n}-character chunks`, () => {
      assert.deepEqual(split(every(answer, n)), { text: 'It is 42.', reasoning: '\nThe user wants 6*7. <tool_call>{"name":"x"}</tool_call>\n' });
    });
  }

  it('leaves an answer without a block alone, and a <think> later in the answer is its text', () => {
    assert.deepEqual(split(['Use the ', '<think> tag', ' in prompts.']), { text: 'Use the <think> tag in prompts.', reasoning: '' });
    assert.deepEqual(split(['  <thi']), { text: '  <thi', reasoning: '' });
  });

  it('an unfinished block stays reasoning', () => {
    assert.deepEqual(split(['<think>still going']), { text: '', reasoning: 'still going' });
  });

  it('a closing tag with no opening one: what came before is reasoning', () => {
    assert.deepEqual(settleOrphanThink('I should greet.\n</think>\n\nHello!'), ['I should greet.', 'Hello!']);
    assert.equal(settleOrphanThink('Hello!'), null);
    assert.equal(settleOrphanThink('<think>a</think> b </think>'), null);
  });
});
