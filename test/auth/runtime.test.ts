// auth.json in runtime resolution: after `hermes auth add openrouter` in Python, this project finds
// the keys (stored ones first, then the env key), keeps key scoping, honours suppressed sources,
// strategies and auth.json's active_provider.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { authResolveInputs } from '../../src/auth/runtime.ts';
import { resolveRuntime, ResolveError, type ResolveInput } from '../../src/llm/resolve.ts';
import { copyPythonHome } from '../helpers/hermes-home.ts';
import { tempHome } from '../helpers/cli.ts';
import { fakeJwt } from '../helpers/fake-oauth.ts';

function input(home: string, env: Record<string, string>, model: ResolveInput['model'], extra: Partial<ResolveInput> = {}): ResolveInput {
  const auth = authResolveInputs(home, env);
  return { model, env, pools: auth.pools, suppressedSources: auth.suppressedSources, activeProvider: auth.activeProvider, poolHooks: auth.poolHooks, ...extra };
}

test('the Python-made pools resolve: stored keys first, the env key after them (deduplicated)', () => {
  const h = copyPythonHome();
  const rt = resolveRuntime(input(h, { OPENROUTER_API_KEY: 'sk-or-fixture-1', HOME: h }, { provider: 'openrouter', default: 'anthropic/claude-sonnet-5' }));
  assert.deepEqual(rt.keys, ['sk-or-fixture-1', 'sk-or-fixture-2']);
  assert.equal(rt.source, 'auth:openrouter');
  assert.deepEqual(rt.credentials!.map((c) => [c.id, c.label, c.source]), [['19359d', 'primary-or', 'manual'], ['08e479', 'backup-or', 'manual']]);
  const withEnv = resolveRuntime(input(h, { OPENROUTER_API_KEY: 'sk-or-other', HOME: h }, { provider: 'openrouter', default: 'm' }));
  assert.deepEqual(withEnv.credentials!.map((c) => c.source), ['manual', 'manual', 'env:OPENROUTER_API_KEY']);
  const ant = resolveRuntime(input(h, { HOME: h }, { provider: 'anthropic', default: 'claude-x' }));
  assert.deepEqual(ant.keys, ['sk-ant-fixture-1']);
  // Nothing in the env: auto-detection finds the pools (OpenRouter first, as for env keys).
  assert.equal(resolveRuntime(input(h, { HOME: h }, { default: 'm' })).provider, 'openrouter');
});

test('pool keys keep key scoping: an OpenRouter key never goes to another host', () => {
  const h = copyPythonHome();
  assert.throws(
    () => resolveRuntime(input(h, { HOME: h }, { provider: 'openrouter', default: 'm', base_url: 'https://evil.example/v1' })),
    (e: unknown) => e instanceof ResolveError && /No API key for OpenRouter/.test(e.message),
  );
});

test('suppressed sources, strategies and the active provider', () => {
  const h = copyPythonHome();
  const path = join(h, 'auth.json');
  const data = JSON.parse(readFileSync(path, 'utf8'));
  data.suppressed_sources = { openrouter: ['env:OPENROUTER_API_KEY'] };
  data.active_provider = 'anthropic';
  writeFileSync(path, JSON.stringify(data));
  const rt = resolveRuntime(input(h, { OPENROUTER_API_KEY: 'sk-or-shell', HOME: h }, { provider: 'openrouter', default: 'm' }, { poolStrategies: { openrouter: 'round_robin' } }));
  assert.deepEqual(rt.keys, ['sk-or-fixture-1', 'sk-or-fixture-2'], 'the suppressed env key stays out');
  assert.equal(rt.keyStrategy, 'round_robin');
  assert.equal(resolveRuntime(input(h, { OPENROUTER_API_KEY: 'sk-or-shell', HOME: h }, null)).provider, 'anthropic', 'active_provider before auto-detection');
});

test('OAuth sign-ins become pool credentials with their endpoint and a refresh', () => {
  const h = tempHome();
  const jwt = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600, scope: 'inference:invoke', email: 'ana@nous.test' });
  writeFileSync(
    join(h, 'auth.json'),
    JSON.stringify({
      version: 1,
      providers: {
        nous: { access_token: jwt, agent_key: jwt, refresh_token: 'rt', inference_base_url: 'https://inference-api.nousresearch.com/v1', portal_base_url: 'https://portal.nousresearch.com' },
        'openai-codex': { tokens: { access_token: fakeJwt({ exp: 1, email: 'c@x' }), refresh_token: 'r2' }, last_refresh: 'x', auth_mode: 'chatgpt' },
      },
      active_provider: 'nous',
    }),
  );
  const rt = resolveRuntime(input(h, { HOME: h }, { default: 'Hermes-4' }));
  assert.equal(rt.provider, 'nous');
  assert.equal(rt.apiKey, jwt);
  assert.equal(rt.credentials![0].label, 'ana@nous.test');
  assert.equal(rt.credentials![0].baseUrl, 'https://inference-api.nousresearch.com/v1');
  assert.equal(typeof rt.credentials![0].refresh, 'function');
  const codex = resolveRuntime(input(h, { HOME: h }, { provider: 'openai-codex', default: 'gpt-5-codex' }));
  assert.equal(codex.credentials![0].expiresAt, 1000, 'an expired Codex token is refreshed before use');
  // A portal reply naming a foreign inference host is not trusted.
  const evil = JSON.parse(readFileSync(join(h, 'auth.json'), 'utf8'));
  evil.providers.nous.inference_base_url = 'https://evil.example/v1';
  writeFileSync(join(h, 'auth.json'), JSON.stringify(evil));
  assert.equal(resolveRuntime(input(h, { HOME: h }, { default: 'Hermes-4' })).credentials![0].baseUrl, 'https://inference-api.nousresearch.com/v1');
});
