// The local-server probes against fakes of each server's own API (test/helpers/fake-local-servers.ts):
// each kind is recognised from its answers and its window, maximum and capabilities read.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { kindHint, probeServer, shouldProbe } from '../../src/llm/local/index.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { startFakeLocalServer, type FakeLocalServer } from '../helpers/fake-local-servers.ts';

const llm = await startFakeLlm();
const servers: FakeLocalServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
  await llm.close();
});
const start = async (...a: Parameters<typeof startFakeLocalServer>) => {
  const s = await startFakeLocalServer(a[0], a[1], { llm });
  servers.push(s);
  return s;
};

describe('probing local servers', () => {
  it('Ollama: the loaded context from /api/ps, the maximum and capabilities from /api/show', async () => {
    const s = await start('ollama', [{ name: 'qwen3:4b', maxWindow: 40960, window: 8192, tools: true, thinking: true, loaded: true }]);
    const got = await probeServer({ baseUrl: s.baseUrl, model: 'qwen3:4b' });
    assert.equal(got?.kind, 'ollama');
    assert.equal(got?.window, 8192);
    assert.equal(got?.maxWindow, 40960);
    assert.deepEqual(got?.capabilities, { tools: true, thinking: true, vision: undefined });
    assert.equal(got?.loaded, true);
  });

  it('Ollama: a model not loaded has no served window yet', async () => {
    const s = await start('ollama', [{ name: 'llama3.2', maxWindow: 131072, window: 4096 }]);
    const got = await probeServer({ baseUrl: s.baseUrl, model: 'llama3.2' });
    assert.equal(got?.kind, 'ollama');
    assert.equal(got?.window, undefined);
    assert.equal(got?.loaded, false);
    assert.equal(got?.capabilities.tools, false);
  });

  it('llama.cpp: n_ctx per slot from /slots and /props, the trained context from /v1/models', async () => {
    const s = await start('llamacpp', [{ name: 'qwen3-4b-q4', maxWindow: 40960, window: 4096, tools: true, thinking: true }]);
    const got = await probeServer({ baseUrl: s.baseUrl, model: 'qwen3-4b-q4' });
    assert.equal(got?.kind, 'llamacpp');
    assert.equal(got?.window, 4096);
    assert.equal(got?.maxWindow, 40960);
    assert.equal(got?.capabilities.tools, true);
    assert.equal(got?.capabilities.thinking, true);
  });

  it('vLLM: max_model_len from /v1/models', async () => {
    const s = await start('vllm', [{ name: 'Qwen/Qwen3-8B', maxWindow: 40960, window: 16384 }]);
    const got = await probeServer({ baseUrl: s.baseUrl, model: 'Qwen/Qwen3-8B' });
    assert.equal(got?.kind, 'vllm');
    assert.equal(got?.window, 16384);
  });

  it('LM Studio: loaded_context_length and tool_use from /api/v0/models', async () => {
    const s = await start('lmstudio', [{ name: 'qwen3-4b', maxWindow: 32768, window: 8192, tools: true, loaded: true }]);
    const got = await probeServer({ baseUrl: s.baseUrl, model: 'qwen3-4b' });
    assert.equal(got?.kind, 'lmstudio');
    assert.equal(got?.window, 8192);
    assert.equal(got?.maxWindow, 32768);
    assert.equal(got?.capabilities.tools, true);
  });

  it('any other OpenAI-compatible server: /v1/models; a closed port: null', async () => {
    const got = await probeServer({ baseUrl: llm.openaiBaseUrl, model: 'fake-model' });
    assert.equal(got?.kind, 'generic');
    const closed = await probeServer({ baseUrl: 'http://127.0.0.1:9/v1', model: 'x', timeoutMs: 500 });
    assert.equal(closed, null);
  });

  it('only endpoints that look local are probed, unless configured', () => {
    assert.equal(shouldProbe('http://localhost:11434/v1'), true);
    assert.equal(shouldProbe('http://192.168.1.20:8000/v1'), true);
    assert.equal(shouldProbe('https://openrouter.ai/api/v1'), false);
    assert.equal(shouldProbe('https://gpu.example.com/v1', true), true);
    assert.equal(shouldProbe('http://localhost:8000/v1', false), false);
    assert.equal(kindHint('http://localhost:11434/v1'), 'ollama');
    assert.equal(kindHint('http://gpu:9999/v1', 'custom:lmstudio'), 'lmstudio');
  });
});
