// Provider health routing through the client (src/llm/health.ts): a primary that goes silent or
// fails in a wave is left for the fallback and probed in the background; the next calls (this
// client's, and another client's sharing the registry) start on the fallback, announced once; once
// a probe is answered the primary is used again.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createLlmClient, type LlmClientOptions } from '../../src/llm/client.ts';
import { ProviderHealth, type TargetHealth } from '../../src/llm/health.ts';
import type { ProviderRuntime } from '../../src/llm/resolve.ts';
import type { StreamEvent } from '../../src/llm/types.ts';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEALTH_FILE, healthLine, providerHealthStore, readProviderHealth } from '../../src/session/provider-health.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { collect, request, runtime } from './_util.ts';

let fake: FakeLlm;
let proxy: FaultProxy;
before(async () => {
  fake = await startFakeLlm();
  proxy = await startFaultProxy(fake.url);
});
after(async () => {
  await proxy.close();
  await fake.close();
});
beforeEach(() => {
  fake.setHandler(null);
  proxy.setDefault(null);
});

const primary = (): ProviderRuntime => runtime({ baseUrl: proxy.openaiBaseUrl, provider: 'custom:primary', model: 'primary-model' });
const backup = (): ProviderRuntime => runtime({ baseUrl: fake.openaiBaseUrl, provider: 'custom:backup', model: 'backup-model', keys: ['kb'], apiKey: 'kb' });
const kinds = (events: StreamEvent[]) => events.map((e) => e.type).filter((t) => !t.endsWith('_delta'));
const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type);
const doneOf = (events: StreamEvent[]) => (events.at(-1) as Extract<StreamEvent, { type: 'done' }>).result;
const posts = () => proxy.requests.filter((r) => r.method === 'POST');
const isProbe = (body: string) => /"content":"ping"/.test(body) && !/"tools"/.test(body);

function client(health: ProviderHealth, o: Partial<LlmClientOptions> = {}) {
  return createLlmClient({ primary: primary(), fallbacks: [backup()], health, sleep: async () => {}, random: () => 0, firstByteMs: 1500, maxRetries: 1, ...o });
}

/** Resolves on the registry's next change that satisfies `pred`. */
function changed(h: ProviderHealth, pred: (t: TargetHealth) => boolean): Promise<TargetHealth> {
  return new Promise((resolve) => {
    const off = h.onChange((t) => {
      if (pred(t)) {
        off();
        resolve(t);
      }
    });
  });
}

describe('provider health routing', () => {
  test('a primary silent before the first byte is left at the deadline; later calls start on the fallback, announced once per client', async () => {
    const health = new ProviderHealth({ probeIntervalMs: 60_000 });
    try {
      proxy.setDefault({ stallBeforeFirstByte: true });
      const a = client(health);
      let events = await collect(a.stream(request()));
      assert.deepEqual(kinds(events), ['fallback', 'done']);
      assert.match(ofType(events, 'fallback')[0].reason, /first-byte deadline/);
      assert.equal(doneOf(events).provider, 'custom:backup');
      const h = health.get(primary())!;
      assert.equal(h.state, 'tripped');
      assert.equal(h.firstByteTimeouts, 1);
      const sent = posts().length;

      // The same client's next turn: straight to the fallback, nothing said again, nothing sent to the primary.
      a.beginTurn();
      events = await collect(a.stream(request()));
      assert.deepEqual(kinds(events), ['done']);
      assert.equal(doneOf(events).provider, 'custom:backup');

      // Another client of the process (another session): one line, then the fallback.
      const b = client(health);
      events = await collect(b.stream(request()));
      assert.deepEqual(kinds(events), ['fallback', 'done']);
      assert.match(ofType(events, 'fallback')[0].reason, /^custom:primary:primary-model is not answering \(no response within 1\.5s .*\); using custom:backup:backup-model until it answers again$/);
      assert.equal(posts().length, sent, 'the tripped primary got no request');
      assert.ok((health.get(backup())?.avgTtfbMs ?? -1) >= 0, 'the fallback’s time to first byte is tracked');
    } finally {
      health.stop();
    }
  });

  test('a 503 wave trips the primary; a probe during the wave fails, the first probe after it recovers it, and the next turn is on the primary', async () => {
    const health = new ProviderHealth({ probeIntervalMs: 300 });
    try {
      proxy.setDefault({ status: 503 });
      const c = client(health);
      let events = await collect(c.stream(request()));
      assert.deepEqual(kinds(events), ['retry', 'fallback', 'done']);
      assert.equal(doneOf(events).provider, 'custom:backup');
      assert.equal(health.get(primary())?.state, 'tripped');

      // A probe while the wave lasts: unanswered, still tripped.
      const failed = await new Promise<TargetHealth>((resolve) => {
        const t = setInterval(() => {
          const h = health.get(primary())!;
          if (h.lastProbe) {
            clearInterval(t);
            resolve(h);
          }
        }, 20);
      });
      assert.equal(failed.lastProbe?.ok, false);
      assert.equal(failed.state, 'tripped');
      const probesBefore = posts().filter((r) => isProbe(r.body)).length;
      assert.ok(probesBefore >= 1);

      // The wave ends: the next probe is answered and the primary is back.
      proxy.setDefault(null);
      const recovered = await changed(health, (t) => t.provider === 'custom:primary' && t.state === 'ok');
      assert.ok(recovered.recoveredAt);
      assert.equal(posts().filter((r) => isProbe(r.body)).length, probesBefore + 1, 'one probe after the wave');

      c.beginTurn();
      const before = posts().length;
      events = await collect(c.stream(request()));
      assert.deepEqual(kinds(events), ['fallback', 'done']);
      const back = ofType(events, 'fallback')[0];
      assert.equal(back.back, true);
      assert.equal(back.reason, 'custom:primary:primary-model answers again: back on it');
      assert.equal(back.from, 'custom:backup:backup-model');
      assert.equal(doneOf(events).provider, 'custom:primary');
      assert.equal(posts().length, before + 1);
      // Said once: the turn after is quiet.
      c.beginTurn();
      assert.deepEqual(kinds(await collect(c.stream(request()))), ['done']);
    } finally {
      health.stop();
    }
  });

  test('a client without fallbacks records health but never trips or probes', async () => {
    const health = new ProviderHealth({ probeIntervalMs: 50 });
    try {
      proxy.setDefault({ status: 503 });
      const probes = posts().filter((r) => isProbe(r.body)).length;
      const events = await collect(createLlmClient({ primary: primary(), health, sleep: async () => {}, maxRetries: 1 }).stream(request()));
      assert.equal(doneOf(events).stopReason, 'error');
      const h = health.get(primary())!;
      assert.equal(h.state, 'ok');
      assert.equal(h.errors, 2);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(posts().filter((r) => isProbe(r.body)).length, probes);
    } finally {
      health.stop();
    }
  });
});

describe('per-key health shared by the clients of a process', () => {
  const pooled = (): ProviderRuntime => runtime({ baseUrl: fake.openaiBaseUrl, provider: 'custom:pooled', model: 'pooled-model', keys: ['k1', 'k2'], apiKey: 'k1' });
  const keyClient = (health: ProviderHealth) => createLlmClient({ primary: pooled(), fallbacks: [backup()], health, sleep: async () => {}, random: () => 0, firstByteMs: 1000, maxRetries: 1 });
  const keysSince = (n: number) => fake.requests.slice(n).map((r) => r.apiKey);

  test('a key that gets 429 is skipped by every client for the next key of the same provider, before any fallback', async () => {
    const health = new ProviderHealth();
    try {
      fake.setHandler((r) => (r.apiKey === 'k1' ? { status: 429, error: 'key limit' } : { text: `answered with ${r.apiKey}` }));
      const n = fake.requests.length;
      const a = await collect(keyClient(health).stream(request()));
      assert.equal(doneOf(a).message.content, 'answered with k2');
      assert.equal(ofType(a, 'key_rotated').length, 1);
      assert.equal(ofType(a, 'fallback').length, 0, 'the provider’s next key, not the fallback');
      assert.deepEqual(keysSince(n), ['k1', 'k2']);
      // Another client (another session, an auxiliary task) starts on k2.
      const m = fake.requests.length;
      const b = await collect(keyClient(health).stream(request()));
      assert.equal(doneOf(b).message.content, 'answered with k2');
      assert.deepEqual(keysSince(m), ['k2']);
      const k1 = health.get(pooled())!.keys['key:1'];
      assert.ok(k1.benchedUntil! > Date.now() + 50 * 60_000, 'set aside for about the hour a 429 cools down');
      assert.match(k1.benchReason!, /429/);
      assert.match(healthLine(health.get(pooled())!), /key 1 set aside for (59|60) min \(HTTP 429/);
    } finally {
      health.stop();
    }
  });

  test('a key whose request goes unanswered is left at the first-byte deadline for the next key; other clients skip it; the fallback is not used', async () => {
    const health = new ProviderHealth();
    try {
      fake.setHandler((r) => (r.apiKey === 'k1' ? { hang: true } : { text: `answered with ${r.apiKey}` }));
      const n = fake.requests.length;
      const t0 = Date.now();
      const a = await collect(keyClient(health).stream(request()));
      assert.equal(doneOf(a).message.content, 'answered with k2');
      assert.ok(Date.now() - t0 < 5000, 'within the deadline plus one request');
      assert.equal(ofType(a, 'fallback').length, 0);
      assert.deepEqual(keysSince(n), ['k1', 'k2']);
      const m = fake.requests.length;
      const t1 = Date.now();
      assert.equal((await keyClient(health).stream(request()).result()).message.content, 'answered with k2');
      assert.ok(Date.now() - t1 < 900, 'no wait on the silent key');
      assert.deepEqual(keysSince(m), ['k2']);
      assert.equal(health.get(pooled())!.keys['key:1'].firstByteTimeouts, 1);
    } finally {
      health.stop();
    }
  });
});

describe('provider health on disk (provider_health.json)', () => {
  const target = { provider: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', model: 'm' };
  const err = { kind: 'timeout' as const, fault: 'first_byte' as const, message: 'no response within 30s of sending the request (first-byte deadline)', provider: 'openrouter', retryable: true };

  test('a healthy home gets no file; a trip is written at once, without secrets; another process honours a recent trip only', () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-health-'));
    let now = 1_000_000;
    const a = new ProviderHealth({ now: () => now, probeIntervalMs: 60_000 });
    a.attachStore(providerHealthStore(home, () => now));
    a.record(target, 'env:OPENROUTER_API_KEY', { ok: true, ttfbMs: 420 });
    assert.equal(existsSync(join(home, HEALTH_FILE)), false, 'nothing to tell yet');
    a.record(target, 'env:OPENROUTER_API_KEY', { ok: false, error: err });
    a.trip(target, err.message, async () => false);
    const secretUrl = { ...target, baseUrl: 'https://user:hunter2@proxy.example/v1?key=zzz-secret' };
    a.record(secretUrl, 'key:1', { ok: false, error: err });
    a.trip(secretUrl, err.message, async () => false);
    const text = readFileSync(join(home, HEALTH_FILE), 'utf8');
    assert.doesNotMatch(text, /sk-|hunter2|zzz-secret/);
    assert.match(text, /https:\/\/proxy\.example\/v1/);
    const t = readProviderHealth(home).find((x) => x.baseUrl === target.baseUrl)!;
    assert.equal(t.state, 'tripped');
    assert.equal(t.firstByteTimeouts, 1);
    assert.equal(t.keys['env:OPENROUTER_API_KEY'].requests, 2);
    a.stop();

    // A second process of the home, five minutes later: it avoids the target too.
    now += 5 * 60_000;
    const b = new ProviderHealth({ now: () => now });
    b.attachStore(providerHealthStore(home, () => now));
    assert.equal(b.isTripped(target), true);
    // A third, after the trip has gone stale (nobody probed it back): it tries the target again.
    now += 10 * 60_000;
    const c = new ProviderHealth({ now: () => now });
    c.attachStore(providerHealthStore(home, () => now));
    assert.equal(c.isTripped(target), false);
  });
});
