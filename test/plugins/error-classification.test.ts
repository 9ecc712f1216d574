// transform_api_error_classification through the real binary: a provider plugin reclassifies the
// fake provider's failures before the client decides (Hermes's contract: first valid reason wins,
// invalid answers are ignored, hints override retry/fallback, the message replaces the provider's).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { sanitizeClassification } from '../../src/plugins/error-classification.ts';

const PLUGIN = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
const LOG = join(import.meta.dirname, 'seen.jsonl');
export function register(ctx) {
  // Declines everything: must not shadow the real answer.
  ctx.register_hook('transform_api_error_classification', () => null);
  // An invalid reason: ignored.
  ctx.register_hook('transform_api_error_classification', () => ({ reason: 'not-a-reason' }));
  ctx.register_hook('transform_api_error_classification', (p) => {
    appendFileSync(LOG, JSON.stringify({ ...p, error: typeof p.error }) + '\\n');
    if (p.status_code === 403 && p.error_message.includes('plan is warming up')) return { reason: 'rate_limit', retryable: true };
    if (p.status_code === 500 && p.error_message.includes('quota wall')) return { reason: 'billing', retryable: false, should_fallback: false, message: 'the Acme plan ran out: top it up at acme.example' };
    return null;
  });
  // A second valid answer: skipped (the first in registration order wins).
  ctx.register_hook('transform_api_error_classification', (p) => (p.status_code === 500 ? { reason: 'server_error', retryable: true } : null));
}
`;

function pluginHome(url: string): string {
  const h = homeWithModel(url, 'plugins:\n  enabled: [acme]\n');
  const dir = join(h, 'plugins', 'acme');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: acme\nversion: 1.0.0\ndescription: Acme provider error quirks\nkind: standalone\n');
  writeFileSync(join(dir, 'index.mjs'), PLUGIN);
  return h;
}

const seen = (h: string) => {
  const f = join(h, 'plugins', 'acme', 'seen.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
};

describe('transform_api_error_classification', () => {
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
  });
  after(() => llm.close());

  it('a 403 the plugin calls a rate limit is retried and the turn answers; the payload has Hermes’s fields', async () => {
    const h = pluginHome(llm.openaiBaseUrl);
    llm.requests.length = 0;
    llm.enqueue({ status: 403, error: 'Your plan is warming up', retryAfter: 0 }, { text: 'answer after the retry' });
    const r = await hermes(['chat', '-q', 'hello there'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /answer after the retry/);
    assert.equal(llm.requests.length, 2, 'retried once');
    const [p] = seen(h);
    assert.equal(p.provider, 'custom');
    assert.equal(p.model, 'test-model');
    assert.equal(p.status_code, 403);
    assert.equal(p.error_message, 'Your plan is warming up');
    assert.equal(p.error_code, 'invalid_request_error');
    assert.equal(p.error_type, 'invalid_request_error');
    assert.equal((p.error_body as { error: { message: string } }).error.message, 'Your plan is warming up');
    assert.equal(p.error, 'object');
    assert.ok((p.num_messages as number) >= 1 && (p.approx_tokens as number) > 0, JSON.stringify(p));
  });

  it('without the plugin the same 403 is final (the built-in classification)', async () => {
    const h = homeWithModel(llm.openaiBaseUrl);
    llm.requests.length = 0;
    llm.enqueue({ status: 403, error: 'Your plan is warming up', retryAfter: 0 });
    const r = await hermes(['chat', '-q', 'hello there'], { home: h });
    assert.notEqual(r.code, 0);
    assert.equal(llm.requests.length, 1);
  });

  it('a 500 the plugin calls billing is not retried and the person reads the plugin’s message', async () => {
    const h = pluginHome(llm.openaiBaseUrl);
    llm.requests.length = 0;
    llm.enqueue({ status: 500, error: 'quota wall hit' });
    const r = await hermes(['chat', '-q', 'hello there'], { home: h });
    assert.notEqual(r.code, 0);
    assert.equal(llm.requests.length, 1, 'no retry');
    assert.match(r.stdout + r.stderr, /the Acme plan ran out: top it up at acme\.example/);
    assert.match(r.stderr, /1 valid classification\(s\) after plugin:acme's were skipped/);
    assert.match(r.stderr, /add credits/, 'described as billing');
  });

  it('answers are sanitized as Hermes does', () => {
    assert.equal(sanitizeClassification(null), undefined);
    assert.equal(sanitizeClassification({ reason: 'nope' }), undefined);
    assert.deepEqual(sanitizeClassification({ reason: ' Rate_Limit ', retryable: 0, should_fallback: 'yes', extra: 1 }), { reason: 'rate_limit', retryable: false, should_fallback: true });
    assert.equal(sanitizeClassification({ reason: 'unknown', message: 'x'.repeat(600) })?.message?.length, 500);
  });
});
