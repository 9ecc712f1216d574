import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CONTEXT_LENGTH, ModelListError, contextLengthFor, listModels } from '../../src/llm/models.ts';
import { estimateCostUsd, normaliseModelId } from '../../src/llm/pricing.ts';
import { emptyUsage } from '../../src/llm/types.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { runtime } from './_util.ts';

describe('estimateCostUsd', () => {
  const usage = { ...emptyUsage(), input_tokens: 1_000_000, output_tokens: 100_000, cache_read_tokens: 2_000_000, cache_write_tokens: 400_000 };
  test('Claude: input, output, cache read and cache write', () => {
    // 3 + 1.5 + 0.6 + 1.5
    assert.equal(estimateCostUsd('claude-sonnet-4-5-20250929', 'anthropic', usage), 6.6);
    assert.equal(estimateCostUsd('anthropic/claude-sonnet-4.5', 'openrouter', usage), 6.6, 'OpenRouter ids match by suffix');
    assert.equal(estimateCostUsd('claude-opus-4-1', 'anthropic', { ...emptyUsage(), input_tokens: 1_000_000 }), 15);
    assert.equal(estimateCostUsd('claude-haiku-4-5', 'anthropic', { ...emptyUsage(), output_tokens: 1_000_000 }), 5);
  });
  test('GPT, Gemini, DeepSeek, Kimi, GLM; cache write defaults to the input price', () => {
    assert.equal(estimateCostUsd('gpt-5', 'openai', { ...emptyUsage(), input_tokens: 1_000_000, cache_read_tokens: 1_000_000 }), 1.375);
    assert.equal(estimateCostUsd('gpt-5-mini', 'openai', { ...emptyUsage(), output_tokens: 1_000_000 }), 2);
    assert.equal(estimateCostUsd('google/gemini-2.5-flash', 'openrouter', { ...emptyUsage(), output_tokens: 1_000_000 }), 2.5);
    assert.equal(estimateCostUsd('deepseek-chat', 'deepseek', { ...emptyUsage(), input_tokens: 1_000_000 }), 0.28);
    assert.equal(estimateCostUsd('moonshotai/kimi-k2-0905', 'openrouter', { ...emptyUsage(), output_tokens: 1_000_000 }), 2.5);
    assert.equal(estimateCostUsd('z-ai/glm-4.6', 'openrouter', { ...emptyUsage(), cache_write_tokens: 1_000_000 }), 0.6);
  });
  test('unknown models → null; zero usage → 0', () => {
    assert.equal(estimateCostUsd('my-local-finetune', 'custom', usage), null);
    assert.equal(estimateCostUsd('gpt-4o', 'openai', emptyUsage()), 0);
    assert.equal(normaliseModelId('anthropic/claude-3.5-sonnet:beta'), 'claude-3-5-sonnet');
  });
});

describe('contextLengthFor', () => {
  test('override wins; known models; unknown → 200k', () => {
    assert.equal(contextLengthFor('anything', 32768), 32768);
    assert.equal(contextLengthFor('gpt-4.1', null), 1_047_576);
    assert.equal(contextLengthFor('openai/gpt-4o-mini'), 128_000);
    assert.equal(contextLengthFor('claude-sonnet-4-5'), 200_000);
    assert.equal(contextLengthFor('google/gemini-2.5-pro'), 1_048_576);
    assert.equal(contextLengthFor('moonshotai/kimi-k2-0905'), 262_144);
    assert.equal(contextLengthFor('deepseek-chat'), 128_000);
    assert.equal(contextLengthFor('totally-unknown-model'), DEFAULT_CONTEXT_LENGTH);
    assert.equal(DEFAULT_CONTEXT_LENGTH, 200_000);
  });
});

describe('listModels', () => {
  let fake: FakeLlm;
  before(async () => {
    fake = await startFakeLlm({ requireKey: 'good-key' });
  });
  after(() => fake.close());

  test('OpenAI shape with a Bearer key', async () => {
    fake.models = ['m-one', 'm-two'];
    const models = await listModels(runtime({ baseUrl: fake.openaiBaseUrl, apiKey: 'good-key' }));
    assert.deepEqual(models.map((m) => m.id), ['m-one', 'm-two']);
  });

  test('Anthropic shape with x-api-key and anthropic-version', async () => {
    fake.models = ['claude-a'];
    const models = await listModels(runtime({ baseUrl: fake.anthropicBaseUrl, apiMode: 'anthropic_messages', provider: 'anthropic', apiKey: 'good-key' }));
    assert.deepEqual(models, [{ id: 'claude-a', name: 'claude-a' }]);
  });

  test('a rejected key or dead server → ModelListError with one clear line', async () => {
    await assert.rejects(listModels(runtime({ baseUrl: fake.openaiBaseUrl, apiKey: 'bad-key', keyEnv: 'LAB_KEY' })), (e: unknown) => {
      assert.ok(e instanceof ModelListError);
      assert.equal(e.error.kind, 'auth');
      assert.match(e.message, /^Could not list models: .*HTTP 401.*LAB_KEY/);
      return true;
    });
    const dead = await startFakeLlm();
    const url = dead.openaiBaseUrl;
    await dead.close();
    await assert.rejects(listModels(runtime({ baseUrl: url })), (e: unknown) => e instanceof ModelListError && e.error.kind === 'connection' && e.message.includes(url));
  });

  test('uses the injected fetch and gives up after 5 s (kind timeout)', async () => {
    let calledWith = '';
    const fakeFetch = (async (url: string | URL | Request, init?: RequestInit) => {
      calledWith = String(url);
      assert.ok(init?.signal, 'a timeout signal is passed');
      throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    }) as typeof fetch;
    await assert.rejects(listModels(runtime({ baseUrl: 'https://api.example.com/v1' }), fakeFetch), (e: unknown) => e instanceof ModelListError && e.error.kind === 'timeout');
    assert.equal(calledWith, 'https://api.example.com/v1/models');
  });
});
