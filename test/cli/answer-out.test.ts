// The one-shot answer writer (src/cli/answer-out.ts): what reaches stdout when a model call's text
// is withdrawn, on a pipe and on a terminal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerOut, advance } from '../../src/cli/answer-out.ts';

function writer(tty: { columns: number; rows: number } | null) {
  const out: string[] = [];
  return { a: new AnswerOut((s) => out.push(s), tty), out };
}

describe('AnswerOut', () => {
  it('on a pipe: a call’s text is held until it settles, and withdrawn text never reaches the output', () => {
    const { a, out } = writer(null);
    a.begin();
    a.text('The answer is for');
    assert.deepEqual(out, [], 'nothing written while the call may still break');
    assert.equal(a.retract(), undefined);
    a.text('Forty-two.');
    a.settle();
    a.text('\n');
    assert.equal(out.join(''), 'Forty-two.\n');
    assert.equal(a.streamed, 'Forty-two.\n');
  });

  it('on a pipe: a call that fails for good is dropped', () => {
    const { a, out } = writer(null);
    a.begin();
    a.text('half an ans');
    a.drop();
    assert.equal(out.join(''), '');
  });

  it('on a terminal: streamed at once; a withdrawn part that wrapped is erased line by line from where it began', () => {
    const { a, out } = writer({ columns: 10, rows: 24 });
    a.begin();
    a.text('Hi. ');
    a.settle();
    a.begin();
    a.text('0123456789abcdefg');
    assert.equal(out.join(''), 'Hi. 0123456789abcdefg');
    assert.equal(a.retract(), undefined);
    // 4 + 17 characters on 10 columns: two rows down from where the call began (column 4).
    assert.equal(out.at(-1), '\r\x1b[K\x1b[1A\r\x1b[K\x1b[1A\r\x1b[4C\x1b[K');
    assert.equal(a.streamed, 'Hi. ');
  });

  it('on a terminal: text followed by other output, or taller than the screen, is marked instead', () => {
    const { a, out } = writer({ columns: 80, rows: 24 });
    a.begin();
    a.text('partial');
    a.interleaved();
    const note = a.retract();
    assert.match(note ?? '', /withdrawn/);
    assert.equal(out.join(''), 'partial\n');

    const tall = writer({ columns: 10, rows: 5 });
    tall.a.begin();
    tall.a.text('x'.repeat(100));
    assert.match(tall.a.retract() ?? '', /withdrawn/);
  });

  it('advance counts wide characters and newlines', () => {
    assert.deepEqual(advance('ab\ncd', 0, 10), { rows: 1, col: 2 });
    assert.deepEqual(advance('日本語', 0, 4), { rows: 1, col: 2 });
  });
});
