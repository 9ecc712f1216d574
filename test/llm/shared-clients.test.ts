import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { anthropicClient, createAnthropicStream } from '../../src/llm/anthropic.ts';
import { createChatCompletionsStream, openaiClient } from '../../src/llm/openai-chat.ts';
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { request, runtime } from './_util.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const chat = (over: Partial<ProviderRuntime> = {}) => runtime({ baseUrl: fake.openaiBaseUrl, ...over });
const claude = (over: Partial<ProviderRuntime> = {}) =>
  runtime({ baseUrl: fake.anthropicBaseUrl, provider: 'anthropic', apiMode: 'anthropic_messages', model: 'claude-sonnet-4-5', isCustom: false, ...over });

describe('SDK clients shared between runtimes', () => {
  test('one OpenAI client per key, URL, headers and timeout; any difference gets its own', async () => {
    const a = await openaiClient(chat({ apiKey: 'sk-alice' }), {});
    assert.equal(await openaiClient(chat({ apiKey: 'sk-alice' }), {}), a, 'same settings: shared');
    assert.notEqual(await openaiClient(chat({ apiKey: 'sk-bob' }), {}), a, 'another key');
    assert.notEqual(await openaiClient(chat({ apiKey: 'sk-alice', baseUrl: `${fake.openaiBaseUrl}/other` }), {}), a, 'another URL');
    assert.notEqual(await openaiClient(chat({ apiKey: 'sk-alice', extraHeaders: { 'x-team': 'b' } }), {}), a, 'other headers');
    assert.notEqual(await openaiClient(chat({ apiKey: 'sk-alice' }), { timeoutMs: 5000 }), a, 'another timeout');
    const ownFetch = ((...args: Parameters<typeof fetch>) => fetch(...args)) as typeof fetch;
    assert.notEqual(await openaiClient(chat({ apiKey: 'sk-alice' }), { fetch: ownFetch }), a, 'another fetch');
  });

  test('one Anthropic client per credentials; an API key and an OAuth token never share', async () => {
    const a = await anthropicClient(claude({ apiKey: 'sk-ant-alice' }), {});
    assert.equal(await anthropicClient(claude({ apiKey: 'sk-ant-alice' }), {}), a);
    assert.notEqual(await anthropicClient(claude({ apiKey: 'sk-ant-bob' }), {}), a);
    assert.notEqual(await anthropicClient(claude({ apiKey: 'sk-ant-oat01-alice' }), {}), a);
  });

  test('interleaved conversations with different keys each send their own key', async () => {
    const keys = ['sk-one', 'sk-two', 'sk-one', 'sk-three', 'sk-two'];
    const n = fake.requests.length;
    for (const k of keys) fake.enqueue({ text: `for ${k}` });
    const streams = keys.map((k) => createChatCompletionsStream(chat({ apiKey: k })));
    await Promise.all(streams.map((s, i) => s(request({ messages: [{ role: 'user', content: `turn ${i}` }] })).result()));
    const sent = fake.requests.slice(n).map((r): [string, string] => [(r.body as { messages: { content: string }[] }).messages.at(-1)!.content, r.apiKey]);
    assert.deepEqual(new Map(sent), new Map(keys.map((k, i) => [`turn ${i}`, k])));

    const m = fake.requests.length;
    fake.enqueue({ text: 'a' }, { text: 'b' });
    await createAnthropicStream(claude({ apiKey: 'sk-ant-one' }))(request({ messages: [{ role: 'user', content: 'ant 1' }] })).result();
    await createAnthropicStream(claude({ apiKey: 'sk-ant-two' }))(request({ messages: [{ role: 'user', content: 'ant 2' }] })).result();
    assert.deepEqual(fake.requests.slice(m).map((r) => r.apiKey), ['sk-ant-one', 'sk-ant-two']);
  });
});
