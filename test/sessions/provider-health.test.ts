// Provider health inside one Session: once the conversation has left a silent primary, an
// auxiliary task (here the title model, which is the main model) starts on the fallback too instead
// of waiting out the deadline again.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
let proxy: FaultProxy;
before(async () => {
  fake = await startFakeLlm();
  fake.setHandler((r) => ({ text: r.body.model === 'backup-model' ? 'Answered by the backup.' : 'Answered by the primary.' }));
  proxy = await startFaultProxy(fake.url);
});
after(async () => {
  await proxy.close();
  await fake.close();
});

test('an auxiliary task does not wait on a primary the conversation left: it starts on the fallback', async () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-health-'));
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: primary\n  default: test-model\n` +
      `providers:\n  primary:\n    base_url: ${proxy.openaiBaseUrl}\n    api_key: k\n    first_byte_timeout_seconds: 1\n` +
      `  backup:\n    base_url: ${fake.openaiBaseUrl}\n    api_key: b\n` +
      `fallback_providers:\n  - provider: backup\n    model: backup-model\n` +
      `toolsets: [todo]\n`,
  );
  const env = { HOME: home, HERMES_HOME: home };
  const s = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: false });
  try {
    proxy.setDefault({ stallBeforeFirstByte: true });
    const r = await s.prompt('question');
    assert.equal(r.finalText, 'Answered by the backup.');
    const sent = proxy.requests.length;

    // The next turn starts on the primary again; an auxiliary call made now goes straight to the fallback.
    s.llm.beginTurn();
    const aux = s.services.auxiliary?.('title_generation');
    assert.ok(aux, 'the title model resolves');
    const out = aux.stream({ model: aux.model, system: 'Name the conversation.', messages: [{ role: 'user', content: 'question' }], tools: [] });
    const res = await out.result();
    assert.equal(res.stopReason, 'stop');
    assert.equal(res.message.content, 'Answered by the backup.');
    assert.equal(proxy.requests.length, sent, 'the silent primary got no auxiliary request');
  } finally {
    await s.close('test');
  }
});
