// A Session's own settings (src/session/session-settings.ts): sessions that share one config object
// (the gateway's chats, ACP's sessions) each keep what a slash command changed for them; the shared
// object is never written.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { SessionSettings } from '../../src/session/session-settings.ts';
import { loadConfig } from '../../src/state/config.ts';
import { tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

describe('session settings', () => {
  it('set copies the sections on its path and leaves the shared config as it was', () => {
    const shared = { agent: { reasoning_effort: '', max_turns: 90 }, display: { timestamps: false } } as never;
    const s = new SessionSettings(shared, { toolProgress: 'all', showReasoning: true, busyInputMode: 'interrupt' });
    s.set('agent.reasoning_effort', 'high');
    s.set('approvals.mode', 'smart');
    assert.equal(s.config.agent.reasoning_effort, 'high');
    assert.equal(s.config.agent.max_turns, 90, 'the rest of the section is kept');
    assert.equal(s.config.approvals?.mode, 'smart');
    assert.deepEqual(shared, { agent: { reasoning_effort: '', max_turns: 90 }, display: { timestamps: false } });
    assert.equal(s.config.display, (shared as { display: unknown }).display, 'an untouched section is shared, not copied');
    assert.throws(() => s.set('agent..x', 1), /not a settings path/);
  });

  it('two sessions on one config: /reasoning, /approvals, /tools disable and /timestamps change only the session they ran in', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    const env = { ...process.env, HERMES_HOME: home, HOME: home };
    const config = loadConfig(home, env).config;
    const before = JSON.stringify(config);
    const mk = () => new Session({ home, config, env, cwd: home, platform: 'telegram', interactive: false, seedBundledSkills: false, backgroundTasks: false });
    const a = mk();
    const b = mk();
    const registry = createCommandRegistry({ home });
    const run = async (line: string, surface: 'gateway' | 'cli' = 'gateway') => (await runCommand(registry, line, { session: a, surface, hooks: {} }))?.output ?? '';
    await run('/reasoning high');
    await run('/approvals smart');
    await run('/tools disable web');
    await run('/timestamps on', 'cli');
    assert.equal(a.settings.config.agent.reasoning_effort, 'high');
    assert.equal(a.settings.config.approvals?.mode, 'smart');
    assert.ok(a.settings.config.agent.disabled_toolsets?.includes('web'));
    assert.equal((a.settings.config.display as Record<string, unknown>).timestamps, true);
    assert.equal(JSON.stringify(config), before, 'the shared config is untouched');
    assert.equal(b.settings.config.agent.reasoning_effort || '', '');
    assert.notEqual(b.settings.config.approvals?.mode, 'smart');
    assert.ok(!b.settings.config.agent.disabled_toolsets?.includes('web'));
    assert.ok(!b.prefs.timestamps && a.prefs.timestamps);

    let n = fake.requests.length;
    fake.enqueue({ text: 'a.' });
    await a.prompt('hi');
    assert.equal(fake.requests[n].body.reasoning_effort, 'high', 'the session that set it sends it');
    n = fake.requests.length;
    fake.enqueue({ text: 'b.' });
    await b.prompt('hi');
    assert.equal(fake.requests[n].body.reasoning_effort, undefined, 'the other does not');
    await Promise.all([a.close(), b.close()]);
  });
});
