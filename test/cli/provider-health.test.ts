// Provider health through the real binary: a primary that hangs before its first byte is left at
// the deadline for the fallback, `hermes status` says so, and the next process of the same home
// starts on the fallback at once (one line); in the REPL, a 503 wave trips the primary, and once it
// answers a background probe the next turn is on the primary again.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startDashboardProcess } from '../helpers/dashboard.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

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
  // Each provider answers in its own words, so the tests see who answered; side requests get a title.
  fake.setHandler((r) => {
    if (!(Array.isArray(r.body.tools) && r.body.tools.length)) return { text: 'A title' };
    return { text: r.body.model === 'backup-model' ? 'Answered by the backup.' : 'Answered by the primary.' };
  });
  proxy.setDefault(null);
});

function home(): string {
  const h = tempHome();
  writeFileSync(
    join(h, 'config.yaml'),
    `model:\n  provider: primary\n  default: test-model\n` +
      `providers:\n  primary:\n    base_url: ${proxy.openaiBaseUrl}\n    api_key: primary-key\n    first_byte_timeout_seconds: 1.5\n` +
      `  backup:\n    base_url: ${fake.openaiBaseUrl}\n    api_key: backup-key\n` +
      `fallback_providers:\n  - provider: backup\n    model: backup-model\n` +
      `agent:\n  api_max_retries: 1\n`,
  );
  return h;
}

const turnPosts = () => proxy.requests.filter((r) => r.method === 'POST' && /"tools"/.test(r.body)).length;
const probes = () => proxy.requests.filter((r) => r.method === 'POST' && /"content":"ping"/.test(r.body));

describe('provider health', () => {
  it('a primary hanging before the first byte: the turn completes on the fallback; status shows it; the next run starts there', async () => {
    const h = home();
    proxy.setDefault({ stallBeforeFirstByte: true });
    let r = await hermes(['chat', '-q', 'question'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Answered by the backup.\n');
    assert.match(r.stderr, /^⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: no response within 1\.5s/m);

    const status = await hermes(['status'], { home: h });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^Health\s+custom:primary:test-model — left for the fallback \d+s ago: no response within 1\.5s .*\((probing|avoided until a probe is answered)/m);
    assert.match(status.stdout, /^\s+custom:backup:backup-model — ok · first byte [\d.]+ m?s avg · 1 request\(s\)$/m);
    const json = JSON.parse((await hermes(['status', '--json'], { home: h })).stdout);
    const primary = json.provider_health.find((t: { provider: string }) => t.provider === 'custom:primary');
    assert.equal(primary.state, 'tripped');
    assert.equal(primary.first_byte_timeouts, 1);
    assert.ok(!JSON.stringify(json.provider_health).includes('primary-key'), 'no key in the health record');

    // The dashboard's status has it too.
    const dash = await startDashboardProcess(h);
    try {
      const res = await fetch(`${dash.origin}/api/status`, { headers: { authorization: `Bearer ${dash.token}` } });
      const body = (await res.json()) as { providerHealth: { provider: string; state: string; line: string }[] };
      const p = body.providerHealth.find((x) => x.provider === 'custom:primary');
      assert.equal(p?.state, 'tripped');
      assert.match(p?.line ?? '', /left for the fallback/);
    } finally {
      await dash.stop();
    }

    // Another process of the same home knows the primary is silent: straight to the fallback, one line.
    const before = turnPosts();
    r = await hermes(['chat', '-q', 'again'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Answered by the backup.\n');
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('⇄'));
    assert.deepEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /custom:primary:test-model is not answering \(no response within 1\.5s .*\); using custom:backup:backup-model until it answers again$/);
    assert.equal(turnPosts(), before, 'the silent primary was not tried again');
  });

  it('a key that gets 429 is left for the next key of the same provider before any fallback; status shows the key set aside', async () => {
    const h = tempHome();
    writeFileSync(
      join(h, 'config.yaml'),
      `model:\n  provider: pooled\n  default: test-model\nproviders:\n  pooled:\n    base_url: ${fake.openaiBaseUrl}\n    key_env: POOL_KEYS\n  backup:\n    base_url: ${fake.openaiBaseUrl}\n    api_key: backup-key\nfallback_providers:\n  - provider: backup\n    model: backup-model\n`,
    );
    fake.setHandler((r) => (r.apiKey === 'pool-key-one' ? { status: 429, error: 'this key is rate limited' } : { text: `Answered with ${r.apiKey}.` }));
    const env = { POOL_KEYS: 'pool-key-one,pool-key-two' };
    const n = fake.requests.length;
    const r = await hermes(['chat', '-q', 'question'], { home: h, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Answered with pool-key-two.\n');
    assert.deepEqual(fake.requests.slice(n).map((q) => q.apiKey), ['pool-key-one', 'pool-key-two'], 'the next key at once: no backoff, no fallback');
    assert.doesNotMatch(r.stderr, /⇄ switching/);
    const status = await hermes(['status'], { home: h, env });
    assert.match(status.stdout, /custom:pooled:test-model — ok .*key 1 set aside for (59|60) min \(HTTP 429/);
    assert.doesNotMatch(status.stdout, /pool-key-one/);
  });

  it('REPL: a 503 wave trips the primary; after the wave one probe brings it back and the next turn is the primary’s', { skip: tmuxAvailable() ?? false }, async () => {
    const h = home();
    proxy.setDefault({ status: 503 });
    const t = startHermes([], { home: h, env: { HERMES_PROVIDER_PROBE_INTERVAL: '1' } });
    try {
      await t.waitFor(/❯/);
      t.type('first question');
      t.keys('Enter');
      await t.waitFor(/Answered by the backup\./, { timeoutMs: 30_000 });
      assert.match(t.screen(), /⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: HTTP 503/);
      // The conversation's title (an auxiliary task) goes to the fallback too, without trying the tripped primary.
      const titled = performance.now() + 20_000;
      while (!fake.requests.some((r) => !r.body.tools?.length && r.body.model === 'backup-model') && performance.now() < titled) await new Promise((r) => setTimeout(r, 100));
      assert.ok(fake.requests.some((r) => !r.body.tools?.length && r.body.model === 'backup-model'), 'the title was asked of the fallback');
      assert.equal(proxy.requests.filter((r) => r.method === 'POST' && !/"tools"/.test(r.body) && !/"content":"ping"/.test(r.body)).length, 0, 'no auxiliary request reached the tripped primary');

      const during = probes().length;
      proxy.setDefault(null);
      const deadline = performance.now() + 30_000;
      while (!probes().slice(during).some((p) => p.fault === null) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const after = probes().slice(during);
      assert.equal(after.length, 1, 'one probe after the wave');
      // Give the probe's answer a moment to be read before the next turn.
      await new Promise((r) => setTimeout(r, 500));

      const mark = t.mark();
      t.type('second question');
      t.keys('Enter');
      await t.waitFor(/Answered by the primary\./, { after: mark, timeoutMs: 30_000 });
      assert.match(t.screen(), /⇄ custom:primary:test-model answers again: back on it \(was on custom:backup:backup-model\)/);

      const status = await hermes(['status'], { home: h });
      assert.match(status.stdout, /custom:primary:test-model — ok .* answering again since/);
    } finally {
      t.kill();
    }
  });
});
