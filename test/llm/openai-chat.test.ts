import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ProviderQuirks, findProvider } from '../../src/llm/catalog.ts';
import { describeError } from '../../src/llm/errors.ts';
import { buildChatBody, chatBodyBytes, chatWireCache, createChatCompletionsStream } from '../../src/llm/openai-chat.ts';
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { Message } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { TOOL, collect, concurrentBodies, request, runtime } from './_util.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const rt = (over: Partial<ProviderRuntime> = {}) => runtime({ baseUrl: fake.openaiBaseUrl, ...over });

describe('chat completions adapter (real openai SDK → fake)', () => {
  test('streams text, reasoning and two tool calls with split arguments; usage incl. cached and reasoning tokens', async () => {
    fake.enqueue({
      reasoning: 'Let me look at the files first.',
      text: 'Reading both files now.',
      toolCalls: [
        { name: 'read_file', arguments: { path: '/etc/hosts' }, id: 'call_a' },
        { name: 'read_file', arguments: { path: '/etc/passwd', offset: 10 }, id: 'call_b' },
      ],
      usage: { input: 120, cacheRead: 80, output: 42, reasoning: 11 },
    });
    const n = fake.requests.length;
    const events = await collect(createChatCompletionsStream(rt())(request({ tools: [TOOL] })));
    const done = events.at(-1);
    assert.equal(done?.type, 'done');
    if (done?.type !== 'done') return;
    const r = done.result;
    assert.equal(r.stopReason, 'tool_calls');
    assert.equal(r.message.content, 'Reading both files now.');
    assert.equal(r.message.reasoning, 'Let me look at the files first.');
    assert.deepEqual(
      r.message.tool_calls?.map((t) => [t.id, t.function.name, JSON.parse(t.function.arguments)]),
      [
        ['call_a', 'read_file', { path: '/etc/hosts' }],
        ['call_b', 'read_file', { path: '/etc/passwd', offset: 10 }],
      ],
    );
    assert.deepEqual(r.usage, { input_tokens: 120, output_tokens: 42, cache_read_tokens: 80, cache_write_tokens: 0, reasoning_tokens: 11 });
    assert.equal(r.provider, 'custom');
    assert.equal(r.model, 'fake-model');
    // Deltas: reasoning before text, text before tools, argument deltas reassemble the arguments.
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf('reasoning_delta') < types.indexOf('text_delta'));
    assert.ok(types.indexOf('text_delta') < types.indexOf('tool_call_start'));
    const argDeltas = events.filter((e) => e.type === 'tool_call_delta' && e.index === 1);
    assert.ok(argDeltas.length >= 2, 'arguments arrive in several pieces');
    assert.equal(argDeltas.map((e) => (e.type === 'tool_call_delta' ? e.argumentsDelta : '')).join(''), '{"path":"/etc/passwd","offset":10}');

    const sent = fake.requests[n];
    assert.equal(sent.wire, 'chat');
    assert.equal(sent.body.stream, true);
    assert.deepEqual(sent.body.stream_options, { include_usage: true });
    assert.deepEqual(sent.body.messages[0], { role: 'system', content: 'You are a test.' });
    assert.deepEqual(sent.body.tools, [{ type: 'function', function: TOOL }]);
    assert.equal(sent.apiKey, 'test-key');
  });

  test('reasoning replay follows the provider quirks', async () => {
    const history: Message[] = [
      { role: 'user', content: 'q1' },
      {
        role: 'assistant',
        content: 'a1',
        reasoning: 'thought 1',
        reasoning_details: [
          { type: 'reasoning.text', text: 'thought 1', signature: 'sig', format: 'anthropic-claude-v1', index: 0 },
          { type: 'thinking', thinking: 'anthropic native block', signature: 'x' },
        ],
      },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'file body' },
    ];
    const send = async (quirks: ProviderQuirks) => {
      const n = fake.requests.length;
      await createChatCompletionsStream(rt({ quirks }))(request({ messages: history })).result();
      return fake.requests[n].body.messages as Record<string, unknown>[];
    };
    const plain = await send({});
    assert.ok(plain.every((m) => !('reasoning_content' in m) && !('reasoning_details' in m) && !('reasoning' in m)), 'stripped by default');
    assert.deepEqual(plain[4], { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] });
    assert.deepEqual(plain[5], { role: 'tool', tool_call_id: 'c1', content: 'file body' });

    const echo = await send(findProvider('deepseek')!.quirks);
    assert.equal(echo[2].reasoning_content, 'thought 1');
    assert.equal(echo[4].reasoning_content, '', 'tool-call turns always carry reasoning_content for echo providers');
    assert.ok(!('reasoning_details' in echo[2]));

    const or = await send(findProvider('openrouter')!.quirks);
    assert.deepEqual(or[2].reasoning_details, [{ type: 'reasoning.text', text: 'thought 1', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }]);
    assert.ok(!('reasoning_content' in or[2]));

    const strict = await send({ echoReasoningContent: true, replayReasoningDetails: true, stripReasoning: true });
    assert.ok(strict.every((m) => !('reasoning_content' in m) && !('reasoning_details' in m)));
  });

  test('OpenRouter Claude models get 4 cache_control breakpoints (system + last 3), 1h TTL when asked', async () => {
    const or = rt({ provider: 'openrouter', quirks: findProvider('openrouter')!.quirks });
    const messages: Message[] = [
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: [{ type: 'text', text: 'u2' }, { type: 'text', text: 'u2b' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'result' },
    ];
    let n = fake.requests.length;
    await createChatCompletionsStream(or)(request({ model: 'anthropic/claude-sonnet-4.5', messages, cacheTtl: '1h' })).result();
    const sent = fake.requests[n].body.messages as Record<string, unknown>[];
    const marked = JSON.stringify(sent).match(/cache_control/g) ?? [];
    assert.equal(marked.length, 4);
    assert.deepEqual(sent[0].content, [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    assert.equal(sent[1].content, 'u1', 'older messages untouched');
    assert.equal(sent[2].content, 'a1');
    assert.deepEqual((sent[3].content as unknown[])[1], { type: 'text', text: 'u2b', cache_control: { type: 'ephemeral', ttl: '1h' } });
    assert.deepEqual(sent[4].cache_control, { type: 'ephemeral', ttl: '1h' }, 'empty content → marker on the message');
    assert.deepEqual(sent[5].content, [{ type: 'text', text: 'result', cache_control: { type: 'ephemeral', ttl: '1h' } }]);

    n = fake.requests.length;
    await createChatCompletionsStream(or)(request({ model: 'openai/gpt-5', messages })).result();
    assert.ok(!JSON.stringify(fake.requests[n].body).includes('cache_control'), 'non-Claude models: no breakpoints');
  });

  test('OpenRouter reasoning_details are captured from the stream (for replay) and reasoning effort is sent in each dialect', async () => {
    const details = [{ type: 'reasoning.text', text: 'secret plan', signature: 'sig-1', format: 'anthropic-claude-v1', index: 0 }];
    fake.enqueue({ text: 'done', reasoningDetails: details });
    let n = fake.requests.length;
    const orRt = rt({ provider: 'openrouter', quirks: findProvider('openrouter')!.quirks });
    const r = await createChatCompletionsStream(orRt)(request({ reasoningEffort: 'high' })).result();
    assert.deepEqual(r.message.reasoning_details, details);
    assert.equal(r.message.reasoning, 'secret plan');
    assert.deepEqual(fake.requests[n].body.reasoning, { effort: 'high' });
    assert.ok(!('reasoning_effort' in fake.requests[n].body));

    n = fake.requests.length;
    await createChatCompletionsStream(rt({ quirks: findProvider('openai')!.quirks }))(request({ model: 'gpt-5', reasoningEffort: 'low', maxTokens: 99 })).result();
    const body = fake.requests[n].body;
    assert.equal(body.reasoning_effort, 'low');
    assert.equal(body.max_completion_tokens, 99);
    assert.equal(body.messages[0].role, 'developer', 'OpenAI reasoning models take the system prompt as developer');

    n = fake.requests.length;
    await createChatCompletionsStream(rt())(request({ maxTokens: 50, temperature: 0.2 })).result();
    assert.equal(fake.requests[n].body.max_tokens, 50);
    assert.equal(fake.requests[n].body.temperature, 0.2);
    assert.ok(!('reasoning_effort' in fake.requests[n].body));
  });

  test('extra headers are sent; the key goes as a Bearer token', async () => {
    const n = fake.requests.length;
    await createChatCompletionsStream(rt({ apiKey: 'sk-hdr', keys: ['sk-hdr'], extraHeaders: { 'X-Title': 'Hermes Agent' } }))(request()).result();
    assert.equal(fake.requests[n].headers['x-title'], 'Hermes Agent');
    assert.equal(fake.requests[n].headers.authorization, 'Bearer sk-hdr');
  });

  test('HTTP errors carry the provider’s own message and kind', async () => {
    fake.enqueue({ status: 400, error: 'tools are not supported by this model' });
    let r = await createChatCompletionsStream(rt())(request()).result();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'bad_request');
    assert.equal(r.error?.status, 400);
    assert.equal(r.error?.message, 'tools are not supported by this model');
    assert.equal(r.error?.retryable, false);

    fake.enqueue({ status: 400, error: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." });
    r = await createChatCompletionsStream(rt())(request()).result();
    assert.equal(r.error?.kind, 'context_length');

    fake.enqueue({ status: 401, error: 'No auth credentials found' });
    const orRt = rt({ provider: 'openrouter', keyEnv: 'OPENROUTER_API_KEY', source: 'env:OPENROUTER_API_KEY' });
    r = await createChatCompletionsStream(orRt)(request()).result();
    assert.equal(r.error?.kind, 'auth');
    const line = describeError(r.error!, orRt);
    assert.match(line, /^OpenRouter \(HTTP 401\): No auth credentials found — check OPENROUTER_API_KEY in ~\/\.hermes\/\.env or run `hermes setup`\.$/);

    fake.enqueue({ status: 503, retryAfter: 4 });
    r = await createChatCompletionsStream(rt())(request()).result();
    assert.equal(r.error?.kind, 'server');
    assert.equal(r.error?.retryable, true);
    assert.equal(r.error?.retryAfterMs, 4000);
  });

  test('a stream cut mid-way ends with a retryable connection error and keeps the partial text; iteration never throws', async () => {
    fake.enqueue({ text: 'The quick brown fox jumps over the lazy dog', cutAfterChunks: 3 });
    const events = await collect(createChatCompletionsStream(rt())(request()));
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    if (done?.type !== 'done') return;
    assert.equal(done.result.stopReason, 'error');
    assert.equal(done.result.error?.kind, 'connection');
    assert.equal(done.result.error?.retryable, true);
    assert.equal(done.result.message.content, 'The quick brown ');
  });

  test('abort mid-stream → stopReason aborted', async () => {
    fake.enqueue({ text: 'x'.repeat(400), chunkDelayMs: 5 });
    const ac = new AbortController();
    const s = createChatCompletionsStream(rt())(request({ signal: ac.signal }));
    let deltas = 0;
    for await (const e of s) {
      if (e.type === 'text_delta' && ++deltas === 2) ac.abort();
    }
    const r = await s.result();
    assert.equal(r.stopReason, 'aborted');
    assert.equal(r.error?.kind, 'aborted');
    assert.ok(deltas < 50);
  });

  test('an already-aborted signal ends at once', async () => {
    const n = fake.requests.length;
    const r = await createChatCompletionsStream(rt())(request({ signal: AbortSignal.abort() })).result();
    assert.equal(r.stopReason, 'aborted');
    assert.equal(fake.requests.length, n, 'no request sent');
  });

  test('a hung server is cut off by the stale-stream timeout (kind timeout)', async () => {
    fake.enqueue({ hang: true });
    const r = await createChatCompletionsStream(rt(), { staleMs: 100 })(request()).result();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'timeout');
    assert.equal(r.error?.retryable, true);
  });

  test('a slow but live stream is not cut off: every chunk resets the stale watchdog', async () => {
    fake.enqueue({ text: 'a'.repeat(96), chunkDelayMs: 25 });
    const r = await createChatCompletionsStream(rt(), { staleMs: 150 })(request()).result();
    assert.equal(r.stopReason, 'stop');
    assert.equal(r.message.content, 'a'.repeat(96));
  });

  test('a stream that closes cleanly without a finish_reason is reported as cut', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'half an ans' }, finish_reason: null }] };
      res.end(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await createChatCompletionsStream(runtime({ baseUrl: base }))(request()).result();
      assert.equal(r.stopReason, 'error');
      assert.equal(r.error?.kind, 'connection');
      assert.equal(r.error?.retryable, true);
      assert.equal(r.message.content, 'half an ans');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('an error in the event stream (payload or `event: error`) is the provider’s error, as the SDK reports it; malformed JSON too', async () => {
    const bodies = [
      'data: {"error":{"message":"Upstream overloaded, try again","type":"server_error","code":"overloaded"}}\n\n',
      'event: error\ndata: {"error":{"message":"Rate limit reached mid-stream","type":"rate_limit_error"}}\n\n',
      'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"x"}}\n\n',
    ];
    let n = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(bodies[n++]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const stream = createChatCompletionsStream(runtime({ baseUrl: base }));
      const overloaded = await stream(request()).result();
      assert.equal(overloaded.stopReason, 'error');
      assert.match(overloaded.error?.message ?? '', /Upstream overloaded/);
      const limited = await stream(request()).result();
      assert.equal(limited.stopReason, 'error');
      assert.match(limited.error?.message ?? '', /Rate limit reached mid-stream/);
      const malformed = await stream(request()).result();
      assert.equal(malformed.stopReason, 'error');
      assert.match(malformed.error?.message ?? "", /malformed event/);
      assert.equal(malformed.error?.fault, "malformed");
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('an unreachable server → connection error naming the base URL', async () => {
    const dead = await startFakeLlm();
    const url = dead.openaiBaseUrl;
    await dead.close();
    const deadRt = runtime({ baseUrl: url, provider: 'custom:lab' });
    const r = await createChatCompletionsStream(deadRt)(request()).result();
    assert.equal(r.error?.kind, 'connection');
    const line = describeError(r.error!, deadRt);
    assert.ok(line.includes(url) && /unreachable/.test(line) && /local server is running/.test(line), line);
    assert.ok(!line.includes('\n'));
  });
});

describe('chat completions wire body (cached serialisation)', () => {
  const history = (): Message[] => [
    { role: 'user', content: 'list files — please' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"/a"}' } }], reasoning: 'look' },
    { role: 'tool', tool_call_id: 'c1', tool_name: 'read_file', content: 'ünïcode\n"quoted"' },
  ];

  const expected = (r: ReturnType<typeof runtime>, req: ReturnType<typeof request>) => JSON.stringify(buildChatBody(r, req));
  const chatBodyJson = (...a: Parameters<typeof chatBodyBytes>) => chatBodyBytes(...a).toString('utf8');

  test('is byte for byte JSON.stringify of the body, request after request, and follows a reassigned message', () => {
    const cache = chatWireCache();
    const quirks: ProviderQuirks[] = [{}, { noStreamUsage: true, maxTokensField: 'max_completion_tokens', echoReasoningContent: true }, { reasoningParam: 'openrouter' }];
    for (const q of quirks) {
      const r = runtime({ baseUrl: 'http://127.0.0.1:9/v1', quirks: q });
      const messages = history();
      const req = request({ messages, tools: [TOOL], maxTokens: 64, temperature: 0.2, reasoningEffort: 'high', serviceTier: 'priority' });
      const first = chatBodyJson(r, req, cache);
      assert.equal(first, expected(r, req));
      assert.match(first, /list files — please/);
      // The same objects again (served from the cache), then one grown and one reassigned.
      assert.equal(chatBodyJson(r, req, cache), first);
      messages.push({ role: 'assistant', content: 'done' });
      messages[2].content = 'changed';
      const again = chatBodyJson(r, { ...req, tools: [] }, cache);
      assert.equal(again, expected(r, { ...req, tools: [] }));
      assert.match(again, /"changed"/);
      const otherSystem = { ...req, system: 'Another system — prompt' };
      assert.equal(chatBodyJson(r, otherSystem, cache), expected(r, otherSystem));
    }
  });

  test('cached pieces own exactly their bytes (a pooled slice would keep an 8 KB slab alive)', () => {
    const cache = chatWireCache();
    const r = runtime({ baseUrl: 'http://127.0.0.1:9/v1' });
    const messages = history();
    chatBodyBytes(r, request({ messages, tools: [TOOL] }), cache);
    messages.push({ role: 'assistant', content: 'more' });
    chatBodyBytes(r, request({ messages, tools: [TOOL] }), cache);
    const pieces = [cache.history?.buf, cache.tail?.bytes, cache.system?.bytes];
    for (const b of pieces) {
      assert.ok(b, 'the piece is cached');
      assert.equal(b.buffer.byteLength, b.length, 'its own memory, not a slice of the shared pool');
    }
  });

  test('the history run is extended, cut back to a changed message, and rebuilt after a replacement', () => {
    const cache = chatWireCache();
    const r = runtime({ baseUrl: 'http://127.0.0.1:9/v1' });
    const messages = history();
    const check = (req: ReturnType<typeof request>) => assert.equal(chatBodyJson(r, req, cache), expected(r, req));
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'assistant', content: `step ${i} — ok` }, { role: 'user', content: `next ${i}` });
      check(request({ messages, tools: [TOOL] }));
    }
    messages[4] = { role: 'assistant', content: 'replaced' }; // a new object in the middle
    check(request({ messages, tools: [TOOL] }));
    messages[1].tool_calls = [{ id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{}' } }]; // a field reassigned
    check(request({ messages, tools: [TOOL] }));
    check(request({ messages: messages.slice(0, 3), tools: [TOOL] })); // shorter (compressed)
    check(request({ messages: [], tools: [] }));
    check(request({ messages: history(), system: '', tools: [TOOL, { ...TOOL, name: 'other' }] }));
  });

  test('a request still being sent keeps its bytes while another one on the same stream function is built', async () => {
    // The first request's body is held (not copied) until the second one has been built and sent:
    // a background review or side question on the same client while the loop's request is on its way.
    const messages = history();
    const long = request({ messages: [...messages, { role: 'assistant', content: 'a long answer — '.repeat(40) } as Message, { role: 'user', content: 'next' } as Message], tools: [TOOL] });
    const side = request({ messages: [...messages, { role: 'user', content: 'side question?' } as Message], tools: [] });
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const { held, sent } = await concurrentBodies((f) => createChatCompletionsStream(rt(), { fetch: f }), long, side);
    assert.equal(held, JSON.stringify(buildChatBody(rt(), long)));
    assert.deepEqual(sent.sort(), [JSON.stringify(buildChatBody(rt(), long)), JSON.stringify(buildChatBody(rt(), side))].sort());
  });

  test('Claude cache markers sit on the system prompt and the last three messages; earlier ones come from the cache', () => {
    const r = runtime({ baseUrl: 'http://127.0.0.1:9/v1', quirks: { claudeCacheControl: true } });
    const cache = chatWireCache();
    const messages = [...history(), { role: 'assistant', content: 'ok' } as Message, { role: 'user', content: 'more' } as Message];
    for (const n of [1, 3, 5]) {
      const req = request({ model: 'anthropic/claude-sonnet-4', messages: messages.slice(0, n), tools: [TOOL] });
      const json = chatBodyJson(r, req, cache);
      assert.equal(json, expected(r, req));
      assert.equal(json.match(/cache_control/g)?.length, 1 + Math.min(3, n));
    }
  });

  test('the fake receives the same body through the SDK', async () => {
    fake.enqueue({ text: 'ok' });
    const n = fake.requests.length;
    const r = rt();
    const req = request({ messages: history(), tools: [TOOL], maxTokens: 32 });
    await collect(createChatCompletionsStream(r)(req));
    assert.deepEqual(fake.requests[n].body, JSON.parse(JSON.stringify(buildChatBody(r, req))));
    assert.equal(fake.requests[n].headers['content-type'], 'application/json');
  });
});
