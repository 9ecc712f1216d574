// The loop and a model stream that broke after it had begun and was sent again (StreamEvent
// `retract`, from the LLM client): the withdrawn text goes out as an AgentEvent `retract`, the
// text-call scanner starts afresh for the new attempt, and only the new attempt's message is kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IterationBudget } from '../../src/agent/budget.ts';
import { runTurn } from '../../src/agent/loop.ts';
import { textCalls } from '../../src/agent/textcalls/hook.ts';
import { RequestBroker } from '../../src/agent/requests.ts';
import type { AgentEvent, AgentTool } from '../../src/agent/types.ts';
import { EventStream } from '../../src/llm/event-stream.ts';
import { emptyUsage, type Message, type ProviderError, type StreamEvent, type StreamFn } from '../../src/llm/types.ts';

const cut: ProviderError = { kind: 'connection', fault: 'cut', message: 'the stream was cut off before the response was complete', provider: 'fake', retryable: true };

/** One call: `events` pushed in order, then `done` with `message`. */
function stream(calls: { events: StreamEvent[]; message: Message }[]): { fn: StreamFn; count: () => number } {
  let n = 0;
  const fn: StreamFn = (req) => {
    const c = calls[n++] ?? { events: [], message: { role: 'assistant', content: 'done' } };
    const out = new EventStream();
    queueMicrotask(() => {
      for (const e of c.events) out.push(e);
      out.end({ message: c.message, stopReason: c.message.tool_calls?.length ? 'tool_calls' : 'stop', usage: emptyUsage(), model: req.model, provider: 'fake' });
    });
    return out;
  };
  return { fn, count: () => n };
}

function run(fn: StreamFn, tools: AgentTool[] = []) {
  const events: AgentEvent[] = [];
  const sunk: Message[] = [];
  const history: Message[] = [];
  const done = runTurn(
    { role: 'user', content: 'question' },
    {
      history,
      system: 'S',
      tools,
      stream: fn,
      model: () => 'm',
      broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
      budget: new IterationBudget(5),
      emit: (e) => events.push(e),
      sink: { append: (m) => sunk.push(structuredClone(m)) },
      hooks: [textCalls()],
    },
  );
  return { done, events, sunk, history };
}

const shownText = (events: AgentEvent[]) => {
  let t = '';
  for (const e of events) {
    if (e.type === 'text_delta') t += e.text;
    if (e.type === 'retract') t = '';
  }
  return t;
};

describe('agent loop: a retracted partial answer', () => {
  it('passes the retraction on, keeps only the new attempt, and stores no partial text', async () => {
    const s = stream([
      {
        events: [
          { type: 'text_delta', text: 'The answer is forty' },
          { type: 'reasoning_delta', text: 'thinking…' },
          { type: 'retract', error: cut },
          { type: 'retry', attempt: 1, maxAttempts: 3, delayMs: 10, error: cut },
          { type: 'text_delta', text: 'Forty-two.' },
        ],
        message: { role: 'assistant', content: 'Forty-two.' },
      },
    ]);
    const t = run(s.fn);
    const r = await t.done;
    assert.equal(r.finalText, 'Forty-two.');
    const kinds = t.events.map((e) => e.type).filter((k) => ['text_delta', 'reasoning_delta', 'retract', 'retry'].includes(k));
    assert.deepEqual(kinds, ['text_delta', 'reasoning_delta', 'retract', 'retry', 'text_delta']);
    const retract = t.events.find((e) => e.type === 'retract') as { error: ProviderError; shown: boolean };
    assert.equal(retract.error.fault, 'cut');
    assert.equal(retract.shown, true);
    assert.equal(shownText(t.events), 'Forty-two.');
    const stored = JSON.stringify(t.sunk);
    assert.ok(!stored.includes('forty'), stored);
    assert.deepEqual(
      t.history.map((m) => [m.role, m.content]),
      [
        ['user', 'question'],
        ['assistant', 'Forty-two.'],
      ],
    );
  });

  it('a text-call scanner holding a partial call starts afresh: the new answer is shown whole, nothing runs', async () => {
    let ran = 0;
    const tools: AgentTool[] = [
      {
        name: 'terminal',
        toolset: 't',
        schema: { name: 'terminal', description: 'run', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
        execute: async () => {
          ran++;
          return { content: '{}' };
        },
      },
    ];
    const s = stream([
      {
        events: [
          { type: 'text_delta', text: '<tool_call>{"name": "terminal", "argum' },
          { type: 'retract', error: cut },
          { type: 'text_delta', text: 'Nothing to run: the answer is 42.' },
        ],
        message: { role: 'assistant', content: 'Nothing to run: the answer is 42.' },
      },
    ]);
    const t = run(s.fn, tools);
    const r = await t.done;
    assert.equal(ran, 0);
    assert.equal((t.events.find((e) => e.type === 'retract') as { shown: boolean }).shown, false, 'the held-back call text never reached a surface');
    assert.equal(r.finalText, 'Nothing to run: the answer is 42.');
    assert.equal(shownText(t.events), 'Nothing to run: the answer is 42.');
    assert.equal(s.count(), 1);
  });
});
