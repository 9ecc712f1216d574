// A primary left mid-turn for a 503 is used again within the same turn once it answers a probe:
// the next model call of the turn goes to the primary, with one line saying so.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

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

describe('provider health within a turn', () => {
  it('a 503 sends the turn to the fallback; after one answered probe the next call of the turn is the primary’s', async () => {
    const h = tempHome();
    writeFileSync(
      join(h, 'config.yaml'),
      `model:\n  provider: primary\n  default: test-model\n` +
        `providers:\n  primary:\n    base_url: ${proxy.openaiBaseUrl}\n    api_key: primary-key\n` +
        `  backup:\n    base_url: ${fake.openaiBaseUrl}\n    api_key: backup-key\n` +
        `fallback_providers:\n  - provider: backup\n    model: backup-model\n` +
        `agent:\n  api_max_retries: 0\n`,
    );
    const probes = () => proxy.requests.filter((r) => r.method === 'POST' && /"content":"ping"/.test(r.body));
    fake.setHandler((r) => {
      if (!(Array.isArray(r.body.tools) && r.body.tools.length)) return { text: 'pong' };
      // The backup's tool call arrives once the primary has answered a probe (the wave is over).
      if (r.body.model === 'backup-model') return { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'x', status: 'pending' }] } }], delayMs: 1000 };
      return { text: 'Finished by the primary.' };
    });
    proxy.enqueue({ status: 503 });
    const waiting = hermes(['chat', '-q', 'go', '-t', 'todo'], { home: h, env: { HERMES_PROVIDER_PROBE_INTERVAL: '0.05' } });
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Finished by the primary.\n');
    assert.match(r.stderr, /⇄ switching from custom:primary:test-model to fallback custom:backup:backup-model: HTTP 503/);
    assert.match(r.stderr, /⇄ custom:primary:test-model answers again: back on it \(was on custom:backup:backup-model\)/);
    assert.equal(probes().length, 1, 'one probe brought it back');
  });
});
