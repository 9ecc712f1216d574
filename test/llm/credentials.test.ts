// The credential pool's decisions: strategies, Hermes's bench lengths, a bench recorded by another
// process, OAuth refresh (before expiry, once after a 401), and what it reports for persistence.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CredentialPool, exhaustedTtlMs, OK_STATUS, type CredentialStatus, type PoolCredential } from '../../src/llm/credentials.ts';

const cred = (id: string, over: Partial<PoolCredential> = {}): PoolCredential => ({ id, label: id, source: 'manual', authType: 'api_key', key: `key-${id}`, priority: 0, ...over });

describe('CredentialPool', () => {
  test('bench lengths follow Hermes: 401 5 min, 429 1 h, others 1 h, a sole credential 1 min unless billing', () => {
    assert.equal(exhaustedTtlMs(401), 5 * 60_000);
    assert.equal(exhaustedTtlMs(429), 60 * 60_000);
    assert.equal(exhaustedTtlMs(402), 60 * 60_000);
    assert.equal(exhaustedTtlMs(429, { sole: true }), 60_000);
    assert.equal(exhaustedTtlMs(500, { sole: true }), 60_000);
    assert.equal(exhaustedTtlMs(402, { sole: true }), 60 * 60_000);
    assert.equal(exhaustedTtlMs(403, { sole: true, billing: true }), 60 * 60_000);
    assert.equal(exhaustedTtlMs(401, { sole: true }), 5 * 60_000);
  });

  test('fill_first stays on one credential; a failure benches it, reports it, and the next takes over', () => {
    let now = 1_000_000_000;
    const seen: [string, CredentialStatus][] = [];
    const p = new CredentialPool([cred('a'), cred('b')], { now: () => now, hooks: { onStatus: (c, s) => seen.push([c.id, s]) } });
    assert.equal(p.select()!.cred.id, 'a');
    assert.equal(p.select()!.cred.id, 'a');
    p.markFailed(0, 'rate_limit', { message: 'slow down', code: 429 });
    assert.deepEqual(seen.map(([id, s]) => [id, s.lastStatus, s.lastErrorCode, s.lastStatusAt]), [['a', 'exhausted', 429, now / 1000]]);
    assert.equal(p.select()!.cred.id, 'b');
    now += 60 * 60_000 + 1;
    assert.equal(p.peek()!.cred.id, 'b', 'fill_first stays where it is');
    p.markFailed(1, 'auth');
    assert.equal(p.select()!.cred.id, 'a', 'the hour is over');
    p.markSuccess(0);
    assert.equal(seen.at(-1)![0], 'a');
    assert.equal(seen.at(-1)![1].lastStatus, 'ok', 'a bench that ended is cleared on success');
  });

  test('a provider-dated reset wins over the default bench', () => {
    const now = 2_000_000_000;
    const p = new CredentialPool([cred('a'), cred('b')], { now: () => now });
    p.markFailed(0, 'rate_limit', { resetAt: now + 30_000 });
    assert.equal(p.nextAvailableAt(), now + 30_000);
  });

  test('a bench another process saved (auth.json fields) is honoured from the start', () => {
    const now = 1_700_000_000_000;
    const benched: CredentialStatus = { ...OK_STATUS, lastStatus: 'exhausted', lastStatusAt: now / 1000 - 600, lastErrorCode: 429 };
    const p = new CredentialPool([cred('a', { status: benched }), cred('b')], { now: () => now });
    assert.equal(p.select()!.cred.id, 'b');
    const old = new CredentialPool([cred('a', { status: { ...benched, lastStatusAt: now / 1000 - 3601 } }), cred('b')], { now: () => now });
    assert.equal(old.select()!.cred.id, 'a', 'an expired bench no longer counts');
    const dead = new CredentialPool([cred('a', { status: { ...OK_STATUS, lastStatus: 'dead' } })], { now: () => now });
    assert.equal(dead.select(), undefined);
  });

  test('round_robin, least_used and random', () => {
    const rr = new CredentialPool([cred('a'), cred('b'), cred('c')], { strategy: 'round_robin' });
    assert.deepEqual([0, 1, 2, 3].map(() => rr.select()!.cred.id), ['a', 'b', 'c', 'a']);
    const lu = new CredentialPool([cred('a', { requestCount: 5 }), cred('b', { requestCount: 1 }), cred('c', { requestCount: 3 })], { strategy: 'least_used' });
    assert.deepEqual([0, 1, 2, 3].map(() => lu.select()!.cred.id), ['b', 'b', 'b', 'c'], 'ties go to the earlier one');
    const rnd = new CredentialPool([cred('a'), cred('b'), cred('c')], { strategy: 'random', random: () => 0.99 });
    assert.equal(rnd.select()!.cred.id, 'c');
  });

  test('OAuth: refreshed before it expires, forced after a 401, refreshes shared by concurrent callers', async () => {
    let now = 5_000_000;
    let calls = 0;
    const c = cred('o', {
      authType: 'oauth',
      key: 'old',
      expiresAt: now + 60_000,
      refresh: async (force) => {
        calls++;
        return { key: `new${calls}${force ? 'f' : ''}`, expiresAt: now + 3_600_000, baseUrl: 'https://inference.example/v1' };
      },
    });
    const refreshed: string[] = [];
    const p = new CredentialPool([c], { now: () => now, hooks: { onRefreshed: (x) => refreshed.push(x.key) } });
    assert.equal(await p.ensureFresh(0), true);
    assert.equal(p.creds[0].key, 'new1', 'within two minutes of expiry: refreshed');
    assert.equal(p.creds[0].baseUrl, 'https://inference.example/v1');
    assert.equal(await p.ensureFresh(0), true);
    assert.equal(calls, 1, 'fresh now: no second refresh');
    const [x, y] = await Promise.all([p.refresh(0), p.refresh(0)]);
    assert.ok(x && y);
    assert.equal(calls, 2, 'one refresh for two callers');
    assert.deepEqual(refreshed, ['new1', 'new2f']);
    now += 1;
    const failing = new CredentialPool([cred('z', { refresh: async () => null })]);
    assert.equal(await failing.refresh(0), false);
  });

  test('duplicate keys count once; plain strings still work', () => {
    const p = new CredentialPool(['k1', 'k2', 'k1']);
    assert.equal(p.size, 2);
    assert.deepEqual(p.keys, ['k1', 'k2']);
  });
});
