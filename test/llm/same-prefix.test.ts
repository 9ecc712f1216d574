// samePrefix: the check behind the caches kept across requests of a growing history (sanitize memo,
// chat body run, token estimate).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { samePrefix } from '../../src/llm/types.ts';

describe('samePrefix', () => {
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((content) => ({ role: 'user', content }));

  it('counts the leading entries that are the same objects', () => {
    const history = [a, b];
    const seen = history.slice();
    history.push(c, d);
    assert.equal(samePrefix(seen, history), 2, 'grown: all of what was seen');
    assert.equal(samePrefix([], history), 0);
    assert.equal(samePrefix(history, [a, b]), 2, 'now shorter: at most its length');
    assert.equal(samePrefix([a, { ...b }], history), 1, 'an equal copy is not the same message');
  });

  it('sees an in-place rewrite that keeps the array, its length and its first and last messages', () => {
    const history = [a, b, c, d];
    const seen = history.slice();
    history.splice(0, history.length, a, e, c, d);
    assert.equal(samePrefix(seen, history), 1);
  });

  it('stops where `same(i)` fails', () => {
    assert.equal(samePrefix([a, b, c], [a, b, c], (i) => i < 2), 2);
  });
});
