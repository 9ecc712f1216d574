// Mid-stream faults through the real adapters and the client, on all three wires: a fault proxy
// (test/helpers/fault-proxy.ts) in front of the fake LLM cuts, resets, stalls or corrupts the
// stream after it began, or holds the response back entirely. What must hold: the broken attempt's
// output is retracted before it is sent again, the retry follows the transient-error rules, the
// fallback takes over when retries run out or the stall persists, a provider silent past the
// first-byte deadline is left at once, and the error says what happened.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createLlmClient, type LlmClientOptions } from '../../src/llm/client.ts';
import { describeError } from '../../src/llm/errors.ts';
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { ApiMode, StreamEvent } from '../../src/llm/types.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { collect, request, runtime } from './_util.ts';

let fake: FakeLlm;
let proxy: FaultProxy;
before(async () => {
  fake = await startFakeLlm();
  proxy = await startFaultProxy(fake.url);
});
after(async () => {
  await proxy.close();
  await fake.close();
});

let sleeps: number[];
beforeEach(() => {
  sleeps = [];
  fake.setHandler(null);
  proxy.setDefault(null);
});

// Deadlines short enough for a test, long enough that a healthy answer on a loaded machine meets them.
const STALE_MS = 2500;
const FIRST_BYTE_MS = 1500;

const LONG = 'The answer is forty-two, because six times seven is forty-two. '.repeat(8);
const GOOD = 'Forty-two, in full.';
const BACKUP = 'Forty-two, from the backup.';

const WIRES: { name: string; mode: ApiMode; base: (url: string) => string }[] = [
  { name: 'chat completions', mode: 'chat_completions', base: (u) => `${u}/v1` },
  { name: 'anthropic messages', mode: 'anthropic_messages', base: (u) => u },
  { name: 'responses', mode: 'codex_responses', base: (u) => `${u}/v1` },
];

const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type);
const kinds = (events: StreamEvent[]) => events.map((e) => e.type).filter((t) => !t.endsWith('_delta') && t !== 'tool_call_start');
const doneOf = (events: StreamEvent[]) => (events.at(-1) as Extract<StreamEvent, { type: 'done' }>).result;
/** The text a consumer shows at the end: deltas, with a retraction dropping everything before it. */
const shown = (events: StreamEvent[]) => {
  let t = '';
  for (const e of events) {
    if (e.type === 'text_delta') t += e.text;
    if (e.type === 'retract') t = '';
  }
  return t;
};

for (const w of WIRES) {
  describe(`stream faults: ${w.name}`, () => {
    const primary = (over: Partial<ProviderRuntime> = {}) =>
      runtime({ baseUrl: w.base(proxy.url), apiMode: w.mode, provider: 'custom:primary', model: 'primary-model', ...over });
    const backup = () => runtime({ baseUrl: w.base(fake.url), apiMode: w.mode, provider: 'custom:backup', model: 'backup-model', keys: ['kb'], apiKey: 'kb' });
    const client = (o: Partial<LlmClientOptions> = {}) =>
      createLlmClient({ primary: primary(), sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, staleMs: STALE_MS, firstByteMs: FIRST_BYTE_MS, health: null, ...o });

    test('a cut mid-answer: retracted, retried with the usual backoff, the answer is the retry’s', async () => {
      fake.enqueue({ text: LONG }, { text: GOOD });
      proxy.enqueue({ cutAfter: 1500 });
      const events = await collect(client().stream(request()));
      assert.ok(ofType(events.slice(0, events.findIndex((e) => e.type === 'retract')), 'text_delta').length > 0, 'text had been streamed before the cut');
      assert.deepEqual(kinds(events), ['retract', 'retry', 'done']);
      const err = ofType(events, 'retract')[0].error;
      assert.equal(err.fault, 'cut');
      assert.deepEqual(sleeps, [750]);
      assert.equal(shown(events), GOOD);
      assert.equal(doneOf(events).message.content, GOOD);
      const line = describeError(err, primary());
      assert.match(line, /cut off/);
      assert.doesNotMatch(line, /unreachable/);
    });

    test('a reset mid-answer: the same', async () => {
      fake.enqueue({ text: LONG }, { text: GOOD });
      proxy.enqueue({ resetAfter: 1500 });
      const events = await collect(client().stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'done']);
      assert.equal(ofType(events, 'retract')[0].error.fault, 'cut');
      assert.equal(shown(events), GOOD);
    });

    test('a malformed event: retracted and retried; the error names it', async () => {
      fake.enqueue({ text: LONG }, { text: GOOD });
      proxy.enqueue({ malformedAfterEvents: 6 });
      const events = await collect(client().stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'done']);
      const err = ofType(events, 'retract')[0].error;
      assert.equal(err.fault, 'malformed');
      assert.match(describeError(err, primary()), /malformed/);
      assert.equal(shown(events), GOOD);
    });

    test('a stall mid-answer: retracted at the stale timeout and retried', async () => {
      fake.enqueue({ text: LONG }, { text: GOOD });
      proxy.enqueue({ stallAfter: 1500 });
      const events = await collect(client().stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'done']);
      const err = ofType(events, 'retract')[0].error;
      assert.equal(err.fault, 'stall');
      assert.match(describeError(err, primary()), /stalled/);
      assert.equal(shown(events), GOOD);
    });

    test('a stall that persists goes to the fallback after one retry', async () => {
      fake.enqueue({ text: LONG }, { text: LONG }, { text: BACKUP });
      proxy.enqueue({ stallAfter: 1500 }, { stallAfter: 1500 });
      const events = await collect(client({ fallbacks: [backup()] }).stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'retract', 'fallback', 'done']);
      const fb = ofType(events, 'fallback')[0];
      assert.equal(fb.to, 'custom:backup:backup-model');
      assert.match(fb.reason, /stalled/);
      assert.equal(shown(events), BACKUP);
      assert.equal(doneOf(events).provider, 'custom:backup');
    });

    test('cuts until the retries are spent, then the fallback; without one the error and exit', async () => {
      fake.enqueue({ text: LONG }, { text: LONG }, { text: BACKUP });
      proxy.enqueue({ cutAfter: 1500 }, { cutAfter: 1500 });
      let events = await collect(client({ fallbacks: [backup()], maxRetries: 1 }).stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'retract', 'fallback', 'done']);
      assert.equal(shown(events), BACKUP);

      fake.enqueue({ text: LONG }, { text: LONG });
      proxy.enqueue({ cutAfter: 1500 }, { cutAfter: 1500 });
      events = await collect(client({ maxRetries: 1 }).stream(request()));
      assert.deepEqual(kinds(events), ['retract', 'retry', 'done']);
      const r = doneOf(events);
      assert.equal(r.stopReason, 'error');
      assert.equal(r.error?.fault, 'cut');
    });

    test('silent before the first byte: the fallback at once, no retry and nothing to retract', async () => {
      fake.enqueue({ text: 'never delivered' }, { text: BACKUP });
      proxy.enqueue({ stallBeforeFirstByte: true });
      const events = await collect(client({ fallbacks: [backup()] }).stream(request()));
      assert.deepEqual(kinds(events), ['fallback', 'done']);
      assert.match(ofType(events, 'fallback')[0].reason, /first-byte deadline/);
      assert.deepEqual(sleeps, []);
      assert.equal(doneOf(events).message.content, BACKUP);
    });

    test('silent before the first byte with two keys: the next key at once', async () => {
      fake.enqueue({ text: 'never delivered' }, { text: GOOD });
      proxy.enqueue({ stallBeforeFirstByte: true });
      const c = client({ primary: primary({ keys: ['k1', 'k2'], apiKey: 'k1' }) });
      const events = await collect(c.stream(request()));
      assert.deepEqual(kinds(events), ['key_rotated', 'done']);
      assert.equal(doneOf(events).message.content, GOOD);
      assert.equal(fake.requests.at(-1)?.apiKey, 'k2');
    });

    test('silent before the first byte with nowhere else to go: retried with backoff', async () => {
      fake.enqueue({ text: 'never delivered' }, { text: GOOD });
      proxy.enqueue({ stallBeforeFirstByte: true });
      const events = await collect(client().stream(request()));
      assert.deepEqual(kinds(events), ['retry', 'done']);
      const err = ofType(events, 'retry')[0].error;
      assert.equal(err.fault, 'first_byte');
      assert.match(describeError(err, primary()), /did not begin to answer/);
      assert.equal(doneOf(events).message.content, GOOD);
    });
  });
}
