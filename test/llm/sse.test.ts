// readSse: the event-stream reader the Chat Completions adapter reads the SDK's raw response with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSse, type SseBody, type SseEvent } from '../../src/llm/sse.ts';

/** A body yielding these byte chunks, recording whether it was cancelled. */
function body(chunks: (string | Uint8Array)[]): SseBody & { cancelled: boolean } {
  const queue = chunks.map((c) => (typeof c === 'string' ? new TextEncoder().encode(c) : c));
  const b = {
    cancelled: false,
    getReader: () => ({
      read: async () => (queue.length ? { done: false, value: queue.shift() } : { done: true }),
      cancel: async () => void (b.cancelled = true),
    }),
  };
  return b;
}

async function events(chunks: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  await readSse(body(chunks), (e) => void out.push(e));
  return out;
}

test('events split anywhere across chunks, with LF, CRLF or CR line ends, comments and multi-line data', async () => {
  const bytes = new TextEncoder().encode('data: {"a":"é"}\r\n\r\n: keep-alive\n\nevent: ping\ndata: x\ndata:y\n\n');
  // Every split point, including inside "é" and between "\r" and "\n".
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(await events([bytes.slice(0, cut), bytes.slice(cut)]), [
      { event: null, data: '{"a":"é"}' },
      { event: 'ping', data: 'x\ny' },
    ]);
  }
  assert.deepEqual(await events(['data: 1\r\rdata: 2\r\r']), [
    { event: null, data: '1' },
    { event: null, data: '2' },
  ]);
});

test('a last event without its blank line is still delivered; fields other than event and data are ignored', async () => {
  assert.deepEqual(await events(['id: 7\nretry: 10\ndata: last']), [{ event: null, data: 'last' }]);
  assert.deepEqual(await events(['event: done\n\n']), [{ event: 'done', data: '' }]);
});

test('returning false stops reading and cancels the rest of the body; a read error reaches the caller', async () => {
  const b = body(['data: 1\n\ndata: [DONE]\n\ndata: after\n\n', 'data: more\n\n']);
  const seen: string[] = [];
  await readSse(b, (e) => (seen.push(e.data), e.data !== '[DONE]'));
  assert.deepEqual(seen, ['1', '[DONE]']);
  assert.equal(b.cancelled, true);

  const failing: SseBody & { cancelled: boolean } = {
    cancelled: false,
    getReader: () => ({
      read: async () => {
        throw new Error('socket hang up');
      },
      cancel: async () => void (failing.cancelled = true),
    }),
  };
  await assert.rejects(readSse(failing, () => {}), /socket hang up/);
  assert.equal(failing.cancelled, true);
});
