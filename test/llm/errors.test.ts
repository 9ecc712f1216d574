import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import * as AnthropicErrors from '@anthropic-ai/sdk';
import { describeError, extractProviderMessage, parseRetryAfter, redact, toProviderError } from '../../src/llm/errors.ts';
import type { ProviderError } from '../../src/llm/types.ts';
import { runtime } from './_util.ts';

const rt = runtime({ baseUrl: 'https://openrouter.ai/api/v1', provider: 'openrouter', keys: ['sk-or-v1-secretsecretsecret'], apiKey: 'sk-or-v1-secretsecretsecret', keyEnv: 'OPENROUTER_API_KEY', model: 'anthropic/claude-sonnet-4.5' });

describe('parseRetryAfter', () => {
  test('seconds, HTTP date and retry-after-ms', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '12' })), 12_000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '1.5' })), 1500);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), () => now), 30_000);
    assert.equal(parseRetryAfter({ 'Retry-After': '3' }), 3000);
    assert.equal(parseRetryAfter(new Headers()), undefined);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' })), undefined);
  });
});

describe('toProviderError', () => {
  test('OpenAI SDK errors by status, with the body’s message and Retry-After', () => {
    const e = toProviderError(APIError.generate(429, { error: { message: 'Rate limit reached for requests' } }, undefined, new Headers({ 'retry-after': '20' })), rt);
    assert.equal(e.kind, 'rate_limit');
    assert.equal(e.status, 429);
    assert.equal(e.message, 'Rate limit reached for requests');
    assert.equal(e.retryAfterMs, 20_000);
    assert.equal(e.retryable, true);
    assert.equal(e.provider, 'openrouter');
    const kinds = [401, 402, 403, 404, 408, 500, 502, 503, 418].map(
      (s) => toProviderError(APIError.generate(s, { error: { message: 'm' } }, undefined, new Headers()), rt).kind,
    );
    assert.deepEqual(kinds, ['auth', 'billing', 'forbidden', 'not_found', 'timeout', 'server', 'server', 'server', 'bad_request']);
  });

  test('OpenRouter: the upstream provider’s words from metadata.raw are kept', () => {
    const body = {
      error: {
        message: 'Provider returned error',
        code: 400,
        metadata: { provider_name: 'Anthropic', raw: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' } }) },
      },
    };
    const e = toProviderError(APIError.generate(400, body, undefined, new Headers()), rt);
    assert.equal(e.kind, 'context_length');
    assert.equal(e.message, 'Provider returned error (Anthropic: prompt is too long: 250000 tokens > 200000 maximum)');
    assert.deepEqual(extractProviderMessage({ error: { message: 'x', metadata: { raw: 'upstream said no' } } }).message, 'x (upstream said no)');
  });

  test('Anthropic SDK errors (whole body as `error`), including a mid-stream overloaded event without status', () => {
    const e = toProviderError(AnthropicErrors.APIError.generate(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, undefined, new Headers()), rt);
    assert.equal(e.kind, 'auth');
    assert.equal(e.message, 'invalid x-api-key');
    const mid = toProviderError(new AnthropicErrors.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, new Headers()), rt);
    assert.equal(mid.kind, 'server');
    assert.equal(mid.retryable, true);
    assert.equal(mid.message, 'Overloaded');
  });

  test('non-JSON bodies (HTML gateways) become one short line', () => {
    const e = toProviderError(APIError.generate(502, undefined, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', new Headers()), rt);
    assert.equal(e.kind, 'server');
    assert.equal(e.message, '502 Bad Gateway');
  });

  test('transport failures: timeout, abort, refused connection, cut stream', () => {
    assert.equal(toProviderError(new APIConnectionTimeoutError(), rt).kind, 'timeout');
    assert.equal(toProviderError(new APIUserAbortError(), rt).kind, 'aborted');
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    const e = toProviderError(refused, rt);
    assert.equal(e.kind, 'connection');
    assert.match(e.message, /ECONNREFUSED/);
    assert.equal(toProviderError(new TypeError('terminated'), rt).kind, 'connection');
    assert.equal(toProviderError(new SyntaxError('Unexpected token'), rt).kind, 'invalid_response');
    assert.equal(toProviderError('weird', rt).kind, 'connection');
  });

  test('keys never appear in the message', () => {
    const e = toProviderError(APIError.generate(401, { error: { message: 'Incorrect API key provided: sk-or-v1-secretsecretsecret' } }, undefined, new Headers()), rt);
    assert.ok(!e.message.includes('secretsecret'));
    const masked = redact('token sk-proj-abcdefghijklmnopqrstuvwxyz used');
    assert.match(masked, /^token sk-[\w-]{0,6}\*\*\* used$/);
    assert.ok(!masked.includes('ghijklmnop'));
  });
});

describe('describeError', () => {
  const err = (over: Partial<ProviderError>): ProviderError => ({ kind: 'server', message: 'm', provider: 'openrouter', retryable: true, ...over });
  test('one line: provider, status, the provider’s message and the fix', () => {
    const lines = [
      describeError(err({ kind: 'auth', status: 401, message: 'User not found.' }), rt),
      describeError(err({ kind: 'billing', status: 402, message: 'Insufficient credits' }), rt),
      describeError(err({ kind: 'rate_limit', status: 429, message: 'slow', retryAfterMs: 30_000 }), rt),
      describeError(err({ kind: 'not_found', status: 404, message: 'No endpoints found', model: 'foo/bar' }), rt),
      describeError(err({ kind: 'context_length', status: 400, message: 'too long' }), rt),
      describeError(err({ kind: 'timeout', message: 'no data from the provider for 180s', baseUrl: 'https://openrouter.ai/api/v1' }), rt),
      describeError(err({ kind: 'connection', provider: 'custom', message: 'connect ECONNREFUSED', baseUrl: 'http://localhost:11434/v1' })),
    ];
    assert.equal(lines[0], 'OpenRouter (HTTP 401): User not found — check OPENROUTER_API_KEY in ~/.hermes/.env or run `hermes setup`.');
    assert.match(lines[1], /^OpenRouter \(HTTP 402\): Insufficient credits — add credits/);
    assert.match(lines[2], /wait 30s and retry/);
    assert.match(lines[3], /check the model name 'foo\/bar'/);
    assert.match(lines[4], /\/compress/);
    assert.match(lines[5], /HERMES_STREAM_STALE_TIMEOUT/);
    assert.match(lines[6], /^Custom endpoint: connect ECONNREFUSED — the server at http:\/\/localhost:11434\/v1 is unreachable.*local server is running\.$/);
    for (const l of lines) {
      assert.ok(!l.includes('\n'));
      assert.ok(!l.includes('secretsecret'));
    }
  });

  test('points at where the key came from', () => {
    const cfgRt = { ...rt, keyEnv: undefined, source: 'config:model.api_key' };
    assert.match(describeError(err({ kind: 'auth', status: 401 }), cfgRt), /check model\.api_key in ~\/\.hermes\/config\.yaml/);
    const named = { ...rt, provider: 'custom:lab', keyEnv: 'LAB_KEY' };
    assert.match(describeError(err({ kind: 'auth', status: 401, provider: 'custom:lab' }), named), /^lab \(custom endpoint\) \(HTTP 401\).*LAB_KEY/);
  });
});
