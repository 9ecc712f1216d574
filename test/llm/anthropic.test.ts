import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAnthropicStream, toAnthropicMessages } from '../../src/llm/anthropic.ts';
import type { Message } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { TOOL, collect, request, runtime } from './_util.ts';

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

  test('OAuth tokens go as Bearer with the OAuth betas and the Claude Code identity block', async () => {
    const n = fake.requests.length;
    await createAnthropicStream(rt({ apiKey: 'sk-ant-oat01-abcdef', keys: ['sk-ant-oat01-abcdef'] }))(request()).result();
    const sent = fake.requests[n];
    assert.equal(sent.headers.authorization, 'Bearer sk-ant-oat01-abcdef');
    assert.ok(!sent.headers['x-api-key']);
    assert.match(sent.headers['anthropic-beta'], /oauth-2025-04-20/);
    assert.match(sent.body.system[0].text, /Claude Code/);
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
