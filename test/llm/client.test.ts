import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createLlmClient, type LlmClientOptions } from '../../src/llm/client.ts';
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { StreamEvent } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { collect, request, runtime } from './_util.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

let sleeps: number[];
beforeEach(() => {
  sleeps = [];
  fake.setHandler(null);
});

const sleep = async (ms: number) => void sleeps.push(ms);
const chatRt = (over: Partial<ProviderRuntime> = {}) => runtime({ baseUrl: fake.openaiBaseUrl, ...over });
// Each test's client keeps its own provider health (none): a trip in one test must not route the next.
const client = (o: Partial<LlmClientOptions> & { primary: ProviderRuntime }) => createLlmClient({ sleep, random: () => 0, health: null, ...o });
const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type);
const doneOf = (events: StreamEvent[]) => {
  const d = events.at(-1);
  assert.ok(d?.type === 'done', 'stream ends with done');
  return (d as Extract<StreamEvent, { type: 'done' }>).result;
};

describe('createLlmClient: retries', () => {
  test('429 with Retry-After is honoured, then succeeds', async () => {
    fake.enqueue({ status: 429, error: 'slow down', retryAfter: 7 }, { text: 'hello' });
    const events = await collect(client({ primary: chatRt() }).stream(request()));
    assert.deepEqual(sleeps, [7000]);
    const retries = ofType(events, 'retry');
    assert.equal(retries.length, 1);
    assert.equal(retries[0].attempt, 1);
    assert.equal(retries[0].maxAttempts, 3);
    assert.equal(retries[0].delayMs, 7000);
    assert.equal(retries[0].error.kind, 'rate_limit');
    assert.equal(retries[0].error.message, 'slow down');
    assert.equal(doneOf(events).message.content, 'hello');
  });

  test('500 then success: one jittered exponential backoff', async () => {
    fake.enqueue({ status: 500 }, { text: 'fine' });
    const r = await client({ primary: chatRt(), random: () => 0.5 }).stream(request()).result();
    assert.equal(r.stopReason, 'stop');
    assert.equal(r.message.content, 'fine');
    assert.deepEqual(sleeps, [750], 'attempt 1: base 1000 ms, jitter in [500, 1000]');
  });

  test('backoff grows and is capped; after maxRetries the error is returned', async () => {
    fake.setHandler(() => ({ status: 502, error: 'upstream down' }));
    const n = fake.requests.length;
    const r = await client({ primary: chatRt(), random: () => 1, maxRetries: 6 }).stream(request()).result();
    assert.deepEqual(sleeps, [1000, 2000, 4000, 8000, 16000, 30000]);
    assert.equal(fake.requests.length - n, 7);
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'server');
    assert.equal(r.error?.message, 'upstream down');
  });

  test('a Retry-After beyond two minutes is not waited out', async () => {
    fake.enqueue({ status: 429, retryAfter: 3600 });
    const r = await client({ primary: chatRt() }).stream(request()).result();
    assert.deepEqual(sleeps, []);
    assert.equal(r.error?.kind, 'rate_limit');
    assert.equal(r.error?.retryAfterMs, 3_600_000);
  });

  test('a stream cut before any delta is retried transparently', async () => {
    fake.enqueue({ text: 'lost', cutAfterChunks: 1 }, { text: 'second try' });
    const events = await collect(client({ primary: chatRt() }).stream(request()));
    assert.equal(ofType(events, 'retry')[0]?.error.kind, 'connection');
    assert.equal(doneOf(events).message.content, 'second try');
    assert.equal(ofType(events, 'text_delta').map((e) => e.text).join(''), 'second try');
  });

  test('a stream cut after deltas reached the consumer is retracted and retried with the same backoff; the answer is the retry’s', async () => {
    fake.enqueue({ text: 'The answer is forty-two, because', cutAfterChunks: 3 }, { text: 'Forty-two.' });
    const n = fake.requests.length;
    const events = await collect(client({ primary: chatRt(), random: () => 0.5 }).stream(request()));
    const r = doneOf(events);
    assert.equal(fake.requests.length - n, 2);
    assert.deepEqual(
      events.map((e) => e.type).filter((t) => t !== 'text_delta'),
      ['retract', 'retry', 'done'],
      'the retraction comes before the retry, once',
    );
    const cut = ofType(events, 'retract')[0].error;
    assert.equal(cut.fault, 'cut');
    assert.match(cut.message, /cut off/);
    assert.deepEqual(sleeps, [750], 'the backoff of any transient error');
    const afterRetract = events.slice(events.findIndex((e) => e.type === 'retract'));
    assert.equal(ofType(afterRetract, 'text_delta').map((e) => e.text).join(''), 'Forty-two.');
    assert.equal(r.stopReason, 'stop');
    assert.equal(r.message.content, 'Forty-two.');
  });

  test('a cut that outlasts the retries ends with the error and the partial message (no throw)', async () => {
    fake.setHandler(() => ({ text: 'The answer is forty-two, because', cutAfterChunks: 3 }));
    const n = fake.requests.length;
    const events = await collect(client({ primary: chatRt(), maxRetries: 1 }).stream(request()));
    const r = doneOf(events);
    assert.equal(fake.requests.length - n, 2);
    assert.equal(ofType(events, 'retract').length, 1, 'only a retried attempt is retracted');
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'connection');
    assert.equal(r.error?.fault, 'cut');
    assert.equal(r.message.content, 'The answer is fo');
  });

  test('a stream cut in the middle of a tool call: the partial call is retracted, only the retry’s calls are in the result', async () => {
    fake.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: '/tmp/x', content: 'half' } }], cutAfterChunks: 2 },
      { toolCalls: [{ name: 'read_file', arguments: { path: '/tmp/y' } }] },
    );
    const events = await collect(client({ primary: chatRt() }).stream(request()));
    const r = doneOf(events);
    assert.ok(ofType(events, 'tool_call_start').some((e) => e.name === 'write_file'), 'the broken attempt had begun a call');
    assert.equal(ofType(events, 'retract').length, 1);
    assert.deepEqual(r.message.tool_calls?.map((c) => c.function.name), ['read_file']);
    assert.equal(r.stopReason, 'tool_calls');
  });

  test('an empty response counts as invalid_response and is retried', async () => {
    fake.enqueue({ text: '' }, { text: 'real answer' });
    const events = await collect(client({ primary: chatRt() }).stream(request()));
    assert.equal(ofType(events, 'retry')[0]?.error.kind, 'invalid_response');
    assert.equal(doneOf(events).message.content, 'real answer');
  });

  test('400 and context-length errors are not retried', async () => {
    fake.enqueue({ status: 400, error: 'Invalid schema for function read_file' });
    let r = await client({ primary: chatRt() }).stream(request()).result();
    assert.equal(r.error?.kind, 'bad_request');
    assert.equal(r.error?.message, 'Invalid schema for function read_file');
    fake.enqueue({ status: 400, error: 'maximum context length exceeded' });
    r = await client({ primary: chatRt() }).stream(request()).result();
    assert.equal(r.error?.kind, 'context_length');
    assert.deepEqual(sleeps, []);
  });

  test('a hung request hits the stale timeout, then the retry succeeds', async () => {
    fake.enqueue({ hang: true }, { text: 'awake' });
    // 1.5 s: long enough that the answering retry is never itself stale on a loaded machine
    const events = await collect(client({ primary: chatRt(), staleMs: 1500 }).stream(request()));
    assert.equal(ofType(events, 'retry')[0]?.error.kind, 'timeout');
    assert.equal(doneOf(events).message.content, 'awake');
  });
});

describe('createLlmClient: aborts', () => {
  test('abort during the backoff sleep ends at once with aborted', async () => {
    fake.enqueue({ status: 503 });
    const ac = new AbortController();
    const n = fake.requests.length;
    const c = createLlmClient({
      primary: chatRt(),
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          sleeps.push(ms);
          signal?.addEventListener('abort', () => resolve(), { once: true });
          setImmediate(() => ac.abort());
        }),
    });
    const r = await c.stream(request({ signal: ac.signal })).result();
    assert.equal(r.stopReason, 'aborted');
    assert.equal(sleeps.length, 1);
    assert.equal(fake.requests.length - n, 1, 'no request after the abort');
  });

  test('abort mid-stream through the client → aborted, no retry', async () => {
    fake.enqueue({ text: 'y'.repeat(400), chunkDelayMs: 5 });
    const ac = new AbortController();
    const s = client({ primary: chatRt() }).stream(request({ signal: ac.signal }));
    const events: StreamEvent[] = [];
    for await (const e of s) {
      events.push(e);
      if (e.type === 'text_delta') ac.abort();
    }
    assert.equal(doneOf(events).stopReason, 'aborted');
    assert.equal(ofType(events, 'retry').length, 0);
  });
});

describe('createLlmClient: credential pool', () => {
  test('429 rotates to the next key at once (no backoff) and the limited key cools down for an hour', async () => {
    let now = 1_000_000;
    const c = client({ primary: chatRt({ keys: ['k1', 'k2'], apiKey: 'k1' }), now: () => now });
    fake.enqueue({ status: 429, error: 'key limit' }, { text: 'from k2' });
    const n = fake.requests.length;
    const events = await collect(c.stream(request()));
    assert.deepEqual(fake.requests.slice(n).map((r) => r.apiKey), ['k1', 'k2']);
    const rot = ofType(events, 'key_rotated');
    assert.equal(rot.length, 1);
    assert.match(rot[0].reason, /429/);
    assert.ok(!rot[0].reason.includes('k1') && !rot[0].reason.includes('k2'), 'never the key itself');
    assert.deepEqual(sleeps, []);
    assert.equal(doneOf(events).message.content, 'from k2');

    // Still cooling: the next call starts on k2. After the hour, k2 failing hands back to k1.
    const m = fake.requests.length;
    await c.stream(request()).result();
    assert.equal(fake.requests[m].apiKey, 'k2');
    now += 60 * 60 * 1000 + 1;
    fake.enqueue({ status: 429 }, { text: 'k1 again' });
    const k = fake.requests.length;
    await c.stream(request()).result();
    assert.deepEqual(fake.requests.slice(k).map((r) => r.apiKey), ['k2', 'k1']);
  });

  test('401 marks the key bad and moves on; later calls skip it', async () => {
    const strict = await startFakeLlm({ requireKey: 'good' });
    try {
      const c = client({ primary: runtime({ baseUrl: strict.openaiBaseUrl, keys: ['bad', 'good'], apiKey: 'bad' }) });
      const events = await collect(c.stream(request()));
      assert.equal(ofType(events, 'key_rotated').length, 1);
      assert.equal(doneOf(events).stopReason, 'stop');
      await c.stream(request()).result();
      assert.deepEqual(strict.requests.map((r) => r.apiKey), ['bad', 'good', 'good']);
    } finally {
      await strict.close();
    }
  });

  test('402 rotates too; a single key with 429 retries with backoff instead', async () => {
    fake.enqueue({ status: 402, error: 'Insufficient credits' }, { text: 'paid' });
    const n = fake.requests.length;
    const r = await client({ primary: chatRt({ keys: ['poor', 'rich'], apiKey: 'poor' }) }).stream(request()).result();
    assert.equal(r.message.content, 'paid');
    assert.deepEqual(fake.requests.slice(n).map((x) => x.apiKey), ['poor', 'rich']);

    fake.enqueue({ status: 429 }, { text: 'ok' });
    const events = await collect(client({ primary: chatRt({ keys: ['only'], apiKey: 'only' }) }).stream(request()));
    assert.equal(ofType(events, 'key_rotated').length, 0);
    assert.equal(ofType(events, 'retry').length, 1);
  });

  test('round_robin spreads requests over the keys', async () => {
    const c = client({ primary: chatRt({ keys: ['a1', 'b2', 'c3'], apiKey: 'a1' }), keyStrategy: 'round_robin' });
    const n = fake.requests.length;
    for (let i = 0; i < 4; i++) await c.stream(request()).result();
    assert.deepEqual(fake.requests.slice(n).map((r) => r.apiKey), ['a1', 'b2', 'c3', 'a1']);
  });
});

describe('createLlmClient: fallback', () => {
  test('401 activates the fallback immediately; the turn stays on it; beginTurn() restores the primary', async () => {
    const primary = chatRt({ provider: 'openrouter', model: 'primary-model', keys: ['pk'], apiKey: 'pk' });
    const fb = chatRt({ provider: 'deepseek', model: 'fallback-model', keys: ['fk'], apiKey: 'fk' });
    const c = client({ primary, fallbacks: [fb] });
    assert.equal(c.active, primary);

    fake.enqueue({ status: 401, error: 'User not found' }, { text: 'from fallback' });
    const n = fake.requests.length;
    const events = await collect(c.stream(request()));
    const fbEv = ofType(events, 'fallback');
    assert.equal(fbEv.length, 1);
    assert.equal(fbEv[0].from, 'openrouter:primary-model');
    assert.equal(fbEv[0].to, 'deepseek:fallback-model');
    assert.match(fbEv[0].reason, /401/);
    assert.deepEqual(sleeps, [], 'no backoff before an auth fallback');
    const r = doneOf(events);
    assert.equal(r.provider, 'deepseek');
    assert.equal(r.model, 'fallback-model');
    assert.deepEqual(fake.requests.slice(n).map((x) => [x.apiKey, x.body.model]), [['pk', 'primary-model'], ['fk', 'fallback-model']]);
    assert.equal(c.active, fb);

    const m = fake.requests.length;
    await c.stream(request()).result();
    assert.equal(fake.requests[m].apiKey, 'fk', 'rest of the turn stays on the fallback');

    c.beginTurn();
    assert.equal(c.active, primary);
    const k = fake.requests.length;
    const again = await c.stream(request()).result();
    assert.equal(fake.requests[k].apiKey, 'pk');
    assert.equal(again.provider, 'openrouter');
  });

  test('5xx: retries exhausted, then the fallback', async () => {
    const primary = chatRt({ provider: 'custom:a', keys: ['pa'], apiKey: 'pa' });
    const fb = chatRt({ provider: 'custom:b', model: 'fb', keys: ['pb'], apiKey: 'pb' });
    fake.setHandler((req) => (req.apiKey === 'pa' ? { status: 503, error: 'busy' } : { text: 'rescued' }));
    const events = await collect(client({ primary, fallbacks: [fb], maxRetries: 2 }).stream(request()));
    assert.equal(ofType(events, 'retry').length, 2);
    assert.equal(ofType(events, 'fallback').length, 1);
    assert.equal(doneOf(events).message.content, 'rescued');
    const types = events.map((e) => e.type);
    assert.ok(types.lastIndexOf('retry') < types.indexOf('fallback'));
  });

  test('at most one activation per turn, even with several fallbacks', async () => {
    const primary = chatRt({ provider: 'custom:a', keys: ['pa'], apiKey: 'pa' });
    const fb1 = chatRt({ provider: 'custom:b', model: 'b', keys: ['pb'], apiKey: 'pb' });
    const fb2 = chatRt({ provider: 'custom:c', model: 'c', keys: ['pc'], apiKey: 'pc' });
    fake.setHandler((req) => (req.apiKey === 'pc' ? { text: 'never reached' } : { status: 500 }));
    const c = client({ primary, fallbacks: [fb1, fb2], maxRetries: 1 });
    const n = fake.requests.length;
    const events = await collect(c.stream(request()));
    assert.equal(ofType(events, 'fallback').length, 1);
    assert.equal(ofType(events, 'fallback')[0].to, 'custom:b:b');
    assert.equal(doneOf(events).stopReason, 'error');
    assert.equal(doneOf(events).provider, 'custom:b');
    assert.ok(!fake.requests.slice(n).some((r) => r.apiKey === 'pc'));
    const again = await collect(c.stream(request()));
    assert.equal(ofType(again, 'fallback').length, 0, 'still the same turn');
  });

  test('when every key is cooling down the fallback takes over', async () => {
    const primary = chatRt({ provider: 'custom:a', keys: ['x1', 'x2'], apiKey: 'x1' });
    const fb = chatRt({ provider: 'custom:b', model: 'fbm', keys: ['y1'], apiKey: 'y1' });
    fake.enqueue({ status: 429 }, { status: 429, retryAfter: 9999 }, { text: 'fallback ok' });
    const events = await collect(client({ primary, fallbacks: [fb] }).stream(request()));
    assert.equal(ofType(events, 'key_rotated').length, 1);
    assert.equal(ofType(events, 'fallback').length, 1);
    assert.equal(doneOf(events).message.content, 'fallback ok');
  });

  test('fallbacks may speak another wire (Anthropic via the default adapters)', async () => {
    const primary = chatRt({ keys: ['dead'], apiKey: 'dead' });
    const fb = runtime({ baseUrl: fake.anthropicBaseUrl, provider: 'anthropic', apiMode: 'anthropic_messages', model: 'claude-sonnet-4-5', keys: ['ak'], apiKey: 'ak' });
    fake.enqueue({ status: 404, error: 'model not found' }, { text: 'claude here' });
    const n = fake.requests.length;
    const r = await client({ primary, fallbacks: [fb] }).stream(request()).result();
    assert.equal(r.message.content, 'claude here');
    assert.deepEqual(fake.requests.slice(n).map((x) => x.wire), ['chat', 'anthropic']);
  });

  test('switchTo replaces the primary', async () => {
    const a = chatRt({ provider: 'custom:a', keys: ['ka'], apiKey: 'ka' });
    const b = runtime({ baseUrl: fake.openaiBaseUrl, provider: 'openai-codex', apiMode: 'codex_responses', model: 'gpt-5-codex', keys: ['kb'], apiKey: 'kb' });
    const c = client({ primary: a });
    c.switchTo(b);
    assert.equal(c.active, b);
    const n = fake.requests.length;
    const r = await c.stream(request()).result();
    assert.equal(fake.requests[n].wire, 'responses');
    assert.equal(r.provider, 'openai-codex');
  });
});

describe('createLlmClient: a classifyError hook (plugins’ transform_api_error_classification)', () => {
  const claim = (hints: Record<string, unknown>, reason: string) => async (e: import('../../src/llm/types.ts').ProviderError) => {
    const { applyClassification } = await import('../../src/llm/errors.ts');
    return applyClassification(e, { reason, ...hints });
  };

  test('should_rotate_credential rotates a 400 to the next key; should_fallback false keeps a 404 off the fallback', async () => {
    const seen: string[] = [];
    const c = client({
      primary: chatRt({ keys: ['k1', 'k2'], apiKey: 'k1' }),
      classifyError: async (e, ctx) => {
        seen.push(`${e.status}:${ctx.model}`);
        return e.status === 400 ? claim({ retryable: false, should_rotate_credential: true }, 'billing')(e) : undefined;
      },
    });
    fake.enqueue({ status: 400, error: 'plan wall' }, { text: 'second key works' });
    const n = fake.requests.length;
    const events = await collect(c.stream(request()));
    assert.equal(ofType(events, 'key_rotated').length, 1);
    assert.equal(doneOf(events).message.content, 'second key works');
    assert.deepEqual(fake.requests.slice(n).map((x) => x.apiKey), ['k1', 'k2']);
    assert.equal(seen.length, 1);

    const fb = chatRt({ provider: 'deepseek', model: 'fallback-model', keys: ['fk'], apiKey: 'fk' });
    const stay = client({ primary: chatRt({ provider: 'openrouter', model: 'm', keys: ['pk'], apiKey: 'pk' }), fallbacks: [fb], classifyError: (e) => claim({ should_fallback: false }, 'model_not_found')(e) });
    fake.enqueue({ status: 404, error: 'no such model' });
    const r = doneOf(await collect(stay.stream(request())));
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'not_found');
    assert.equal(r.provider, 'openrouter', 'the fallback was not used');
  });

  test('should_fallback true sends a plain 400 to the fallback', async () => {
    const fb = chatRt({ provider: 'deepseek', model: 'fallback-model', keys: ['fk'], apiKey: 'fk' });
    const c = client({ primary: chatRt({ provider: 'openrouter', model: 'm', keys: ['pk'], apiKey: 'pk' }), fallbacks: [fb], classifyError: (e) => claim({ retryable: false, should_fallback: true }, 'format_error')(e) });
    fake.enqueue({ status: 400, error: 'this provider rejects the tool schema' }, { text: 'from fallback' });
    const events = await collect(c.stream(request()));
    assert.equal(ofType(events, 'fallback').length, 1);
    assert.equal(doneOf(events).provider, 'deepseek');
  });
});
