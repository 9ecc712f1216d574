// The fake LLM server, exercised directly through the official SDKs (including their own stream
// accumulators, which only agree with the fake if it speaks the wire formats faithfully).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
let openai: OpenAI;
let anthropic: Anthropic;
before(async () => {
  fake = await startFakeLlm();
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: fake.openaiBaseUrl, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.anthropicBaseUrl, maxRetries: 0 });
});
after(() => fake.close());

const TOOLS = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const reply = { text: 'Sunny.', reasoning: 'check weather', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_w' }], usage: { input: 9, output: 4, cacheRead: 3, reasoning: 2 } };

describe('fake LLM: chat completions', () => {
  test('non-streaming JSON', async () => {
    fake.enqueue(reply);
    const r = await openai.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS });
    assert.equal(r.choices[0].message.content, 'Sunny.');
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(r.choices[0].message.tool_calls?.map((t) => t.type === 'function' && [t.id, t.function.name, t.function.arguments]), [['call_w', 'get_weather', '{"city":"Paris"}']]);
    assert.equal(r.usage?.prompt_tokens, 12);
    assert.equal(r.usage?.prompt_tokens_details?.cached_tokens, 3);
    assert.equal(fake.requests.at(-1)?.apiKey, 'sk-test');
  });

  test('the SDK’s stream accumulator rebuilds the same completion', async () => {
    fake.enqueue(reply);
    const final = await openai.chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS, stream_options: { include_usage: true } }).finalChatCompletion();
    assert.equal(final.choices[0].message.content, 'Sunny.');
    const tc = final.choices[0].message.tool_calls?.[0];
    assert.ok(tc && tc.type === 'function');
    assert.deepEqual(JSON.parse(tc.function.arguments), { city: 'Paris' });
    assert.equal(final.usage?.completion_tokens, 4);
  });
});

describe('fake LLM: anthropic messages', () => {
  test('non-streaming JSON with thinking, text and tool_use blocks', async () => {
    fake.enqueue(reply);
    const r = await anthropic.messages.create({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] });
    assert.deepEqual(r.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
    assert.equal(r.stop_reason, 'tool_use');
    assert.equal(r.usage.cache_read_input_tokens, 3);
    const tool = r.content[2];
    assert.ok(tool.type === 'tool_use');
    assert.deepEqual(tool.input, { city: 'Paris' });
  });

  test('the SDK’s MessageStream rebuilds the same message (signature, tool input)', async () => {
    fake.enqueue(reply);
    const final = await anthropic.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] }).finalMessage();
    const [thinking, text, tool] = final.content;
    assert.ok(thinking.type === 'thinking' && thinking.thinking === 'check weather' && thinking.signature.startsWith('sig_'));
    assert.ok(text.type === 'text' && text.text === 'Sunny.');
    assert.ok(tool.type === 'tool_use');
    assert.deepEqual(tool.input, { city: 'Paris' });
    assert.equal(final.usage.output_tokens, 4);
  });

  test('errors in Anthropic’s shape with Retry-After', async () => {
    fake.enqueue({ status: 429, error: 'Number of requests has exceeded your rate limit', retryAfter: 5 });
    await assert.rejects(anthropic.messages.create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof Anthropic.RateLimitError);
      assert.deepEqual(e.error, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } });
      assert.equal(e.headers?.get('retry-after'), '5');
      return true;
    });
  });
});

describe('fake LLM: responses', () => {
  test('non-streaming JSON and the SDK’s ResponseStream agree', async () => {
    fake.enqueue(reply);
    const r = await openai.responses.create({ model: 'gpt-x', input: 'weather?' });
    assert.equal(r.output_text, 'Sunny.');
    assert.deepEqual(r.output.map((i) => i.type), ['reasoning', 'message', 'function_call']);
    fake.enqueue(reply);
    const final = await openai.responses.stream({ model: 'gpt-x', input: 'weather?' }).finalResponse();
    assert.equal(final.output_text, 'Sunny.');
    const call = final.output.find((i) => i.type === 'function_call');
    assert.ok(call && call.type === 'function_call' && call.arguments === '{"city":"Paris"}');
    assert.equal(final.usage?.input_tokens_details.cached_tokens, 3);
  });

  test('errors in OpenAI’s shape', async () => {
    fake.enqueue({ status: 500, error: 'The server had an error' });
    await assert.rejects(openai.responses.create({ model: 'gpt-x', input: 'x' }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.InternalServerError);
      assert.equal(e.message, '500 The server had an error');
      return true;
    });
  });
});

describe('fake LLM: queue, handler, keys, models', () => {
  test('queued replies are consumed in order across wires, then the handler, then the default', async () => {
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const a = await anthropic.messages.create({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    const b = await openai.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual([a.content[0].type === 'text' && a.content[0].text, b.choices[0].message.content], ['one', 'two']);
    fake.setHandler((req) => ({ text: `handled ${req.wire} for ${req.body.model}` }));
    const c = await openai.chat.completions.create({ model: 'g2', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(c.choices[0].message.content, 'handled chat for g2');
    fake.setHandler(null);
    const d = await openai.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(d.choices[0].message.content, 'ok');
  });

  test('requireKey rejects other keys with 401 in the wire’s error shape; defaultReply; models list', async () => {
    const strict = await startFakeLlm({ requireKey: 'right', defaultReply: { text: 'default here' } });
    try {
      const wrong = new OpenAI({ apiKey: 'wrong', baseURL: strict.openaiBaseUrl, maxRetries: 0 });
      await assert.rejects(wrong.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] }), OpenAI.AuthenticationError);
      const right = new OpenAI({ apiKey: 'right', baseURL: strict.openaiBaseUrl, maxRetries: 0 });
      const r = await right.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] });
      assert.equal(r.choices[0].message.content, 'default here');
      assert.deepEqual(strict.requests.map((x) => x.apiKey), ['wrong', 'right']);
      strict.models = ['alpha', 'beta'];
      const ids: string[] = [];
      for await (const m of right.models.list()) ids.push(m.id);
      assert.deepEqual(ids, ['alpha', 'beta']);
      const anth = new Anthropic({ apiKey: 'right', baseURL: strict.anthropicBaseUrl, maxRetries: 0 });
      const page = await anth.models.list();
      assert.deepEqual(page.data.map((m) => m.id), ['alpha', 'beta']);
    } finally {
      await strict.close();
    }
  });

  test('a hung request can be aborted by the client and close() still returns', async () => {
    const f = await startFakeLlm();
    const c = new OpenAI({ apiKey: 'k', baseURL: f.openaiBaseUrl, maxRetries: 0 });
    f.enqueue({ hang: true }, { hang: true });
    await assert.rejects(c.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] }, { signal: AbortSignal.timeout(50) }));
    void c.chat.completions.create({ model: 'g', messages: [{ role: 'user', content: 'x' }] }).catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    await f.close();
  });
});

describe('fake LLM: a growing conversation (bodies read without parsing them whole)', () => {
  const post = async (body: string) => {
    const r = await fetch(`${fake.openaiBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body });
    return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
  };
  const body = (messages: unknown[], tail: Record<string, unknown>) => JSON.stringify({ model: 'm-1', messages, ...tail });

  test('each answer follows its own body: stream flag, usage and model, as the body grows or changes', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'hi — "stream":false' }];
    const streamTail = { stream: true, stream_options: { include_usage: true }, tools: TOOLS };
    let r = await post(body(messages, streamTail));
    assert.match(r.type, /event-stream/);
    assert.match(r.text, /"usage":/);
    for (let i = 0; i < 3; i++) {
      messages.push({ role: 'assistant', content: `a${i} ünïcode` }, { role: 'user', content: `u${i}` });
      r = await post(body(messages, streamTail));
      assert.match(r.type, /event-stream/);
      assert.match(r.text, /"model":"m-1"/);
      assert.match(r.text, /"usage":/);
      assert.deepEqual(fake.requests.at(-1)?.body, JSON.parse(body(messages, streamTail)), 'the recorded body is the whole body');
    }
    // Grown, but the tail says no usage / no streaming now: the answer follows.
    messages.push({ role: 'user', content: 'more' });
    r = await post(body(messages, { stream: true, tools: TOOLS }));
    assert.doesNotMatch(r.text, /"usage":/);
    messages.push({ role: 'user', content: 'json please' });
    r = await post(body(messages, { stream: false, tools: TOOLS }));
    assert.match(r.type, /application\/json/);
    // Something other than whole messages inserted: a malformed body is still refused.
    const good = body([...messages, { role: 'user', content: 'x' }], { stream: false, tools: TOOLS });
    const cut = good.replace('{"role":"user","content":"x"}', '{"role":"user","content":"x"},"extra":[1');
    assert.equal((await post(cut)).status, 400);
    assert.equal((await post(good)).status, 200);
  });
});
