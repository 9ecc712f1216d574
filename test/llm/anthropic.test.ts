import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { anthropicBodyBytes, anthropicWireCache, buildAnthropicBody, createAnthropicStream, toAnthropicMessages } from '../../src/llm/anthropic.ts';
import type { Message, StreamRequest } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { TOOL, collect, concurrentBodies, request, runtime } from './_util.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const rt = (over: Record<string, unknown> = {}) =>
  runtime({ baseUrl: fake.anthropicBaseUrl, provider: 'anthropic', apiMode: 'anthropic_messages', model: 'claude-sonnet-4-5', isCustom: false, ...over });

const countMarkers = (body: unknown) => (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;

describe('anthropic messages adapter (real @anthropic-ai/sdk → fake)', () => {
  test('streams thinking (with signature), text and tool calls from input_json_delta; usage incl. cache fields', async () => {
    fake.enqueue({
      reasoning: 'The user wants two files read.',
      text: 'Reading them.',
      toolCalls: [
        { name: 'read_file', arguments: { path: '/a.txt' }, id: 'toolu_1' },
        { name: 'read_file', arguments: { path: '/b.txt', limit: 5 }, id: 'toolu_2' },
      ],
      usage: { input: 30, output: 77, cacheRead: 1200, cacheWrite: 300 },
    });
    const n = fake.requests.length;
    const events = await collect(createAnthropicStream(rt())(request({ tools: [TOOL] })));
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    if (done?.type !== 'done') return;
    const r = done.result;
    assert.equal(r.stopReason, 'tool_calls');
    assert.equal(r.message.content, 'Reading them.');
    assert.equal(r.message.reasoning, 'The user wants two files read.');
    assert.equal(r.message.reasoning_details?.length, 1);
    const block = r.message.reasoning_details?.[0] as Record<string, string>;
    assert.equal(block.type, 'thinking');
    assert.equal(block.thinking, 'The user wants two files read.');
    assert.match(block.signature, /^sig_/);
    assert.deepEqual(
      r.message.tool_calls?.map((t) => [t.id, t.function.name, JSON.parse(t.function.arguments)]),
      [
        ['toolu_1', 'read_file', { path: '/a.txt' }],
        ['toolu_2', 'read_file', { path: '/b.txt', limit: 5 }],
      ],
    );
    assert.deepEqual(r.usage, { input_tokens: 30, output_tokens: 77, cache_read_tokens: 1200, cache_write_tokens: 300, reasoning_tokens: 0 });
    assert.ok(events.filter((e) => e.type === 'tool_call_delta' && e.index === 1).length >= 2, 'split input_json_delta pieces');

    const sent = fake.requests[n];
    assert.equal(sent.wire, 'anthropic');
    assert.equal(sent.path, '/v1/messages');
    assert.deepEqual(sent.body.tools, [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }]);
    assert.equal(sent.body.stream, true);
    assert.ok(sent.body.max_tokens > 0);
    assert.equal(sent.apiKey, 'test-key');
    assert.equal(sent.headers['x-api-key'], 'test-key', 'non-Anthropic hosts also get x-api-key');
  });

  test('prompt caching: system + last 3 messages (4 breakpoints), 5m by default and ttl 1h when asked', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'reply 1' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'reply 2' },
      { role: 'user', content: 'third' },
    ];
    let n = fake.requests.length;
    await createAnthropicStream(rt())(request({ messages })).result();
    let body = fake.requests[n].body;
    assert.equal(countMarkers(body), 4);
    assert.deepEqual(body.system, [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    assert.ok(!JSON.stringify(body.messages.slice(0, 2)).includes('cache_control'), 'older messages are not marked');
    for (const m of body.messages.slice(2)) assert.deepEqual(m.content.at(-1).cache_control, { type: 'ephemeral' });

    n = fake.requests.length;
    await createAnthropicStream(rt())(request({ messages, cacheTtl: '1h' })).result();
    body = fake.requests[n].body;
    assert.equal(countMarkers(body), 4);
    assert.deepEqual(body.system[0].cache_control, { type: 'ephemeral', ttl: '1h' });
    assert.deepEqual(body.messages.at(-1).content.at(-1).cache_control, { type: 'ephemeral', ttl: '1h' });

    n = fake.requests.length;
    await createAnthropicStream(rt({ model: 'MiniMax-M2' }))(request({ messages })).result();
    assert.equal(countMarkers(fake.requests[n].body), 0, 'only Claude models are cache-marked');
  });

  test('thinking blocks with signatures are replayed ahead of their assistant turn', async () => {
    fake.enqueue({ reasoning: 'plan: call the tool', toolCalls: [{ name: 'read_file', arguments: { path: '/x' }, id: 'toolu_9' }] });
    const s = createAnthropicStream(rt());
    const first = await s(request({ tools: [TOOL], reasoningEffort: 'medium' })).result();
    const history: Message[] = [{ role: 'user', content: 'hi' }, first.message, { role: 'tool', tool_call_id: 'toolu_9', content: 'contents of x' }];
    const n = fake.requests.length;
    await s(request({ tools: [TOOL], messages: history, reasoningEffort: 'medium' })).result();
    const body = fake.requests[n].body;
    const assistant = body.messages[1];
    assert.equal(assistant.role, 'assistant');
    assert.equal(assistant.content[0].type, 'thinking');
    assert.equal(assistant.content[0].thinking, 'plan: call the tool');
    assert.equal(assistant.content[0].signature, (first.message.reasoning_details?.[0] as { signature: string }).signature);
    assert.equal(assistant.content[1].type, 'tool_use');
    assert.deepEqual(assistant.content[1].input, { path: '/x' });
    assert.deepEqual(body.messages[2].content[0], { type: 'tool_result', tool_use_id: 'toolu_9', content: 'contents of x', cache_control: { type: 'ephemeral' } });
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8000 });
    assert.ok(body.max_tokens > 8000);
  });

  test('extended thinking budget by effort; temperature dropped while thinking', async () => {
    let n = fake.requests.length;
    await createAnthropicStream(rt())(request({ reasoningEffort: 'high', maxTokens: 1000, temperature: 0.5 })).result();
    let body = fake.requests[n].body;
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 16000 });
    assert.ok(body.max_tokens > 16000);
    assert.ok(!('temperature' in body));
    n = fake.requests.length;
    await createAnthropicStream(rt())(request({ maxTokens: 1000, temperature: 0.5 })).result();
    body = fake.requests[n].body;
    assert.ok(!('thinking' in body));
    assert.equal(body.max_tokens, 1000);
    assert.equal(body.temperature, 0.5);
  });

  test('OAuth tokens go as Bearer with the OAuth beta, and nothing that claims to be Claude Code', async () => {
    const n = fake.requests.length;
    await createAnthropicStream(rt({ apiKey: 'sk-ant-oat01-abcdef', keys: ['sk-ant-oat01-abcdef'] }))(request()).result();
    const sent = fake.requests[n];
    assert.equal(sent.headers.authorization, 'Bearer sk-ant-oat01-abcdef');
    assert.ok(!sent.headers['x-api-key']);
    assert.match(sent.headers['anthropic-beta'], /oauth-2025-04-20/);
    assert.doesNotMatch(sent.headers['anthropic-beta'], /claude-code/, 'no Claude Code beta flag');
    assert.doesNotMatch(JSON.stringify(sent.body.system ?? ''), /Claude Code/, 'no Claude Code identity prompt');
    assert.doesNotMatch(String(sent.headers['user-agent'] ?? ''), /claude-cli|claude-code/i);
  });

  test('errors: provider message, overloaded → server (retryable), prompt too long → context_length', async () => {
    fake.enqueue({ status: 529, error: 'Overloaded' });
    let r = await createAnthropicStream(rt())(request()).result();
    assert.equal(r.error?.kind, 'server');
    assert.equal(r.error?.retryable, true);
    assert.equal(r.error?.message, 'Overloaded');
    fake.enqueue({ status: 400, error: 'prompt is too long: 210000 tokens > 200000 maximum' });
    r = await createAnthropicStream(rt())(request()).result();
    assert.equal(r.error?.kind, 'context_length');
    assert.equal(r.error?.message, 'prompt is too long: 210000 tokens > 200000 maximum');
  });

  test("the SDK's warning about a deprecated model is printed once, not on every request", async () => {
    const printed: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void printed.push(args.join(' '));
    try {
      const stream = createAnthropicStream(rt({ model: 'claude-sonnet-4-5-20250929' }));
      for (let i = 0; i < 3; i++) {
        fake.enqueue({ text: `answer ${i}` });
        const done = (await collect(stream(request({})))).at(-1);
        assert.ok(done?.type === 'done' && done.result.message.content === `answer ${i}`);
      }
    } finally {
      console.warn = warn;
    }
    assert.equal(printed.filter((l) => /claude-sonnet-4-5-20250929' is deprecated/.test(l)).length, 1, printed.join('\n'));
  });

  test('a cut stream → connection error, never a throw', async () => {
    fake.enqueue({ text: 'partial answer that will be cut', cutAfterChunks: 5 });
    const r = await createAnthropicStream(rt())(request()).result();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.error?.kind, 'connection');
    assert.ok(typeof r.message.content === 'string' && r.message.content.length > 0);
  });
});

describe('toAnthropicMessages', () => {
  test('consecutive tool results become one user message; roles alternate; images become blocks', () => {
    const out = toAnthropicMessages([
      { role: 'user', content: 'a' },
      { role: 'user', content: [{ type: 'text', text: 'b' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'x', arguments: '{"a":1}' } },
          { id: 't2', type: 'function', function: { name: 'y', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'r1' },
      { role: 'tool', tool_call_id: 't2', content: 'r2' },
      { role: 'user', content: 'thanks' },
    ]);
    assert.deepEqual(out.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(out[0].content, [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ]);
    assert.deepEqual(out[1].content[1], { type: 'tool_use', id: 't1', name: 'x', input: { a: 1 } });
    assert.deepEqual(out[1].content[2], { type: 'tool_use', id: 't2', name: 'y', input: {} });
    assert.deepEqual(out[2].content, [
      { type: 'tool_result', tool_use_id: 't1', content: 'r1' },
      { type: 'tool_result', tool_use_id: 't2', content: 'r2' },
      { type: 'text', text: 'thanks' },
    ]);
  });

  test('an interrupted tool call gets an error result; an orphan result becomes text; history may not start with assistant', () => {
    const out = toAnthropicMessages([
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'user', content: 'never mind' },
      { role: 'tool', tool_call_id: 'ghost', content: 'late' },
    ]);
    assert.equal(out[0].role, 'user');
    assert.equal(out[1].role, 'assistant');
    assert.equal(out[2].content[0].type, 'tool_result');
    assert.equal(out[2].content[0].is_error, true);
    assert.ok(out[2].content.some((b) => b.type === 'text' && String(b.text).includes('ghost')));
    assert.ok(!out[2].content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'ghost'));
  });
});

const expected = (r: ReturnType<typeof rt>, req: StreamRequest) => JSON.stringify(buildAnthropicBody(r, req));

const call = (id: string, args = '{"path":"/a"}') => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: args } });
const thinking = (text: string) => [{ type: 'thinking', thinking: text, signature: `sig_${text.length}` }, { type: 'redacted_thinking', data: 'opaque—data' }];

/** A deterministic pseudo-random source (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('anthropic wire body (cached serialisation)', () => {
  test('is byte for byte JSON.stringify of the body over a growing tool loop (thinking, images, markers, tool results)', () => {
    for (const over of [{}, { model: 'MiniMax-M2' }, { apiKey: 'sk-ant-oat01-x', keys: ['sk-ant-oat01-x'] }]) {
      const r = rt(over);
      const cache = anthropicWireCache();
      const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'look — at this' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }];
      for (let step = 0; step < 12; step++) {
        const req = request({ messages, tools: [TOOL], reasoningEffort: step % 2 ? 'high' : undefined, cacheTtl: step % 3 ? undefined : '1h', maxTokens: 2048 });
        const json = anthropicBodyBytes(r, req, cache).toString('utf8');
        assert.equal(json, expected(r, req), `step ${step}`);
        const ids = [`toolu_${step}a`, `toolu_${step}b`];
        messages.push({ role: 'assistant', content: step % 2 ? `step ${step} ünïcode` : null, reasoning_details: thinking(`plan ${step}`), tool_calls: ids.map((id) => call(id)) });
        messages.push({ role: 'tool', tool_call_id: ids[0], content: `"quoted"\n${step}` });
        messages.push({ role: 'tool', tool_call_id: ids[1], content: [{ type: 'text', text: 'seen' }, { type: 'image_url', image_url: { url: 'https://x.test/i.png' } }] });
        if (step % 4 === 3) messages.push({ role: 'system', content: 'budget note' }, { role: 'user', content: 'go on' });
      }
      assert.ok((cache.history?.ends.length ?? 0) > 10, 'the history run holds the earlier messages');
    }
  });

  test('cached messages are reused, not serialised again; a reassigned field or replaced message is followed', () => {
    const r = rt();
    const cache = anthropicWireCache();
    const messages: Message[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: null, tool_calls: [call('t1')] },
      { role: 'tool', tool_call_id: 't1', content: 'one' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'third' },
    ];
    const body = () => anthropicBodyBytes(r, request({ messages, tools: [TOOL] }), cache).toString('utf8');
    assert.equal(body(), expected(r, request({ messages, tools: [TOOL] })));
    // An in-place edit below the top-level fields is invisible to the cache: proof it is used.
    (messages[1].tool_calls![0].function as { arguments: string }).arguments = '{"path":"/edited"}';
    assert.ok(!body().includes('/edited'), 'the run is reused');
    messages[1].tool_calls = [call('t1', '{"path":"/reassigned"}')];
    assert.equal(body(), expected(r, request({ messages, tools: [TOOL] })));
    messages[0] = { role: 'user', content: 'replaced' };
    assert.equal(body(), expected(r, request({ messages, tools: [TOOL] })));
    for (const cut of [messages.slice(0, 5), messages.slice(0, 2), [], messages.slice(1)]) {
      const req = request({ messages: cut, tools: [TOOL] });
      assert.equal(anthropicBodyBytes(r, req, cache).toString('utf8'), expected(r, req));
    }
  });

  test('random histories (merges, orphan and missing results, system notes, empty turns, replacements) match buildAnthropicBody', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const rand = rng(seed);
      const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
      const r = rt(seed % 3 === 0 ? { model: 'MiniMax-M2' } : {});
      const cache = anthropicWireCache();
      let messages: Message[] = [];
      let open: string[] = [];
      let n = 0;
      const make = (): Message => {
        const kind = pick(['user', 'user', 'assistant', 'assistant', 'calls', 'tool', 'tool', 'system', 'empty']);
        if (kind === 'user') return { role: 'user', content: pick(['hi', [{ type: 'text', text: 'pic' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } }]]) as Message['content'] };
        if (kind === 'assistant') return { role: 'assistant', content: pick(['sure', '', null]), reasoning_details: rand() < 0.5 ? thinking('hm') : undefined };
        if (kind === 'calls') {
          open = [`c${n++}`, ...(rand() < 0.5 ? [`c${n++}`] : [])];
          return { role: 'assistant', content: pick(['calling', null]), tool_calls: open.map((id) => call(id, pick(['{}', '{"a":1}', 'not json', '']))) };
        }
        if (kind === 'tool') return { role: 'tool', tool_call_id: rand() < 0.8 && open.length ? open.shift()! : 'ghost', content: pick(['out', '', [{ type: 'text', text: 'x' }]]) as Message['content'] };
        if (kind === 'system') return { role: 'system', content: pick(['note', '']) };
        return { role: pick(['user', 'assistant'] as const), content: '' };
      };
      for (let step = 0; step < 80; step++) {
        const op = rand();
        if (op < 0.7) for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) messages.push(make());
        else if (op < 0.8 && messages.length) messages[Math.floor(rand() * messages.length)] = make();
        else if (op < 0.88 && messages.length) messages[Math.floor(rand() * messages.length)].content = 'reassigned';
        else if (op < 0.95) messages = messages.slice(Math.floor(rand() * 3), messages.length - Math.floor(rand() * 4));
        else messages = [];
        const req = request({ messages, tools: rand() < 0.8 ? [TOOL] : [], system: rand() < 0.9 ? 'You are a test.' : '', cacheTtl: rand() < 0.2 ? '1h' : undefined });
        assert.equal(anthropicBodyBytes(r, req, cache).toString('utf8'), expected(r, req), `seed ${seed} step ${step}`);
      }
    }
  });

  test('cached pieces own exactly their bytes (a pooled slice would keep an 8 KB slab alive)', () => {
    const cache = anthropicWireCache();
    const messages: Message[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }];
    anthropicBodyBytes(rt({ model: 'MiniMax-M2' }), request({ messages, tools: [TOOL] }), cache);
    for (const b of [cache.history?.buf, cache.tail?.bytes]) {
      assert.ok(b, 'the piece is cached');
      assert.equal(b.buffer.byteLength, b.length, 'its own memory, not a slice of the shared pool');
    }
  });

  test('two requests at once on one stream function each send their own body; cacheBodies:false keeps nothing', async () => {
    const base: Message[] = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'list — files' }, { role: 'assistant', content: 'done' }];
    const long = request({ messages: [...base, { role: 'user', content: 'a long question — '.repeat(40) }], tools: [TOOL] });
    const side = request({ messages: [...base, { role: 'user', content: 'side question?' }] });
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const { held, sent } = await concurrentBodies((f) => createAnthropicStream(rt(), { fetch: f }), long, side);
    assert.equal(held, expected(rt(), long));
    assert.deepEqual(sent.sort(), [expected(rt(), long), expected(rt(), side)].sort());

    // Without a cache, an in-place edit (which a kept run would not see) reaches the wire.
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push(Buffer.from(init?.body as Uint8Array).toString('utf8'));
      return fetch(input, init);
    };
    const messages: Message[] = [...base, { role: 'user', content: 'q' }];
    const uncached = createAnthropicStream(rt({ model: 'MiniMax-M2' }), { fetch: recording, cacheBodies: false });
    fake.enqueue({ text: 'a' }, { text: 'b' });
    await uncached(request({ messages })).result();
    (base[1] as { content: string }).content = 'edited in place';
    await uncached(request({ messages })).result();
    assert.match(seen[1], /edited in place/);
  });
});

describe('anthropic event stream (read from the raw response)', () => {
  const sse = (events: [string, unknown][]) => events.map(([e, d]) => `event: ${e}\ndata: ${typeof d === 'string' ? d : JSON.stringify(d)}\n\n`).join('');
  const serve = async (bodies: string[], run: (base: string) => Promise<void>) => {
    let n = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
      const body = bodies[n++];
      // Split mid-line, across events, and with CRLF in places: the reader must reassemble.
      for (let i = 0; i < body.length; i += 37) res.write(body.slice(i, i + 37));
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  };

  test('every event type: thinking + signature, redacted thinking, text, tool input pieces, pings, usage with cache tokens', async () => {
    const body = sse([
      ['message_start', { type: 'message_start', message: { id: 'm1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 900, cache_creation_input_tokens: 40 } } }],
      ['ping', { type: 'ping' }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think — ok' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig_abc' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'ENCRYPTED' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Reading ünïcode' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 2 }],
      ['ping', { type: 'ping' }],
      ['content_block_start', { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"path":' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '"/a"}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 3 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 55 } }],
      ['message_stop', { type: 'message_stop' }],
    ]).replace(/\n\n(event: content_block_stop)/g, '\r\n\r\n$1');
    await serve([body], async (base) => {
      const events = await collect(createAnthropicStream(rt({ baseUrl: base }))(request({ tools: [TOOL] })));
      const done = events.at(-1);
      assert.ok(done?.type === 'done');
      const r = done.result;
      assert.equal(r.stopReason, 'tool_calls');
      assert.equal(r.message.content, 'Reading ünïcode');
      assert.equal(r.message.reasoning, 'Let me think — ok');
      assert.deepEqual(r.message.reasoning_details, [
        { type: 'thinking', thinking: 'Let me think — ok', signature: 'sig_abc' },
        { type: 'redacted_thinking', data: 'ENCRYPTED' },
      ]);
      assert.deepEqual(r.message.tool_calls?.map((t) => [t.id, t.function.name, t.function.arguments]), [['toolu_1', 'read_file', '{"path":"/a"}']]);
      assert.deepEqual(r.usage, { input_tokens: 12, output_tokens: 55, cache_read_tokens: 900, cache_write_tokens: 40, reasoning_tokens: 0 });
    });
  });

  test('an `error` event is the provider’s error (as the SDK reports it); malformed JSON and a missing message_stop fail too', async () => {
    const start = ['message_start', { type: 'message_start', message: { usage: { input_tokens: 1 } } }] as [string, unknown];
    const bodies = [
      sse([start, ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded mid-stream' } }]]),
      sse([start, ['content_block_start', '{"type":"content_block_start","index":0,']]),
      sse([start, ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'half' } }]]),
    ];
    await serve(bodies, async (base) => {
      const stream = createAnthropicStream(rt({ baseUrl: base }));
      const overloaded = await stream(request()).result();
      assert.equal(overloaded.stopReason, 'error');
      assert.equal(overloaded.error?.message, 'Overloaded mid-stream');
      assert.equal(overloaded.error?.kind, 'server');
      assert.equal(overloaded.error?.retryable, true);
      const malformed = await stream(request()).result();
      assert.equal(malformed.stopReason, 'error');
      const cut = await stream(request()).result();
      assert.equal(cut.stopReason, 'error');
      assert.equal(cut.error?.kind, 'connection');
      assert.equal(cut.message.content, 'half');
    });
  });

  test('abort mid-stream → stopReason aborted; an already-aborted signal sends nothing', async () => {
    fake.enqueue({ text: 'x'.repeat(400), chunkDelayMs: 5 });
    const ac = new AbortController();
    const s = createAnthropicStream(rt())(request({ signal: ac.signal }));
    let deltas = 0;
    for await (const e of s) if (e.type === 'text_delta' && ++deltas === 2) ac.abort();
    const r = await s.result();
    assert.equal(r.stopReason, 'aborted');
    assert.equal(r.error?.kind, 'aborted');
    assert.ok(deltas < 50);
    const n = fake.requests.length;
    const early = await createAnthropicStream(rt())(request({ signal: AbortSignal.abort() })).result();
    assert.equal(early.stopReason, 'aborted');
    assert.equal(fake.requests.length, n);
  });
});
