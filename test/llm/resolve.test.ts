import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROVIDERS, findProvider } from '../../src/llm/catalog.ts';
import type { AuxiliaryTaskConfig, FallbackProviderConfig, ModelConfig, NamedProviderConfig } from '../../src/state/defaults.ts';
import {
  type ProviderRuntime,
  ResolveError,
  resolveAuxiliaryRuntime,
  resolveFallbackRuntimes,
  resolveRuntime,
  type ResolveInput,
} from '../../src/llm/resolve.ts';

const OR = 'sk-or-v1-openrouterkey';
const resolve = (input: Partial<ResolveInput> & { env?: ResolveInput['env'] }) => resolveRuntime({ env: {}, ...input });
const throwsResolve = (fn: () => unknown, ...needles: (string | RegExp)[]) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ResolveError, `expected ResolveError, got ${String(e)}`);
    for (const n of needles) assert.match(e.message, typeof n === 'string' ? new RegExp(n.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')) : n);
    assert.ok(e.hint.length > 0);
    return true;
  });

describe('catalog', () => {
  test('lists the required providers with data-only quirks', () => {
    for (const id of [
      'openrouter', 'openai', 'anthropic', 'openai-codex', 'ai-gateway', 'nous', 'zai', 'kimi-coding', 'kimi-coding-cn', 'minimax',
      'minimax-cn', 'deepseek', 'xai', 'gemini', 'nvidia', 'huggingface', 'kilocode', 'xiaomi', 'arcee', 'gmi', 'stepfun', 'alibaba',
      'ollama-cloud', 'opencode-zen', 'opencode-go', 'tencent-tokenhub', 'copilot', 'lmstudio', 'custom',
    ]) {
      assert.ok(findProvider(id), `missing provider ${id}`);
    }
    assert.equal(findProvider('grok')?.id, 'xai');
    assert.equal(findProvider('openai-api')?.id, 'openai');
    assert.equal(findProvider('OLLAMA')?.id, 'custom');
    assert.equal(findProvider('llama.cpp')?.id, 'custom');
    assert.equal(findProvider('minimax')?.apiMode, 'anthropic_messages');
    assert.equal(findProvider('minimax-cn')?.baseUrl, 'https://api.minimaxi.com/anthropic');
    assert.equal(findProvider('openai-codex')?.apiMode, 'codex_responses');
    assert.equal(findProvider('gemini')?.baseUrl, 'https://generativelanguage.googleapis.com/v1beta/openai');
    assert.deepEqual(findProvider('zai')?.keyEnvs, ['GLM_API_KEY', 'ZAI_API_KEY', 'Z_AI_API_KEY']);
    assert.equal(findProvider('deepseek')?.quirks.echoReasoningContent, true);
    assert.equal(findProvider('openrouter')?.quirks.replayReasoningDetails, true);
    assert.equal(findProvider('openai')?.quirks.maxTokensField, 'max_completion_tokens');
    const ids = PROVIDERS.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  });
});

describe('resolveRuntime: auto-detection', () => {
  test('OPENROUTER_API_KEY → openrouter with its defaults; the source names the env var, never the key', () => {
    const rt = resolve({ env: { OPENROUTER_API_KEY: OR } });
    assert.equal(rt.provider, 'openrouter');
    assert.equal(rt.apiMode, 'chat_completions');
    assert.equal(rt.baseUrl, 'https://openrouter.ai/api/v1');
    assert.equal(rt.apiKey, OR);
    assert.equal(rt.source, 'env:OPENROUTER_API_KEY');
    assert.equal(rt.keyEnv, 'OPENROUTER_API_KEY');
    assert.equal(rt.model, findProvider('openrouter')!.defaultModel);
    assert.equal(rt.isCustom, false);
    assert.ok(!rt.source.includes(OR));
    assert.equal(rt.extraHeaders['X-Title'], 'Hermes Agent');
  });

  test('OpenRouter wins over other keys; otherwise the first provider in registry order', () => {
    assert.equal(resolve({ env: { ANTHROPIC_API_KEY: 'sk-ant-1234', OPENROUTER_API_KEY: OR } }).provider, 'openrouter');
    assert.equal(resolve({ env: { DEEPSEEK_API_KEY: 'ds-1234' } }).provider, 'deepseek');
    const zai = resolve({ env: { ZAI_API_KEY: 'zai-1234' } });
    assert.equal(zai.provider, 'zai');
    assert.equal(zai.keyEnv, 'ZAI_API_KEY');
    assert.equal(resolve({ env: { GEMINI_API_KEY: 'g-1234', DEEPSEEK_API_KEY: 'ds-1234' } }).provider, 'gemini');
    assert.equal(resolve({ env: { OPENAI_API_KEY: 'sk-openai-1234' } }).provider, 'openai');
  });

  test('GitHub tokens and LM Studio keys never auto-select a provider; nothing configured is an error naming the fix', () => {
    throwsResolve(() => resolve({ env: { GH_TOKEN: 'gho_abcdef', LM_API_KEY: 'lm-1234' } }), 'OPENROUTER_API_KEY', '`hermes setup`');
  });

  test('a bare model.base_url (or OPENAI_BASE_URL) means a custom endpoint', () => {
    const rt = resolve({ model: { base_url: 'http://localhost:8080/v1/', default: 'qwen3' }, env: { OPENROUTER_API_KEY: OR } });
    assert.equal(rt.provider, 'custom');
    assert.equal(rt.baseUrl, 'http://localhost:8080/v1');
    assert.equal(rt.model, 'qwen3');
    assert.equal(rt.apiKey, 'no-key', 'a local server gets a placeholder, never the OpenRouter key');
    assert.equal(rt.isCustom, true);
    const env = resolve({ model: { default: 'm' }, env: { OPENAI_BASE_URL: 'http://10.0.0.5:8000/v1', OPENAI_API_KEY: 'sk-local-1234' } });
    assert.equal(env.provider, 'custom');
    assert.equal(env.baseUrl, 'http://10.0.0.5:8000/v1');
    assert.equal(env.apiKey, 'sk-local-1234');
    assert.equal(env.source, 'env:OPENAI_API_KEY');
  });

  test('a stored sign-in (from the layer above) is used when no env key is set', () => {
    const rt = resolve({ env: {}, storedCredentials: { 'openai-codex': 'codex-access-token' } });
    assert.equal(rt.provider, 'openai-codex');
    assert.equal(rt.apiMode, 'codex_responses');
    assert.equal(rt.source, 'auth:openai-codex');
  });
});

describe('resolveRuntime: precedence flag > config > env > defaults', () => {
  const env = { OPENROUTER_API_KEY: OR, ANTHROPIC_API_KEY: 'sk-ant-api-1234', DEEPSEEK_API_KEY: 'ds-1234', HERMES_INFERENCE_PROVIDER: 'deepseek', HERMES_INFERENCE_MODEL: 'env-model' };

  test('provider', () => {
    assert.equal(resolve({ env }).provider, 'deepseek', 'env beats auto');
    assert.equal(resolve({ env, model: { provider: 'anthropic' } }).provider, 'anthropic', 'config beats env');
    assert.equal(resolve({ env, model: { provider: 'anthropic' }, explicit: { provider: 'openrouter' } }).provider, 'openrouter', 'flag beats config');
    assert.equal(resolve({ env, model: { provider: 'auto' } }).provider, 'deepseek', 'provider: auto defers to env');
  });

  test('model', () => {
    assert.equal(resolve({ env: { DEEPSEEK_API_KEY: 'ds-1234' } }).model, 'deepseek-chat', 'provider default');
    assert.equal(resolve({ env }).model, 'env-model', 'env beats default');
    assert.equal(resolve({ env, model: { default: 'cfg-model' } }).model, 'cfg-model', 'config beats env');
    assert.equal(resolve({ env, model: { default: 'cfg-model' }, explicit: { model: 'flag-model' } }).model, 'flag-model');
    assert.equal(resolve({ env: {}, model: 'legacy-string-model', explicit: { provider: 'custom', baseUrl: 'http://127.0.0.1:1/v1' } }).model, 'legacy-string-model');
  });

  test('settings saved for one provider do not leak into another chosen by flag', () => {
    const rt = resolve({
      env: { DEEPSEEK_API_KEY: 'ds-1234' },
      model: { provider: 'anthropic', default: 'claude-x', api_key: 'sk-ant-config-key', base_url: 'https://proxy.example.com/anthropic' },
      explicit: { provider: 'deepseek' },
    });
    assert.equal(rt.provider, 'deepseek');
    assert.equal(rt.apiKey, 'ds-1234');
    assert.equal(rt.baseUrl, 'https://api.deepseek.com/v1');
    assert.equal(rt.model, 'deepseek-chat');
  });

  test('config api_key and base_url apply to the provider they were saved for', () => {
    const rt = resolve({ env: { ANTHROPIC_API_KEY: 'sk-ant-env-1234' }, model: { provider: 'anthropic', api_key: 'sk-ant-config-1234', default: 'claude-sonnet-4-5' } });
    assert.equal(rt.apiKey, 'sk-ant-config-1234');
    assert.equal(rt.source, 'config:model.api_key');
    assert.equal(rt.keyEnv, undefined);
  });

  test('an explicit --base-url without --provider targets that endpoint', () => {
    const rt = resolve({ env: { OPENROUTER_API_KEY: OR }, model: { provider: 'openrouter' }, explicit: { baseUrl: 'http://127.0.0.1:9999/v1', model: 'local' } });
    assert.equal(rt.provider, 'custom');
    assert.equal(rt.apiKey, 'no-key');
  });

  test('explicit api key is used and labelled as a flag', () => {
    const rt = resolve({ env: {}, explicit: { provider: 'deepseek', apiKey: 'ds-flag-1234' } });
    assert.equal(rt.apiKey, 'ds-flag-1234');
    assert.equal(rt.source, 'flag:--api-key');
  });
});

describe('resolveRuntime: endpoints and wires', () => {
  test('a provider *_BASE_URL env var overrides the endpoint; model.base_url beats it', () => {
    const env = { DEEPSEEK_API_KEY: 'ds-1234', DEEPSEEK_BASE_URL: 'https://ds-proxy.example.com/v1' };
    assert.equal(resolve({ env }).baseUrl, 'https://ds-proxy.example.com/v1');
    assert.equal(resolve({ env, model: { provider: 'deepseek', base_url: 'https://cfg.example.com/v1' } }).baseUrl, 'https://cfg.example.com/v1');
    assert.equal(resolve({ env: { GLM_API_KEY: 'glm-1234', GLM_BASE_URL: 'https://open.bigmodel.cn/api/paas/v4' } }).baseUrl, 'https://open.bigmodel.cn/api/paas/v4');
  });

  test('model.api_mode picks the wire for a custom base URL (aliases canonicalised)', () => {
    const base = { env: {}, explicit: { provider: 'custom', model: 'm' } };
    const withMode = (api_mode: string) => resolve({ ...base, model: { provider: 'custom', base_url: 'https://llm.example.com/v1', api_mode } }).apiMode;
    assert.equal(withMode('anthropic'), 'anthropic_messages');
    assert.equal(withMode('anthropic_messages'), 'anthropic_messages');
    assert.equal(withMode('responses'), 'codex_responses');
    assert.equal(withMode('openai'), 'chat_completions');
    assert.equal(withMode('chat_completions'), 'chat_completions');
    throwsResolve(() => withMode('grpc'), 'grpc', 'chat_completions');
    assert.equal(resolve({ ...base, model: { provider: 'custom', base_url: 'https://llm.example.com/v1', api_mode: 'anthropic' } }).baseUrl, 'https://llm.example.com', 'the Anthropic SDK appends /v1 itself');
  });

  test('base-URL heuristics: api.anthropic.com or an /anthropic path → Messages API', () => {
    assert.equal(resolve({ env: {}, explicit: { baseUrl: 'https://api.z.ai/api/anthropic', model: 'glm-4.6' } }).apiMode, 'anthropic_messages');
    assert.equal(resolve({ env: {}, explicit: { baseUrl: 'https://api.anthropic.com/v1', model: 'claude-x', apiKey: 'sk-ant-x1234' } }).apiMode, 'anthropic_messages');
    assert.equal(resolve({ env: {}, explicit: { baseUrl: 'https://llm.example.com/v1', model: 'x' } }).apiMode, 'chat_completions');
    const mm = resolve({ env: { MINIMAX_API_KEY: 'mm-1234' } });
    assert.equal(mm.provider, 'minimax');
    assert.equal(mm.apiMode, 'anthropic_messages');
    assert.equal(mm.baseUrl, 'https://api.minimax.io/anthropic');
  });

  test('aliases and local servers', () => {
    assert.equal(resolve({ env: { XAI_API_KEY: 'xai-1234' }, explicit: { provider: 'grok' } }).provider, 'xai');
    assert.equal(resolve({ env: { OPENAI_API_KEY: 'sk-1234' }, explicit: { provider: 'openai-api' } }).baseUrl, 'https://api.openai.com/v1');
    const ollama = resolve({ env: { OPENROUTER_API_KEY: OR }, explicit: { provider: 'ollama', model: 'llama3' } });
    assert.equal(ollama.provider, 'custom');
    assert.equal(ollama.baseUrl, 'http://localhost:11434/v1');
    assert.equal(ollama.apiKey, 'no-key');
    const lm = resolve({ env: {}, explicit: { provider: 'lmstudio', model: 'qwen' } });
    assert.equal(lm.baseUrl, 'http://localhost:1234/v1');
    assert.equal(lm.apiKey, 'no-key');
    assert.equal(lm.source, 'none');
  });

  test('copilot token priority COPILOT_GITHUB_TOKEN > GH_TOKEN > GITHUB_TOKEN', () => {
    const p = { provider: 'copilot', model: 'gpt-4.1' };
    assert.equal(resolve({ env: { GITHUB_TOKEN: 'gho_third', GH_TOKEN: 'gho_second' }, explicit: p }).apiKey, 'gho_second');
    const rt = resolve({ env: { GITHUB_TOKEN: 'gho_third', GH_TOKEN: 'gho_second', COPILOT_GITHUB_TOKEN: 'gho_first' }, explicit: p });
    assert.equal(rt.apiKey, 'gho_first');
    assert.equal(rt.baseUrl, 'https://api.githubcopilot.com');
  });
});

describe('resolveRuntime: key scoping', () => {
  test('OPENROUTER_API_KEY is never sent to a host other than openrouter.ai', () => {
    const env = { OPENROUTER_API_KEY: OR, OPENROUTER_BASE_URL: 'https://openrouter.ai.evil.test/api/v1' };
    throwsResolve(() => resolve({ env, explicit: { provider: 'openrouter' } }), 'only sent to openrouter.ai');
    const withCfgKey = resolve({ env, model: { provider: 'openrouter', api_key: 'proxy-key-1234' } });
    assert.equal(withCfgKey.apiKey, 'proxy-key-1234');
    assert.ok(!withCfgKey.keys.includes(OR));
  });

  test('AI_GATEWAY_API_KEY is only sent to ai-gateway.vercel.sh', () => {
    assert.equal(resolve({ env: { AI_GATEWAY_API_KEY: 'vck-1234' }, explicit: { provider: 'ai-gateway', model: 'm' } }).apiKey, 'vck-1234');
    throwsResolve(
      () => resolve({ env: { AI_GATEWAY_API_KEY: 'vck-1234', AI_GATEWAY_BASE_URL: 'https://gateway.example.com/v1' }, explicit: { provider: 'ai-gateway', model: 'm' } }),
      'ai-gateway.vercel.sh',
    );
  });

  test('a custom endpoint gets its own key or OPENAI_API_KEY, never another provider’s', () => {
    const env = { OPENROUTER_API_KEY: OR, ANTHROPIC_API_KEY: 'sk-ant-1234', DEEPSEEK_API_KEY: 'ds-1234' };
    const remote = resolve({ env, model: { provider: 'custom', base_url: 'https://llm.example.com/v1', default: 'm' } });
    assert.equal(remote.apiKey, 'no-key');
    assert.deepEqual(remote.keys, ['no-key']);
    const withOpenAI = resolve({ env: { ...env, OPENAI_API_KEY: 'sk-openai-1234' }, model: { provider: 'custom', base_url: 'https://llm.example.com/v1', default: 'm' } });
    assert.equal(withOpenAI.apiKey, 'sk-openai-1234');
    const withCfg = resolve({ env: { ...env, OPENAI_API_KEY: 'sk-openai-1234' }, model: { base_url: 'https://llm.example.com/v1', api_key: 'cfg-key-1234', default: 'm' } });
    assert.equal(withCfg.apiKey, 'cfg-key-1234');
    assert.equal(withCfg.source, 'config:model.api_key');
  });

  test('named providers: usable as --provider <name> and custom:<name>, with key_env or inline api_key', () => {
    const input = {
      env: { OPENROUTER_API_KEY: OR, LAB_KEY: 'lab-key-1,lab-key-2' },
      providers: {
        mylab: { base_url: 'https://lab.example.com/v1', key_env: 'LAB_KEY', model: 'lab-model', api_mode: 'chat_completions', extra_headers: { 'X-Lab': '1' }, context_length: 32768 },
        inline: { base_url: 'https://inline.example.com/anthropic', api_key: 'inline-key-1234', model: 'claude-inline' },
      },
    };
    for (const provider of ['mylab', 'custom:mylab', 'MyLab']) {
      const rt = resolveRuntime({ ...input, explicit: { provider } });
      assert.equal(rt.provider, 'custom:mylab');
      assert.equal(rt.baseUrl, 'https://lab.example.com/v1');
      assert.deepEqual(rt.keys, ['lab-key-1', 'lab-key-2']);
      assert.equal(rt.source, 'providers.mylab.key_env');
      assert.equal(rt.keyEnv, 'LAB_KEY');
      assert.equal(rt.model, 'lab-model');
      assert.equal(rt.extraHeaders['X-Lab'], '1');
      assert.equal(rt.contextLength, 32768);
      assert.equal(rt.isCustom, true);
    }
    const inline = resolveRuntime({ ...input, model: { provider: 'custom:inline' } });
    assert.equal(inline.apiKey, 'inline-key-1234');
    assert.equal(inline.apiMode, 'anthropic_messages');
    throwsResolve(() => resolveRuntime({ ...input, explicit: { provider: 'custom:nope' } }), "'nope'", 'config.yaml');
  });

  test('providers.<builtin id> overrides a built-in without making it custom', () => {
    const rt = resolveRuntime({ env: { OPENROUTER_API_KEY: OR }, providers: { openrouter: { extra_headers: { 'X-Extra': 'yes' } } } });
    assert.equal(rt.provider, 'openrouter');
    assert.equal(rt.isCustom, false);
    assert.equal(rt.extraHeaders['X-Extra'], 'yes');
    assert.equal(rt.extraHeaders['X-Title'], 'Hermes Agent');
  });
});

describe('resolveRuntime: several keys and errors', () => {
  test('comma-separated values and _2.._N siblings become the pool, apiKey first, deduplicated', () => {
    const rt = resolve({ env: { OPENROUTER_API_KEY: 'sk-or-a111, sk-or-b222', OPENROUTER_API_KEY_2: 'sk-or-c333', OPENROUTER_API_KEY_4: 'sk-or-a111' } });
    assert.equal(rt.apiKey, 'sk-or-a111');
    assert.deepEqual(rt.keys, ['sk-or-a111', 'sk-or-b222', 'sk-or-c333']);
  });

  test('placeholder values do not count as keys', () => {
    throwsResolve(() => resolve({ env: { DEEPSEEK_API_KEY: 'changeme' }, explicit: { provider: 'deepseek' } }), 'DEEPSEEK_API_KEY');
  });

  test('missing key names the env var and `hermes setup`', () => {
    throwsResolve(() => resolve({ env: {}, explicit: { provider: 'anthropic' } }), 'ANTHROPIC_API_KEY', '~/.hermes/.env', '`hermes setup`');
    throwsResolve(() => resolve({ env: {}, explicit: { provider: 'codex' } }), 'OpenAI Codex', '`hermes model`');
  });

  test('unknown provider lists the valid ids', () => {
    throwsResolve(() => resolve({ env: {}, explicit: { provider: 'openrouterr' } }), "'openrouterr'", 'openrouter', 'anthropic', '`hermes model`');
  });

  test('no model and no provider default → tells to pass -m or run hermes model', () => {
    throwsResolve(() => resolve({ env: { NOUS_API_KEY: 'nous-1234' }, explicit: { provider: 'nous' } }), '-m', '`hermes model`');
  });

  test('custom without a base URL', () => {
    throwsResolve(() => resolve({ env: {}, explicit: { provider: 'custom', model: 'm' } }), 'base URL', 'model.base_url');
  });
});

describe('resolveFallbackRuntimes', () => {
  test('resolves entries in order and skips incomplete or unresolvable ones with a reason', () => {
    const input: ResolveInput = {
      env: { ANTHROPIC_API_KEY: 'sk-ant-1234', OPENROUTER_API_KEY: OR, LOCAL_KEY: 'local-1234' },
      model: { provider: 'openrouter', api_key: 'cfg-or-key-1234', default: 'main-model' },
    };
    const { runtimes, skipped } = resolveFallbackRuntimes(
      [
        { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        { provider: 'openrouter' },
        { provider: 'nope', model: 'x' },
        { provider: 'custom', model: 'qwen', base_url: 'http://127.0.0.1:9/v1', key_env: 'LOCAL_KEY' },
        { provider: 'deepseek', model: 'deepseek-chat', key_env: 'MISSING_KEY' },
        { provider: 'openrouter', model: 'google/gemini-3-flash-preview' },
      ],
      input,
    );
    assert.deepEqual(runtimes.map((r) => `${r.provider}/${r.model}`), ['anthropic/claude-sonnet-4-5', 'custom/qwen', 'openrouter/google/gemini-3-flash-preview']);
    assert.equal(runtimes[0].apiMode, 'anthropic_messages');
    assert.equal(runtimes[1].apiKey, 'local-1234');
    assert.equal(runtimes[1].source, 'fallback_providers.key_env');
    assert.equal(runtimes[2].apiKey, OR, 'the main model block (and its api_key) never leaks into a fallback');
    assert.equal(skipped.length, 3);
    assert.match(skipped[0].reason, /provider and model/);
    assert.match(skipped[1].reason, /Unknown provider 'nope'/);
    assert.match(skipped[2].reason, /MISSING_KEY/);
  });
});

describe('resolveAuxiliaryRuntime', () => {
  const main = resolveRuntime({ env: { OPENROUTER_API_KEY: OR }, model: { default: 'main-model' } });

  test("'main' and 'auto' use the main runtime (with the task's model when set)", () => {
    assert.equal(resolveAuxiliaryRuntime('compression', { provider: 'main' }, main, { env: {} })?.model, 'main-model');
    const auto = resolveAuxiliaryRuntime('vision', { provider: 'auto', model: 'google/gemini-2.5-flash' }, main, { env: {} });
    assert.equal(auto?.provider, 'openrouter');
    assert.equal(auto?.model, 'google/gemini-2.5-flash');
    assert.equal(main.model, 'main-model', 'main runtime is not mutated');
  });

  test('an explicit base_url uses the task key or OPENAI_API_KEY, never OPENROUTER_API_KEY', () => {
    const taskKey = resolveAuxiliaryRuntime('vision', { base_url: 'https://vision.example.com/v1', api_key: 'task-key-1234', model: 'v' }, main, { env: { OPENROUTER_API_KEY: OR, OPENAI_API_KEY: 'sk-openai-1234' } });
    assert.equal(taskKey?.apiKey, 'task-key-1234');
    const openai = resolveAuxiliaryRuntime('vision', { base_url: 'https://vision.example.com/v1' }, main, { env: { OPENROUTER_API_KEY: OR, OPENAI_API_KEY: 'sk-openai-1234' } });
    assert.equal(openai?.apiKey, 'sk-openai-1234');
    assert.equal(openai?.model, 'main-model');
    const none = resolveAuxiliaryRuntime('vision', { base_url: 'https://vision.example.com/v1' }, main, { env: { OPENROUTER_API_KEY: OR } });
    assert.equal(none?.apiKey, 'no-key');
    assert.ok(!none?.keys.includes(OR));
  });

  test('AUXILIARY_<TASK>_* env fills empty fields; an unusable provider gives null', () => {
    const rt = resolveAuxiliaryRuntime('web_extract', { provider: '' }, main, { env: { AUXILIARY_WEB_EXTRACT_PROVIDER: 'deepseek', DEEPSEEK_API_KEY: 'ds-1234' } });
    assert.equal(rt?.provider, 'deepseek');
    assert.equal(rt?.model, 'deepseek-chat');
    assert.equal(resolveAuxiliaryRuntime('vision', { provider: 'anthropic', model: 'claude-x' }, main, { env: {} }), null);
  });
});

// Compile-time: the config shapes of src/state plug straight into the resolver (tsc checks this).
export const configShapesFit = (m: ModelConfig, p: Record<string, NamedProviderConfig>, f: FallbackProviderConfig[], a: AuxiliaryTaskConfig, main: ProviderRuntime) => {
  const input: ResolveInput = { model: m, providers: p, env: {} };
  return [resolveRuntime(input), resolveFallbackRuntimes(f, input), resolveAuxiliaryRuntime('vision', a, main, input)];
};
